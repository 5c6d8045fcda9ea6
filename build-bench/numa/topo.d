build-bench/numa/topo.o: numa/topo.c numa/topo_internal.h numa/topology.h
numa/topo_internal.h:
numa/topology.h:
