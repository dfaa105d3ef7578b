#!/usr/bin/env bash
# scripts/demo.sh: build arraysim, mount a demo array in a temp directory,
# run a short fio workload on it (half of the 4 KiB blocks repeat earlier
# ones), print the array's stats, then unmount and fsck the store.
#
#   scripts/demo.sh              # 64 MiB workload, about 10 seconds
#   SIZE=256M scripts/demo.sh    # a bigger one
#
# Expect a dedupe ratio near 2.0 (dedupe_percentage=50) and zero checksum
# errors; fsck must say the store is clean.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE=${SIZE:-64M}
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

echo "== mounting a demo array: store $demo/store on $demo/mnt"
"$A" mount --store "$demo/store" --seed 1 "$demo/mnt"

echo "== fio: $SIZE of 4 KiB random writes, 50% duplicate blocks, then a verify read"
fio --name=demo --directory="$demo/mnt" --size="$SIZE" --bs=4k \
	--rw=randwrite --ioengine=psync --dedupe_percentage=50 \
	--refill_buffers --randrepeat=0 --verify=crc32c --do_verify=1 \
	--group_reporting --output-format=terse --terse-version=3 >/dev/null
echo "   fio wrote and verified $SIZE"

echo "== arraysim stats $demo/mnt"
"$A" stats "$demo/mnt"

"$A" umount "$demo/mnt"
echo "== arraysim fsck --store $demo/store"
"$A" fsck --store "$demo/store"
