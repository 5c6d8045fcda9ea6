# shardrec: one Makefile. `make V=1` shows commands.
# Layering: ringbuf/ and numa/ never include each other; aux/ plugs into
# ringbuf/; recorder/ uses all of them. recorder/pfile*.c (perf.data format)
# and recorder/shard*.c use only POSIX + C11 so merge, loss and fuzzers can
# link them alone.

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
STRIP   ?= strip
SCDOC   ?= scdoc
BUILD   ?= build
CC      ?= cc
PKGS    := numa hwloc libzstd libcap json-c
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   := $(shell pkg-config --libs $(PKGS))
CMOCKA_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)

OPT     ?= -O2 -g
# Error messages are snprintf-truncated on purpose: no format-truncation noise.
CFLAGS  += $(OPT) -std=gnu11 -Wall -Wextra -Werror -Wno-format-truncation -D_GNU_SOURCE -I. $(PKG_CFLAGS) $(SAN)
LDFLAGS += $(SAN)
LDLIBS  += $(PKG_LIBS) -lpthread

ifneq ($(V),1)
Q := @
endif

# Layers, highest first (the link order). Folder of a layer: recorder/NAME,
# except the top-level numa/, ringbuf/ and aux/; archive: lib<folder>.a.
# numa/'s is libnuma.a, the system libnuma's name too: every archive links
# by its path and no link names $(BUILD) with -L, so -lnuma still finds the
# system's. Keep it so: a -L$(BUILD) would let ours shadow it.
LAYERS    := job jobview cli capture events header codec merge loss aux ringbuf numa util perfdata
layer_dir  = $(if $(filter numa ringbuf aux,$1),$1,recorder/$1)
LAYER_LIBS := $(LAYERS:%=$(BUILD)/lib%.a)
LIB_SRCS  := $(sort $(foreach l,$(LAYERS),$(wildcard $(call layer_dir,$l)/*.c)))
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
PROG_SRCS := $(sort $(wildcard tests/progs/*.c))
PROG_BINS := $(PROG_SRCS:tests/progs/%.c=$(BUILD)/progs/%)
# Man pages: scdoc sources in doc/, one per command (tests/e2e/12-manpages.sh
# checks their options against each command's --help).
MAN_SRCS  := $(sort $(wildcard doc/*.1.scd))
MAN_PAGES := $(MAN_SRCS:doc/%.scd=$(BUILD)/man/%)

all: shardrec $(PROG_BINS) man

shardrec: $(BUILD)/shardrec
	$(Q)cp $< $@

$(BUILD)/shardrec: $(BUILD)/recorder/main.o $(LAYER_LIBS)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

define layer_archive
$(BUILD)/lib$(1).a: $$(patsubst %.c,$(BUILD)/%.o,$$(wildcard $(call layer_dir,$(1))/*.c))
	@echo "  AR      $$@"
	$(Q)rm -f $$@ && ar rcs $$@ $$^
endef
$(foreach l,$(LAYERS),$(eval $(call layer_archive,$(l))))

# Include lines against the layer order of recorder/README.md.
check-layers:
	$(Q)if tests/layering.sh; then echo "PASS check-layers"; else echo "FAIL check-layers"; exit 1; fi

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LAYER_LIBS)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -MMD -MP -MF $@.d $(LDFLAGS) -o $@ $< $(LAYER_LIBS) $(LDLIBS) $(CMOCKA_LIBS)

# Test workloads: built with frame pointers and symbols so perf can unwind them.
$(BUILD)/progs/%: tests/progs/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) -O1 -g -fno-omit-frame-pointer -fno-inline -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -o $@ $< -lpthread -lm

$(BUILD)/man/%.1: doc/%.1.scd
	@mkdir -p $(dir $@)
	@echo "  SCDOC   $<"
	$(Q)command -v $(SCDOC) >/dev/null || { echo "$(SCDOC) not found: apt-get install scdoc (.ci/packages-build)" >&2; exit 1; }
	$(Q)$(SCDOC) <$< >$@

man: $(MAN_PAGES)

# Every part of check prints one line per result: "PASS name", "FAIL name"
# or "SKIP name" (tests/check.sh counts them).
unit: $(UNIT_BINS)
	$(Q)fail=0; for t in $(UNIT_BINS); do echo "== $$t"; \
		if $$t; then echo "PASS $$t"; else echo "FAIL $$t"; fail=1; fi; done; exit $$fail

e2e: shardrec $(PROG_BINS) man
	$(Q)SHARDREC=$(CURDIR)/$(BUILD)/shardrec PROGS=$(CURDIR)/$(BUILD)/progs tests/run-e2e.sh

# Everything CI runs, past any failure, closing with one line over all of
# it: "check: N passed, N failed, N skipped" (tests/check.sh). The qemu NUMA
# guest and Slurm skip where their packages are missing; .ci/packages-test
# installs them.
check:
	+$(Q)MAKE="$(MAKE)" tests/check.sh check-parts

check-parts: check-layers unit e2e sanitize check-qemu check-slurm fuzz-regress

# Benchmarks against perf record (bench/run.sh; quick by default here,
# BENCH_QUICK=0 for the full run, results in bench/results/).
bench: $(BUILD)/shardrec $(PROG_BINS) $(BUILD)/bench/genshards
	$(Q)BENCH_QUICK=$${BENCH_QUICK:-1} SHARDREC=$(CURDIR)/$(BUILD)/shardrec PROGS=$(CURDIR)/$(BUILD)/progs \
		GENSHARDS=$(CURDIR)/$(BUILD)/bench/genshards bench/run.sh
	$(Q)SHARDREC=$(CURDIR)/$(BUILD)/shardrec bench/zbench.sh

# shardrec against perf record in TCG qemu guests of 32, 64 and 128 vCPUs
# on 4 NUMA nodes (bench/guest.sh, bench/README.md "Many-CPU guest"; hours,
# results in bench/results-guest/). BENCH_GUEST_* knobs as in bench/README.md.
bench-guest: $(BUILD)/shardrec $(PROG_BINS)
	$(Q)SHARDREC=$(CURDIR)/$(BUILD)/shardrec PROGS=$(CURDIR)/$(BUILD)/progs bench/guest.sh

$(BUILD)/bench/%: bench/%.c $(LAYER_LIBS)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LAYER_LIBS) $(LDLIBS)

# shardrec job under a real Slurm on this machine (tests/slurm/README.md):
# one node on localhost (run.sh, 25-35 s) and three nodes in their own
# network and UTS namespaces (nodes.sh, 30-45 s). Each prints PASS, FAIL or SKIP (no
# slurm-wlm, munge or namespaces).
SLURM_TESTS := run:slurm-1node nodes:slurm-3nodes
check-slurm: $(BUILD)/shardrec $(PROG_BINS)
	$(Q)fail=0; for t in $(SLURM_TESTS); do start=$$(date +%s); \
		SHARDREC=$(CURDIR)/$(BUILD)/shardrec PROGS=$(CURDIR)/$(BUILD)/progs tests/slurm/$${t%%:*}.sh; \
		rc=$$?; secs=$$(( $$(date +%s) - start )); case $$rc in 0) echo "PASS $${t#*:} ($${secs}s)";; \
		77) echo "SKIP $${t#*:}";; *) echo "FAIL $${t#*:} (rc $$rc, $${secs}s)"; fail=1;; esac; \
	done; exit $$fail

# Records in a 16-vCPU qemu guest with 4 NUMA nodes and 2 memory-only ones:
# the writer counts of three plans, and -v shows each writer's CPUs, buffers
# and rings on its node (tests/qemu/run.sh). Then an Intel PT recording's
# events, attr for attr against perf 6.1's in a guest with a fake PMU
# (tests/qemu/aux-oracle.sh).
QEMU_TESTS := run:check-qemu aux-oracle:check-aux-oracle
check-qemu: $(BUILD)/shardrec $(PROG_BINS) $(BUILD)/tests/attrshim.so $(BUILD)/tests/test_clock
	$(Q)fail=0; for t in $(QEMU_TESTS); do start=$$(date +%s); \
		SHARDREC=$(CURDIR)/$(BUILD)/shardrec PROGS=$(CURDIR)/$(BUILD)/progs \
			ATTRSHIM=$(CURDIR)/$(BUILD)/tests/attrshim.so TEST_CLOCK=$(CURDIR)/$(BUILD)/tests/test_clock \
			tests/qemu/$${t%%:*}.sh; \
		rc=$$?; secs=$$(( $$(date +%s) - start )); case $$rc in 0) echo "PASS $${t#*:} ($${secs}s)";; \
		77) echo "SKIP $${t#*:}";; *) echo "FAIL $${t#*:} (rc $$rc, $${secs}s)"; fail=1;; esac; \
	done; exit $$fail

$(BUILD)/tests/attrshim.so: tests/qemu/attrshim.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(OPT) -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -shared -fPIC -o $@ $< -ldl

# ASan+UBSan and TSan builds in their own trees; run unit tests and the
# threaded end-to-end tests (smoke; the flight recorder's snapshots from the
# session thread into running writers) under each.
sanitize:
	$(Q)$(MAKE) --no-print-directory BUILD=build-asan SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" OPT="-O1 -g" sanitize-run fuzz-regress
	$(Q)$(MAKE) --no-print-directory BUILD=build-tsan SAN="-fsanitize=thread" OPT="-O1 -g" sanitize-run

sanitize-run: $(BUILD)/shardrec $(UNIT_BINS) $(PROG_BINS)
	$(Q)fail=0; for t in $(UNIT_BINS); do echo "== $$t"; \
		if $$t; then echo "PASS $$t"; else echo "FAIL $$t"; fail=1; fi; done; \
	for t in smoke overwrite; do \
		SHARDREC=$(CURDIR)/$(BUILD)/shardrec PROGS=$(CURDIR)/$(BUILD)/progs E2E_ONLY=$$t \
			E2E_TAG=$(BUILD): tests/run-e2e.sh || fail=1; done; exit $$fail

# Fuzzing (tests/fuzz/README.md). fuzz-regress, part of check (and of the
# ASan build in sanitize), replays the seed corpora and every saved crasher
# through the targets without libFuzzer. `make fuzz` (opt-in) builds them with
# clang's libFuzzer + ASan/UBSan in build-fuzz/ and runs each FUZZ_SECONDS;
# crashers land in tests/fuzz/regress/TARGET/, to be kept once fixed.
FUZZ_TARGETS := fuzz_pfile fuzz_shard fuzz_loss fuzz_zshard fuzz_zpass fuzz_merge
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_FLAGS ?=
# What each target links. fuzz_pfile and fuzz_shard: the format archive
# alone, with no -l flag at all (the proof that perfdata/ needs only libc).
FUZZ_LIBS_fuzz_pfile  := $(BUILD)/libperfdata.a
FUZZ_LIBS_fuzz_shard  := $(BUILD)/libperfdata.a
FUZZ_LIBS_fuzz_loss   := $(BUILD)/libcodec.a $(BUILD)/libloss.a $(BUILD)/libnuma.a $(BUILD)/libperfdata.a
FUZZ_LIBS_fuzz_zshard := $(BUILD)/libcodec.a $(BUILD)/libnuma.a $(BUILD)/libperfdata.a
FUZZ_LIBS_fuzz_zpass  := $(FUZZ_LIBS_fuzz_zshard)
FUZZ_LIBS_fuzz_merge  := $(BUILD)/libheader.a $(BUILD)/libcodec.a $(BUILD)/libmerge.a $(BUILD)/libutil.a \
			 $(BUILD)/libnuma.a $(BUILD)/libperfdata.a
fuzz_ldlibs = $(if $(filter-out $(BUILD)/libperfdata.a,$(FUZZ_LIBS_$1)),$(LDLIBS))
# Seeds and saved crashers: a target reads those of the target it was split from.
FUZZ_SEEDS_fuzz_loss   := fuzz_pfile
FUZZ_SEEDS_fuzz_zshard := fuzz_shard
fuzz_seeds = $(or $(FUZZ_SEEDS_$1),$1)

.SECONDEXPANSION:
$(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/driver.c tests/fuzz/fuzz_util.h $$(FUZZ_LIBS_$$*)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< tests/fuzz/driver.c $(FUZZ_LIBS_$*) $(call fuzz_ldlibs,$*)

fuzz-regress: $(FUZZ_TARGETS:%=$(BUILD)/fuzz/%)
	$(Q)fail=0; for ts in $(foreach t,$(FUZZ_TARGETS),$t:$(call fuzz_seeds,$t)); do t=$${ts%%:*}; s=$${ts#*:}; \
		if $(BUILD)/fuzz/$$t tests/fuzz/corpus/$$s $$(ls -d tests/fuzz/regress/$$s 2>/dev/null); \
		then echo "PASS $(BUILD)/fuzz/$$t"; else echo "FAIL $(BUILD)/fuzz/$$t"; fail=1; fi; done; exit $$fail

fuzz:
	$(Q)$(MAKE) --no-print-directory BUILD=build-fuzz CC=$(FUZZ_CC) OPT="-O1 -g" \
		SAN="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -Wno-unknown-warning-option" fuzz-run

$(BUILD)/fuzz-lf/%: tests/fuzz/%.c tests/fuzz/fuzz_util.h $$(FUZZ_LIBS_$$*)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIBS_$*) $(call fuzz_ldlibs,$*)

fuzz-run: $(FUZZ_TARGETS:%=$(BUILD)/fuzz-lf/%)
	$(Q)fail=0; for ts in $(foreach t,$(FUZZ_TARGETS),$t:$(call fuzz_seeds,$t)); do t=$${ts%%:*}; s=$${ts#*:}; \
		mkdir -p $(BUILD)/corpus/$$t tests/fuzz/regress/$$s; \
		echo "== $$t ($(FUZZ_SECONDS) s)"; \
		$(BUILD)/fuzz-lf/$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 $(FUZZ_FLAGS) \
			-artifact_prefix=tests/fuzz/regress/$$s/ $(BUILD)/corpus/$$t tests/fuzz/corpus/$$s \
			2>$(BUILD)/fuzz-$$t.log || { fail=1; tail -n 60 $(BUILD)/fuzz-$$t.log; }; \
		grep -E '^stat::number_of_executed_units|^Done' $(BUILD)/fuzz-$$t.log || true; done; exit $$fail

# Installs the stripped binary, the man pages and the bash completion under
# DESTDIR + PREFIX (BINDIR, MANDIR, BASHCOMPDIR). Site install for non-root
# users (README, "Privileges"):
#   make install PERF_GROUP=perfusers PERF_CAPS=1
# PERF_GROUP: only that group may run it (root:GROUP, mode 0750).
# PERF_CAPS=1: file capabilities; setcap last, as any chown/chgrp clears them.
FILE_CAPS := cap_perfmon,cap_ipc_lock,cap_syslog,cap_sys_nice+ep
install: shardrec man
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR)
	install -s --strip-program=$(STRIP) -m $(if $(PERF_GROUP),0750 -g $(PERF_GROUP),0755) \
		shardrec $(DESTDIR)$(BINDIR)/shardrec
	install -m 0644 $(MAN_PAGES) $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 completion/shardrec.bash $(DESTDIR)$(BASHCOMPDIR)/shardrec
	$(if $(filter 1,$(PERF_CAPS)),setcap $(FILE_CAPS) $(DESTDIR)$(BINDIR)/shardrec)

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/shardrec $(DESTDIR)$(BASHCOMPDIR)/shardrec \
		$(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN_PAGES)))

# The Debian package (debian/, README "Installing"): dpkg-buildpackage in a
# copy of the working tree (tracked and new files, no build trees), so the
# package build and its `make clean` leave this tree alone; the .deb lands
# in DEB_DIR. Options for dpkg-buildpackage in DEB_FLAGS.
DEB_DIR ?= build-deb
DEB_FLAGS ?= -us -uc -b -Jauto
deb:
	$(Q)command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null || \
		{ echo "dpkg-buildpackage or dh not found: apt-get install dpkg-dev debhelper" >&2; exit 1; }
	$(Q)rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/src
	$(Q)if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		git ls-files -z --cached --others --exclude-standard; \
	else find . \( -path ./.git -o -path './build*' -o -path ./shardrec \) -prune -o -type f -print0; fi | \
		tar --null -T - --ignore-failed-read --warning=no-failed-read -cf - | tar -xf - -C $(DEB_DIR)/src
	$(Q)cd $(DEB_DIR)/src && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL dpkg-buildpackage $(DEB_FLAGS)
	$(Q)rm -rf $(DEB_DIR)/src
	$(Q)ls $(DEB_DIR)/*.deb

format:
	clang-format -i $(LIB_SRCS) recorder/main.c $(wildcard */*.h recorder/*/*.h) $(UNIT_SRCS)

clean:
	rm -rf build build-asan build-tsan build-fuzz build-deb shardrec

.PHONY: all man unit e2e check check-parts check-layers check-qemu check-slurm bench bench-guest sanitize sanitize-run install uninstall deb format clean fuzz fuzz-run fuzz-regress
.DELETE_ON_ERROR:

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
