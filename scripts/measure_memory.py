#!/usr/bin/env python3
"""Peak memory of rnicsim against workload size, for results/memory/.

usage: measure_memory.py RNICSIM OUT_FOLDER

Each command runs on its own. Two figures per run:
  peak_tree_mib     the largest sum of the resident sets of rnicsim and every
                    process it started (the plot script), sampled every 10 ms
  peak_process_mib  the largest resident set of any one of them, from the
                    kernel (wait4's rusage of rnicsim, which includes the
                    children it waited for), so no peak between samples is missed
Writes OUT_FOLDER/memory.csv and, where matplotlib imports, memory.png.
"""
import csv
import os
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PIPELINE_COUNTS = [1000, 10000, 100000, 1000000, 10000000]
CAPTURE_MIB = [1, 16, 128, 1024]
SEED_CAPTURE = ROOT / "testbench/data/roce/captures/rdma_write_bw.pcap"


def tree_rss_kib(root_pid):
    """Resident KiB of root_pid and its descendants, from /proc."""
    children = {}
    rss = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        pid = int(entry)
        children.setdefault(int(fields["PPid"]), []).append(pid)
        rss[pid] = int(fields.get("VmRSS", "0 kB").split()[0])
    total, todo = 0, [root_pid]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo.extend(children.get(pid, []))
    return total


def measure(command):
    """Runs command; returns (wall seconds, peak tree MiB, peak process MiB)."""
    start = time.monotonic()
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors,
                                   env=dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1"))
        peak = 0
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid == process.pid:
                break
            peak = max(peak, tree_rss_kib(process.pid))
            time.sleep(0.01)
        wall = time.monotonic() - start
        if os.waitstatus_to_exitcode(status) != 0:
            errors.seek(0)
            sys.exit(f"{' '.join(command)} failed: {errors.read().decode()}")
    return wall, peak / 1024, usage.ru_maxrss / 1024


def pcap_records(path):
    data = Path(path).read_bytes()
    records, offset = [], 24
    while offset + 16 <= len(data):
        length = struct.unpack_from("<I", data, offset + 8)[0]
        records.append(data[offset:offset + 16 + length])
        offset += 16 + length
    return data[:24], records


def write_capture(path, mib):
    header, records = pcap_records(SEED_CAPTURE)
    target = mib << 20
    with open(path, "wb") as out:
        out.write(header)
        written = len(header)
        while written < target:
            for record in records:
                out.write(record)
                written += len(record)
                if written >= target:
                    break


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    rnicsim, out = argv[0], Path(argv[1])
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for count in PIPELINE_COUNTS:
            # As a user runs it (the plot is drawn by a child python), and
            # the simulator alone.
            for command, extra in (("pipeline", []),
                                   ("pipeline without plot", ["--set", "output.plot=false"])):
                run = Path(work) / f"pipeline_{count}"
                wall, tree, process = measure(
                    [rnicsim, "run", str(ROOT / "configs/seed_pipeline.json"), "--out", str(run),
                     "--set", f"workload.count={count}"] + extra)
                rows.append((command, "Data per path", count, wall, tree, process))
                print(f"{command:<22} {count:>9} Data: {wall:6.1f} s, peak {tree:6.1f} MiB "
                      f"(tree), {process:6.1f} MiB (one process)", flush=True)
        for mib in CAPTURE_MIB:
            capture = Path(work) / f"capture_{mib}.pcap"
            write_capture(capture, mib)
            wall, tree, process = measure([rnicsim, "decode", str(capture)])
            capture.unlink()
            rows.append(("decode", "capture MiB", mib, wall, tree, process))
            print(f"{'decode':<22} {mib:>5} MiB capture: {wall:6.1f} s, peak {tree:6.1f} MiB "
                  f"(tree), {process:6.1f} MiB (one process)", flush=True)
    with open(out / "memory.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["command", "size_unit", "size", "wall_s", "peak_tree_mib",
                         "peak_process_mib"])
        for r in rows:
            writer.writerow([r[0], r[1], r[2], f"{r[3]:.2f}", f"{r[4]:.1f}", f"{r[5]:.1f}"])
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("no matplotlib: memory.png skipped")
        return
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    panels = ((axes[0], ("pipeline", "pipeline without plot"),
               "workload.count (Data per path; seed pipeline)"),
              (axes[1], ("decode",), "capture size (MiB)"))
    for ax, commands, label in panels:
        for command in commands:
            sizes = [r[2] for r in rows if r[0] == command]
            ax.plot(sizes, [r[4] for r in rows if r[0] == command], marker="o",
                    label=f"{command}: rnicsim + children (sampled)")
            ax.plot(sizes, [r[5] for r in rows if r[0] == command], marker="s", linestyle="--",
                    label=f"{command}: largest process (kernel)")
        ax.set_xscale("log")
        ax.set_xlabel(label)
        ax.set_ylabel("peak resident memory (MiB)")
        ax.set_ylim(bottom=0)
        ax.set_title(f"rnicsim {commands[0]}")
        ax.grid(True, which="both", linestyle=":", linewidth=0.5)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "memory.png", dpi=110)


if __name__ == "__main__":
    main(sys.argv[1:])
