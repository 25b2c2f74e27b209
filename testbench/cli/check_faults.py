#!/usr/bin/env python3
"""Runs `rnicsim perf` with and without faults on the wire and checks what changes.

usage: check_faults.py RNICSIM WORK_DIR MODE PERF_ARGS...

MODE inert: a run whose faults section holds a script entry that matches no
frame (so an injector sits on both wires and never fires) gives the same
stdout, the same pcap byte for byte and the same perf.json, its "config"
aside, as a run without faults (where the wires have no injector at all);
it also writes faults.csv, with its header only, and the run without faults
writes none.

MODE duplicate: the 5th RDMA WRITE node a sends arrives twice; the run
completes (the responder takes the copy for a duplicate request), faults.csv
holds exactly that fault, and perf.json's counters.link counts it.

MODE delay: the 3rd RDMA WRITE frame node a sends arrives 2 us late, after
the frames sent behind it: node b sees them out of sequence (and NAKs), and
the run completes with the fault in faults.csv and counters.link.

Exits 1 listing every problem, 0 with a summary line.
"""
import json
import shutil
import subprocess
import sys
from pathlib import Path


def run(rnicsim, work, name, args):
    out = work / name
    pcap = work / (name + ".pcap")
    shutil.rmtree(out, ignore_errors=True)
    if pcap.exists():
        pcap.unlink()
    result = subprocess.run([rnicsim, "perf", *args, "--pcap", str(pcap), "--out", str(out)],
                            capture_output=True, text=True)
    return result, out, pcap


def main():
    rnicsim, work, mode, args = sys.argv[1], Path(sys.argv[2]), sys.argv[3], sys.argv[4:]
    work.mkdir(parents=True, exist_ok=True)
    problems = []
    if mode == "inert":
        plain, plain_out, plain_pcap = run(rnicsim, work, "faults_plain", args)
        inert, inert_out, inert_pcap = run(
            rnicsim, work, "faults_inert", [*args, "--set", "faults.script=drop:qp=0xFFFFFF"])
        for name, r in (("plain", plain), ("inert", inert)):
            if r.returncode != 0:
                problems.append(f"{name} run exited {r.returncode}: {r.stderr.strip()}")
        if not problems:
            if plain.stdout != inert.stdout:
                problems.append("stdout differs")
            if plain_pcap.read_bytes() != inert_pcap.read_bytes():
                problems.append("the pcaps differ")
            a = json.loads((plain_out / "perf.json").read_text())
            b = json.loads((inert_out / "perf.json").read_text())
            a.pop("config")
            b.pop("config")
            if a != b:
                problems.append("perf.json differs outside its config")
            if (plain_out / "faults.csv").exists():
                problems.append("the run without faults wrote faults.csv")
            trace = (inert_out / "faults.csv").read_text().splitlines()
            if trace != ["time_ns,wire,fault,scripted,delay_ns,opcode,qp,psn"]:
                problems.append(f"the inert run's faults.csv is not its header alone: {trace[:3]}")
        summary = "no faults and faults that never fire: same stdout, pcap and perf.json"
    elif mode == "duplicate":
        r, out, _ = run(rnicsim, work, "faults_duplicate",
                        [*args, "--set", "nodes.a.faults.script=duplicate:opcode=write,nth=5"])
        if r.returncode != 0:
            problems.append(f"run exited {r.returncode}: {r.stderr.strip()}")
        else:
            rows = (out / "faults.csv").read_text().splitlines()[1:]
            fields = [row.split(",") for row in rows]
            if [f[1:4] for f in fields] != [["a_to_b", "duplicated", "1"]]:
                problems.append(f"faults.csv: expected one scripted duplicate on a_to_b, got {rows}")
            link = json.loads((out / "perf.json").read_text())["counters"]["link"]
            if link["a_to_b"]["duplicated"] != 1 or link["a_to_b"]["scripted"] != 1:
                problems.append(f"counters.link.a_to_b: {link['a_to_b']}")
            if link["a_to_b"]["rx_frames"] != link["a_to_b"]["frames"] + 1:
                problems.append("node b's receive buffer did not keep the copy")
            if link["b_to_a"]["duplicated"] != 0:
                problems.append("node b's frames were duplicated too")
        summary = "a scripted duplicate: the run completes and counts it"
    elif mode == "delay":
        r, out, _ = run(rnicsim, work, "faults_delay",
                        [*args, "--set", "nodes.a.faults.script=delay:opcode=write,nth=3,ns=2000"])
        if r.returncode != 0:
            problems.append(f"run exited {r.returncode}: {r.stderr.strip()}")
        else:
            rows = (out / "faults.csv").read_text().splitlines()[1:]
            fields = [row.split(",") for row in rows]
            if [f[1:5] for f in fields] != [["a_to_b", "delayed", "1", "2000.000"]]:
                problems.append(f"faults.csv: expected one scripted 2 us delay on a_to_b, got {rows}")
            counters = json.loads((out / "perf.json").read_text())["counters"]
            if counters["link"]["a_to_b"]["reordered"] != 1:
                problems.append(f"counters.link.a_to_b: {counters['link']['a_to_b']}")
            if counters["b"]["out_of_sequence"] == 0:
                problems.append("node b saw no frame out of sequence: nothing overtook the delayed one")
        summary = "a scripted delay: later frames overtake it, the run completes and counts it"
    else:
        problems.append(f"unknown mode {mode}")
        summary = ""
    if problems:
        print("\n".join(problems))
        return 1
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
