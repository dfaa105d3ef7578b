#!/usr/bin/env bash
# vsan_cpu: the vSAN evaluation's finding through FUSE (issue 16): under
# the same steady load, 4K 70/30 random at test_vsan_cpu_bands' 649,000
# IOPS (half the slowest cluster's hero figure; tests/tiers/
# test_profiles.c says why), the all-NVMe clusters (vsan-dell-r740xd,
# vsan-hpe-dl380) saturate their CPUs first and the VxRail
# (vsan-vxrail-p570f) something else, at well under their CPU load
# (3/4, test_vsan_cpu_bands' limit). The run is --scale 0.001: 649 IOPS
# through FUSE, far under any host's ceiling; utilisation does not change
# with the scale. Unlike the emulated-time test, the file is freshly
# written: it sits in the write buffers, reads hit them and nothing is
# destaged, so the levels are lower than there; the published bands
# (15-20% and 50-60%, which the model does not reproduce:
# vsan-vxrail-p570f.ini) are printed beside them.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t_require_cmd fio python3

SCALE=0.001
RATE_R=454 # 649 x 70%
RATE_W=195

# Timed figures on three profiles: the sanitized step narrows these to
# one profile it names (scripts/test.sh, TIMED_PROFILES), not a vSAN one.
t_only_profiles TIMED_PROFILES vsan-dell-r740xd
t_setup
# run PROFILE: the steady load on a fresh store; its stats --array JSON
# (since the layout) to $T/PROFILE.json.
run() {
	STORE=$T/store-$1
	mkdir "$STORE"
	t_mount --profile "$1" --scale "$SCALE"
	"$ARRAYSIM" ctl "$MNT" model pause >/dev/null
	t_fio --name=layout --filename="$MNT/vmdk" --rw=write --bs=1M --size=64M
	"$ARRAYSIM" ctl "$MNT" model resume >/dev/null
	"$ARRAYSIM" ctl "$MNT" stats mark >/dev/null
	t_fio --name=steady --filename="$MNT/vmdk" --rw=randrw --rwmixread=70 --bs=4k \
		--size=64M --ioengine=libaio --direct=1 --iodepth=64 \
		--rate_iops=$RATE_R,$RATE_W --time_based --runtime=6
	"$ARRAYSIM" stats --array --since-mark --json "$MNT" >"$T/$1.json" ||
		t_fail "arraysim stats --array exited $?"
	t_umount
}
for p in vsan-vxrail-p570f vsan-dell-r740xd vsan-hpe-dl380; do
	run "$p"
done

python3 - "$T" <<'PY' || t_fail "vSAN CPU (above)"
import json, sys
runs = {p: json.load(open(f"{sys.argv[1]}/{p}.json"))
        for p in ("vsan-vxrail-p570f", "vsan-dell-r740xd", "vsan-hpe-dl380")}
band = {"vsan-vxrail-p570f": "15-20", "vsan-dell-r740xd": "50-60", "vsan-hpe-dl380": "50-60"}
cpu = {}
for p, st in runs.items():
    cpu[p] = st["tiers"]["ctl"]["busy_pct"]
    print(f"{p}: CPU ({st['cpu_counter']}) {cpu[p]:.1f}% (published {band[p]}% at steady state), "
          f"bottleneck {st['bottleneck']['resource']} {st['bottleneck']['busy_pct']:.1f}%")
for p in ("vsan-dell-r740xd", "vsan-hpe-dl380"):
    assert runs[p]["bottleneck"]["resource"] == "ctl", f"{p}: CPUs not first"
    assert cpu["vsan-vxrail-p570f"] < 0.75 * cpu[p], f"VxRail CPU against {p}'s"
assert runs["vsan-vxrail-p570f"]["bottleneck"]["resource"] != "ctl", "VxRail: CPUs first"
assert all(st["cpu_counter"] == "usage" for st in runs.values()), "cpu_counter"
assert abs(cpu["vsan-hpe-dl380"] / cpu["vsan-dell-r740xd"] - 1) < 0.1, "HPE is the Dell's hardware"
PY
echo "PASS"
