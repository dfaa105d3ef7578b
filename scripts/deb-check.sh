#!/usr/bin/env bash
# scripts/deb-check.sh: build the Debian package from the committed tree
# (dpkg-buildpackage -b -us -uc, in a copy: the build leaves nothing here),
# print lintian's findings, unpack the .deb into a clean directory and use
# what it installed: --version, the man page, the completion, a mount, a
# fio run with verify, the unmount and fsck. Needs root (FUSE), fio and
# what debian/control builds with (scripts/install-deps.sh installs it).
# Leaves the .deb in OUT (default build-deb/).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-build-deb}
W=$(mktemp -d /tmp/arraysim-deb.XXXXXX)
MNT=$W/mnt
cleanup() {
	local rc=$?
	if grep -q " $MNT " /proc/mounts; then
		"$W/root/usr/bin/arraysim" umount "$MNT" || fusermount3 -uz "$MNT"
	fi
	grep -q " $MNT " /proc/mounts || rm -rf "$W"
	exit "$rc"
}
trap cleanup EXIT

mkdir "$W/src" "$W/root" "$W/store" "$MNT"
git archive HEAD | tar -x -C "$W/src"
(cd "$W/src" && dpkg-buildpackage -b -us -uc >"$W/build.log" 2>&1) \
	|| { tail -n 40 "$W/build.log" >&2; echo "deb-check: dpkg-buildpackage failed" >&2; exit 1; }
deb=$(ls "$W"/arraysim_*.deb)
echo "deb-check: built $(basename "$deb")"
echo "deb-check: lintian (findings listed in debian/README.lintian):"
lintian "$deb" || true

dpkg -x "$deb" "$W/root"
A=$W/root/usr/bin/arraysim
"$A" --version
[ "$(readlink "$W/root/usr/sbin/mount.fuse.arraysim")" = ../bin/arraysim ]
man -l "$W/root/usr/share/man/man1/arraysim-mount.1.gz" | grep -q -- '--profile'
bash -c '. "$1"; complete -p arraysim' _ "$W/root/usr/share/bash-completion/completions/arraysim" >/dev/null
"$A" mount --store "$W/store" --profile allflash "$MNT"
fio --name=deb --directory="$MNT" --rw=randrw --bs=4k --size=16M --ioengine=psync \
	--verify=crc32c --output="$W/fio.out"
"$A" umount "$MNT"
"$A" fsck --store "$W/store"
mkdir -p "$OUT"
cp "$deb" "$OUT/"
echo "deb-check: ok ($OUT/$(basename "$deb"))"
