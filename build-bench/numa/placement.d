build-bench/numa/placement.o: numa/placement.c numa/topology.h
numa/topology.h:
