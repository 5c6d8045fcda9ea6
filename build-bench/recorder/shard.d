build-bench/recorder/shard.o: recorder/shard.c recorder/shard.h
recorder/shard.h:
