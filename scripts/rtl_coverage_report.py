#!/usr/bin/env python3
"""Line and toggle coverage per RTL twin, from Verilator coverage files.

Usage: rtl_coverage_report.py --root DIR --waivers FILE --csv OUT TWIN=FILE.dat...

Each coverage file is one twin's suites (scripts/rtl_coverage); only the
points of that twin's source, rtl/<twin>/<twin>.sv, count. A line of a file
is `C '<key>' <count>`, the key fields separated by \\x01, each name from its
value by \\x02: f (file), l (line), page (v_line/..., v_branch/... or
v_toggle/... and the module), o (comment: the block kind or the signal bit),
S (the source lines a block spans).

- Lines: the points of --coverage-line (v_line blocks and v_branch arms) each
  count for the lines they span (S, and their own line). A line is covered
  when every point counting for it was reached, so an if whose else arm never
  ran leaves its line uncovered.
- Toggles: one point per signal bit (v_toggle); covered when the bit changed
  at least once.

A twin passes at 95% of its lines and 90% of its toggle bits; below either it
still passes when the waiver file names every line it leaves uncovered of that
kind (`<source>:<line> <reason>`, # comments). Exits 1 when a twin fails.
"""
import argparse
import csv
import os
import sys
from collections import defaultdict

LINE_THRESHOLD = 95.0
TOGGLE_THRESHOLD = 90.0


def read_points(path):
    """The points of a coverage file: (fields dict, count) each."""
    points = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.startswith("C '"):
                continue
            end = line.rfind("' ")
            if end < 3:
                raise ValueError(f"{path}:{number}: not a coverage point")
            fields = {}
            for item in line[3:end].split("\x01"):
                if item:
                    name, _, value = item.partition("\x02")
                    fields[name] = value
            points.append((fields, int(line[end + 2:])))
    return points


def spanned_lines(fields):
    """The source lines a line-coverage point counts for."""
    lines = {int(fields["l"])}
    for part in fields.get("S", "").split(","):
        if not part:
            continue
        first, _, last = part.partition("-")
        lines.update(range(int(first), int(last or first) + 1))
    return lines


def read_waivers(path):
    """{(source, line): reason} from the waiver file."""
    waivers = {}
    if not os.path.exists(path):
        return waivers
    with open(path, encoding="utf-8") as f:
        for number, text in enumerate(f, 1):
            text = text.strip()
            if not text or text.startswith("#"):
                continue
            where, _, reason = text.partition(" ")
            source, _, line = where.rpartition(":")
            if not source or not line.isdigit() or not reason.strip():
                raise ValueError(f"{path}:{number}: not '<source>:<line> <reason>'")
            waivers[(source, int(line))] = reason.strip()
    return waivers


def bit_order(name):
    """data[2] before data[10]."""
    base, _, index = name.partition("[")
    index = index.rstrip("]")
    return (base, int(index) if index.isdigit() else -1, name)


def percent(covered, total):
    return 100.0 * covered / total if total else 100.0


def measure(twin, dat, root):
    """One twin's counts from its suites' coverage file."""
    source = f"rtl/{twin}/{twin}.sv"
    line_points = defaultdict(list)  # line -> counts of the points counting for it
    toggles = defaultdict(list)  # declaration line -> (bit, count)
    for fields, count in read_points(dat):
        path = fields.get("f", "")
        if os.path.isabs(path):
            path = os.path.relpath(path, root)
        if path != source:
            continue
        page = fields.get("page", "")
        if page.startswith(("v_line/", "v_branch/")):
            for line in spanned_lines(fields):
                line_points[line].append(count)
        elif page.startswith("v_toggle/"):
            toggles[int(fields["l"])].append((fields.get("o", "?"), count))
    uncovered_lines = sorted(l for l, counts in line_points.items() if min(counts) == 0)
    bits = [count for per_line in toggles.values() for _, count in per_line]
    uncovered_bits = {l: sorted((bit for bit, count in per_line if count == 0), key=bit_order)
                      for l, per_line in toggles.items()}
    return {
        "twin": twin,
        "source": source,
        "lines_total": len(line_points),
        "lines_covered": len(line_points) - len(uncovered_lines),
        "uncovered_lines": uncovered_lines,
        "toggles_total": len(bits),
        "toggles_covered": sum(1 for count in bits if count > 0),
        "uncovered_bits": {l: b for l, b in sorted(uncovered_bits.items()) if b},
    }


def judge(m, waivers):
    """ok, waived or FAIL, and the uncovered lines no waiver names."""
    lines_pct = percent(m["lines_covered"], m["lines_total"])
    toggles_pct = percent(m["toggles_covered"], m["toggles_total"])
    missing = []
    below = False
    if lines_pct < LINE_THRESHOLD:
        below = True
        missing += [l for l in m["uncovered_lines"] if (m["source"], l) not in waivers]
    if toggles_pct < TOGGLE_THRESHOLD:
        below = True
        missing += [l for l in m["uncovered_bits"] if (m["source"], l) not in waivers]
    if m["lines_total"] == 0 or m["toggles_total"] == 0:
        return "FAIL", missing  # the suite reached none of the RTL
    if not below:
        return "ok", missing
    return ("waived" if not missing else "FAIL"), sorted(set(missing))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True, help="the repository")
    parser.add_argument("--waivers", required=True)
    parser.add_argument("--csv", required=True)
    parser.add_argument("twins", nargs="+", metavar="TWIN=FILE.dat")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    waivers = read_waivers(os.path.join(root, args.waivers))

    rows = []
    failed = False
    used_waivers = set()
    print(f"{'twin':<20} {'lines':>15} {'toggle bits':>19}  status")
    for spec in args.twins:
        twin, _, dat = spec.partition("=")
        m = measure(twin, dat, root)
        status, missing = judge(m, waivers)
        failed |= status == "FAIL"
        lines_pct = percent(m["lines_covered"], m["lines_total"])
        toggles_pct = percent(m["toggles_covered"], m["toggles_total"])
        waived = sorted(l for (s, l) in waivers if s == m["source"] and
                        (l in m["uncovered_lines"] or l in m["uncovered_bits"]))
        used_waivers.update((m["source"], l) for l in waived)
        print(f"{twin:<20} {m['lines_covered']:>5}/{m['lines_total']:<5} {lines_pct:5.1f}% "
              f"{m['toggles_covered']:>6}/{m['toggles_total']:<6} {toggles_pct:5.1f}%  {status}")
        for l in m["uncovered_lines"]:
            why = waivers.get((m["source"], l), "NOT WAIVED")
            print(f"    {m['source']}:{l} line not covered: {why}")
        for l, bits in m["uncovered_bits"].items():
            why = waivers.get((m["source"], l), "NOT WAIVED")
            shown = " ".join(bits[:6]) + (f" (+{len(bits) - 6} more)" if len(bits) > 6 else "")
            print(f"    {m['source']}:{l} {len(bits)} bits never toggled ({shown}): {why}")
        if missing:
            print(f"    below the thresholds, and no waiver for line(s) {missing}")
        rows.append([twin, m["source"], m["lines_covered"], m["lines_total"], f"{lines_pct:.1f}",
                     m["toggles_covered"], m["toggles_total"], f"{toggles_pct:.1f}", len(waived),
                     status])

    measured_sources = {row[1] for row in rows}
    for (source, line), reason in sorted(waivers.items()):
        if source in measured_sources and (source, line) not in used_waivers:
            print(f"note: waiver {source}:{line} names a line now covered ({reason})")

    os.makedirs(os.path.dirname(args.csv) or ".", exist_ok=True)
    with open(args.csv, "w", newline="", encoding="utf-8") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["twin", "source", "lines_covered", "lines_total", "lines_percent",
                      "toggles_covered", "toggles_total", "toggles_percent", "waived_lines",
                      "status"])
        out.writerows(rows)
    print(f"wrote {args.csv}")
    if failed:
        print(f"FAIL: a twin is below {LINE_THRESHOLD:g}% of its lines or {TOGGLE_THRESHOLD:g}% "
              "of its toggle bits with uncovered lines no waiver names", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
