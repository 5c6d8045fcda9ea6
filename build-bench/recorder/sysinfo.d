build-bench/recorder/sysinfo.o: recorder/sysinfo.c recorder/sysinfo.h \
 recorder/pfile.h
recorder/sysinfo.h:
recorder/pfile.h:
