build-bench/recorder/merge.o: recorder/merge.c recorder/merge.h \
 recorder/buildid.h recorder/pfile.h recorder/shard.h
recorder/merge.h:
recorder/buildid.h:
recorder/pfile.h:
recorder/shard.h:
