#!/usr/bin/env python3
"""Reads DCQCN's experiment folders (scripts/run_congestion_results) and writes
results/congestion/report.md: the figures results/congestion/README.md quotes,
the plots, and the acceptance checks. Exits 1 if a check fails.

usage: congestion_report.py RESULTS_CONGESTION

Convergence: the flows' payload is summed over 1 ms windows (from
throughput.csv's bins, while every flow runs). Two flows have converged from
the first window after which every window has both within 10% of their fair
share and the bottleneck within 5% of the goodput rule; an incast has
converged from the first window after which every window has the bottleneck
within 5% of the rule (the link is full again after the first cuts'
overshoot), and Jain's index is taken over the windows from there, so the
fairness it measures is not part of the definition.
"""
import csv
import json
import sys
from collections import defaultdict
from pathlib import Path

WINDOW_US = 1000
LINE_GBPS = 100.0
PMTU = 4096
RULE_GBPS = LINE_GBPS * PMTU / (PMTU + 82)  # the goodput rule (REFERENCE.md)
KMAX_BYTES = 204800                          # switch.ecn_kmax_bytes (the paper's 200 KB)
CNP_INTERVAL_US = 50                         # dcqcn.cnp_interval_us
BYTES_PER_US = LINE_GBPS * 1000 / 8          # 12500: the bottleneck drains this per microsecond
XOFF_BYTES = 262144                          # pfc.xoff_bytes, per ingress and priority
HEADROOM_BYTES = 32768                       # switch.headroom_bytes
# The queue bound from the first marks on (README, (2)). A frame is 4170
# bytes in the queue and 4194 on the wire (FCS, preamble, gap).
FRAME_BYTES = 4170
WIRE_FRAME_BYTES = 4194
FRAME_US = WIRE_FRAME_BYTES * 8 / (LINE_GBPS * 1000)  # 0.3355 us on the wire
DRAIN_BYTES_PER_US = BYTES_PER_US * FRAME_BYTES / WIRE_FRAME_BYTES
TIMER_US = 55                                # dcqcn.rate_increase_timer_us: restarted by a cut
ALPHA_TIMER_US = 55                          # dcqcn.alpha_timer_us: restarted by a CNP
G = 1 / 256                                  # dcqcn.g
# The CNP's way back: the marked frame out of the switch, h1's notification
# point, the switch, the sender's reaction point: 1.7 us measured at N = 2
# (captures of s1:0, h1 and s1:1), taken as 2. At any N, h1 makes the CNPs
# as the QPs' marked frames arrive, at most one a frame time, so they do not
# queue behind each other on the way. Both bounds use it.
RETURN_US = 2.0
# Frames already past the sender's QP scheduler when its rate is cut, which
# leave at line rate: 32 payload reads in flight (transport.payload_reads),
# 4 channels of nic.queue_items = 8 (transmit, builder2icrc, roce_to_mac,
# mac_tx) and the port's priority queue, which takes at most 4 x
# queue_items (FabricPort::fill). 19.9 us measured at N = 2.
TRANSMIT_BACKLOG_US = (32 + 4 * 8 + 4 * 8) * FRAME_US
# The receiver's first packet of each QP waits for a QP context fetch
# (0.68 us) and MPT and MTT walks (1.08 us), one QP after another, and every
# frame behind it waits too (h1's statistics: context_wait_ns and walk_ns
# per miss and walk, the same over 16 and over 32 QPs).
COLD_START_US_PER_QP = 1.76


def queue_bound(n):
    """The most the bottleneck queue can hold once N senders start at line
    rate, with every term below from the experiment's keys or a measured
    delay (README, (2)); bytes."""
    # Every sender has a frame marked by the time the queue holds Kmax and
    # one frame of each; that frame waits out the queue, its CNP comes back,
    # the sender's backlog leaves at line rate, and the receiver's cold start
    # delays all of it: the feedback delay, during which the queue grows by
    # N - 1 line rates.
    marked_at = KMAX_BYTES + n * FRAME_BYTES
    feedback_us = (marked_at / DRAIN_BYTES_PER_US + RETURN_US + TRANSMIT_BACKLOG_US
                   + n * COLD_START_US_PER_QP)
    bound = marked_at + (n - 1) * BYTES_PER_US * feedback_us
    # Then a cut every round while the queue is above Kmax (every frame is
    # marked): the CNP interval, plus the wait for that QP's next marked
    # frame at h1. The queue is a FIFO of every sender's frames, enqueued when
    # their rates differed by at most one cut, so a QP's frames leave it at
    # most 2N frame times apart. Each cut keeps RC x (1 - alpha/2), alpha as
    # the reaction point keeps it (a CNP: (1 - g) alpha + g after the cut; a
    # round longer than the alpha timer: one (1 - g) decay), and a round
    # longer than the increase timer lets fast recovery raise RC to
    # (RT + RC)/2 for the rest of it. The queue grows by (the senders' sum -
    # C) over each round.
    round_us = CNP_INTERVAL_US + 2 * n * FRAME_US
    alpha, rate = 1.0, 1.0  # rate: one sender's, in line rates
    for _ in range(64):
        target, rate = rate, rate * (1 - alpha / 2)
        alpha = (1 - G) * alpha + G
        if round_us > ALPHA_TIMER_US:
            alpha *= 1 - G
        bound += BYTES_PER_US * max(0.0, n * rate - 1) * min(round_us, TIMER_US)
        if round_us > TIMER_US:  # the next cut starts from the recovered rate
            rate = (target + rate) / 2
            bound += BYTES_PER_US * max(0.0, n * rate - 1) * (round_us - TIMER_US)
    return bound


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def read_json(path):
    return json.loads(Path(path).read_text())


def windows(folder):
    """{window start us: {flow: Gbit/s}} over the windows in which every flow runs."""
    bins = read_csv(folder / "throughput.csv")
    flows = {int(r["flow"]) for r in bins}
    sums, seen = defaultdict(lambda: defaultdict(float)), defaultdict(set)
    times = sorted({float(r["time_us"]) for r in bins})
    step = times[1] - times[0] if len(times) > 1 else WINDOW_US
    for r in bins:
        w = int((float(r["time_us"]) - step) // WINDOW_US) * WINDOW_US
        sums[w][int(r["flow"])] += float(r["gbps"]) * step / WINDOW_US
        seen[w].add(int(r["flow"]))
    full_bins = WINDOW_US / step
    counts = defaultdict(lambda: defaultdict(int))
    for r in bins:
        w = int((float(r["time_us"]) - step) // WINDOW_US) * WINDOW_US
        counts[w][int(r["flow"])] += 1
    out = {}
    for w in sorted(sums):
        if seen[w] == flows and all(counts[w][f] == full_bins for f in flows):
            out[w] = dict(sums[w])
    return out


def jain(values):
    return sum(values) ** 2 / (len(values) * sum(v * v for v in values)) if values else 0.0


def settled_from(ws, good):
    """The first window start from which good(window) holds in every window; None if never."""
    settled = None
    for w in reversed(sorted(ws)):
        if not good(ws[w]):
            break
        settled = w
    return settled


def fair_and_full(window):
    """Every flow within 10% of fair share and the bottleneck within 5% of the rule."""
    share = sum(window.values()) / len(window)
    return (all(abs(v - share) <= 0.1 * share for v in window.values()) and
            abs(sum(window.values()) - RULE_GBPS) <= 0.05 * RULE_GBPS)


def full(window):
    """The bottleneck within 5% of the goodput rule."""
    return abs(sum(window.values()) - RULE_GBPS) <= 0.05 * RULE_GBPS


def after(ws, start):
    """Each flow's mean Gbit/s and the total over the windows from `start`."""
    chosen = [w for w in ws if w >= start]
    flows = sorted(ws[chosen[0]])
    means = [sum(ws[w][f] for w in chosen) / len(chosen) for f in flows]
    return means, sum(means), len(chosen)


def plot_two_flows(folder, out_png, converged_us):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    rates = read_csv(folder / "rates.csv")
    ws = windows(folder)
    queues = read_csv(folder / "queues.csv")
    fig, axes = plt.subplots(3, 1, figsize=(8, 8), sharex=True)
    by_qp = defaultdict(list)
    for r in rates:
        by_qp[f"{r['node']} QP {r['qpn']}"].append((float(r["time_us"]) / 1000,
                                                    float(r["rate_gbps"])))
    for name, points in sorted(by_qp.items()):
        axes[0].step([p[0] for p in points], [p[1] for p in points], where="post", label=name)
    axes[0].set_ylabel("DCQCN rate (Gbit/s)")
    axes[0].legend()
    for f in sorted(next(iter(ws.values()))):
        axes[1].plot([w / 1000 for w in ws], [ws[w][f] for w in ws], label=f"flow {f}")
    axes[1].axhline(RULE_GBPS / 2, color="grey", linestyle=":", label="fair share of the rule")
    axes[1].set_ylabel("payload, 1 ms windows (Gbit/s)")
    axes[1].legend()
    axes[2].plot([float(r["time_us"]) / 1000 for r in queues if r["port"] == "s1:0"],
                 [int(r["bytes"]) / 1024 for r in queues if r["port"] == "s1:0"])
    axes[2].set_ylabel("queue to h1 (KiB)")
    axes[2].set_xlabel("time (ms)")
    for ax in axes:
        if converged_us is not None:
            ax.axvline(converged_us / 1000, color="black", linestyle="--", linewidth=0.8)
    fig.suptitle("Two flows into one 100 Gbit/s port, DCQCN (paper's preset) and PFC")
    fig.tight_layout()
    fig.savefig(out_png, dpi=110)
    plt.close(fig)
    return True


def plot_pareto(rows, front, out_png):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(figsize=(7, 5))
    ax.scatter([r["queue_kib"] for r in rows], [r["gbps"] for r in rows], color="grey",
               label="sweep points")
    ax.plot([r["queue_kib"] for r in front], [r["gbps"] for r in front], color="red",
            marker="o", label="Pareto front")
    ax.set_xscale("log")
    ax.set_xlabel("mean queue while all flows run (KiB)")
    ax.set_ylabel("receiver's payload (Gbit/s)")
    ax.legend()
    ax.set_title("8-to-1 incast: Kmin, Kmax, Pmax, rate-increase timer")
    fig.tight_layout()
    fig.savefig(out_png, dpi=110)
    plt.close(fig)
    return True


def main(argv):
    out = Path(argv[0])
    lines, checks, failed = [], [], []

    def check(ok, text):
        checks.append(f"- {'PASS' if ok else 'FAIL'}: {text}")
        if not ok:
            failed.append(text)

    # (1) Two flows.
    two = out / "two_flows"
    ws = windows(two)
    converged = settled_from(ws, fair_and_full)
    summary = read_json(two / "summary.json")
    lines += ["## Two flows into one port", ""]
    if converged is None:
        check(False, "two flows: never within 10% of fair share")
    else:
        means, total, count = after(ws, converged)
        fair = RULE_GBPS / 2
        lines += [f"- Converged at {converged / 1000:.0f} ms (both flows within 10% of fair share "
                  f"and the bottleneck within 5% of the rule in every 1 ms window from then on; "
                  f"the first cut at "
                  f"{summary['dcqcn']['first_cut_us']} us).",
                  f"- After convergence ({count} windows): flows at "
                  f"{', '.join(f'{m:.2f}' for m in means)} Gbit/s against a fair share of "
                  f"{fair:.2f} (the rule's half); the bottleneck at {total:.2f} Gbit/s, "
                  f"{total / RULE_GBPS:.4f} of the {RULE_GBPS:.2f} Gbit/s goodput rule.",
                  f"- Whole run: {summary['receivers'][0]['payload_gbps']:.2f} Gbit/s "
                  f"({summary['receivers'][0]['payload_over_rule']:.4f} of the rule), "
                  f"{summary['pause_frames']} pause frames, {summary['dropped_frames']} drops, "
                  f"{summary['dcqcn']['np_cnp_sent']} CNPs.", ""]
        check(all(abs(m - fair) <= 0.1 * fair for m in means),
              f"two flows within 10% of fair share after convergence ({converged / 1000:.0f} ms)")
        check(abs(total - RULE_GBPS) <= 0.05 * RULE_GBPS,
              f"two flows: the bottleneck within 5% of its goodput rule after convergence "
              f"({total / RULE_GBPS:.4f})")
        plotted = plot_two_flows(two, out / "two_flows.png", converged)
        if plotted:
            lines += ["![two flows](two_flows.png)", ""]

    # (2) Incast.
    lines += ["## N-to-1 incast, DCQCN and PFC against PFC alone", "",
              "| N | pauses, PFC alone | pauses, DCQCN + PFC | ratio | drops | first cut (us) | "
              "queue peak (KiB) | DCQCN's bound (KiB) | PFC's bound (KiB) | "
              "queue peak, DCQCN alone (KiB) | of DCQCN's bound | drained (us) | "
              "queue peak once drained (KiB) | bound (KiB) | converged (ms) | Jain after | whole-run payload "
              "(Gbit/s) |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for n in (2, 4, 8, 16, 32):
        both = read_json(out / "incast" / str(n) / "summary.json")
        alone = read_json(out / "incast_pfc_only" / str(n) / "summary.json")
        d = both["dcqcn"]
        ws = windows(out / "incast" / str(n))
        conv = settled_from(ws, full)
        if conv is None:
            check(False, f"incast N={n}: the bottleneck never stays within 5% of the rule")
            continue
        means, total, _ = after(ws, conv)
        index = jain(means)
        # Once every sender has been cut the queue can outgrow Kmax only for
        # one feedback delay: a frame marked at Kmax waits Kmax / C in the
        # queue, its CNP takes a round trip, and the NP may hold it for one
        # CNP interval; meanwhile the senders, together at most line rate
        # above the bottleneck after their first cut (see the README), add
        # C x that delay.
        delay_us = KMAX_BYTES / BYTES_PER_US + RETURN_US + CNP_INTERVAL_US
        bound = KMAX_BYTES + BYTES_PER_US * delay_us
        ratio = alone["pause_frames"] / max(1, both["pause_frames"])
        # PFC bounds the queue too: each of the N ingresses pauses at XOFF
        # and takes up to its headroom after it.
        pfc_bound = n * (XOFF_BYTES + HEADROOM_BYTES)
        dcqcn_bound = queue_bound(n)
        only = read_json(out / "incast_dcqcn_only" / str(n) / "summary.json")
        lines.append(
            f"| {n} | {alone['pause_frames']} | {both['pause_frames']} | {ratio:.1f} | "
            f"{both['dropped_frames']} | {d['first_cut_us']} | "
            f"{both['queue_peak_bytes'] / 1024:.0f} | {dcqcn_bound / 1024:.0f} | "
            f"{pfc_bound / 1024:.0f} | {only['queue_peak_bytes'] / 1024:.0f} | "
            f"{only['queue_peak_bytes'] / dcqcn_bound:.2f} | {d['drained_us']} | "
            f"{d['queued_peak_after_drain_bytes'] / 1024:.0f} | {bound / 1024:.0f} | "
            f"{conv / 1000:.0f} | {index:.4f} | "
            f"{both['receivers'][0]['payload_gbps']:.2f} |")
        check(both["dropped_frames"] == 0 and alone["dropped_frames"] == 0, f"incast N={n}: 0 drops")
        check(index >= 0.95, f"incast N={n}: Jain's index {index:.4f} >= 0.95 after convergence")
        check(both["queue_peak_bytes"] <= min(pfc_bound, dcqcn_bound),
              f"incast N={n}: the whole run's queue peak {both['queue_peak_bytes']} B within "
              f"PFC's {pfc_bound} B and DCQCN's {dcqcn_bound:.0f} B")
        check(only["dropped_frames"] == 0 and only["pause_frames"] == 0
              and only["queue_peak_bytes"] <= dcqcn_bound,
              f"incast N={n}, DCQCN alone: 0 drops, 0 pauses, the queue peak "
              f"{only['queue_peak_bytes']} B within DCQCN's bound {dcqcn_bound:.0f} B")
        check(d["queued_peak_after_drain_bytes"] <= bound,
              f"incast N={n}: queue peak once the first build-up drained, {d['queued_peak_after_drain_bytes']}"
              f" B within the bound {bound:.0f} B")
        if n == 8:
            check(ratio >= 10, f"incast N=8: pauses fall {ratio:.1f}x with DCQCN (>= 10x)")
    lines.append("")

    # (3) Short flows beside long ones.
    lines += ["## Short flows beside long ones", "",
              "| mode | drops | pauses | retransmitted | short FCT median (us) | short FCT max (us) "
              "| long flows' payload (Gbit/s) |", "|---|---|---|---|---|---|---|"]
    for mode in ("pfc", "dcqcn", "both"):
        folder = out / "short" / mode
        s = read_json(folder / "summary.json")
        flows = read_csv(folder / "flows.csv")
        short = sorted(float(r["fct_us"]) for r in flows if r["source"] == "h10")
        long_gbps = sum(float(r["goodput_gbps"]) for r in flows if r["source"] != "h10")
        lines.append(f"| {mode} | {s['dropped_frames']} | {s['pause_frames']} | "
                     f"{s['retransmitted_packets']} | {short[len(short) // 2]:.1f} | "
                     f"{short[-1]:.1f} | {long_gbps:.2f} |")
    lines.append("")

    # (4) The sweep's Pareto front.
    rows = []
    for r in read_csv(out / "sweep" / "results.csv"):
        if r.get("status", "ok") != "ok":
            continue
        rows.append({"kmin": int(r["switch.ecn_kmin_bytes"]),
                     "kmax": int(r["switch.ecn_kmax_bytes"]),
                     "pmax": float(r["switch.ecn_pmax"]),
                     "timer": float(r["dcqcn.rate_increase_timer_us"]),
                     "queue_kib": float(r["queued_mean_bytes"]) / 1024,
                     "gbps": float(r["payload_gbps"]),
                     "pauses": int(r["pause_frames"])})
    rows.sort(key=lambda r: (r["queue_kib"], -r["gbps"]))
    front, best = [], -1.0
    for r in rows:
        if r["gbps"] > best:
            front.append(r)
            best = r["gbps"]
    lines += ["## Marking and timers: queue against throughput", "",
              f"{len(rows)} points; the Pareto front (no point has both a smaller mean queue and "
              "more throughput):", "",
              "| Kmin (B) | Kmax (B) | Pmax | timer (us) | mean queue (KiB) | payload (Gbit/s) | "
              "pauses |", "|---|---|---|---|---|---|---|"]
    for r in front:
        lines.append(f"| {r['kmin']} | {r['kmax']} | {r['pmax']} | {r['timer']:g} | "
                     f"{r['queue_kib']:.1f} | {r['gbps']:.2f} | {r['pauses']} |")
    lines.append("")
    if plot_pareto(rows, front, out / "pareto.png"):
        lines += ["![Pareto front](pareto.png)", ""]
    check(len(rows) == 24, f"the sweep ran all 24 points ({len(rows)})")

    text = ["# DCQCN experiments: figures and checks", "",
            "Written by scripts/congestion_report.py from the folders beside it.", "",
            *lines, "## Checks", "", *checks, ""]
    (out / "report.md").write_text("\n".join(text))
    print("\n".join(checks))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
