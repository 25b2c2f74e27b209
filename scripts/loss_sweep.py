#!/usr/bin/env python3
"""RoCEv2 RC under random loss: write_bw goodput and write_lat p99 against the
loss rate, the way published studies of RoCE under loss plot them.

Runs `rnicsim perf` once per loss rate and test (faults.loss_rate in both
directions, the run's seed fixed), and writes OUT/loss_sweep.csv and
OUT/loss_sweep.png. Each point is a separate process; the sweep is
deterministic.

usage: loss_sweep.py RNICSIM OUT [--quick]
"""
import csv
import json
import subprocess
import sys
import tempfile
from pathlib import Path

# From a perfect wire to 10% loss, log-spaced: the knee lies between.
LOSS_RATES = [0.0, 1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1]
QUICK_RATES = [0.0, 1e-3, 1e-2]
# write_bw: 64 KiB messages on one QP, enough of them that a point sees
# thousands of packets; write_lat: 2 B, enough iterations for a p99.
BW_ARGS = ["write_bw", "-s", "65536", "-n", "2000"]
LAT_ARGS = ["write_lat", "-s", "2", "-n", "5000"]
# The QP's timeout attribute (perftest's -u): 14 (67 ms) is perftest's and
# ConnectX's default; 8 (1 ms) shows how the knee moves with it.
TIMEOUTS = [14, 8]


def run(rnicsim, args, loss, folder):
    command = [rnicsim, "perf", *args, "--out", str(folder),
               "--set", f"faults.loss_rate={loss}"]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return json.loads((folder / "perf.json").read_text())


def counter_sum(document, name):
    return sum(node.get(name, 0) for node in document["counters"].values()
               if isinstance(node, dict))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    rnicsim, out = args[0], Path(args[1])
    rates = QUICK_RATES if "--quick" in sys.argv else LOSS_RATES
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for timeout in TIMEOUTS:
            for i, loss in enumerate(rates):
                folder = Path(work) / f"t{timeout}_{i}"
                bw = run(rnicsim, BW_ARGS + ["-u", str(timeout)], loss, folder / "bw")
                lat = run(rnicsim, LAT_ARGS + ["-u", str(timeout)], loss, folder / "lat")
                rows.append({
                    "qp_timeout": timeout,
                    "loss_rate": loss,
                    "write_bw_gbps": bw["results"][0]["bw_avg_gbps"],
                    "write_bw_retransmitted_packets": counter_sum(bw, "retransmitted_packets"),
                    "write_bw_request_packets": counter_sum(bw, "request_packets"),
                    "write_bw_timeouts": counter_sum(bw, "local_ack_timeout_err"),
                    "write_lat_typical_usec": lat["results"][0]["t_typical_usec"],
                    "write_lat_p99_usec": lat["results"][0]["p99_usec"],
                    "write_lat_timeouts": counter_sum(lat, "local_ack_timeout_err"),
                })
                r = rows[-1]
                print(f"timeout {timeout}, loss {loss:g}: write_bw {r['write_bw_gbps']:.2f} "
                      f"Gbit/s, write_lat p99 {r['write_lat_p99_usec']:.2f} us", flush=True)
    with open(out / "loss_sweep.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        writer.writeheader()
        writer.writerows(rows)
    plot(rows, out / "loss_sweep.png")
    return 0


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    # Log axes cannot show 0: the perfect wire is drawn at a tenth of the
    # smallest rate and labelled so.
    smallest = min(r["loss_rate"] for r in rows if r["loss_rate"] > 0)
    fig, (bw_axis, lat_axis) = plt.subplots(1, 2, figsize=(11, 4))
    for timeout in TIMEOUTS:
        mine = [r for r in rows if r["qp_timeout"] == timeout]
        xs = [r["loss_rate"] if r["loss_rate"] > 0 else smallest / 10 for r in mine]
        label = f"timeout {timeout} ({4.096 * 2 ** timeout / 1000:.3g} ms)"
        bw_axis.plot(xs, [r["write_bw_gbps"] for r in mine], "o-", label=label)
        lat_axis.plot(xs, [r["write_lat_p99_usec"] for r in mine], "o-", label=label + ", p99")
    bw_axis.set_xscale("log")
    bw_axis.set_xlabel("loss rate, each direction (leftmost point: no loss)")
    bw_axis.set_ylabel("write_bw goodput, Gbit/s (64 KiB, 1 QP)")
    bw_axis.set_ylim(bottom=0)
    bw_axis.legend()
    bw_axis.grid(True, which="both", alpha=0.3)
    lat_axis.set_xscale("log")
    lat_axis.set_yscale("log")
    lat_axis.set_xlabel("loss rate, each direction (leftmost point: no loss)")
    lat_axis.set_ylabel("write_lat 2 B p99, us (one way)")
    lat_axis.legend()
    lat_axis.grid(True, which="both", alpha=0.3)
    fig.suptitle("RC go-back-N under random loss (cx5_100g: 100 GbE, PMTU 1024)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    sys.exit(main())
