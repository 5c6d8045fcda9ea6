build-bench/recorder/log.o: recorder/log.c recorder/log.h
recorder/log.h:
