#!/usr/bin/env bash
# Runs tests/e2e/*.sh. Each exits 0 (pass), 77 (skip) or anything else (fail).
# Env: SHARDREC (binary), PROGS (test programs), E2E_ONLY (run only tests
# whose name contains it), E2E_TAG (put before each name in the PASS/FAIL/SKIP
# lines, e.g. "build-asan:", so make check's count tells the runs apart).
set -u
here=$(cd "$(dirname "$0")" && pwd)
pass=0 fail=0 skip=0 failed=()
for t in "$here"/e2e/[0-9]*.sh; do
	name=$(basename "$t" .sh)
	[ -n "${E2E_ONLY:-}" ] && [[ "$name" != *"$E2E_ONLY"* ]] && continue
	label=${E2E_TAG:-}$name
	log=$(mktemp)
	start=$(date +%s)
	bash "$t" >"$log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	case $rc in
	0) pass=$((pass + 1)); echo "PASS $label (${secs}s)" ;;
	77) skip=$((skip + 1)); echo "SKIP $label: $(tail -n 1 "$log")" ;;
	*) fail=$((fail + 1)); failed+=("$name"); echo "FAIL $label (rc $rc, ${secs}s)"; sed 's/^/    /' "$log" | tail -n 40 ;;
	esac
	rm -f "$log"
done
echo "e2e: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
