#!/usr/bin/env bash
# scripts/test.sh: configure (once), build and run the whole test suite:
# cmocka unit tests per component and the FUSE integration tests, which
# mount real arraysim filesystems in temp directories (root and /dev/fuse
# needed; without them those tests are skipped, exit 77).
#
#   scripts/test.sh                  # build/, warnings as errors
#   scripts/test.sh --sanitize       # build-san/, ASan + UBSan
#   scripts/test.sh --tsan           # build-tsan/, ThreadSanitizer, the
#                                    # cmocka unit suites only (TAP tests;
#                                    # no FUSE mounts: libfuse and the
#                                    # kernel round trips are not ours to
#                                    # check, and they are slow under TSan)
#   scripts/test.sh --suite dedupe   # extra arguments go to meson test
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=build
SETUP=(-Dwerror=true)
if [ "${1:-}" = "--sanitize" ]; then
	shift
	BUILD=build-san
	SETUP+=(-Db_sanitize=address,undefined -Db_lundef=false)
	export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
	export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
	# bonnie++ and Postmark with the bonnie++/Postmark report's parameters
	# (tests/integration/seed003.sh, one test a profile) are too slow here:
	# 437 s for one profile sanitized (bonnie++ 372 s) against 2-3 min
	# plain, on a loaded 2-vCPU VM, 2026-12-03. They skip in this step; the
	# four profiles share every code path but the model's values, and that
	# sanitized run (tegile-ha2200ep) was clean. SEED003_PROFILES=NAME runs one.
	export SEED003_PROFILES=${SEED003_PROFILES:-none}
	# The timed figure tests (profile_figures.sh, profile_predictions.sh,
	# vsan_curve.sh, vsan_cpu.sh) assert the model's figures through FUSE; sanitized, the host is
	# several times slower and they took 426 of this step's seconds (CI,
	# a fresh clone, 2026-12-03: micron-m600 101 s, synology 98, tintri
	# 89 + 50, traditional-san 57, infinidat 31). The plain step asserts
	# them all; here one profile runs the same code paths for memory
	# errors (xtremio-xbrick, 30 s). TIMED_PROFILES=NAME... to choose.
	export TIMED_PROFILES=${TIMED_PROFILES:-xtremio-xbrick}
fi

TSAN=0
if [ "${1:-}" = "--tsan" ]; then
	shift
	TSAN=1
	BUILD=build-tsan
	SETUP+=(-Db_sanitize=thread -Db_lundef=false)
	# The default compiler (gcc): clang's -Wformat-nonliteral stops a
	# -Dwerror build in tools/fsck.c. CC=clang works once that is fixed.
	# Suppressions: library-internal false positives only, one reason a
	# line (scripts/tsan.supp).
	export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/scripts/tsan.supp}
fi

if [ ! -f "$BUILD/build.ninja" ]; then
	meson setup "$BUILD" "${SETUP[@]}"
fi
ninja -C "$BUILD"
if [ "$TSAN" = 1 ]; then
	# The unit tests are the TAP ones (cmocka); names are unique once the
	# integration suite (whose "scenario" shares a name) is left out.
	mapfile -t UNIT < <(meson introspect "$BUILD" --tests | python3 -c '
import json, sys
for t in json.load(sys.stdin):
    if t["protocol"] == "tap":
        print(t["name"])')
	meson test -C "$BUILD" --print-errorlogs --no-suite integration \
		--timeout-multiplier 4 "$@" "${UNIT[@]}"
	exit
fi
meson test -C "$BUILD" --print-errorlogs "$@"
