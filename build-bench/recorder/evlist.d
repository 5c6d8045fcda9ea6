build-bench/recorder/evlist.o: recorder/evlist.c recorder/evlist.h \
 recorder/evparse.h recorder/pfile.h recorder/recbuf.h \
 recorder/record_opts.h ringbuf/ringbuf.h
recorder/evlist.h:
recorder/evparse.h:
recorder/pfile.h:
recorder/recbuf.h:
recorder/record_opts.h:
ringbuf/ringbuf.h:
