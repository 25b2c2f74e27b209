#!/usr/bin/env bash
# A sweep through a real one-node Slurm cluster gives the local run's table.
#
# usage: check_slurm.sh RNICSIM SOURCE_DIR WORK_DIR
#
# Starts a private cluster (slurm_cluster.sh), submits an 8-point sweep as a
# job array (two tasks at a time), submits again at once (nothing must go:
# every point is queued or done), waits for the array to leave the queue, collects,
# and compares the table with the same sweep run here: identical apart from
# wall time and peak memory, which each point measures itself. Stops the
# daemons it started by their PIDs. Exits 77 (skipped) only when the cluster
# cannot start (not root, or the daemons fail).
set -euo pipefail
rnicsim=$1
source_dir=$2
work=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
cluster=$(mktemp -d)
trap '"$here/slurm_cluster.sh" stop "$cluster" || true; rm -rf "$cluster"' EXIT

status=0
"$here/slurm_cluster.sh" start "$cluster" $$ || status=$?
if [ "$status" -ne 0 ]; then
  [ "$status" -eq 77 ] && echo "SKIP: no Slurm cluster could start here (the message above says why)"
  exit "$status"
fi
# shellcheck disable=SC1091
source "$cluster/env"

cat > "$work/sweep.json" <<JSON
{
  "base": "$source_dir/configs/sweeps/mtt_cache_base.json",
  "set": {"translation_test.accesses": 20000, "translation_test.warmup_accesses": 20000},
  "axes": [
    {"key": "translation_test.cache_entries", "values": [1024, 4096]},
    {"key": "translation_test.mr_bytes", "range": {"from": 1048576, "to": 4194304, "factor": 4}},
    {"key": "host.page_bytes", "values": [4096, 2097152]}
  ],
  "collect": {"hit_rate": "/points/0/hit_rate", "mean_ns": "/points/0/mean_translate_ns"}
}
JSON

submitted=$("$rnicsim" sweep "$work/sweep.json" --out "$work/slurm" --slurm --max-parallel 2)
echo "$submitted"
job=$(sed -n 's/^sweep: submitted job \([0-9]*\);.*/\1/p' <<<"$submitted")
[ -n "$job" ] || { echo "FAIL: no job id in rnicsim's output"; exit 1; }
grep -qx "$job" "$work/slurm/slurm/sweep-1.job" || { echo "FAIL: sweep-1.job lacks job $job"; exit 1; }

# Submitting again at once: every point is queued, running or finished, so
# nothing is submitted twice.
again=$("$rnicsim" sweep "$work/sweep.json" --out "$work/slurm" --slurm --dry-run)
echo "$again"
grep -q "are still queued or running in job $job and are not submitted again" <<<"$again" &&
  grep -q "^sweep: no point to submit" <<<"$again" && [ ! -e "$work/slurm/slurm/sweep-2.sbatch" ] ||
  { echo "FAIL: a resubmission while the array is queued must leave its points out"; exit 1; }

# Done when squeue answers and lists nothing of the job (an unreachable
# controller also prints nothing, but exits non-zero).
for _ in $(seq 600); do
  if listed=$(squeue -h -j "$job" 2>/dev/null) && [ -z "$listed" ]; then break; fi
  sleep 0.5
done
listed=$(squeue -h -j "$job" 2>/dev/null) || true
[ -z "$listed" ] || { echo "FAIL: job $job still queued after 300 s:"; echo "$listed"; exit 1; }

"$rnicsim" sweep "$work/sweep.json" --out "$work/slurm" --collect || {
  echo "FAIL: --collect found points that failed or did not run:"
  cat "$work"/slurm/slurm/*.out
  exit 1
}
"$rnicsim" sweep "$work/sweep.json" --out "$work/local" -j 2 >/dev/null

# The tables without the columns each point measures of itself.
strip() { python3 - "$1" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
for row in rows:
    print({k: v for k, v in row.items() if k not in ("wall_seconds", "peak_memory_mib")})
PY
}
if ! diff <(strip "$work/local/results.csv") <(strip "$work/slurm/results.csv"); then
  echo "FAIL: the Slurm table differs from the local one"
  exit 1
fi
tasks=$(ls "$work"/slurm/slurm/sweep-1-*.out | wc -l)
[ "$tasks" -eq 8 ] || { echo "FAIL: $tasks array task outputs, expected 8"; exit 1; }

# Once the array has left the queue, a point without a record is submitted
# again, alone.
lost=$(ls -d "$work"/slurm/points/*/ | head -n 1)
rm "$lost/point.json"
again=$("$rnicsim" sweep "$work/sweep.json" --out "$work/slurm" --slurm --dry-run)
echo "$again"
[ "$(cat "$work/slurm/slurm/tasks-2.txt")" = "$(basename "$lost")" ] ||
  { echo "FAIL: the resubmission must hold the one point without a record"; exit 1; }
echo "PASS: slurm: 8 points in 8 array tasks, the same table as the local run"
