#!/usr/bin/env bash
# scripts/deb-check.sh: build the Debian package from the committed tree
# (dpkg-buildpackage -b -us -uc, in a copy: the build leaves nothing here),
# print lintian's findings, unpack the .deb into a clean directory and use
# what it installed: --version, the man page, the completion, a mount, a
# fio run with verify, the unmount and fsck; then install it with apt-get,
# mount with `mount -t fuse.arraysim` and with an fstab line, and remove
# it. Needs root (FUSE), fio and what debian/control builds with
# (scripts/install-deps.sh installs it).
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
lintian "$deb" >"$W/lintian.out" 2>&1 || true
cat "$W/lintian.out"
# A tag not explained in debian/README.lintian fails the check: new
# findings are fixed or listed with why, never just printed.
for tag in $(awk '/^[EWIPX]: / { print $3 }' "$W/lintian.out" | sort -u); do
	grep -q -- "$tag" debian/README.lintian ||
		{ echo "deb-check: lintian tag $tag is not in debian/README.lintian" >&2; exit 1; }
done

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

# Installed for real: its dependencies resolve on this Debian, and mount(8)
# finds /usr/sbin/mount.fuse.arraysim for `mount -t` and for an fstab line.
# Removed again after, so that the host is as it was.
apt-get install -y -q "$deb" >"$W/apt.log" 2>&1 ||
	{ tail -n 20 "$W/apt.log" >&2; echo "deb-check: apt-get install failed" >&2; exit 1; }
trap 'apt-get remove -y -q arraysim >/dev/null 2>&1; cleanup' EXIT
[ "$(arraysim --version)" = "$("$A" --version)" ] || { echo "deb-check: installed arraysim is not the package's" >&2; exit 1; }
mount -t fuse.arraysim "$W/store" "$MNT" -o profile=allflash,scale=0.5
grep -q " $MNT fuse.arraysim " /proc/mounts || { echo "deb-check: mount -t fuse.arraysim did not mount" >&2; exit 1; }
head -c 1M /dev/urandom >"$W/one"
cp "$W/one" "$MNT/one" && cmp "$W/one" "$MNT/one"
arraysim umount "$MNT"
printf '%s %s fuse.arraysim profile=allflash,noauto 0 0\n' "$W/store" "$MNT" >"$W/fstab"
mount --fstab "$W/fstab" "$MNT"
cmp "$W/one" "$MNT/one" || { echo "deb-check: the fstab mount reads other bytes" >&2; exit 1; }
arraysim umount "$MNT"
arraysim fsck --store "$W/store"
apt-get remove -y -q arraysim >/dev/null
trap cleanup EXIT
mkdir -p "$OUT"
cp "$deb" "$OUT/"
echo "deb-check: ok ($OUT/$(basename "$deb"))"
