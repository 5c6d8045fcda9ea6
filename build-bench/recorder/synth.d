build-bench/recorder/synth.o: recorder/synth.c recorder/synth.h \
 recorder/pfile.h recorder/recbuf.h
recorder/synth.h:
recorder/pfile.h:
recorder/recbuf.h:
