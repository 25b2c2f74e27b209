#!/usr/bin/env python3
"""rnicsim perf --warmup=N: N messages per QP before each size, not measured.

usage: check_perf_warmup.py RNICSIM WORK_FOLDER

The same write_bw (4 QPs over 2 threads) runs with and without a warm-up.
The measured part is exact in both: the row reports -n x -q messages, and
statistics.json counts only them (transport.request_packets and
wqes_started on a are -n x -q). The warm-up takes the QP contexts' first
misses, so the measured part of the warmed run has none on a (4 QPs fit
the preset's cache) where the cold run has one per QP.

send_bw over 4 QPs with -n 1000 and a warm-up of 600 messages per QP, more
than the 512 receives each QP posts first, completes: the server reposts
each QP's receives by that QP's own count, as perftest does, so a QP whose
messages arrive first cannot take another's receives (with one count over
all QPs, that happened and the run waited forever).
"""
import json
import re
import subprocess
import sys
from pathlib import Path

ITERS, QPS, WARMUP = 50, 4, 20


def run(rnicsim, work, name, *args):
    out = Path(work) / name
    done = subprocess.run([rnicsim, "perf", *args, "--out", str(out)], check=True,
                          capture_output=True, text=True, timeout=120)
    return done.stdout, json.loads((out / "statistics.json").read_text())


def row_messages(stdout, size):
    match = re.search(rf"\n {size} +(\d+) ", stdout)
    assert match, f"no {size} B row in:\n{stdout}"
    return int(match.group(1))


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    rnicsim, work = argv
    common = ["write_bw", "-s", "64", "-n", str(ITERS), "-q", str(QPS), "--threads", "2"]
    cold_out, cold = run(rnicsim, work, "cold", *common)
    warm_out, warm = run(rnicsim, work, "warm", *common, "--warmup", str(WARMUP))
    failures = []
    for name, stdout, stats in (("cold", cold_out, cold), ("warm", warm_out, warm)):
        transport = stats["nodes"]["a"]["transport"]
        if row_messages(stdout, 64) != ITERS * QPS:
            failures.append(f"{name}: the row does not report {ITERS * QPS} messages")
        for counter in ("request_packets", "wqes_started"):
            if transport[counter] != ITERS * QPS:
                failures.append(f"{name}: a.transport.{counter} {transport[counter]}, "
                                f"expected {ITERS * QPS} (the measured messages only)")
    if warm["nodes"]["a"]["transport"]["qp_cache_misses"] != 0:
        failures.append("warm: QP context misses in the measured part")
    if cold["nodes"]["a"]["transport"]["qp_cache_misses"] < QPS:
        failures.append("cold: fewer QP context misses than QPs (the first use of each misses)")

    send_out, _ = run(rnicsim, work, "send", "send_bw", "-s", "64", "-q", str(QPS), "-n", "1000",
                      "--warmup", "600")
    if row_messages(send_out, 64) != 1000 * QPS:
        failures.append("send_bw with a warm-up longer than its receive queue: wrong row")
    for failure in failures:
        print("FAIL:", failure)
    if failures:
        sys.exit(1)
    print("warm-up: measured part exact, first misses taken by the warm-up, send_bw completes")


if __name__ == "__main__":
    main(sys.argv[1:])
