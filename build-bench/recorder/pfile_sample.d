build-bench/recorder/pfile_sample.o: recorder/pfile_sample.c \
 recorder/pfile.h
recorder/pfile.h:
