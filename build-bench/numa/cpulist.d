build-bench/numa/cpulist.o: numa/cpulist.c numa/topology.h
numa/topology.h:
