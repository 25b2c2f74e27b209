#!/usr/bin/env python3
"""Every documented maximum, one at a time: runs, or is refused up front.

usage: check_maxima.py RNICSIM OUT_FOLDER [SECONDS]

For each numeric key of `rnicsim keys` with a maximum, runs the preset of each
experiment that reads it (as that experiment's own run of its preset reports)
with that one key at its maximum (lists: a list of just the maximum) and every
other key at the preset's value. Each run gets
SECONDS of wall time (default 30): long enough to show whether its memory
grows. Records, per key: refused (exit 2, with the message), finished, or
still running when stopped (SIGINT); its peak resident memory as the kernel
counts it (wait4's rusage of rnicsim, children included), and the resident
memory sampled at the half-way point and at the end, which show whether it
was still growing. Writes OUT_FOLDER/maxima.csv.
"""
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from measure_memory import tree_rss_kib

ROOT = Path(__file__).resolve().parent.parent
PRESETS = {
    "pipeline": "configs/seed_pipeline.json",
    "dma": "configs/pcie_gen3x8.json",
    "translation": "configs/translation_sweep.json",
}


def documented_maxima(rnicsim):
    table = subprocess.run([rnicsim, "keys"], capture_output=True, text=True, check=True).stdout
    for line in table.splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        key, kind, rng = cells[0], cells[1], cells[4]
        if kind not in ("integer", "number", "integer list"):
            continue
        if rng.startswith("one of "):
            value = rng[len("one of "):].split(",")[-1].strip()
        elif "<=" in rng:
            value = rng.split("<=")[-1].split(",")[0].strip()
        else:
            continue
        yield key, kind, value


def leaf_keys(document, prefix=""):
    for name, value in document.items():
        if isinstance(value, dict):
            yield from leaf_keys(value, f"{prefix}{name}.")
        else:
            yield prefix + name


def keys_read(rnicsim, preset, work):
    """The keys an experiment reads, as its own run of the preset reports them.

    An experiment refuses a key that none of its blocks reads (exit 2), so each
    maximum goes only to the experiments that read its key; effective_config.json
    lists exactly what the run read. A node's own key (nodes.a.translation.hit_cycles)
    counts as the shared key it stands for (translation.hit_cycles).
    """
    out = Path(work) / "keys_read"
    subprocess.run([rnicsim, "run", str(ROOT / preset), "--out", str(out), "--set",
                    "output.plot=false"], check=True, stdout=subprocess.DEVNULL,
                   env=dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1"))
    with open(out / "effective_config.json") as f:
        keys = set()
        for key in leaf_keys(json.load(f)):
            if key.startswith("nodes."):
                key = key.split(".", 2)[2]
            keys.add(key)
    shutil.rmtree(out)
    return keys


def run(rnicsim, preset, key, value, seconds, work):
    out = Path(work) / "run"
    command = [rnicsim, "run", str(ROOT / preset), "--out", str(out), "--set",
               f"{key}={value}", "--set", "output.plot=false"]
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env=dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1"))
    half = last = 0
    stopped = False
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid == process.pid:
            break
        elapsed = time.monotonic() - start
        last = tree_rss_kib(process.pid)
        if elapsed < seconds / 2:
            half = last
        if elapsed > seconds and not stopped:
            process.send_signal(signal.SIGINT)
            stopped = True
        time.sleep(0.05)
    returncode = os.waitstatus_to_exitcode(status)
    peak = usage.ru_maxrss
    error = process.stderr.read().decode().strip().splitlines()
    wall = time.monotonic() - start
    if stopped:
        outcome = "running when stopped"
    elif returncode == 0:
        outcome = "finished"
    elif returncode == 2:
        outcome = "refused"
    else:
        outcome = f"failed ({returncode})"
    message = error[-1] if error and outcome != "finished" else ""
    return outcome, wall, peak / 1024, half / 1024, last / 1024, message


def main(argv):
    if len(argv) not in (2, 3):
        sys.exit(__doc__)
    rnicsim, out = argv[0], Path(argv[1])
    seconds = float(argv[2]) if len(argv) == 3 else 30.0
    rows = []
    with tempfile.TemporaryDirectory() as work:
        read = {experiment: keys_read(rnicsim, preset, work)
                for experiment, preset in PRESETS.items()}
        for key, kind, value in documented_maxima(rnicsim):
            if kind == "integer list":
                value = f"[{value}]"
            readers = [experiment for experiment in PRESETS if key in read[experiment]]
            if not readers:
                print(f"{key}: no experiment reads it, not run", flush=True)
            for experiment in readers:
                outcome, wall, peak, half, last, message = run(
                    rnicsim, PRESETS[experiment], key, value, seconds, work)
                rows.append([key, value, experiment, outcome, f"{wall:.1f}", f"{peak:.1f}",
                             f"{half:.1f}", f"{last:.1f}", message])
                print(f"{key}={value} ({experiment}): {outcome}, {wall:.1f} s, peak {peak:.1f} "
                      f"MiB {message[:100]}", flush=True)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "maxima.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["key", "value", "experiment", "outcome", "wall_s", "peak_mib",
                         "rss_at_half_time_mib", "rss_at_end_mib", "message"])
        writer.writerows(rows)
    worst = max(float(r[5]) for r in rows)
    print(f"{len(rows)} runs; largest peak {worst:.1f} MiB")


if __name__ == "__main__":
    main(sys.argv[1:])
