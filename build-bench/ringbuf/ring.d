build-bench/ringbuf/ring.o: ringbuf/ring.c ringbuf/ringbuf.h \
 ringbuf/ring_order.h
ringbuf/ringbuf.h:
ringbuf/ring_order.h:
