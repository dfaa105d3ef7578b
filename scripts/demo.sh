#!/usr/bin/env bash
# scripts/demo.sh: build arraysim, mount a demo array in a temp directory,
# run a short fio workload on it (half of the 4 KiB blocks repeat earlier
# ones; then a small verified random-write job), print the array's stats
# (dedupe, then the timed array's tiers, links, controllers and drives),
# then unmount and fsck the store.
#
#   scripts/demo.sh                  # generic hybrid array, 64 MiB, ~15 s
#   PROFILE=null scripts/demo.sh     # no timing model: as fast as the host
#   PROFILE=tintri-t540 SIZE=256M scripts/demo.sh   # `arraysim profiles`
#
# Expect a dedupe ratio near 1.67: the 64 MiB file dedupes about 2:1
# (16384 blocks, ~8192 unique) and the 16 MiB verify file is all unique
# (4096 blocks); zero checksum errors, and fsck saying the store is clean.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE=${SIZE:-64M}
PROFILE=${PROFILE:-hybrid}
BUILD=${BUILD:-build}

if [ ! -f "$BUILD/build.ninja" ]; then
	meson setup "$BUILD" >/dev/null
fi
ninja -C "$BUILD" tools/arraysim >/dev/null
A=$PWD/$BUILD/tools/arraysim

demo=$(mktemp -d /tmp/arraysim-demo.XXXXXX)
mkdir "$demo/store" "$demo/mnt"
cleanup() {
	if grep -q " $demo/mnt " /proc/mounts; then
		"$A" umount "$demo/mnt" || fusermount3 -uz "$demo/mnt" || true
	fi
	rm -rf "$demo"
}
trap cleanup EXIT

echo "== mounting a demo array (profile $PROFILE): store $demo/store on $demo/mnt"
"$A" mount --store "$demo/store" --seed 1 --profile "$PROFILE" "$demo/mnt"

echo "== fio: $SIZE of 4 KiB writes, half of them repeats of earlier blocks"
fio --name=dedupe --directory="$demo/mnt" --size="$SIZE" --bs=4k \
	--rw=write --ioengine=psync --dedupe_percentage=50 \
	--refill_buffers --group_reporting --output-format=terse \
	--terse-version=3 >/dev/null
# A verify job writes a header with its offset into every block, so every
# block is unique: it runs on a file of its own, after the dedupe job.
echo "== fio: 16 MiB of 4 KiB random writes, then read back and verified"
fio --name=verify --directory="$demo/mnt" --size=16M --bs=4k \
	--rw=randwrite --ioengine=psync --verify=crc32c --do_verify=1 \
	--verify_fatal=1 --verify_state_save=0 --group_reporting \
	--output-format=terse \
	--terse-version=3 >/dev/null
echo "   fio wrote and verified its data"

echo "== arraysim stats $demo/mnt"
"$A" stats "$demo/mnt"
if [ "$PROFILE" != null ]; then
	echo "== arraysim stats --array $demo/mnt"
	"$A" stats --array "$demo/mnt"
fi

"$A" umount "$demo/mnt"
echo "== arraysim fsck --store $demo/store"
"$A" fsck --store "$demo/store"
