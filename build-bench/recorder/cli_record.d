build-bench/recorder/cli_record.o: recorder/cli_record.c \
 recorder/record_opts.h
recorder/record_opts.h:
