#!/usr/bin/env bash
# tests/tiers/profiles.sh: every built-in profile `profile show`s cleanly
# and loads back from what it printed; every bad profile, and every
# misuse of `profile`, `profiles` and `mount --profile/--scale`, fails
# with exactly one "arraysim: " line, exit 2 and nothing mounted. No FUSE
# is needed: profiles are checked before anything is mounted.
#
# By hand: ARRAYSIM=build/tools/arraysim bash tests/tiers/profiles.sh
set -euo pipefail

if [ -z "${ARRAYSIM:-}" ] || [ ! -x "$ARRAYSIM" ]; then
	echo "SKIP: ARRAYSIM='${ARRAYSIM:-}' is not an executable" >&2
	exit 77
fi
T=$(mktemp -d /tmp/arraysim-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
FAILS=0
ok() { echo "ok   $*"; }
bad() {
	echo "FAIL $*"
	FAILS=$((FAILS + 1))
}

# Every built-in: shown, and what is shown loads and shows the same.
names=$("$ARRAYSIM" profiles | awk '{ print $1 }')
if [ "$(echo "$names" | wc -l)" -eq 18 ]; then ok "18 built-ins"; else bad "built-ins: $names"; fi
# The bonnie++/Postmark report's four NFS datastores (issue 16) are among
# them, and so are the vSAN evaluation's three clusters (issue 16, section 1).
for n in tintri-t540 tegile-ha2200ep nexsan-e5000 opensolaris-b132 \
	vsan-vxrail-p570f vsan-dell-r740xd vsan-hpe-dl380; do
	echo "$names" | grep -qx "$n" || bad "built-in $n is missing"
done
for n in $names; do
	if ! "$ARRAYSIM" profile show "$n" >"$T/$n.ini" 2>"$T/err"; then
		bad "profile show $n: $(cat "$T/err")"
		continue
	fi
	head -1 "$T/$n.ini" | grep -qx "; profile $n, fully resolved" \
		|| bad "profile show $n: first line $(head -1 "$T/$n.ini")"
	if "$ARRAYSIM" profile show "$T/$n.ini" >"$T/again" 2>"$T/err" \
		&& diff <(tail -n +2 "$T/$n.ini") <(tail -n +2 "$T/again") >/dev/null; then
		ok "profile show $n, and back"
	else
		bad "profile show $n does not load back: $(cat "$T/err")"
	fi
done

# one_line_failure DESC CMD...: exit 2, one "arraysim: " line on stderr
# (matching $WANT if set), nothing on stdout, nothing mounted on $T/mnt.
one_line_failure() {
	local desc=$1 rc=0
	shift
	timeout 20 "$@" >"$T/out" 2>"$T/err" || rc=$?
	if [ "$rc" -ne 2 ]; then
		bad "$desc: exit $rc, want 2 ($(head -c 300 "$T/err"))"
	elif [ "$(awk 'END { print NR }' "$T/err")" -ne 1 ] || ! grep -q '^arraysim: ' "$T/err"; then
		bad "$desc: stderr is not one 'arraysim: ' line: $(cat "$T/err")"
	elif [ -s "$T/out" ]; then
		bad "$desc: wrote to stdout: $(head -c 300 "$T/out")"
	elif [ -n "${WANT:-}" ] && ! grep -qF -- "$WANT" "$T/err"; then
		bad "$desc: '$(cat "$T/err")' does not say '$WANT'"
	elif awk -v d="$T/mnt" '$5 == d { f = 1 } END { exit !f }' /proc/self/mountinfo; then
		bad "$desc: something is mounted on $T/mnt"
	else
		ok "$desc: $(cat "$T/err")"
	fi
}

mkdir "$T/mnt" "$T/store"
base='[frontend]
speed = 10GbE
[tier flash]
kind = ssd
drives = 4
capacity = 1T
raid = raid5
read_latency = 100us
write_latency = 50us'
printf '%s\n' "$base" >"$T/good.ini"
if "$ARRAYSIM" profile show "$T/good.ini" >/dev/null; then
	ok "the base profile is good"
else
	bad "the base profile does not load"
fi

# bad_profile NAME SED WANT: the base with one sed edit must fail, saying WANT.
bad_profile() {
	sed "$2" "$T/good.ini" >"$T/$1.ini"
	WANT="$T/$1.ini:$3" one_line_failure "profile show $1" "$ARRAYSIM" profile show "$T/$1.ini"
	WANT="$T/$1.ini:$3" one_line_failure "mount --profile $1" \
		"$ARRAYSIM" mount --store "$T/store" --profile "$T/$1.ini" "$T/mnt"
}
bad_profile raid7 's/raid5/raid7/' "7: [tier flash] raid: unknown RAID level 'raid7'"
bad_profile unknown_key 's/^kind = ssd/kind = ssd\nflavour = mint/' "5: [tier flash] flavour: unknown key"
bad_profile bad_unit 's/1T/1 lightyear/' "6: [tier flash] capacity: '1 lightyear' is not a size"
bad_profile no_drives 's/drives = 4/drives = 0/' "5: [tier flash] drives:"
bad_profile raid5_two 's/drives = 4/drives = 2/' "7: [tier flash] raid: raid5 needs 3 drives"
bad_profile pct_order 's/read_latency = 100us/read_latency = p99:1ms p50:90us/' "8: [tier flash] read_latency: percentiles out of order"
bad_profile syntax 's/^speed = 10GbE/speed 10GbE/' "2: expected [section] or key = value"
bad_profile section 's/\[frontend\]/[frontman]/' "1: unknown section [frontman]"
bad_profile protocol 's/^speed = 10GbE/speed = 10GbE\nprotocol = fc/' "3: [frontend] protocol: fc needs an FC speed"
bad_profile nodes_raid 's/^write_latency = 50us/write_latency = 50us\n[nodes]\ncount = 4\nplacement = object\nraid = raid6\ninterconnect = 25GbE/' "13: [nodes] raid: raid6 across nodes needs 6 nodes or more (count = 4)"
bad_profile nodes_ib_hosts 's/^speed = 10GbE/speed = IB-QDR\nprotocol = local/' "2: [frontend] speed: InfiniBand joins nodes"
bad_profile repl_link 's/^write_latency = 50us/&\n[replication]\nspeed = SAS-12G/' "11: [replication] speed: a replication link is Ethernet or FC"
bad_profile repl_km 's/^write_latency = 50us/&\n[replication]\ndistance_km = 50 km/' "11: [replication] distance_km: '50 km' is not a whole number"

# [replication]: shown with the computed round trip, and loads back.
printf '%s\n[replication]\nspeed = 25GbE\ndistance_km = 80\nhops = 4\n' "$base" >"$T/metro.ini"
"$ARRAYSIM" profile show "$T/metro.ini" >"$T/metro.shown"
# 2 x (80 km x 5 us + 4 hops x 5 us + 15 us)
if grep -qx "; replication round trip 870.0 us, 2942.2 MB/s each way after overhead" "$T/metro.shown" \
	&& "$ARRAYSIM" profile show "$T/metro.shown" | tail -n +2 | diff - <(tail -n +2 "$T/metro.shown") >/dev/null; then
	ok "[replication] shown with its round trip, and back"
else
	bad "[replication]: $(grep -A8 '^\[replication\]' "$T/metro.shown")"
fi
printf '\x00\xff[[[\n=\n' >"$T/binary.ini"
WANT="$T/binary.ini:1: not a text file" one_line_failure "profile show of binary junk" "$ARRAYSIM" profile show "$T/binary.ini"

WANT="unknown profile 'nonesuch'" one_line_failure "profile show nonesuch" "$ARRAYSIM" profile show nonesuch
WANT="No such file" one_line_failure "profile show a missing file" "$ARRAYSIM" profile show "$T/missing.ini"
WANT="usage" one_line_failure "profile with no verb" "$ARRAYSIM" profile
WANT="usage" one_line_failure "profile show with no name" "$ARRAYSIM" profile show
WANT="usage" one_line_failure "profile list" "$ARRAYSIM" profile list x
WANT="unexpected argument" one_line_failure "profile show two names" "$ARRAYSIM" profile show null hybrid
WANT="unexpected argument" one_line_failure "profiles with an argument" "$ARRAYSIM" profiles extra
WANT="unknown profile" one_line_failure "mount --profile nonesuch" \
	"$ARRAYSIM" mount --store "$T/store" --profile nonesuch "$T/mnt"
for s in 0 -1 abc 1e3 1001; do
	WANT="--scale: '$s'" one_line_failure "mount --scale $s" \
		"$ARRAYSIM" mount --store "$T/store" --scale "$s" "$T/mnt"
done

[ "$FAILS" -eq 0 ] || { echo "$FAILS failed"; exit 1; }
