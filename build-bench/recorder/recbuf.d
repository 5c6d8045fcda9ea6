build-bench/recorder/recbuf.o: recorder/recbuf.c recorder/recbuf.h
recorder/recbuf.h:
