build-bench/recorder/evparse.o: recorder/evparse.c recorder/evparse.h
recorder/evparse.h:
