#!/usr/bin/env bash
# mount_system: arraysim installed like a system tool (issue 18, point 1).
# `meson install` into a DESTDIR puts arraysim, the mount.fuse.arraysim link,
# the man pages and the completion where they belong. Then, in a private
# mount namespace where an overlay adds that link to /usr/sbin (nothing
# outside sees it), `mount -t fuse.arraysim STORE MNT -o ...` and an fstab
# line (`mount --fstab FILE MNT`) mount a timed array with the -o options,
# an unknown -o option is one line and no mount, and mount.fuse3's route
# (`arraysim STORE MNT -o OPTS`) mounts too.
set -euo pipefail
if [ -z "${ARRAYSIM_IN_NS:-}" ]; then
	command -v unshare >/dev/null || { echo "SKIP: no unshare" >&2; exit 77; }
	[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root" >&2; exit 77; }
	ARRAYSIM_IN_NS=1 exec unshare --mount --propagation private bash "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
t_require_cmd meson mount mount.fuse3

BUILD=$(cd "$(dirname "$ARRAYSIM")/.." && pwd)
t_setup
DEST=$T/dest
meson install -C "$BUILD" --no-rebuild --quiet --destdir "$DEST" >"$T/install.log" 2>&1 \
	|| { cat "$T/install.log" >&2; t_fail "meson install --destdir exited $?"; }
prefix=$(meson introspect "$BUILD" --buildoptions | python3 -c '
import json, sys
o = {x["name"]: x["value"] for x in json.load(sys.stdin)}
print(o["prefix"], o["bindir"], o["sbindir"], o["mandir"], o["datadir"])')
read -r PREFIX BINDIR SBINDIR MANDIR DATADIR <<<"$prefix"
BIN=$DEST$PREFIX/$BINDIR/arraysim
for f in "$BIN" "$DEST$PREFIX/$MANDIR/man1/arraysim.1" "$DEST$PREFIX/$MANDIR/man1/arraysim-mount.1" \
	"$DEST$PREFIX/$MANDIR/man5/arraysim-profile.5" "$DEST$PREFIX/$MANDIR/man5/arraysim-scenario.5" \
	"$DEST$PREFIX/$DATADIR/bash-completion/completions/arraysim"; do
	[ -s "$f" ] || t_fail "meson install did not install $f"
done
link=$(readlink "$DEST$PREFIX/$SBINDIR/mount.fuse.arraysim") || t_fail "no $SBINDIR/mount.fuse.arraysim link"
t_assert_eq "$link" "$PREFIX/$BINDIR/arraysim" "mount.fuse.arraysim points to"
"$BIN" --version | grep -qx 'arraysim [0-9.]*' || t_fail "arraysim --version: $("$BIN" --version)"

# The helper where mount(8) looks for it (/sbin/mount.TYPE), in this
# namespace only; the installed binary under its helper name.
mkdir "$T/ov"
mount -t tmpfs arraysim-test "$T/ov"
mkdir "$T/ov/upper" "$T/ov/work"
ln -s "$BIN" "$T/ov/upper/mount.fuse.arraysim"
sbin=$(readlink -f /sbin)
mount -t overlay overlay -o "lowerdir=$sbin,upperdir=$T/ov/upper,workdir=$T/ov/work" "$sbin"

# is_profile WHAT: the mount at $MNT runs tintri-t540 at scale 0.2.
is_profile() {
	"$BIN" ctl "$MNT" status >"$T/status" || t_fail "$1: ctl status exited $?"
	grep -q '^profile tintri-t540' "$T/status" || t_fail "$1: status says $(grep ^profile "$T/status")"
	"$BIN" stats "$MNT" --json | grep -q '"scale": *0.2\b' || t_fail "$1: scale is not 0.2"
}

mount -t fuse.arraysim "$STORE" "$MNT" -o profile=tintri-t540,scale=0.2,allow_other \
	|| t_fail "mount -t fuse.arraysim exited $?"
t_is_mounted || t_fail "mount -t fuse.arraysim exited 0, nothing mounted"
grep -q "allow_other" /proc/self/mountinfo || t_fail "allow_other not passed to FUSE"
is_profile "mount -t fuse.arraysim"
echo hello >"$MNT/f"
t_umount

echo "$STORE $MNT fuse.arraysim profile=tintri-t540,scale=0.2,noauto,nofail 0 0" >"$T/fstab"
mount --fstab "$T/fstab" "$MNT" || t_fail "mount --fstab exited $?"
is_profile "fstab line"
t_assert_eq "$(cat "$MNT/f")" hello "file written by the first mount"
t_umount

rc=0
mount -t fuse.arraysim "$STORE" "$MNT" -o profile=tintri-t540,scael=0.2 2>"$T/err" || rc=$?
[ "$rc" -ne 0 ] || t_fail "an unknown -o option mounted"
t_is_mounted && t_fail "an unknown -o option left a mount"
grep -q "^arraysim: mount: -o scael=0.2: " "$T/err" || t_fail "unknown -o: $(cat "$T/err")"

# Without the link, mount(8) runs mount.fuse3, which runs the subtype.
mkdir "$T/path"
ln -s "$BIN" "$T/path/arraysim"
PATH=$T/path:$PATH mount.fuse3 "$STORE" "$MNT" -t fuse.arraysim -o profile=tintri-t540,scale=0.2 \
	|| t_fail "mount.fuse3 -t fuse.arraysim exited $?"
is_profile "mount.fuse3"
t_umount
t_log "ok"
