#!/usr/bin/env python3
"""The QP-scalability knee, at the points that resolve it, against the
committed results (results/qp_scale/qp_scale.csv).

usage: check_qp_scale_knee.py RNICSIM SOURCE_DIR WORK_FOLDER

Runs four points of the WRITE sweeps exactly as `rnicsim sweep` runs them
(configs/sweeps/qp_scale_write_{base,qpc2x}.json): the preset at 1024 QPs
(on the plateau) and 1536 (its knee: more than 10% below), the QPC cache
doubled at 2048 (on the plateau) and 2560 (its knee). The model is
deterministic, so each rate must equal the committed figure (to the CSV's
3 decimals): a change that moves the curves fails here until
scripts/run_qp_scale regenerates them. And the knee condition itself is
checked, so the committed figures cannot drift into a curve without one.
"""
import csv
import json
import subprocess
import sys
from pathlib import Path

POINTS = [("write_base", 1024, "plateau"), ("write_base", 1536, "knee"),
          ("write_qpc2x", 2048, "plateau"), ("write_qpc2x", 2560, "knee")]


def point_args(sweep, qps):
    """The perf command line the sweep gives point `qps` (zip axes)."""
    index = next(a for a in sweep["axes"] if a["key"] == "--qp")["values"].index(qps)
    args = [sweep["perf"]["test"], *sweep["perf"]["args"]]
    for axis in sweep["axes"]:
        value = axis["values"][index]
        if axis["key"].startswith("--"):
            args.append(f"{axis['key']}={value}")
        else:
            args += ["--set", f"{axis['key']}={value}"]
    for key, value in sweep.get("set", {}).items():
        args += ["--set", f"{key}={value}"]
    return args


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    rnicsim, source, work = argv[0], Path(argv[1]), Path(argv[2])
    committed = {}
    with open(source / "results/qp_scale/qp_scale.csv") as f:
        for row in csv.DictReader(f):
            committed[(row["curve"], int(row["qps"]))] = float(row["msg_rate_mpps"])
    failures = []
    for curve, qps, role in POINTS:
        sweep = json.loads((source / f"configs/sweeps/qp_scale_{curve}.json").read_text())
        out = work / f"{curve}_{qps}"
        subprocess.run([rnicsim, "perf", *point_args(sweep, qps),
                        str(source / "configs/qp_scale.json"), "--out", str(out)],
                       check=True, stdout=subprocess.DEVNULL, timeout=300)
        rate = json.loads((out / "perf.json").read_text())["results"][0]["msg_rate_mpps"]
        plateau = max(r for (c, _), r in committed.items() if c == curve)
        if round(rate, 3) != committed[(curve, qps)]:
            failures.append(f"{curve} at {qps} QPs: {rate:.3f} Mpps, committed "
                            f"{committed[(curve, qps)]:.3f}: regenerate with scripts/run_qp_scale")
        if role == "plateau" and rate < 0.995 * plateau:
            failures.append(f"{curve} at {qps} QPs: {rate:.3f} Mpps is off the plateau {plateau:.3f}")
        if role == "knee" and rate >= 0.9 * plateau:
            failures.append(f"{curve} at {qps} QPs: {rate:.3f} Mpps is not 10% below {plateau:.3f}")
        print(f"{curve} {qps} QPs: {rate:.3f} Mpps ({role}; plateau {plateau:.3f})")
    for failure in failures:
        print("FAIL:", failure)
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    main(sys.argv[1:])
