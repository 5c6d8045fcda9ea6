build-bench/recorder/writer.o: recorder/writer.c recorder/writer.h \
 numa/topology.h recorder/shard.h ringbuf/ringbuf.h
recorder/writer.h:
numa/topology.h:
recorder/shard.h:
ringbuf/ringbuf.h:
