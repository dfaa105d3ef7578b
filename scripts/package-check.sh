#!/usr/bin/env bash
# scripts/package-check.sh: build the Debian package and check what it
# installs, as .ci/run's last step (root, deps from install-deps.sh):
#   1. dpkg-buildpackage -b -us -uc (the .deb lands in the parent dir);
#   2. lintian: every tag it prints must be listed, with why, in
#      debian/lintian-expected (a new one fails the step);
#   3. the package unpacked into a clean directory: its arraysim runs
#      from there: --version, a mount, a fio run with verify, umount, fsck;
#   4. apt-get install of the .deb (its dependencies resolve on this
#      Debian), the man pages and completion where they belong, then
#      removal.
set -euo pipefail
cd "$(dirname "$0")/.."

dpkg-buildpackage -b -us -uc >/tmp/arraysim-dpkg-build.log 2>&1 || {
	tail -30 /tmp/arraysim-dpkg-build.log >&2
	echo "package-check: dpkg-buildpackage failed (log above)" >&2
	exit 1
}
DEB=$(ls -t ../arraysim_*_*.deb | head -1)
echo "package-check: built $DEB"

lintian --allow-root "$DEB" 2>/dev/null | sed 's/ \[.*//' | sort -u >/tmp/arraysim-lintian.out || true
unexpected=$(grep -v -x -F -f <(grep -v '^#' debian/lintian-expected | sed '/^$/d') /tmp/arraysim-lintian.out || true)
if [ -n "$unexpected" ]; then
	echo "package-check: lintian tags not in debian/lintian-expected:" >&2
	echo "$unexpected" >&2
	exit 1
fi

W=$(mktemp -d /tmp/arraysim-pkg.XXXXXX)
cleanup() {
	fusermount3 -u "$W/mnt" 2>/dev/null || fusermount3 -uz "$W/mnt" 2>/dev/null || true
	rm -rf "$W"
}
trap cleanup EXIT
dpkg-deb -x "$DEB" "$W/root"
A=$W/root/usr/bin/arraysim
mkdir "$W/store" "$W/mnt"
"$A" --version
"$A" mount --store "$W/store" "$W/mnt"
fio --name=pkg --directory="$W/mnt" --size=32M --rw=randwrite --bs=4k \
	--ioengine=psync --verify=crc32c --do_verify=1 --output=/dev/null
"$A" umount "$W/mnt"
"$A" fsck --store "$W/store"

apt-get install -y -q "./$DEB" >/tmp/arraysim-apt.log 2>&1 || {
	tail -20 /tmp/arraysim-apt.log >&2
	echo "package-check: apt-get install $DEB failed" >&2
	exit 1
}
for f in $(dpkg -L arraysim | grep -E '/man/|bash-completion|sbin/mount'); do
	[ -e "$f" ] || { echo "package-check: $f listed but missing" >&2; exit 1; }
done
dpkg -L arraysim | grep -E '/man/|bash-completion|sbin/mount' || true
apt-get remove -y -q arraysim >/dev/null
echo "package-check: ok"
