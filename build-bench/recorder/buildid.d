build-bench/recorder/buildid.o: recorder/buildid.c recorder/buildid.h \
 recorder/pfile.h
recorder/buildid.h:
recorder/pfile.h:
