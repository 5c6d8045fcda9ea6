build-bench/recorder/main.o: recorder/main.c numa/topology.h \
 recorder/log.h recorder/merge.h recorder/record_opts.h \
 recorder/session.h recorder/sysinfo.h recorder/pfile.h
numa/topology.h:
recorder/log.h:
recorder/merge.h:
recorder/record_opts.h:
recorder/session.h:
recorder/sysinfo.h:
recorder/pfile.h:
