#!/usr/bin/env bash
# dedupe_ratio: the 4 KiB inline dedupe finds the duplicates fio generates,
# and stats reports them: live_blocks is exactly the number of 4 KiB blocks
# written, unique_blocks and dedupe_ratio match fio's dedupe_percentage, and
# all-zero blocks are counted apart (zero_blocks) rather than as unique data.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t_require_cmd fio

SIZE_MIB=64
BS=4096
P=50                                    # fio dedupe_percentage
N=$((SIZE_MIB * 1024 * 1024 / BS))      # 4 KiB blocks written: 16384

# The expected unique fraction, from how fio 3.33 builds write buffers
# (io_u.c: get_buf_state / save_buf_state, dedupe_mode=repeat, the default):
# for each buffer, v = rand_between(dedupe_state, 1, 100); if v <= P the buffer
# is generated from a copy of buf_state_prev (the generator state saved after
# the last unique buffer), otherwise from buf_state, which then advances and
# is saved as buf_state_prev. So a "dedupe" buffer repeats bytes fio generates
# once more (the next unique buffer's content) and every other buffer is new
# random data. With bs=4k each buffer is one dedupe block, so the number of
# distinct blocks is the number of non-dedupe draws, plus at most 1 for a
# trailing run of repeats:
#     unique ~ Binomial(N, 1 - P/100)        expected N/2 = 8192
#     dedupe_ratio = live/unique ~ 1 / (1 - P/100) = 2.0
# (dedupe_working_set_percentage only matters for dedupe_mode=working_set.)
# Tolerance: the binomial sd of unique is sqrt(N/4) = 64 blocks = 0.8% of
# N/2, so +-5% is over 6 sd: a miss means the dedupe is wrong, not unlucky.
# (fio's default randrepeat=1 also makes the draw the same on every run.)
TOL_PCT=5

t_setup
t_mount

live0=$(t_stat_json live_blocks)
uniq0=$(t_stat_json unique_blocks)
dup0=$(t_stat_json duplicate_hits)

t_fio --name=dedupe --directory="$MNT" --filename=dedupe.dat \
	--rw=write --bs=$BS --size=${SIZE_MIB}M --ioengine=psync --direct=1 \
	--fallocate=none --refill_buffers=1 --dedupe_percentage=$P \
	--dedupe_mode=repeat

live=$(( $(t_stat_json live_blocks) - live0 ))
uniq=$(( $(t_stat_json unique_blocks) - uniq0 ))
dups=$(( $(t_stat_json duplicate_hits) - dup0 ))
ratio=$(t_stat_json dedupe_ratio)
t_log "live_blocks +$live unique_blocks +$uniq duplicate_hits +$dups dedupe_ratio $ratio"

t_assert_eq "$live" "$N" "live_blocks after writing ${SIZE_MIB} MiB in 4 KiB blocks"
t_assert_eq "$dups" "$((N - uniq))" \
	"duplicate_hits: every block of a fresh file that is not unique is a hit"

python3 - "$N" "$uniq" "$ratio" "$P" "$TOL_PCT" "$live0" "$uniq0" <<'PY' || t_fail "dedupe counts off"
import sys
n, uniq, ratio, p, tol, live0, uniq0 = (float(a) for a in sys.argv[1:])
want_uniq = n * (1 - p / 100)
want_ratio = 1 / (1 - p / 100)
bad = []
if abs(uniq - want_uniq) > want_uniq * tol / 100:
    bad.append("unique_blocks grew by %d, expected %d +-%g%%" % (uniq, want_uniq, tol))
if abs(ratio - want_ratio) > want_ratio * tol / 100:
    bad.append("dedupe_ratio %g, expected %g +-%g%%" % (ratio, want_ratio, tol))
# dedupe_ratio is defined as live_blocks / unique_blocks: check the arithmetic.
live_all, uniq_all = n + live0, uniq + uniq0
if uniq_all and abs(ratio - live_all / uniq_all) > 0.001 * live_all / uniq_all + 1e-6:
    bad.append("dedupe_ratio %g != live_blocks/unique_blocks = %g"
               % (ratio, live_all / uniq_all))
for b in bad:
    print("FAIL: " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY

# Zero blocks are counted apart: 1 MiB of zeros adds 256 zero blocks and no
# unique block.
zero0=$(t_stat_json zero_blocks)
uniq0=$(t_stat_json unique_blocks)
dd if=/dev/zero of="$MNT/zeros.dat" bs=4096 count=256 oflag=direct conv=fsync status=none \
	|| t_fail "dd of 1 MiB of zeros to $MNT/zeros.dat"
t_assert_eq "$(( $(t_stat_json zero_blocks) - zero0 ))" 256 "zero_blocks after writing 256 zero blocks"
t_assert_eq "$(t_stat_json unique_blocks)" "$uniq0" "unique_blocks after writing only zero blocks"
cmp -n 1048576 "$MNT/zeros.dat" /dev/zero || t_fail "zeros.dat does not read back as zeros"

t_umount
t_fsck
