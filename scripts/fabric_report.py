#!/usr/bin/env python3
"""Reads the fabric experiments' folders (scripts/run_fabric_results) and
writes results/fabric/report.md: the figures results/fabric/README.md quotes,
the headroom beside its formula (headroom.csv, headroom.png), and the
acceptance checks. Exits 1 if a check fails.

usage: fabric_report.py RESULTS_FABRIC HEADROOM_SWEEP_FOLDER VERIFY_FOLDER

VERIFY_FOLDER holds, per sweep length, the run with exactly the headroom it
used (<propagation_ns>_0) and with one byte less (<propagation_ns>_1).
"""
import csv
import json
import math
import sys
from pathlib import Path

# The model's frames: a WRITE MIDDLE frame is Ethernet 14 + IPv4 20 + UDP 8 +
# BTH 12 + PMTU bytes + ICRC 4; on the cable it adds FCS 4, preamble and
# delimiter 8 and the gap 12. An ACK is 62 bytes (BTH + AETH 4) and a PFC frame
# 60, each padded to the 64-byte minimum with its FCS, plus 20.
ROCE_FRAME_OVERHEAD = 14 + 20 + 8 + 12 + 4
WIRE_OVERHEAD = 4 + 20
ACK_WIRE_BYTES = 62 + 4 + 20
PAUSE_WIRE_BYTES = 64 + 20
NS_PER_METRE = 5.0
ROCE_HEADERS = 96  # what the kernel sets aside below the Ethernet MTU (roce_active_mtu)


def pmtu_of(ethernet_mtu):
    """The RoCE active MTU a port of this Ethernet MTU reports (Linux's iboe_get_mtu)."""
    return max(m for m in (256, 512, 1024, 2048, 4096) if m + ROCE_HEADERS <= ethernet_mtu)


def read_json(path):
    return json.loads(Path(path).read_text())


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def headroom_formula(propagation_ns, gbps, pmtu, block_wire_bytes):
    """The headroom an ingress needs: every frame its sender starts before the
    pause reaches it, counted from the frame that crossed XOFF. The pause
    waits for the frame the switch is sending toward the sender, if any
    (`block_wire_bytes` on the cable), takes its own time on the cable and
    crosses the cable; the frames the sender started after the crossing
    frame's last bit left crossed the cable the other way: 2 x propagation +
    blocking frame + pause, over one frame's time, rounded up to whole frames
    (the sender finishes the one it has started)."""
    frame = ROCE_FRAME_OVERHEAD + pmtu
    frame_ns = (frame + WIRE_OVERHEAD) * 8 / gbps
    window_ns = 2 * propagation_ns + (PAUSE_WIRE_BYTES + block_wire_bytes) * 8 / gbps
    # 1e-9: a window of exactly k frame times holds k frames.
    return math.ceil(window_ns / frame_ns - 1e-9) * frame


def headroom(sweep, verify, out, checks):
    rows = []
    for point in read_csv(Path(sweep) / "results.csv"):
        config = read_json(Path(sweep) / "points" / point["folder"] / "run" / "effective_config.json")
        gbps = config["link"]["gbps"]
        mtu = config["nic"]["ethernet_mtu_bytes"]
        pmtu = pmtu_of(mtu)
        propagation = float(point["link.propagation_ns"])
        measured = int(point["headroom_peak_bytes"])
        # This traffic: only ACKs go back toward the senders. Worst case: a
        # full frame (the MTU at the switch's end) ahead of the pause.
        formula = headroom_formula(propagation, gbps, pmtu, ACK_WIRE_BYTES)
        worst = headroom_formula(propagation, gbps, pmtu,
                                 ROCE_FRAME_OVERHEAD + pmtu + WIRE_OVERHEAD)
        name = point["link.propagation_ns"]
        exact = read_json(Path(verify) / f"{name}_0" / "summary.json")["dropped_frames"]
        short = read_json(Path(verify) / f"{name}_1" / "summary.json")["dropped_frames"]
        metres = propagation / NS_PER_METRE
        rows.append({"metres": metres, "propagation_ns": propagation,
                     "measured_bytes": measured, "formula_bytes": formula,
                     "difference_bytes": measured - formula, "worst_case_bytes": worst,
                     "dropped_frames": int(point["dropped_frames"]),
                     "drops_with_measured": exact, "drops_with_one_byte_less": short,
                     "pause_frames": int(point["pause_frames"])})
        checks.append((f"headroom at {metres:g} m within one MTU ({mtu} B) "
                       f"of the formula: {measured} against {formula}",
                       abs(measured - formula) <= mtu))
        checks.append((f"headroom at {metres:g} m is the least that loses nothing: "
                       f"{exact} drops with it, {short} with a byte less",
                       int(point["dropped_frames"]) == 0 and exact == 0 and short > 0))
    with open(out / "headroom.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        for row in rows:
            writer.writerow({k: (f"{v:g}" if isinstance(v, float) else v) for k, v in row.items()})
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 4.5))
        metres = [r["metres"] for r in rows]
        ax.plot(metres, [r["measured_bytes"] / 1024 for r in rows], "o", label="measured (most held)")
        ax.plot(metres, [r["formula_bytes"] / 1024 for r in rows], "-", label="formula")
        ax.set_xscale("log")
        ax.set_xlabel("cable length (m), 5 ns per metre")
        ax.set_ylabel("PFC headroom for zero loss (KiB)")
        ax.set_title("2-to-1 incast of 1 MiB WRITEs at 100 Gbit/s, PMTU 4096", fontsize=10)
        ax.grid(True, which="both", linestyle=":", linewidth=0.5)
        ax.legend()
        fig.tight_layout()
        fig.savefig(out / "headroom.png", dpi=110)
        plt.close(fig)
    except ImportError:
        print("fabric_report.py: no matplotlib; headroom.png not drawn", file=sys.stderr)
    lines = ["| cable | measured | formula | difference | worst case | drops with it, a byte less "
             "| pause frames |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['metres']:g} m | {r['measured_bytes']} B | {r['formula_bytes']} B | "
                     f"{r['difference_bytes']} B | {r['worst_case_bytes']} B | "
                     f"{r['drops_with_measured']}, {r['drops_with_one_byte_less']} | "
                     f"{r['pause_frames']} |")
    return lines


def share_text(shares):
    if "least_over_fair" not in shares:
        return "(no bin in which every flow ran)"
    return f"{shares['least_over_fair']:.3f}, {shares['most_over_fair']:.3f}"


def incast_row(folder):
    summary = read_json(folder / "summary.json")
    receiver = summary["receivers"][0]
    shares = summary["shares_while_all_run"]
    flows = read_csv(folder / "flows.csv")
    fct = [float(f["fct_us"]) for f in flows]
    return summary, receiver, shares, fct


def incast(out, checks):
    lines = ["| message | makespan | receiver port's payload rate | of the rule | shares (least, most of fair) "
             "| Jain | pause frames | drops | retransmitted | queue peak |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for folder in sorted((out / "incast_pfc").iterdir(), key=lambda p: int(p.name)):
        summary, receiver, shares, _ = incast_row(folder)
        ratio = receiver["payload_over_rule"]
        least, most = shares["least_over_fair"], shares["most_over_fair"]
        lines.append(f"| {int(folder.name) // 1024} KiB | {summary['makespan_us']:.1f} us | "
                     f"{receiver['payload_gbps']:.2f} Gbit/s | {ratio:.4f} | {least:.3f}, {most:.3f} | "
                     f"{shares['jain_index']:.4f} | {summary['pause_frames']} | "
                     f"{summary['dropped_frames']} | {summary['retransmitted_packets']} | "
                     f"{summary['queue_peak_bytes']} B |")
        name = f"incast with PFC, {folder.name} B WRITEs"
        checks.append((f"{name}: no drop", summary["dropped_frames"] == 0))
        checks.append((f"{name}: shares within 10% of fair ({least:.3f}, {most:.3f})",
                       least >= 0.9 and most <= 1.1))
        checks.append((f"{name}: bottleneck within 2% of its rule ({ratio:.4f})",
                       abs(ratio - 1) <= 0.02))
    return lines


def burst(out):
    lines = ["| message | makespan | fastest and slowest FCT | receiver goodput | of the rule "
             "| shares (least, most of fair) | pause frames | drops |",
             "|---|---|---|---|---|---|---|---|"]
    for folder in sorted((out / "incast_burst").iterdir(), key=lambda p: int(p.name)):
        summary, receiver, shares, fct = incast_row(folder)
        share = share_text(shares)
        lines.append(f"| {int(folder.name) // 1024} KiB | {summary['makespan_us']:.1f} us | "
                     f"{min(fct):.1f}, {max(fct):.1f} us | {receiver['payload_gbps']:.2f} Gbit/s | "
                     f"{receiver['payload_over_rule']:.4f} | {share} | {summary['pause_frames']} | "
                     f"{summary['dropped_frames']} |")
    return lines


def lossy(out):
    lines = ["| message | QP timeout | makespan | aggregate goodput | drops | retransmitted "
             "| fastest and slowest flow's FCT |",
             "|---|---|---|---|---|---|---|"]
    for name, timeout in (("incast_pfc", "(PFC on)"), ("incast_lossy", "67 ms"),
                          ("incast_lossy_t8", "1.05 ms")):
        for folder in sorted((out / name).iterdir(), key=lambda p: int(p.name)):
            summary, _, _, fct = incast_row(folder)
            lines.append(f"| {int(folder.name) // 1024} KiB | {timeout} | "
                         f"{summary['makespan_us']:.1f} us | "
                         f"{summary['aggregate_goodput_gbps']:.2f} Gbit/s | "
                         f"{summary['dropped_frames']} | {summary['retransmitted_packets']} | "
                         f"{min(fct):.1f}, {max(fct):.1f} us |")
    return lines


def mean_gbps(folder, flow, start_us, end_us):
    """Flow `flow`'s goodput over (start_us, end_us], from throughput.csv's bins."""
    every = read_csv(folder / "throughput.csv")
    rows = [r for r in every if int(r["flow"]) == flow]
    times = sorted({float(r["time_us"]) for r in every})
    before = dict(zip(times, [0.0] + times[:-1]))
    kbit = sum(float(r["gbps"]) * (float(r["time_us"]) - before[float(r["time_us"])])
               for r in rows if start_us < float(r["time_us"]) <= end_us)
    return kbit / (end_us - start_us)


def spreading(out, checks):
    lines = ["| PFC | victim before the incast (0-300 us) | victim until the first incast flow "
             "ends | victim until the last ends | incast flows' mean FCT | pause frames | drops |",
             "|---|---|---|---|---|---|---|"]
    during = {}
    for name in ("spreading_pfc", "spreading_lossy"):
        folder = out / name
        flows = read_csv(folder / "flows.csv")
        first_end = min(float(f["finish_us"]) for f in flows[1:])
        last_end = max(float(f["finish_us"]) for f in flows[1:])
        summary = read_json(folder / "summary.json")
        before = mean_gbps(folder, 0, 0, 300)
        during[name] = (mean_gbps(folder, 0, 300, first_end), mean_gbps(folder, 0, 300, last_end))
        fct = sum(float(f["fct_us"]) for f in flows[1:]) / len(flows[1:])
        lines.append(f"| {'on' if name.endswith('pfc') else 'off'} | {before:.1f} Gbit/s | "
                     f"{during[name][0]:.1f} Gbit/s (300-{first_end:.0f} us) | "
                     f"{during[name][1]:.1f} Gbit/s (300-{last_end:.0f} us) | {fct:.1f} us | "
                     f"{summary['pause_frames']} | {summary['dropped_frames']} |")
    for i, window in enumerate(("until the first incast flow ends", "until the last ends")):
        pfc, lossy = during["spreading_pfc"][i], during["spreading_lossy"][i]
        checks.append((f"congestion spreading, {window}: the victim gets less with PFC than "
                       f"without ({pfc:.1f} against {lossy:.1f} Gbit/s)", pfc < lossy))
    return lines


def main(out, sweep, verify):
    out = Path(out)
    checks = []
    text = ["# Fabric experiments: the figures (scripts/fabric_report.py writes this file)", "",
            "## (1) 8-to-1 incast with PFC", ""]
    text += incast(out, checks)
    text += ["", "One message per sender (a burst):", ""]
    text += burst(out)
    text += ["", "## (2) the same without PFC, a 1 MiB switch buffer", ""]
    text += lossy(out)
    text += ["", "## (3) PFC headroom against cable length", ""]
    text += headroom(sweep, verify, out, checks)
    text += ["", "## (4) congestion spreading", ""]
    text += spreading(out, checks)
    text += ["", "## Checks", ""]
    failed = [c for c in checks if not c[1]]
    text += [f"- {'ok' if ok else 'FAILED'}: {what}" for what, ok in checks]
    (out / "report.md").write_text("\n".join(text) + "\n")
    for what, _ in failed:
        print(f"fabric_report.py: FAILED: {what}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3]))
