#!/usr/bin/env python3
"""Nodes take free names and roles from config; a role naming no node is refused.

usage: check_named_nodes.py RNICSIM WORK_DIR

With topology.nodes ["client", "server"] and the cable "client-server":
- write_bw (5 x 8 KiB, PMTU 1024) runs with the client on node "client": perf.json's
  counters are keyed by the names, and the client sends 5 x 8 request packets, the
  server none; with the roles swapped the counts swap;
- tcp_lat, the dma experiment (its subject "server", alone), the translation
  experiment and the seed figure on the testbed run, and give the same figures as
  with the default names a and b;
- those three take their subject from roles.subject: a setting of the server node
  alone (nodes.server.<key>) changes their figures, and one of the client node
  leaves the seed figure's unchanged and is refused by dma and translation, which
  build the subject alone;
- roles.server naming a node the topology lacks, and a link naming one, exit 2 with
  one line naming the key, and write no output folder.
"""
import json
import subprocess
import sys
from pathlib import Path

TOPOLOGY = ["--set", 'topology.nodes=["client","server"]',
            "--set", 'topology.links=["client-server"]']
NAMED = TOPOLOGY + ["--set", "roles.client=client", "--set", "roles.server=server"]


def run(rnicsim, args):
    return subprocess.run([rnicsim] + args, capture_output=True, text=True)


def main():
    rnicsim, work = sys.argv[1], Path(sys.argv[2])
    work.mkdir(parents=True, exist_ok=True)
    problems = []

    def expect_ok(name, args):
        r = run(rnicsim, args)
        if r.returncode != 0:
            problems.append(f"{name}: exit {r.returncode}: {r.stderr.strip()}")
        return r

    for swapped in (False, True):
        out = work / ("bw_swapped" if swapped else "bw")
        roles = (["--set", "roles.client=server", "--set", "roles.server=client"] if swapped
                 else [])
        r = expect_ok(out.name, ["perf", "write_bw", "-s", "8192", "-n", "5", "--out", str(out)]
                      + NAMED + roles)
        if r.returncode != 0:
            continue
        counters = json.loads((out / "perf.json").read_text())["counters"]
        client, server = ("server", "client") if swapped else ("client", "server")
        sent = (counters.get(client, {}).get("request_packets"),
                counters.get(server, {}).get("request_packets"))
        print(f"{out.name}: request packets client node {client} {sent[0]}, server {sent[1]}")
        if sent != (40, 0):
            problems.append(f"{out.name}: request packets {sent}, expected (40, 0)")
        if "a" in counters or "b" in counters:
            problems.append(f"{out.name}: counters keyed by a or b: {sorted(counters)}")

    expect_ok("tcp_lat", ["perf", "tcp_lat", "-s", "64", "-n", "5", "--out", str(work / "tcp")]
              + NAMED)

    # The one-node and pipeline experiments: the same figures under other names.
    # Each with a node setting that changes its figures when it is the subject's.
    for name, config, extra, node_setting in [
            ("dma", "configs/pcie_gen3x8.json",
             ["--set", "dma_test.latency_samples=20", "--set", "dma_test.bandwidth_bytes=65536"],
             "pcie.lanes=1"),
            ("translation", "configs/translation_sweep.json",
             ["--set", "translation_test.accesses=2000",
              "--set", "translation_test.warmup_accesses=0",
              "--set", "translation_test.cache_entries=[256,1024]"], "translation.hit_cycles=40"),
            ("seed_nic", "configs/seed_nic.json", ["--set", "workload.count=200"],
             "pcie.ideal_gbps=50")]:
        source = Path(__file__).resolve().parents[2] / config
        common = [str(source), "--set", "output.plot=false"] + extra
        default = expect_ok(name, ["run"] + common + ["--out", str(work / (name + "_ab"))])
        renamed = expect_ok(name + " renamed",
                            ["run"] + common + TOPOLOGY + ["--set", "roles.subject=server",
                                                        "--out", str(work / (name + "_named"))])
        if default.returncode == 0 and renamed.returncode == 0:
            print(f"{name}: default and renamed printed {len(default.stdout)} and "
                  f"{len(renamed.stdout)} characters")
            # The first line names the output folder; the figures follow it.
            if default.stdout.split("\n", 1)[1] != renamed.stdout.split("\n", 1)[1]:
                problems.append(f"{name}: the renamed run printed other figures:\n"
                                f"{default.stdout}\n---\n{renamed.stdout}")
        if renamed.returncode != 0:
            continue
        figures = renamed.stdout.split("\n", 1)[1]
        subject_set = expect_ok(name + " subject's setting",
                                ["run"] + common + TOPOLOGY +
                                ["--set", "roles.subject=server",
                                 "--set", "nodes.server." + node_setting,
                                 "--out", str(work / (name + "_subject_set"))])
        if subject_set.returncode == 0 and subject_set.stdout.split("\n", 1)[1] == figures:
            problems.append(f"{name}: nodes.server.{node_setting} on the subject changed "
                            f"nothing:\n{figures}")
        other = run(rnicsim, ["run"] + common + TOPOLOGY +
                    ["--set", "roles.subject=server", "--set", "nodes.client." + node_setting,
                     "--out", str(work / (name + "_other_set"))])
        if name == "seed_nic":
            if other.returncode != 0 or other.stdout.split("\n", 1)[1] != figures:
                problems.append(f"{name}: nodes.client.{node_setting} off the subject changed "
                                f"the figures (exit {other.returncode}):\n{other.stdout}"
                                f"{other.stderr}")
        elif other.returncode != 2 or "nodes.client" not in other.stderr:
            problems.append(f"{name}: nodes.client.{node_setting} with subject server: expected "
                            f"exit 2 naming it, got exit {other.returncode}: {other.stderr}")
        print(f"{name}: the subject's setting exit {subject_set.returncode}, the other "
              f"node's exit {other.returncode}")

    for name, args, key in [
            ("missing role", ["perf", "write_lat", "-n", "5"] + NAMED + ["--set", "roles.server=b"],
             "roles.server"),
            ("missing link end", ["perf", "write_lat", "-n", "5", "--set",
                                  'topology.links=["a-c"]'], "topology.links"),
            ("missing subject", ["run", str(Path(__file__).resolve().parents[2] /
                                            "configs/pcie_gen3x8.json"),
                                 "--set", "roles.subject=c"], "roles.subject")]:
        out = work / ("refused_" + name.replace(" ", "_"))
        r = run(rnicsim, args + ["--out", str(out)])
        lines = r.stderr.strip().splitlines()
        print(f"{name}: exit {r.returncode}: {r.stderr.strip()}")
        if r.returncode != 2 or len(lines) != 1 or key not in lines[0]:
            problems.append(f"{name}: expected exit 2 and one line naming {key}, got exit "
                            f"{r.returncode}: {r.stderr.strip()}")
        if out.exists():
            problems.append(f"{name}: {out} was written")

    for p in problems:
        print("FAIL:", p)
    if problems:
        sys.exit(1)


if __name__ == "__main__":
    main()
