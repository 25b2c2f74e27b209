#!/usr/bin/env python3
"""`rnicsim sweep` as a user runs it, one case per ctest test.

usage: check_sweep.py RNICSIM SOURCE_DIR WORK_DIR CASE

bad_files  bad sweep files and command lines exit 2 with one error naming the
           file and member (or option), before any point runs: no folder made
bad_point  a point the configuration refuses and a point whose run fails each
           fail alone, with their errors in the table; the others' figures
           equal a plain `rnicsim run` of the same keys; a rerun runs only the
           failed points again
interrupt  SIGINT halfway (as Ctrl-C sends it to the foreground process group)
           ends the sweep by SIGINT, leaves no partial run, keeps the finished
           points; the rerun finishes without running them again, and the
           table equals that of an uninterrupted run with -j 1
slurm_script
           --slurm --dry-run writes a job array of the missing points in
           chunks; running its script as Slurm would (sh, SLURM_ARRAY_TASK_ID)
           and then --collect gives the local run's table; a point done needs
           no resubmission
perf       a perf sweep over a perftest option and a key gives the figures
           `rnicsim perf` gives
rebuild    an executable replaced at the sweep's path while the sweep runs
           (as a rebuild does) runs none of the later points: each is the
           sweep's own program, whose build the points' identity names
"""
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

TIMEOUT_S = 600  # the sanitizer build is many times slower


def fail(message, output=""):
    print(f"FAIL: {message}\n--- output ---\n{output}")
    sys.exit(1)


def run(rnicsim, *args, env=None):
    return subprocess.run([rnicsim, *map(str, args)], capture_output=True, text=True,
                          timeout=TIMEOUT_S, env=env)


def write_sweep(path, document):
    path.write_text(json.dumps(document, indent=1))
    return path


def table(folder, drop=("wall_seconds", "peak_memory_mib")):
    with open(folder / "results.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return [{k: v for k, v in row.items() if k not in drop} for row in rows]


def records(folder):
    return {p.parent.name: p.stat() for p in (folder / "points").glob("*/point.json")}


def translation_sweep(source, accesses):
    """8 translation points: two cache sizes by two working sets by two page sizes."""
    return {
        "base": str(source / "configs/sweeps/mtt_cache_base.json"),
        "set": {"translation_test.accesses": accesses, "translation_test.warmup_accesses": accesses},
        "axes": [
            {"key": "translation_test.cache_entries", "values": [1024, 4096]},
            {"key": "translation_test.mr_bytes", "range": {"from": 1048576, "to": 4194304, "factor": 4}},
            {"key": "host.page_bytes", "values": [4096, 2097152]},
        ],
        "collect": {"hit_rate": "/points/0/hit_rate", "mean_ns": "/points/0/mean_translate_ns"},
        "pareto": {"x": "translation_test.cache_entries", "y": "mean_ns"},
    }


def case_bad_files(rnicsim, source, work):
    base = str(source / "configs/seed_pipeline.json")
    good_axis = {"key": "link.gbps", "values": [100]}
    collect = {"gbps": "/paths/rdma/steady_gbps"}
    cases = {
        "unknown key in an axis": ({"base": base, "collect": collect,
                                    "axes": [{"key": "link.gbpz", "values": [1]}]},
                                   "axes[0].key: link.gbpz: unknown key"),
        "empty axis": ({"base": base, "collect": collect,
                        "axes": [{"key": "link.gbps", "values": []}]},
                       "axes[0]: link.gbps: the axis has no values"),
        "bad range": ({"base": base, "collect": collect,
                       "axes": [{"key": "link.gbps", "range": {"from": 5, "to": 1, "step": 1}}]},
                      "axes[0].range.to: is below from"),
        "negative step": ({"base": base, "collect": collect,
                           "axes": [{"key": "link.gbps", "range": {"from": 1, "to": 5, "step": -1}}]},
                          "axes[0].range.step: must be > 0"),
        "zip of unequal axes": ({"base": base, "collect": collect, "combine": "zip",
                                 "axes": [good_axis, {"key": "workload.count", "values": [8, 9]}]},
                                "zip needs axes of one length"),
        "no collect": ({"base": base, "axes": [good_axis]}, "collect: is missing"),
        "missing base": ({"base": "nowhere.json", "collect": collect, "axes": [good_axis]},
                         "base: "),
    }
    for name, (document, message) in cases.items():
        sweep = write_sweep(work / "bad.json", document)
        out = work / "bad_out"
        result = run(rnicsim, "sweep", sweep, "--out", out)
        lines = result.stderr.strip().splitlines()
        if result.returncode != 2 or len(lines) != 1 or message not in lines[0] \
                or not lines[0].startswith(f"rnicsim: error: {sweep}: "):
            fail(f"{name}: expected exit 2 and one error with '{message}'",
                 result.stdout + result.stderr)
        if out.exists():
            fail(f"{name}: the sweep created {out} before refusing the file")
    sweep = write_sweep(work / "good.json", {"base": base, "collect": collect, "axes": [good_axis]})
    for args, message in [
        ([], "needs --out DIR"),
        (["--out", work / "o", "-j", "0"], "-j: expected an integer from 1 to 1024"),
        (["--out", work / "o", "--dry-run"], "--dry-run: goes with --slurm"),
        (["--out", work / "o", "--points", "5"], "--points: point 5 does not exist"),
        (["--out", work / "o", "--slurm", "--time", "1 0"], "--time: expected one word"),
        (["--out", work / "o", "--slurm", "--collect"], "exclude each other"),
    ]:
        result = run(rnicsim, "sweep", sweep, *args)
        if result.returncode != 2 or message not in result.stderr:
            fail(f"sweep {args}: expected exit 2 and '{message}'", result.stdout + result.stderr)
        if (work / "o").exists():
            fail(f"sweep {args}: the sweep created its folder before refusing")
    not_a_sweep = work / "not_a_sweep"
    not_a_sweep.mkdir()
    (not_a_sweep / "keep.txt").write_text("mine")
    result = run(rnicsim, "sweep", sweep, "--out", not_a_sweep)
    if result.returncode != 2 or "not an rnicsim sweep folder" not in result.stderr:
        fail("a folder of someone else's files must be refused", result.stdout + result.stderr)


def case_bad_point(rnicsim, source, work):
    base = source / "configs/seed_pipeline.json"
    # Point 1 runs on the testbed, which reads no dma.gbps (the base gives
    # it): its run fails. Point 2's wire rate is one the configuration refuses.
    sweep = write_sweep(work / "sweep.json", {
        "base": str(base),
        "combine": "zip",
        "axes": [{"key": "pipeline.composition", "values": ["stages", "testbed", "stages", "stages"]},
                 {"key": "link.gbps", "values": [100, 50, -1, 25]}],
        "collect": {"gbps": "/paths/rdma/steady_gbps", "latency_ns": "/paths/rdma/first_latency_ns"},
    })
    out = work / "out"
    result = run(rnicsim, "sweep", sweep, "--out", out, "-j", "2")
    if result.returncode != 1:
        fail("a sweep with failed points must exit 1", result.stdout + result.stderr)
    rows = table(out)
    statuses = [row["status"] for row in rows]
    if statuses != ["ok", "failed", "failed", "ok"]:
        fail(f"statuses {statuses}", result.stdout + result.stderr)
    if "dma.gbps: no block of the pipeline experiment reads it" not in rows[1]["error"]:
        fail(f"point 1's error: {rows[1]['error']}")
    if "link.gbps" not in rows[2]["error"] or "-1" not in rows[2]["error"]:
        fail(f"point 2's error: {rows[2]['error']}")
    if (out / "points" / rows[2]["folder"]).exists():
        fail("a point the configuration refuses must not run")
    if "point 2 (composition=stages,gbps=-1,seed=1) is not run" not in result.stderr:
        fail("the refused point is named on stderr", result.stderr)
    for row, gbps in ((rows[0], 100), (rows[3], 25)):
        plain = work / f"plain_{gbps}"
        direct = run(rnicsim, "run", base, "--out", plain, "--set", f"link.gbps={gbps}",
                     "--set", "output.plot=false")
        summary = json.loads((plain / "summary.json").read_text())["paths"]["rdma"]
        if direct.returncode != 0 or row["gbps"] != json.dumps(summary["steady_gbps"]) \
                or row["latency_ns"] != json.dumps(summary["first_latency_ns"]):
            fail(f"point {row['point']}: {row} against rnicsim run's {summary}", direct.stderr)
    jsonl = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    if [r["status"] for r in jsonl] != statuses or jsonl[3]["parameters"] != \
            {"pipeline.composition": "stages", "link.gbps": 25, "seed": 1}:
        fail(f"results.jsonl: {jsonl}")
    before = records(out)
    again = run(rnicsim, "sweep", sweep, "--out", out)
    if again.returncode != 1 or "2 points had finished before and were not run again" \
            not in again.stdout:
        fail("the rerun must skip the finished points", again.stdout + again.stderr)
    after = records(out)
    for folder in (rows[0]["folder"], rows[3]["folder"]):
        if after[folder].st_mtime_ns != before[folder].st_mtime_ns:
            fail(f"{folder} ran again")
    if after[rows[1]["folder"]].st_mtime_ns == before[rows[1]["folder"]].st_mtime_ns:
        fail("the failed point must run again")


def case_interrupt(rnicsim, source, work):
    sweep = write_sweep(work / "sweep.json", translation_sweep(source, 400000))
    out = work / "out"
    process = subprocess.Popen([rnicsim, "sweep", str(sweep), "--out", str(out), "-j", "2"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    deadline = time.monotonic() + TIMEOUT_S
    while len(records(out)) < 3:
        if time.monotonic() > deadline or process.poll() is not None:
            process.kill()
            fail("the sweep ended or hung before three points finished", process.communicate()[0])
        time.sleep(0.02)
    os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C does
    stdout, stderr = process.communicate(timeout=TIMEOUT_S)
    if process.returncode != -signal.SIGINT:
        fail(f"the sweep must end by SIGINT, got {process.returncode}", stdout + stderr)
    done = records(out)
    if not 3 <= len(done) < 8:
        fail(f"{len(done)} points finished: not halfway", stdout + stderr)
    partial = [str(p) for p in (out / "points").glob("*/run.*")]
    if partial:
        fail(f"partial runs left behind: {partial}")
    if "run the same command again to finish the others" not in stderr:
        fail("the interrupted sweep must say how to finish", stderr)
    again = run(rnicsim, "sweep", sweep, "--out", out, "-j", "2")
    if again.returncode != 0 or \
            f"{len(done)} points had finished before and were not run again" not in again.stdout:
        fail("the rerun must finish the rest alone", again.stdout + again.stderr)
    finished = records(out)
    for folder, stat in done.items():
        if (finished[folder].st_ino, finished[folder].st_mtime_ns) != (stat.st_ino, stat.st_mtime_ns):
            fail(f"{folder} was run again")
    uninterrupted = work / "uninterrupted"
    whole = run(rnicsim, "sweep", sweep, "--out", uninterrupted, "-j", "1")
    if whole.returncode != 0 or table(out) != table(uninterrupted) or len(table(out)) != 8:
        fail("the resumed table differs from an uninterrupted one", whole.stdout + whole.stderr)
    if not all(row["status"] == "ok" for row in table(out)):
        fail("every point must be ok")
    # Each run reports its own peak memory (12 to 23 MiB in results/sweeps;
    # a sanitizer build holds several times more): present and plausible.
    peaks = [float(row["peak_memory_mib"]) for row in table(out, drop=())]
    if not all(1 < peak < 1024 for peak in peaks):
        fail(f"peak memory per point {peaks}")
    # A point named twice runs once; a finished one not at all.
    again = run(rnicsim, "sweep", sweep, "--out", work / "twice", "--points", "0,0-1", "-j", "3")
    records_written = len(records(work / "twice"))
    if again.returncode != 0 or again.stdout.count("point 0 ") != 1 or records_written != 2:
        fail("--points 0,0-1 must run points 0 and 1 once each", again.stdout + again.stderr)


def table_of_plan(rnicsim, sweep, work):
    """The rows --collect writes into a fresh folder: every point, none run."""
    folder = work / "plan_only"
    run(rnicsim, "sweep", sweep, "--out", folder, "--collect")
    rows = table(folder)
    shutil.rmtree(folder)
    return rows


def case_slurm_script(rnicsim, source, work):
    sweep = write_sweep(work / "sweep.json", translation_sweep(source, 2000))
    out = work / "out"
    result = run(rnicsim, "sweep", sweep, "--out", out, "--slurm", "--dry-run", "--chunk", "3",
                 "--max-parallel", "2", "--partition", "debug", "--time", "00:10:00",
                 "--mem", "1G")
    script = out / "slurm" / "sweep-1.sbatch"
    if result.returncode != 0 or not script.exists():
        fail("--dry-run must write the script", result.stdout + result.stderr)
    text = script.read_text()
    for line in ["#SBATCH --array=0-2%2", "#SBATCH --partition=debug", "#SBATCH --time=00:10:00",
                 "#SBATCH --mem=1G"]:
        if line + "\n" not in text:
            fail(f"the script lacks '{line}'", text)
    folders = [row["folder"] for row in table_of_plan(rnicsim, sweep, work)]
    tasks = (out / "slurm" / "tasks-1.txt").read_text().splitlines()
    if tasks != ["/".join(folders[0:3]), "/".join(folders[3:6]), "/".join(folders[6:8])]:
        fail(f"task list {tasks}")
    # Each array task, as Slurm starts it.
    for task in range(3):
        env = dict(os.environ, SLURM_ARRAY_TASK_ID=str(task))
        ran = subprocess.run(["sh", str(script)], capture_output=True, text=True, env=env,
                             timeout=TIMEOUT_S)
        if ran.returncode != 0:
            fail(f"array task {task} failed", ran.stdout + ran.stderr)
    collected = run(rnicsim, "sweep", sweep, "--out", out, "--collect")
    local = work / "local"
    here = run(rnicsim, "sweep", sweep, "--out", local, "-j", "2")
    if collected.returncode != 0 or here.returncode != 0 or table(out) != table(local):
        fail("collected and local tables differ", collected.stdout + collected.stderr +
             here.stdout + here.stderr)
    if not (out / "plots" / "pareto.png").exists():
        fail("--collect must draw the plots", collected.stdout)
    # Only a missing point is submitted again.
    os.remove(out / "points" / table(out)[4]["folder"] / "point.json")
    resubmit = run(rnicsim, "sweep", sweep, "--out", out, "--slurm", "--dry-run")
    if resubmit.returncode != 0 or (out / "slurm" / "tasks-2.txt").read_text() != folders[4] + "\n" or \
            "#SBATCH --array=0-0\n" not in (out / "slurm" / "sweep-2.sbatch").read_text():
        fail("a resubmission holds the missing point alone", resubmit.stdout + resubmit.stderr)
    collected = run(rnicsim, "sweep", sweep, "--out", out, "--collect")
    if collected.returncode != 1 or "1 not run" not in collected.stdout:
        fail("--collect with a point missing must say so and exit 1", collected.stdout)


def case_perf(rnicsim, source, work):
    base = source / "configs/cx5_100g.json"
    sweep = write_sweep(work / "sweep.json", {
        "base": str(base),
        "perf": {"test": "write_bw", "args": ["-n", "200"]},
        "axes": [{"key": "--size", "values": [64, 4096]}, {"key": "link.gbps", "values": [25, 100]}],
        "collect": {"bw_gbps": "/results/0/bw_avg_gbps", "bytes": "/results/0/bytes"},
    })
    out = work / "out"
    result = run(rnicsim, "sweep", sweep, "--out", out, "-j", "2")
    rows = table(out)
    if result.returncode != 0 or [r["status"] for r in rows] != ["ok"] * 4:
        fail("the perf sweep must run its four points", result.stdout + result.stderr)
    direct = run(rnicsim, "perf", "write_bw", base, "-n", "200", "-s", "4096", "--set",
                 "link.gbps=25", "--out", work / "direct", "--json", work / "direct.json")
    figures = json.loads((work / "direct.json").read_text())["results"][0]
    if direct.returncode != 0 or rows[2]["bw_gbps"] != json.dumps(figures["bw_avg_gbps"]) or \
            rows[2]["bytes"] != "4096" or rows[2]["--size"] != "4096" or rows[2]["link.gbps"] != "25":
        fail(f"point 2 {rows[2]} against rnicsim perf's {figures}", direct.stdout + direct.stderr)


def case_rebuild(rnicsim, source, work):
    program = work / "rnicsim"
    shutil.copy2(rnicsim, program)
    sweep = write_sweep(work / "sweep.json", translation_sweep(source, 100000))
    out = work / "out"
    process = subprocess.Popen([str(program), "sweep", str(sweep), "--out", str(out), "-j", "1"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + TIMEOUT_S
    while not records(out):
        if time.monotonic() > deadline or process.poll() is not None:
            process.kill()
            fail("the sweep ended or hung before its first point finished",
                 "".join(process.communicate()))
        time.sleep(0.01)
    # What a rebuild does: a new file renamed over the old path. This one
    # fails, so a point it ran would show.
    rebuilt = work / "rebuilt"
    rebuilt.write_text("#!/bin/sh\necho 'not the sweep program' >&2\nexit 3\n")
    rebuilt.chmod(0o755)
    os.replace(rebuilt, program)
    stdout, stderr = process.communicate(timeout=TIMEOUT_S)
    rows = table(out)
    if process.returncode != 0 or [row["status"] for row in rows] != ["ok"] * 8:
        fail(f"every point must run the sweep's own program: {rows}", stdout + stderr)
    plain = work / "plain"
    whole = run(rnicsim, "sweep", sweep, "--out", plain, "-j", "2")
    if whole.returncode != 0 or table(out) != table(plain):
        fail("the table differs from a sweep run without a rebuild", whole.stdout + whole.stderr)


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    rnicsim, source, work, case = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4]
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    globals()["case_" + case](rnicsim, source, work)
    shutil.rmtree(work, ignore_errors=True)
    print(f"PASS: {case}")


if __name__ == "__main__":
    main()
