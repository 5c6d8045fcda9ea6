build-bench/recorder/pfile_write.o: recorder/pfile_write.c \
 recorder/pfile.h
recorder/pfile.h:
