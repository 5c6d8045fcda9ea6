build-bench/recorder/session.o: recorder/session.c recorder/session.h \
 recorder/record_opts.h numa/topology.h recorder/evlist.h \
 recorder/evparse.h recorder/pfile.h recorder/recbuf.h ringbuf/ringbuf.h \
 recorder/log.h recorder/merge.h recorder/synth.h recorder/sysinfo.h \
 recorder/target.h recorder/workload.h recorder/writer.h recorder/shard.h
recorder/session.h:
recorder/record_opts.h:
numa/topology.h:
recorder/evlist.h:
recorder/evparse.h:
recorder/pfile.h:
recorder/recbuf.h:
ringbuf/ringbuf.h:
recorder/log.h:
recorder/merge.h:
recorder/synth.h:
recorder/sysinfo.h:
recorder/target.h:
recorder/workload.h:
recorder/writer.h:
recorder/shard.h:
