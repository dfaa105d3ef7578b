#!/usr/bin/env bash
# scripts/test.sh: configure (once), build and run the whole test suite:
# cmocka unit tests per component and the FUSE integration tests, which
# mount real arraysim filesystems in temp directories (root and /dev/fuse
# needed; without them those tests are skipped, exit 77).
#
#   scripts/test.sh                  # build/, warnings as errors
#   scripts/test.sh --sanitize       # build-san/, ASan + UBSan
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
fi

if [ ! -f "$BUILD/build.ninja" ]; then
	meson setup "$BUILD" "${SETUP[@]}"
fi
ninja -C "$BUILD"
meson test -C "$BUILD" --print-errorlogs "$@"
