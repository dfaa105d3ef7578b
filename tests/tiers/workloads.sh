#!/usr/bin/env bash
# tests/tiers/workloads.sh: every fio job file in workloads/ parses.
set -euo pipefail
command -v fio >/dev/null || { echo "SKIP: fio is not installed" >&2; exit 77; }
SRC=${ARRAYSIM_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
export DIR=/tmp SIZE=1G RUNTIME=5 QD=16 RATE_64K_R=1 RATE_64K_W=1 RATE_8K_R=1 RATE_8K_W=1 \
	RATE_R=0 RATE_W=0 DEDUPE_PCT=0 COMPRESS_PCT=0
fails=0
for f in "$SRC"/workloads/*.fio; do
	if fio --parse-only "$f" >/dev/null 2>&1; then
		echo "ok   $(basename "$f")"
	else
		echo "FAIL $(basename "$f"): $(fio --parse-only "$f" 2>&1 | head -1)"
		fails=$((fails + 1))
	fi
done
[ "$fails" -eq 0 ]
