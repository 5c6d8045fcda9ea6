#!/usr/bin/env bash
# make check: runs every part of the check (make -k TARGET: a failed part does
# not stop the others) and closes with one line over all of them:
#   check: N passed, N failed, N skipped
# Each part reports a result as a line "PASS name", "FAIL name" or
# "SKIP name": unit binaries, e2e scripts (also under the sanitizers), the
# fuzz replays, the qemu guest. Exits non-zero on any failure, also on one
# that reported no FAIL line (a build step).
set -u
target=${1:-check-parts}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set -o pipefail
${MAKE:-make} --no-print-directory -k "$target" 2>&1 | tee "$log"
rc=$?
count() { grep -cE "^$1 " "$log"; }
pass=$(count PASS) fail=$(count FAIL) skip=$(count SKIP)
failed=$(sed -nE 's/^FAIL ([^ ]+).*/\1/p' "$log" | tr '\n' ' ')
if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then
	echo "FAIL make $target (exit $rc with no failed test: a build step failed)"
	fail=1
	failed="make $target"
fi
[ "$fail" -eq 0 ] || echo "check: failed: $failed"
echo "check: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$rc" -eq 0 ]
