#!/usr/bin/env python3
"""A perf run that simulates to a failure keeps its evidence.

usage: check_perf_failed_run.py RNICSIM WORK_DIR

Every frame node a sends is lost (faults.loss_rate=1): the requester sends
its WRITEs retry_cnt + 1 times (7 + 1, perftest's default), then the first
completes with "transport retry counter exceeded" and the run fails, exit 1,
one line on stderr. The capture must be in place, holding the first
request's PSN 8 times, and the output folder too, whole, its perf.json naming
the failure beside the counters that explain it.
"""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import perf_capture

RETRY_CNT = 7


def main():
    rnicsim, work = sys.argv[1], Path(sys.argv[2])
    work.mkdir(parents=True, exist_ok=True)
    pcap, out = work / "dead.pcap", work / "deadout"
    pcap.unlink(missing_ok=True)
    shutil.rmtree(out, ignore_errors=True)
    run = subprocess.run([rnicsim, "perf", "write_bw", "-s", "64", "-n", "5",
                          "--set", "faults.loss_rate=1", "--pcap", str(pcap), "--out", str(out)],
                         capture_output=True, text=True)
    problems = []
    if run.returncode != 1:
        problems.append(f"exit {run.returncode}, expected 1")
    lines = run.stderr.splitlines()
    if len(lines) != 1 or "transport retry counter exceeded (QP 0x100)" not in run.stderr:
        problems.append(f"stderr is not the one line naming the failure: {run.stderr!r}")
    if not pcap.is_file():
        problems.append(f"no capture at {pcap}")
    else:
        requests = [perf_capture.bth_of(f) for _, f in perf_capture.frames(pcap)]
        requests = [r for r in requests if r is not None and r[0] == "02:00:00:00:00:01"]
        if not requests:
            problems.append("the capture holds no request from node a")
        else:
            first_psn = requests[0][3]
            times = sum(1 for r in requests if r[3] == first_psn)
            if times != RETRY_CNT + 1:
                problems.append(f"PSN {first_psn:#x} sent {times} times, expected {RETRY_CNT + 1}")
            else:
                print(f"PSN {first_psn:#x} sent {times} times (retry_cnt {RETRY_CNT} + 1)")
    perf_json = out / "perf.json"
    if not perf_json.is_file():
        problems.append(f"no {perf_json}")
    else:
        document = json.loads(perf_json.read_text())
        if "transport retry counter exceeded" not in document.get("failure", ""):
            problems.append(f"perf.json's failure is {document.get('failure')!r}")
        a = document.get("counters", {}).get("a", {})
        if a.get("retry_exceeded") != 1 or a.get("local_ack_timeout_err") != RETRY_CNT:
            problems.append(f"perf.json's counters of a: retry_exceeded {a.get('retry_exceeded')}, "
                            f"local_ack_timeout_err {a.get('local_ack_timeout_err')}")
        for name in ("effective_config.json", "speed.json", "faults.csv"):
            if not (out / name).is_file():
                problems.append(f"no {out / name}")
    leftovers = sorted(p.name for p in work.iterdir() if ".partial-" in p.name)
    if leftovers:
        problems.append(f"staging left behind: {leftovers}")
    for p in problems:
        print("FAIL:", p)
    if problems:
        sys.exit(1)
    print("the failed run kept its capture and its results")


if __name__ == "__main__":
    main()
