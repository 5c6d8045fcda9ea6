build-bench/recorder/pfile_read.o: recorder/pfile_read.c recorder/pfile.h
recorder/pfile.h:
