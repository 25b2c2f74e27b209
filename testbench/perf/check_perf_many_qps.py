#!/usr/bin/env python3
"""Data integrity with 4096 QPs over 8 posting threads: memory exact, every
WQE once.

usage: check_perf_many_qps.py RNICSIM WORK_FOLDER

write_bw, read_bw and send_bw run 64 B messages over 4096 QPs, 8 threads,
every WQE signaled (-Q 1), on the default preset (cx5_100g, its 4 MiB
receive buffer: 4096 QPs x 16 in flight overflow it, so frames are dropped
and go-back-N retransmits them; the integrity must hold through that).
rnicsim perf itself compares every QP's target bytes with its source after
the size and exits 1 on a difference (memory exact). This script checks
every WQE once from statistics.json: node a started exactly -n x -q WQEs
and wrote exactly that many CQEs (a WQE retried by go-back-N still
completes once), and for send_bw node b wrote exactly as many receive CQEs.
"""
import json
import re
import subprocess
import sys
from pathlib import Path

QPS, ITERS, THREADS = 4096, 5, 8


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    rnicsim, work = argv
    failures = []
    messages = QPS * ITERS
    for test in ("write_bw", "read_bw", "send_bw"):
        out = Path(work) / test
        done = subprocess.run([rnicsim, "perf", test, "-s", "64", "-q", str(QPS), "-n", str(ITERS),
                               "--threads", str(THREADS), "-Q", "1", "-N", "--out", str(out)],
                              capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            failures.append(f"{test}: exit {done.returncode}: {done.stderr.strip()}")
            continue
        if not re.search(rf"\n 64 +{messages} ", done.stdout):
            failures.append(f"{test}: the row does not report {messages} messages")
        nodes = json.loads((out / "statistics.json").read_text())["nodes"]
        a, b = nodes["a"]["transport"], nodes["b"]["transport"]
        expected = {"a.wqes_started": (a["wqes_started"], messages),
                    "a.cqes": (a["cqes"], messages)}
        if test == "send_bw":
            expected["b.cqes"] = (b["cqes"], messages)
        for name, (got, want) in expected.items():
            if got != want:
                failures.append(f"{test}: {name} {got}, expected {want} (each WQE once)")
        print(f"{test}: {messages} messages, memory exact, every WQE once "
              f"({a['retransmitted_packets']} packets retransmitted)")
    for failure in failures:
        print("FAIL:", failure)
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    main(sys.argv[1:])
