build-bench/recorder/target.o: recorder/target.c recorder/target.h \
 numa/topology.h
recorder/target.h:
numa/topology.h:
