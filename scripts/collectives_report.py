#!/usr/bin/env python3
"""The collectives' results (scripts/run_collectives_results): tables, plots
and the acceptance checks, into OUT/report.md and OUT/*.png.

usage: collectives_report.py OUT

(1) AllReduce on 8 ranks of cx5_100g through one switch: latency and busbw
    against size, RDMA and TCP (allreduce_cx5.png); the ring's busbw at 64 MiB
    against the goodput rule of a SEND at the QPs' PMTU.
(2) 40 GbE RDMA against 10 GbE kernel TCP: OSU latency (2 ranks) and
    AllReduce (8 ranks), the ratio per size and each side's CPU per operation
    (rdma40_tcp10.png).
(3) Scaling with N beside the alpha-beta model (scaling.png): alpha is the
    two-node write_lat (one way, 8 B) and beta the inverse of the two-node
    write_bw (1 MiB) on the same star. Recursive doubling:
    (log2 p + 2 [N > p]) (alpha + n beta), p the largest power of two not
    above N; the ring: 2 (N - 1) alpha + 2 (N - 1) / N n beta, and with
    the reductions (gamma = 1 / collectives.reduce_gbps) + (N - 1) / N n
    gamma. The measured figure is the operation's completion (its slowest
    rank), which is what the model predicts.
Exits 1 when an acceptance check fails.
"""
import json
import math
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# Per packet on the wire beside a SEND's payload: Ethernet 14, IPv4 20, UDP 8,
# BTH 12, ICRC 4, FCS 4, preamble and delimiter 8, gap 12.
SEND_OVERHEAD = 14 + 20 + 8 + 12 + 4 + 4 + 8 + 12


def rows(folder):
    return json.loads((folder / "results.json").read_text())["rows"]


def effective(folder):
    return json.loads((folder / "effective_config.json").read_text())


def cpu_mean(row):
    values = list(row["cpu_us_per_operation"].values())
    return sum(values) / len(values)


def doubling_steps(n):
    p = 1 << int(math.log2(n))
    return int(math.log2(p)) + (2 if n > p else 0)


def main():
    out = Path(sys.argv[1])
    lines = ["# Collectives: the figures (scripts/collectives_report.py)", ""]
    failures = []

    # (1) AllReduce on cx5_100g, 8 ranks.
    sides = {"rdma_2m": "RDMA, 2 MiB pages", "rdma_4k": "RDMA, 4 KiB pages (the preset's)",
             "tcp_2m": "kernel TCP, 2 MiB pages"}
    one = {}
    for side in sides:
        folder = out / "allreduce_cx5" / side
        one[side] = rows(folder / "small") + rows(folder / "large")
    config = effective(out / "allreduce_cx5" / "rdma_2m" / "large")
    mtu = json.loads((out / "allreduce_cx5" / "rdma_2m" / "large" / "results.json").read_text())[
        "qp_mtu_bytes"]
    gbps = config["link"]["gbps"]
    rule = gbps / 8 * mtu / (mtu + SEND_OVERHEAD)  # GB/s of SEND payload
    lines += ["## (1) AllReduce, 8 ranks, cx5_100g through one switch", "",
              f"The goodput rule of a SEND at PMTU {mtu} on {gbps} Gbit/s: {rule:.3f} GB/s.", "",
              "| bytes | " + " | ".join(f"{sides[s]}: us, busbw GB/s" for s in sides) + " |",
              "|---|" + "---|" * len(sides)]
    for i, r in enumerate(one["rdma_2m"]):
        cells = []
        for s in sides:
            x = one[s][i]
            cells.append(f"{x['avg_latency_us']:.2f}, {x['busbw_gbytes_per_s']:.3f}")
        lines.append(f"| {r['bytes']} | " + " | ".join(cells) + " |")
    big = one["rdma_2m"][-1]
    share = big["busbw_gbytes_per_s"] / rule
    lines += ["", f"Ring AllReduce, 64 MiB, 2 MiB pages: busbw {big['busbw_gbytes_per_s']:.3f} GB/s, "
              f"{share:.4f} of the rule (acceptance: within 5%)."]
    if abs(1 - share) > 0.05:
        failures.append(f"64 MiB busbw {share:.4f} of the rule")
    small_4k = one["rdma_4k"][-1]
    lines.append(f"With the preset's 4 KiB pages: {small_4k['busbw_gbytes_per_s']:.3f} GB/s "
                 "(the MTT cache's reach; README).")
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    for s, label in sides.items():
        xs = [x["bytes"] for x in one[s]]
        a.loglog(xs, [x["avg_latency_us"] for x in one[s]], marker=".", label=label)
        b.semilogx(xs, [x["busbw_gbytes_per_s"] for x in one[s]], marker=".", label=label)
    b.axhline(rule, color="grey", linestyle="--", label=f"goodput rule {rule:.2f} GB/s")
    a.set_xlabel("bytes")
    a.set_ylabel("latency (us, OSU's average)")
    b.set_xlabel("bytes")
    b.set_ylabel("busbw (GB/s)")
    a.legend(fontsize=7)
    b.legend(fontsize=7)
    fig.suptitle("AllReduce on 8 ranks, cx5_100g, one switch")
    fig.tight_layout()
    fig.savefig(out / "allreduce_cx5.png", dpi=110)
    plt.close(fig)

    # (2) 40 GbE RDMA against 10 GbE TCP.
    lines += ["", "## (2) 40 GbE RDMA (rdma_40g) against 10 GbE kernel TCP (tcp_10g)", ""]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, test, ranks in ((axes[0], "latency", 2), (axes[1], "allreduce", 8)):
        rdma = rows(out / "rdma40_tcp10" / f"{test}_rdma")
        tcp = rows(out / "rdma40_tcp10" / f"{test}_tcp")
        lines += [f"### {test} ({ranks} ranks)", "",
                  "| bytes | RDMA us | TCP us | TCP / RDMA | RDMA CPU us/op | TCP CPU us/op |",
                  "|---|---|---|---|---|---|"]
        ratios = []
        for x, y in zip(rdma, tcp):
            ratio = y["avg_latency_us"] / x["avg_latency_us"]
            ratios.append(ratio)
            lines.append(f"| {x['bytes']} | {x['avg_latency_us']:.2f} | {y['avg_latency_us']:.2f} | "
                         f"{ratio:.1f} | {cpu_mean(x):.2f} | {cpu_mean(y):.2f} |")
        lines += ["", f"TCP / RDMA from {min(ratios):.1f} to {max(ratios):.1f}.", ""]
        ax.semilogx([x["bytes"] for x in rdma], ratios, marker=".")
        ax.set_title(f"{test}, {ranks} ranks")
        ax.set_xlabel("bytes")
        ax.set_ylabel("TCP 10G latency / RDMA 40G latency")
        ax.axhline(10, color="grey", linestyle=":")
        ax.axhline(100, color="grey", linestyle=":")
        ax.set_yscale("log")
    fig.tight_layout()
    fig.savefig(out / "rdma40_tcp10.png", dpi=110)
    plt.close(fig)

    # (3) Scaling beside alpha-beta.
    lat = json.loads((out / "alpha_beta" / "write_lat.json").read_text())["results"][0]
    bw = json.loads((out / "alpha_beta" / "write_bw.json").read_text())["results"][0]
    alpha = lat["t_avg_usec"]
    beta = 8 / (bw["bw_avg_gbps"] * 1000)  # us per byte
    reduce_gbps = effective(out / "scaling" / "8" / "large")["collectives"]["reduce_gbps"]
    gamma = 8 / (reduce_gbps * 1000)  # us per byte summed
    lines += ["## (3) Scaling with N beside the alpha-beta model", "",
              f"alpha = {alpha:.3f} us (two-node write_lat, 8 B, one way); beta = 1 / "
              f"{bw['bw_avg_gbps']:.2f} Gbit/s (two-node write_bw, 1 MiB); gamma = 1 / "
              f"{reduce_gbps:g} Gbit/s (collectives.reduce_gbps). Measured: the operation's "
              "completion (its slowest rank).", "",
              "| N | 8 B us | alpha-beta | ratio | 1 MiB us | alpha-beta | ratio | + gamma | ratio |",
              "|---|---|---|---|---|---|---|---|---|"]
    ns, small, small_model, large, large_model, large_gamma = [], [], [], [], [], []
    for n in sorted(int(p.name) for p in (out / "scaling").iterdir() if p.name.isdigit()):
        s = rows(out / "scaling" / str(n) / "small")[0]
        g = rows(out / "scaling" / str(n) / "large")[0]
        ps = doubling_steps(n) * (alpha + s["bytes"] * beta)
        pl = 2 * (n - 1) * alpha + 2 * (n - 1) / n * g["bytes"] * beta
        pg = pl + (n - 1) / n * g["bytes"] * gamma
        ms, ml = s["completion_us"], g["completion_us"]
        ns.append(n)
        small.append(ms)
        small_model.append(ps)
        large.append(ml)
        large_model.append(pl)
        large_gamma.append(pg)
        lines.append(f"| {n} | {ms:.2f} | {ps:.2f} | {ms / ps:.3f} | {ml:.1f} | {pl:.1f} | "
                     f"{ml / pl:.3f} | {pg:.1f} | {ml / pg:.3f} |")
        if n in (2, 8, 16) and abs(ms / ps - 1) > 0.25:
            failures.append(f"N = {n}: small AllReduce {ms / ps:.3f} of alpha-beta")
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    a.plot(ns, small, marker="o", label="measured, 8 B (recursive doubling)")
    a.plot(ns, small_model, linestyle="--", label="alpha-beta")
    b.plot(ns, large, marker="o", label="measured, 1 MiB (ring)")
    b.plot(ns, large_model, linestyle="--", label="alpha-beta")
    b.plot(ns, large_gamma, linestyle=":", label="alpha-beta-gamma")
    for ax in (a, b):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("ranks")
        ax.set_ylabel("latency (us)")
        ax.legend(fontsize=8)
    fig.suptitle("AllReduce scaling, cx5_100g, one switch")
    fig.tight_layout()
    fig.savefig(out / "scaling.png", dpi=110)
    plt.close(fig)

    lines += ["", "## Acceptance", ""]
    lines += [f"- FAILED: {f}" for f in failures] or ["- every check holds"]
    (out / "report.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
