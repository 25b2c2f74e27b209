#!/usr/bin/env python3
"""The RDMA tests' CPU accounting, exact, from the preset's verbs costs.

usage: check_perf_cpu.py RNICSIM CONFIG WORK_FOLDER

Each completion is taken by exactly one ibv_poll_cq that finds it (work);
polls that find nothing and the waits on a CQ or a buffer are spinning. So
with N iterations on CONFIG's verbs.* costs (post_send, post_recv, poll_cq,
mmio_write: every post rings one doorbell), each node's verbs work is:

* write_lat: a and b each N x (post_send + mmio_write + poll_cq);
* send_lat (-r N: every receive posted before the size, one doorbell each):
  a and b each N x (post_send + mmio_write + post_recv + mmio_write + 2 poll_cq);
* read_lat: a N x (post_send + mmio_write + poll_cq), b none.

It also checks that perf.json's counters.<node>.cpu has the kernel TCP
tests' shape (tcp_lat), and that the line below the table prints it.
"""
import json
import re
import subprocess
import sys
from pathlib import Path

N = 20


def run(rnicsim, config, work, name, *args):
    out = Path(work) / name
    done = subprocess.run([rnicsim, "perf", *args, config, "-n", str(N), "--out", str(out)],
                          check=True, capture_output=True, text=True)
    return done.stdout, json.loads((out / "perf.json").read_text())["counters"]


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    rnicsim, config, work = argv
    verbs = json.loads(Path(config).read_text())["verbs"]
    post_send, post_recv = verbs["post_send_ns"], verbs["post_recv_ns"]
    poll, mmio = verbs["poll_cq_ns"], verbs["mmio_write_ns"]
    failures = []

    def expect(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    expected = {
        "write_lat": {"a": post_send + mmio + poll, "b": post_send + mmio + poll},
        "send_lat": {"a": post_send + mmio + post_recv + mmio + 2 * poll,
                     "b": post_send + mmio + post_recv + mmio + 2 * poll},
        "read_lat": {"a": post_send + mmio + poll, "b": 0},
    }
    shapes = {}
    for test, per_node in expected.items():
        extra = ["-r", str(N)] if test == "send_lat" else []
        stdout, counters = run(rnicsim, config, work, test, test, *extra)
        for node, ns in per_node.items():
            cpu = counters[node]["cpu"]
            core = cpu["app_core"]
            got = core["work_ns"].get("verbs", 0)
            expect(got == N * ns, f"{test} {node}: verbs work {got} ns == {N} x {ns} ns")
            expect(core["busy_ns"] == got, f"{test} {node}: busy {core['busy_ns']} ns is all verbs")
            expect(abs(cpu["work_us_per_message"] - ns / 1000) < 1e-12,
                   f"{test} {node}: {cpu['work_us_per_message']} us of work per message")
            line = re.search(rf"^ CPU {node}: ([0-9.]+) us of work per message, ([0-9.]+) cores "
                             rf"busy \(([0-9.]+) us spinning\)$", stdout, re.M)
            expect(line is not None and line.group(1) == f"{ns / 1000:.3f}",
                   f"{test} {node}: the line below the table says {line and line.group(1)}")
        expect(counters["a"]["cpu"]["app_core"]["spinning_ns"] > 0,
               f"{test} a: spins while it waits")
        shapes[test] = counters["a"]["cpu"]

    _, tcp = run(rnicsim, config, work, "tcp_lat", "tcp_lat", "-s", "64")
    tcp_cpu = tcp["a"]["cpu"]
    rdma_cpu = shapes["write_lat"]
    expect(set(rdma_cpu) == set(tcp_cpu) - {"softirq_core"},
           f"the same cpu fields as tcp_lat's but its softirq core: {sorted(rdma_cpu)}")
    expect(set(rdma_cpu["app_core"]) == set(tcp_cpu["app_core"]),
           f"the same per-core fields: {sorted(rdma_cpu['app_core'])}")
    if failures:
        sys.exit(f"{len(failures)} check(s) failed")


if __name__ == "__main__":
    main(sys.argv[1:])
