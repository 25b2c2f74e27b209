#!/usr/bin/env python3
"""Tables and plots of scripts/rdma_vs_tcp's runs (RESULTS/raw/<config>/<test>_<size>/perf.json).

Writes into RESULTS:
* latency_100g.csv: write_lat, send_lat and tcp_lat on cx5_100g, t_typical one way (us),
  and each test's CPU work per message (us, both nodes summed);
* bandwidth_100g.csv: write_bw and tcp_bw average Gbit/s, and CPU per message;
* latency_40g_vs_10g.csv: write_lat on rdma_40g against tcp_lat on tcp_10g, with interrupts
  and with busy polling;
* ratios.md: per comparison and size, RDMA and TCP latency (or bandwidth) and CPU, and
  TCP / RDMA;
* latency.png, cpu.png, ratios.png, bandwidth.png;
* stages.png: 64 B one way through each path, stage by stage (raw/breakdown/, --breakdown).

usage: plot_rdma_vs_tcp.py RESULTS
"""
import csv
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(raw, config, test):
    """{size: (figure, cpu_us)}: t_typical (latency) or bw_avg_gbps, and the two
    nodes' work per message summed."""
    rows = {}
    for path in sorted((raw / config).glob(f"{test}_*/perf.json")):
        doc = json.loads(path.read_text())
        row = doc["results"][0]
        figure = row["t_typical_usec"] if "t_typical_usec" in row else row["bw_avg_gbps"]
        cpu = sum(doc["counters"][n]["cpu"]["work_us_per_message"] for n in ("a", "b"))
        rows[row["bytes"]] = (figure, cpu)
    if not rows:
        sys.exit(f"plot_rdma_vs_tcp.py: no runs of {test} in {raw / config}")
    return rows


def size_text(n):
    if n >= 1 << 20:
        return f"{n >> 20} MiB"
    if n >= 1 << 10:
        return f"{n >> 10} KiB"
    return f"{n} B"


def write_csv(path, header, rows):
    with path.open("w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def table(title, unit, rdma_name, tcp_name, rdma, tcp, higher_is_better=False):
    """A markdown table: size, both figures, their ratio, both CPUs, their ratio.
    The ratio is TCP / RDMA (for bandwidth, RDMA / TCP), so above 1 favours RDMA."""
    first = "RDMA / TCP" if higher_is_better else "TCP / RDMA"
    lines = [f"### {title}", "",
             f"| size | {rdma_name} ({unit}) | {tcp_name} ({unit}) | {first} | "
             f"RDMA CPU (us/msg) | TCP CPU (us/msg) | TCP / RDMA CPU |",
             "|---:|---:|---:|---:|---:|---:|---:|"]
    for size in sorted(set(rdma) & set(tcp)):
        (r, rc), (t, tc) = rdma[size], tcp[size]
        ratio = r / t if higher_is_better else t / r
        lines.append(f"| {size_text(size)} | {r:.2f} | {t:.2f} | {ratio:.1f} | {rc:.3f} | "
                     f"{tc:.3f} | {tc / rc:.1f} |")
    return "\n".join(lines) + "\n"


def main(results):
    results = Path(results)
    raw = results / "raw"
    write_lat, send_lat, tcp_lat = (load(raw, "cx5_100g", t)
                                    for t in ("write_lat", "send_lat", "tcp_lat"))
    write_bw, tcp_bw = (load(raw, "cx5_100g", t) for t in ("write_bw", "tcp_bw"))
    lat40, tcp10 = load(raw, "rdma_40g", "write_lat"), load(raw, "tcp_10g", "tcp_lat")
    tcp10_busy = load(raw, "tcp_10g_busy_poll", "tcp_lat")

    sizes = sorted(write_lat)
    write_csv(results / "latency_100g.csv",
              ["bytes", "write_lat_us", "send_lat_us", "tcp_lat_us", "write_lat_cpu_us",
               "send_lat_cpu_us", "tcp_lat_cpu_us"],
              [[s, write_lat[s][0], send_lat[s][0], tcp_lat[s][0], write_lat[s][1],
                send_lat[s][1], tcp_lat[s][1]] for s in sizes])
    write_csv(results / "bandwidth_100g.csv",
              ["bytes", "write_bw_gbps", "tcp_bw_gbps", "write_bw_cpu_us", "tcp_bw_cpu_us"],
              [[s, write_bw[s][0], tcp_bw[s][0], write_bw[s][1], tcp_bw[s][1]]
               for s in sorted(write_bw)])
    write_csv(results / "latency_40g_vs_10g.csv",
              ["bytes", "write_lat_40g_us", "tcp_lat_10g_us", "tcp_lat_10g_busy_poll_us",
               "write_lat_40g_cpu_us", "tcp_lat_10g_cpu_us", "tcp_lat_10g_busy_poll_cpu_us"],
              [[s, lat40[s][0], tcp10[s][0], tcp10_busy[s][0], lat40[s][1], tcp10[s][1],
                tcp10_busy[s][1]] for s in sorted(lat40)])

    md = ["# RDMA against kernel TCP: ratios", "",
          "Latency is t_typical, one way; CPU is the work per message of both hosts summed "
          "(a latency message is one round trip), spinning excluded. Written by "
          "scripts/plot_rdma_vs_tcp.py from raw/.", ""]
    md.append(table("write_lat vs tcp_lat, cx5_100g", "us", "write_lat", "tcp_lat",
                    write_lat, tcp_lat))
    md.append(table("send_lat vs tcp_lat, cx5_100g", "us", "send_lat", "tcp_lat",
                    send_lat, tcp_lat))
    md.append(table("write_bw vs tcp_bw, cx5_100g", "Gbit/s", "write_bw", "tcp_bw",
                    write_bw, tcp_bw, higher_is_better=True))
    md.append(table("write_lat on rdma_40g vs tcp_lat on tcp_10g", "us", "write_lat 40G",
                    "tcp_lat 10G", lat40, tcp10))
    md.append(table("write_lat on rdma_40g vs tcp_lat on tcp_10g with kernel.busy_poll", "us",
                    "write_lat 40G", "tcp_lat 10G busy poll", lat40, tcp10_busy))
    (results / "ratios.md").write_text("\n".join(md))

    def curve(rows, index, label, style):
        xs = sorted(rows)
        return xs, [rows[x][index] for x in xs], label, style

    def ratio(rdma, tcp, index, label, style):
        xs = sorted(set(rdma) & set(tcp))
        return xs, [tcp[x][index] / rdma[x][index] for x in xs], label, style

    plot(results / "latency.png", "Latency: RDMA against kernel TCP",
         "one-way latency, t_typical (us)",
         [curve(write_lat, 0, "write_lat (RDMA, 100G)", "o-"),
          curve(send_lat, 0, "send_lat (RDMA, 100G)", "s-"),
          curve(tcp_lat, 0, "tcp_lat (kernel TCP, 100G)", "^-"),
          curve(lat40, 0, "write_lat (RDMA, rdma_40g)", "o--"),
          curve(tcp10, 0, "tcp_lat (kernel TCP, tcp_10g)", "^--"),
          curve(tcp10_busy, 0, "tcp_lat (tcp_10g, busy polling)", "v--")])
    plot(results / "cpu.png", "CPU per message on cx5_100g (spinning excluded)",
         "CPU work per message, both hosts (us)",
         [curve(write_lat, 1, "write_lat", "o-"), curve(send_lat, 1, "send_lat", "s-"),
          curve(tcp_lat, 1, "tcp_lat", "^-"), curve(write_bw, 1, "write_bw", "o:"),
          curve(tcp_bw, 1, "tcp_bw", "^:")])
    plot(results / "ratios.png", "How many times TCP's latency and CPU per message",
         "TCP / RDMA",
         [ratio(write_lat, tcp_lat, 0, "latency: tcp_lat / write_lat (100G)", "o-"),
          ratio(send_lat, tcp_lat, 0, "latency: tcp_lat / send_lat (100G)", "s-"),
          ratio(lat40, tcp10, 0, "latency: tcp_lat 10G / write_lat 40G", "D--"),
          ratio(lat40, tcp10_busy, 0, "latency: tcp_lat 10G busy poll / write_lat 40G", "v--"),
          ratio(write_lat, tcp_lat, 1, "CPU: tcp_lat / write_lat", "o:"),
          ratio(write_bw, tcp_bw, 1, "CPU: tcp_bw / write_bw", "^:")],
         guides=(10, 100))
    plot(results / "bandwidth.png", "Bandwidth on cx5_100g, one connection",
         "average bandwidth (Gbit/s)",
         [curve(write_bw, 0, "write_bw (RDMA)", "o-"),
          curve(tcp_bw, 0, "tcp_bw (kernel TCP)", "^-")], log_y=False)
    plot_stages(raw / "breakdown", results / "stages.png")


def plot_stages(folder, path):
    """Two horizontal stacked bars, 64 B one way: each stage of --breakdown's
    mean, in path order, on one time axis."""
    bars = []
    for test, name in (("write_lat", "RDMA write_lat"), ("tcp_lat", "kernel TCP tcp_lat")):
        doc = json.loads((folder / f"{test}_64" / "breakdown.json").read_text())
        stages = [s for s in doc["sizes"][0]["stages"] if s["point"] != "post"]
        bars.append((name, stages))
    fig, ax = plt.subplots(figsize=(11, 6.5))
    # A colour per stage across both bars (tab20, then tab20b), so none is shared.
    colours = [plt.get_cmap("tab20")(i) for i in range(20)]
    colours += [plt.get_cmap("tab20b")(i) for i in range(20)]
    handles = []
    for row, (name, stages) in enumerate(bars):
        left = 0.0
        for s in stages:
            width = s["ns"] / 1000
            colour = colours[len(handles) % len(colours)]
            h = ax.barh(row, width, left=left, color=colour, edgecolor="white",
                        label=f"{name.split()[-1]}: {s['block']}: {s['point']}")
            handles.append(h)
            left += width
        ax.text(left, row, f"  {left:.2f} us", va="center", fontsize=9)
    ax.set_yticks(range(len(bars)), [name for name, _ in bars])
    ax.set_xlabel("time after the send (us), 64 B one way, cx5_100g")
    ax.set_title("Where 64 B goes: RDMA against kernel TCP (--breakdown)")
    ax.legend(handles=handles, fontsize=6.5, ncol=3, loc="upper center",
              bbox_to_anchor=(0.5, -0.12))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot(path, title, ylabel, curves, log_y=True, guides=()):
    """One figure against message size (log 2), a line per (xs, ys, label, style)."""
    fig, ax = plt.subplots(figsize=(8, 5))
    for xs, ys, label, style in curves:
        ax.plot(xs, ys, style, label=label, markersize=4)
    for y in guides:  # the "one to two orders of magnitude" band
        ax.axhline(y, color="grey", lw=0.8)
    ax.set_xscale("log", base=2)
    if log_y:
        ax.set_yscale("log")
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel(ylabel)
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)

if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
