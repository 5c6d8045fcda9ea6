build-bench/numa/plan.o: numa/plan.c numa/topo_internal.h numa/topology.h
numa/topo_internal.h:
numa/topology.h:
