build-bench/recorder/workload.o: recorder/workload.c recorder/workload.h
recorder/workload.h:
