build-bench/recorder/pfile_feat.o: recorder/pfile_feat.c recorder/pfile.h
recorder/pfile.h:
