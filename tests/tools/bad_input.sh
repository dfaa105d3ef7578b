#!/usr/bin/env bash
# tests/tools/bad_input.sh: every misuse of the CLI and every broken store fails
# cleanly, and a full host disk gives ENOSPC without losing anything.
#
# A clean failure (bad_case): exit status not 0, below 128 (no signal, no
# crash) and not a timeout; on stderr exactly one line, beginning
# "arraysim: "; no core file; for `mount`, nothing mounted afterwards. Cases
# about a store also want the store's path named in that line (the offending
# value, STYLE.md). A failure prints the command, its status and its output.
#
# Then ENOSPC: a store on a 64 MiB tmpfs filled with unique data until the
# writer gets "No space left on device"; the daemon must live on, fsync'd
# files read back intact, deleting frees space, and fsck is clean after.
#
# Every case runs even when an earlier one failed; exit 1 if any failed.
# By hand: ARRAYSIM=build/tools/arraysim bash tests/tools/bad_input.sh
set -euo pipefail
. "$(dirname "$0")/../integration/lib.sh"

[ "$(id -u)" -eq 0 ] || t_skip "needs root (tmpfs, setpriv)"
t_require_cmd setpriv mdb_dump mdb_load sha256sum timeout

FAILS=0
ok() { echo "ok   $*"; }
bad() {
	echo "FAIL $*"
	FAILS=$((FAILS + 1))
}

t_setup
chmod 0755 "$T" # nobody runs arraysim in one case
mkdir "$T/cwd"  # where a crashing command would leave its core
MNT2=$T/mnt2
SMALL=$T/small
mkdir "$MNT2" "$SMALL"

# Our cleanup first: the second mountpoint, then $MNT and its daemon (so the
# tmpfs under the store is idle), then the tmpfs; t_cleanup does the rest.
bi_cleanup() {
	local rc=$?
	[ $# -gt 0 ] && rc=$1
	set +e
	if t_is_mounted "$MNT2"; then
		fusermount3 -u "$MNT2" 2>/dev/null || fusermount3 -uz "$MNT2" 2>/dev/null
	fi
	if t_is_mounted "$MNT"; then
		timeout 20 "$ARRAYSIM" umount "$MNT" >/dev/null 2>&1 \
			|| timeout 10 fusermount3 -u "$MNT" 2>/dev/null \
			|| fusermount3 -uz "$MNT" 2>/dev/null
	fi
	local pid
	pid=$(t_daemon_pid)
	if t_pid_is_arraysim "$pid"; then
		kill -TERM "$pid" 2>/dev/null
		t_wait_pid_exit "$pid" 5 || kill -KILL "$pid" 2>/dev/null
		t_wait_pid_exit "$pid" 5
	fi
	if t_is_mounted "$SMALL"; then
		umount "$SMALL" 2>/dev/null || umount -l "$SMALL"
	fi
	t_cleanup "$rc"
}
trap 'bi_cleanup' EXIT
trap 'bi_cleanup 130' INT
trap 'bi_cleanup 143' TERM

# bi_unmount DIR: take down a mount that should not be there. Callers
# that go on to use its store wait for its daemon (t_wait_pid_exit).
bi_unmount() {
	timeout 20 fusermount3 -u "$1" 2>/dev/null || fusermount3 -uz "$1" 2>/dev/null || true
}

# new_store NAME: an empty directory for a store, made the current $STORE.
new_store() {
	STORE=$T/$1
	mkdir -p "$STORE"
}

# lines FILE: number of lines, counting an unterminated last one.
lines() { awk 'END { print NR }' "$1"; }

# bad_case NAME WANT_RC [--path P] [--as-nobody] CMD...: CMD must fail
# cleanly (see the top). WANT_RC: "nonzero" or an exact status. --path P:
# the error line must name P.
bad_case() {
	local name=$1 want=$2 path="" nobody=0
	shift 2
	while :; do
		case "${1:-}" in
		--path) path=$2; shift 2 ;;
		--as-nobody) nobody=1; shift ;;
		*) break ;;
		esac
	done
	local rc=0 out=$T/case.out err=$T/case.err why=""
	local -a pre=()
	[ "$nobody" -eq 1 ] && pre=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
	# For `mount`: its last argument must not be newly mounted afterwards.
	local target="" was_mounted=0
	if [ "${2:-}" = mount ]; then
		target=${*: -1}
		t_is_mounted "$target" && was_mounted=1
	fi
	(cd "$T/cwd" && ulimit -c unlimited && timeout -k 5 60 "${pre[@]}" "$@") \
		>"$out" 2>"$err" || rc=$?
	local n first
	n=$(lines "$err")
	first=$(head -n 1 "$err")
	if [ "$rc" -eq 0 ]; then
		why="exited 0"
	elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		why="timed out after 60 s (status $rc)"
	elif [ "$rc" -ge 128 ]; then
		why="killed by signal $((rc - 128))"
	elif [ "$want" != nonzero ] && [ "$rc" -ne "$want" ]; then
		why="exited $rc, expected $want"
	elif [ "$n" -ne 1 ]; then
		why="$n lines on stderr, expected 1"
	elif [[ "$first" != "arraysim: "* ]]; then
		why="stderr line does not begin with 'arraysim: '"
	elif [ -n "$path" ] && [[ "$first" != *"$path"* ]]; then
		why="error line does not name $path"
	fi
	if compgen -G "$T/cwd/core*" >/dev/null; then
		why="${why:+$why; }left a core file"
		rm -f "$T"/cwd/core*
	fi
	if [ -n "$target" ] && [ "$was_mounted" -eq 0 ] && t_is_mounted "$target"; then
		why="${why:+$why; }$target is mounted after a failed mount"
		bi_unmount "$target"
	fi
	if [ -z "$why" ]; then
		ok "$name: status $rc: $first"
		return 0
	fi
	bad "$name: $why"
	echo "     command: ${pre[*]} $*"
	echo "     status $rc; stderr:"
	sed -n '1,10s/^/       | /p' "$err"
	if [ -s "$out" ]; then
		echo "     stdout:"
		sed -n '1,5s/^/       | /p' "$out"
	fi
	return 0
}

A=$ARRAYSIM

# ---- command line --------------------------------------------------------
new_store cli
bad_case "unknown option" nonzero "$A" mount --store "$STORE" --bogus "$MNT"
bad_case "unknown option, nothing else" nonzero "$A" mount --bogus
bad_case "missing mountpoint" nonzero "$A" mount --store "$STORE"
bad_case "two mountpoints" nonzero "$A" mount --store "$STORE" "$MNT" "$MNT2"
bad_case "unknown subcommand" nonzero "$A" frobnicate "$MNT"
bad_case "--seed abc" nonzero "$A" mount --store "$STORE" --seed abc "$MNT"
bad_case "--seed 12x" nonzero "$A" mount --store "$STORE" --seed 12x "$MNT"
bad_case "--seed out of range" nonzero "$A" mount --store "$STORE" --seed 99999999999999999999999 "$MNT"
bad_case "--seed without a value" nonzero "$A" mount --store "$STORE" "$MNT" --seed
bad_case "--dedupe-verify maybe" nonzero "$A" mount --store "$STORE" --dedupe-verify maybe "$MNT"
# issue 13, point 8: a scale the null profile would silently ignore.
bad_case "--scale with the null profile" 2 "$A" mount --store "$STORE" --scale 10 "$MNT"
bad_case "--time-scale with the null profile" 2 "$A" mount --store "$STORE" --time-scale 10 "$MNT"
bad_case "--scale 0" 2 --path 0 "$A" mount --store "$STORE" --profile hybrid --scale 0 "$MNT"
bad_case "--time-scale 2000" 2 --path 2000 "$A" mount --store "$STORE" --profile hybrid --time-scale 2000 "$MNT"
# issue 13, point 7: a rebuild_rate beyond the tier's drives is refused at
# load, naming the tier's limit (160G/s on allflash's SSDs was accepted).
sed '/^\[tier flash\]/a rebuild_rate = 160G/s' "$ARRAYSIM_SRC/tiers/profiles/allflash.ini" >"$T/fast-rebuild.ini"
bad_case "rebuild_rate past the drives (profile show)" 2 --path "rebuild at, " "$A" profile show "$T/fast-rebuild.ini"
bad_case "rebuild_rate past the drives (mount)" 2 --path "rebuild at, " "$A" mount --store "$STORE" --profile "$T/fast-rebuild.ini" "$MNT"
printf 'rand4k_read 40000\nrand4k_writes 1\n' >"$T/ceiling.txt"
bad_case "profile show --ceiling: an unknown workload" 2 --path "$T/ceiling.txt:2" "$A" profile show hybrid --ceiling "$T/ceiling.txt"
bad_case "profile show --ceiling: no such file" 2 --path "$T/no-ceiling" "$A" profile show hybrid --ceiling "$T/no-ceiling"
printf '[array]\nmodel = null\n[dedupe]\ncompression = gzip\n' >"$T/gzip.ini"
bad_case "[dedupe] compression = gzip" 2 --path gzip "$A" profile show "$T/gzip.ini"
printf '[array]\nmodel = null\n[dedupe]\ncompression = lz4\nhash_rate = 1G/s\n' >"$T/null-hash.ini"
bad_case "model = null with [dedupe] hash_rate" 2 --path "takes no other" "$A" profile show "$T/null-hash.ini"
bad_case "mountpoint does not exist" nonzero --path "$T/no-such-mnt" "$A" mount --store "$STORE" "$T/no-such-mnt"
bad_case "fsck without --store" nonzero "$A" fsck
bad_case "stats without a mountpoint" nonzero "$A" stats
bad_case "dedupe-scan without a path" 2 "$A" dedupe-scan
bad_case "dedupe-scan of a missing path" 2 --path "$T/no-such-dir" "$A" dedupe-scan "$T/no-such-dir"
bad_case "dedupe-scan --block 3K" 2 --path 3K "$A" dedupe-scan "$T" --block 3K
bad_case "dedupe-scan --block 4K,,8K" 2 "$A" dedupe-scan "$T" --block 4K,,8K
bad_case "dedupe-scan --block 2M" 2 "$A" dedupe-scan "$T" --block 2M
bad_case "dedupe-scan --compress gzip" 2 --path gzip "$A" dedupe-scan "$T" --compress gzip
bad_case "dedupe-scan --compress-keep most" 2 --path most "$A" dedupe-scan "$T" --compress lz4 --compress-keep most
bad_case "dedupe-scan --compress-keep alone" 2 "$A" dedupe-scan "$T" --compress-keep half
bad_case "dedupe-scan --max-memory 1K" 2 "$A" dedupe-scan "$T" --max-memory 1K
bad_case "dedupe-scan --max-memory lots" 2 "$A" dedupe-scan "$T" --max-memory lots
bad_case "dedupe-scan --threads many" 2 "$A" dedupe-scan "$T" --threads many
bad_case "dedupe-scan --json --csv" 2 "$A" dedupe-scan "$T" --json --csv
[ -z "$(ls -A "$STORE")" ] && ok "rejected command lines left the store empty" \
	|| bad "rejected command lines wrote into the store: $(ls -A "$STORE" | tr '\n' ' ')"

# ---- stores that cannot be used ----------------------------------------------
bad_case "--store does not exist" nonzero --path "$T/no-such-store" "$A" mount --store "$T/no-such-store" "$MNT"
[ -e "$T/no-such-store" ] && bad "mount created the missing store $T/no-such-store"
printf 'not a dir\n' >"$T/store-file"
bad_case "--store is a regular file" nonzero --path "$T/store-file" "$A" mount --store "$T/store-file" "$MNT"
[ "$(cat "$T/store-file")" = "not a dir" ] || bad "mount changed the regular file given as --store"

# Not writable: a root-owned 0755 dir, as nobody, on a mountpoint of nobody's.
new_store root-owned
mkdir "$T/nobody-mnt" && chown 65534:65534 "$T/nobody-mnt"
if setpriv --reuid=65534 --regid=65534 --clear-groups -- test -x "$A"; then
	bad_case "--store not writable (as nobody)" nonzero --as-nobody --path "$STORE" \
		"$A" mount --store "$STORE" "$T/nobody-mnt"
	[ -z "$(ls -A "$STORE")" ] || bad "nobody's failed mount wrote into the root-owned store"
else
	echo "skip --store not writable: nobody cannot execute $A"
fi

new_store not-a-store
printf 'precious\n' >"$STORE/unrelated.txt"
bad_case "non-empty dir that is not a store" nonzero --path "$STORE" "$A" mount --store "$STORE" "$MNT"
[ "$(ls -A "$STORE")" = unrelated.txt ] && [ "$(cat "$STORE/unrelated.txt")" = precious ] \
	&& ok "the foreign directory is untouched" \
	|| bad "mount changed the foreign directory: $(ls -A "$STORE" | tr '\n' ' ')"
bad_case "fsck of a dir that is not a store" 2 "$A" fsck --store "$STORE"

# ---- not a mount ------------------------------------------------------------
mkdir "$T/plain"
bad_case "stats of a plain directory" nonzero --path "$T/plain" "$A" stats "$T/plain"
bad_case "stats --json of a plain directory" nonzero "$A" stats "$T/plain" --json
bad_case "stats of a missing path" nonzero "$A" stats "$T/no-such-dir"
bad_case "umount of a plain directory" nonzero --path "$T/plain" "$A" umount "$T/plain"
bad_case "umount of a missing path" nonzero "$A" umount "$T/no-such-dir"
# A mount that is not arraysim's must be refused, and left alone.
mkdir "$T/othermnt"
mount -t tmpfs -o size=1m tmpfs "$T/othermnt"
bad_case "umount of a tmpfs (not arraysim)" nonzero "$A" umount "$T/othermnt"
if t_is_mounted "$T/othermnt"; then
	ok "the tmpfs is still mounted"
	umount "$T/othermnt"
else
	bad "arraysim umount unmounted a tmpfs that is not arraysim's"
fi

# ---- a store in use ------------------------------------------------------
new_store busy
t_mount
printf 'first mount\n' >"$MNT/f"
bad_case "second mount of a mounted store" nonzero --path "$STORE" "$A" mount --store "$STORE" "$MNT2"
bad_case "fsck of a mounted store" 2 "$A" fsck --store "$STORE"
# The first mount is unharmed.
pid=$(t_daemon_pid)
t_pid_is_arraysim "$pid" && ok "first daemon (pid $pid) alive" || bad "first daemon (pid '$pid') died"
if [ "$(timeout 20 cat "$MNT/f" 2>&1)" = "first mount" ] \
	&& timeout 20 sh -c 'printf more >"$1/g" && [ "$(cat "$1/g")" = more ]' _ "$MNT"; then
	ok "first mount still reads and writes"
else
	bad "first mount stopped working after the second mount attempt"
fi
timeout 20 "$A" stats "$MNT" >/dev/null && ok "stats of the first mount works" \
	|| bad "stats of the first mount exited $?"
t_umount
rc=0
"$A" fsck --store "$STORE" >"$T/fsck.out" 2>&1 || rc=$?
[ "$rc" -eq 0 ] && ok "fsck after the busy-store cases: clean" \
	|| { bad "fsck after the busy-store cases exited $rc"; head -n 20 "$T/fsck.out"; }

# ---- another format version ----------------------------------------------
# set_format_version STORE VERSION: rewrite meta["format"].version in place;
# prints the version the store had.
set_format_version() {
	mdb_dump -s meta "$1/meta" >"$T/meta.dump" || return 1
	python3 - "$T/meta.dump" "$2" <<'EOF' || return 1
import sys
path, version = sys.argv[1], int(sys.argv[2])
lines = open(path).read().split("\n")
i = lines.index("HEADER=END") + 1
keys = {b"format".hex(), b"format\0".hex()}
found = False
while i + 1 < len(lines) and lines[i] != "DATA=END":
    if lines[i].strip() in keys:
        v = bytearray(bytes.fromhex(lines[i + 1].strip()))
        if int.from_bytes(v[0:4], "little") != 0x41525259:
            sys.exit("meta/format: magic is %s, not ARRY" % v[0:4].hex())
        print(int.from_bytes(v[4:8], "little"))  # the version it had
        v[4:8] = version.to_bytes(4, "little")
        lines[i + 1] = " " + v.hex()
        found = True
    i += 2
if not found:
    sys.exit("no 'format' key in table meta")
open(path, "w").write("\n".join(lines))
EOF
	# mdb_load 0.9.24 warns about the db_pagesize header mdb_dump writes.
	mdb_load -s meta -f "$T/meta.dump" "$1/meta" 2>"$T/mdb_load.err" \
		|| { cat "$T/mdb_load.err"; return 1; }
}

new_store version
t_mount
printf 'x\n' >"$MNT/f"
t_umount
if own_version=$(set_format_version "$STORE" 999); then
	bad_case "store of format version 999" nonzero --path "$STORE" "$A" mount --store "$STORE" "$MNT"
	bad_case "fsck of format version 999" 2 "$A" fsck --store "$STORE"
	# Format 2 (before records were sealed) is named as an older store's.
	set_format_version "$STORE" 2 >/dev/null
	bad_case "store of format 2" nonzero --path "$STORE" "$A" mount --store "$STORE" "$MNT"
	grep -q '^arraysim: store format 2: made by an older arraysim; ' "$T/case.err" \
		&& ok "format 2 refused as an older arraysim's" \
		|| bad "format 2 refusal: $(cat "$T/case.err")"
	# Back to its own version, the same store mounts: the version was the
	# cause.
	set_format_version "$STORE" "$own_version" >/dev/null ||
		bad "could not patch the format version back to $own_version"
	rc=0
	"$A" mount --store "$STORE" "$MNT" 2>"$T/case.err" || rc=$?
	if [ "$rc" -eq 0 ] && t_is_mounted; then
		[ "$(cat "$MNT/f")" = x ] && ok "store patched back to version $own_version mounts with its data" \
			|| bad "store patched back to version $own_version lost its data"
		t_umount
	else
		bad "store patched back to version $own_version does not mount (status $rc): $(cat "$T/case.err")"
	fi
else
	bad "could not patch the format version with mdb_dump/mdb_load (see above)"
fi

# ---- damaged metadata ------------------------------------------------------
new_store damaged
t_mount
for i in 1 2 3; do head -c 100000 /dev/urandom >"$MNT/f$i"; done
t_umount
if [ -f "$STORE/meta/data.mdb" ]; then
	head -c 8192 /dev/urandom | dd of="$STORE/meta/data.mdb" conv=notrunc status=none
	bad_case "damaged metadata (8 KiB of noise)" nonzero --path "$STORE" "$A" mount --store "$STORE" "$MNT"
	rc=0
	(cd "$T/cwd" && ulimit -c unlimited && timeout -k 5 60 "$A" fsck --store "$STORE") \
		>"$T/fsck.out" 2>&1 || rc=$?
	if [ "$rc" -eq 1 ] || [ "$rc" -eq 2 ]; then
		ok "fsck of damaged metadata: status $rc"
	else
		bad "fsck of damaged metadata: status $rc, expected 1 or 2"
		head -n 10 "$T/fsck.out"
	fi
else
	bad "no $STORE/meta/data.mdb after mount + umount"
fi

# Noise deeper in: the two LMDB meta pages intact, some tree pages not, for
# six seeds (each damages a fresh copy differently). A mount may succeed
# (LMDB reads lazily); then walking and reading the tree must give errors,
# not kill the daemon. fsck must report (1) or give up (2), never crash.
new_store damaged-pages
t_mount
for i in $(seq 1 200); do head -c 20000 /dev/urandom >"$MNT/f$i"; done
mkdir "$MNT/d" && (cd "$MNT/d" && touch $(seq -f 'e%g' 1 300))
t_umount
cp -a "$STORE" "$T/damaged-pages.orig"
for seed in 1 2 3 4 5 6; do
	rm -rf "$STORE"
	cp -a "$T/damaged-pages.orig" "$STORE"
	used=$(mdb_stat -e "$STORE/meta" | sed -n 's/^ *Number of pages used: //p')
	python3 - "$STORE/meta/data.mdb" "$seed" "$used" <<'EOF'
import os, random, sys
rng = random.Random(int(sys.argv[2]))  # the same pages and noise every run
fd = os.open(sys.argv[1], os.O_WRONLY)
used = int(sys.argv[3])
# A third of the pages LMDB uses, past the two meta pages: some of them
# are free pages, enough of them are the live tree.
for page in rng.sample(range(2, used), (used - 2) // 3):
    os.pwrite(fd, bytes(rng.getrandbits(8) for _ in range(4096)), page * 4096)
os.close(fd)
EOF
	rc=0
	(cd "$T/cwd" && "$A" mount --store "$STORE" "$MNT") >"$T/case.out" 2>"$T/case.err" || rc=$?
	if [ "$rc" -eq 0 ] && t_is_mounted; then
		pid=$(t_daemon_pid)
		timeout 60 ls -lR "$MNT" >/dev/null 2>&1 || true
		timeout 120 cat "$MNT"/f* >/dev/null 2>&1 || true
		if t_pid_is_arraysim "$pid" && timeout 20 stat "$MNT" >/dev/null 2>&1; then
			ok "damaged tree pages, seed $seed: mounted; reading gives errors, the daemon lives"
		else
			bad "damaged tree pages, seed $seed: the daemon (pid $pid) died or hung reading the tree"
			tail -n 3 "$STORE/arraysim.log" 2>/dev/null | cut -c1-200 | sed 's/^/       | /'
		fi
		bi_unmount "$MNT"
		t_wait_pid_exit "$pid" 10 || true
	elif [ "$rc" -ge 128 ]; then
		bad "damaged tree pages, seed $seed: mount killed by signal $((rc - 128))"
	elif [ "$(lines "$T/case.err")" -eq 1 ] && [[ "$(cat "$T/case.err")" == "arraysim: "* ]]; then
		ok "damaged tree pages, seed $seed: mount refused: $(cat "$T/case.err")"
	else
		bad "damaged tree pages, seed $seed: mount exited $rc with $(lines "$T/case.err") lines on stderr"
	fi
	rc=0
	(cd "$T/cwd" && timeout -k 5 120 "$A" fsck --store "$STORE") >"$T/fsck.out" 2>&1 || rc=$?
	if [ "$rc" -eq 1 ] || [ "$rc" -eq 2 ]; then
		ok "damaged tree pages, seed $seed: fsck status $rc ($(lines "$T/fsck.out") lines)"
	else
		bad "damaged tree pages, seed $seed: fsck status $rc, expected 1 or 2 ($(lines "$T/fsck.out") lines of output, last:)"
		tail -n 1 "$T/fsck.out" | cut -c1-200 | sed 's/^/       | /'
	fi
	rm -f "$T"/cwd/core*
done

# ---- ENOSPC on a full host disk --------------------------------------------
# read_sha FILE: sha256 of FILE read through the filesystem, not the cache.
read_sha() {
	timeout 60 python3 - "$1" <<'EOF'
import hashlib, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.fsync(fd)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
h = hashlib.sha256()
while True:
    b = os.read(fd, 1 << 20)
    if not b:
        break
    h.update(b)
print(h.hexdigest())
EOF
}

t_log "ENOSPC on a 64 MiB tmpfs"
mount -t tmpfs -o size=64m tmpfs "$SMALL"
STORE=$SMALL/store
mkdir "$STORE"
t_mount
for i in 1 2; do
	head -c $((4 * 1024 * 1024)) /dev/urandom >"$T/keep$i"
	dd if="$T/keep$i" of="$MNT/keep$i" bs=1M conv=fsync status=none \
		|| t_fail "writing keep$i (8 MiB of 64) failed"
done
rc=0
timeout -k 5 120 dd if=/dev/urandom of="$MNT/fill" bs=1M conv=fsync status=none \
	2>"$T/fill.err" || rc=$?
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
	bad "ENOSPC: filling 64 MiB hung (dd timed out after 120 s)"
elif [ "$rc" -eq 0 ]; then
	bad "ENOSPC: dd of an endless stream exited 0"
elif grep -q 'No space left on device' "$T/fill.err"; then
	ok "ENOSPC: writer got 'No space left on device' after $(stat -c %s "$MNT/fill" 2>/dev/null) bytes"
else
	bad "ENOSPC: dd failed (status $rc) but not with ENOSPC: $(head -n 3 "$T/fill.err")"
fi
pid=$(t_daemon_pid)
if t_pid_is_arraysim "$pid" && t_is_mounted && timeout 20 stat "$MNT" >/dev/null 2>&1; then
	ok "ENOSPC: daemon (pid $pid) alive and mount answering"
else
	bad "ENOSPC: the daemon died or the mount stopped answering"
	t_fail "cannot go on with the ENOSPC checks"
fi
for i in 1 2; do
	want=$(sha256sum <"$T/keep$i" | cut -d' ' -f1)
	got=$(read_sha "$MNT/keep$i" 2>&1 || true)
	[ "$got" = "$want" ] && ok "ENOSPC: keep$i (fsync'd before) reads back intact" \
		|| bad "ENOSPC: keep$i reads back as '$got', expected $want"
done
rc=0
timeout 60 rm -f "$MNT/fill" || rc=$?
[ "$rc" -eq 0 ] && ok "ENOSPC: the filler can be deleted on a full disk" \
	|| bad "ENOSPC: rm of the filler on a full disk: status $rc"
timeout 60 sync -f "$MNT" || bad "ENOSPC: syncfs after the delete failed"
rc=0
timeout 60 dd if=/dev/urandom of="$MNT/after" bs=1M count=8 conv=fsync status=none \
	2>"$T/after.err" || rc=$?
[ "$rc" -eq 0 ] && ok "ENOSPC: after the delete an 8 MiB write succeeds" \
	|| bad "ENOSPC: 8 MiB write after the delete: status $rc: $(head -n 2 "$T/after.err")"
t_umount
rc=0
"$A" fsck --store "$STORE" >"$T/fsck.out" 2>&1 || rc=$?
[ "$rc" -eq 0 ] && ok "ENOSPC: fsck clean after the full disk" \
	|| { bad "ENOSPC: fsck after the full disk exited $rc"; head -n 20 "$T/fsck.out"; }
umount "$SMALL" || bad "could not unmount the tmpfs under the store"

echo "bad_input.sh: $FAILS failed"
[ "$FAILS" -eq 0 ]
