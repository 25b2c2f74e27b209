#!/usr/bin/env python3
"""Debian's perftest, unmodified, on the model (rnicsim exec), against rnicsim perf.

usage: check_perftest.py CHECK RNICSIM CONFIG [PERFTEST OPTIONS...]

CHECK is a perftest program (write_lat, read_lat, send_lat, atomic_lat, write_bw,
read_bw, send_bw), or `deterministic_<program>` (the program twice, the second run
with every core busy with another process: both sides print the same figures).

A program check runs `ib_<CHECK> -p {port} OPTIONS` as server and
`ib_<CHECK> -p {port} OPTIONS {server}` as client under `rnicsim exec CONFIG`, then
`rnicsim perf CHECK CONFIG OPTIONS`, and compares the result rows the client
prints: t_typical and t_avg (latency tests), BW average and MsgRate (bandwidth
tests) agree within 2% (the issue's bound: the same model under the same options,
driven by perftest's own loop instead of perf's, whose steps differ a little:
model/host/app_library/README.md accounts for write_lat's 10 ns).

Skipped (exit 77) when Debian's perftest is not installed, and on a machine that
does not trap RDTSC, which rnicsim exec says on standard error (prctl PR_SET_TSC
with PR_TSC_SIGSEGV refused, or accepted with no fault ever coming: a Firecracker
VM on AMD EPYC): perftest times its iterations with get_cycles (RDTSC), so its
figures are then wall-clock cycles, neither perf's nor the same from run to run.
The first exec run must still complete there, or fail only as perftest does when
its TSC does not follow the simulated gettimeofday (its calibration's "Correlation
coefficient r^2 < 0.9": a bandwidth test then exits 1, "Can't produce a report");
only its figures go unchecked.
"""
import os
import re
import shutil
import subprocess
import sys

from tsc_trap import SKIP, calibration_failed, untrapped_warning

TOLERANCE = 0.02
CLIENT_DEVICE = "rnicsim_a"  # roles.client of configs/cx5_100g.json


def run(command, timeout=600):
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)


def fail(message, result=None):
    print("FAIL:", message)
    if result is not None:
        print("exit", result.returncode, "\nstdout:\n" + result.stdout + "\nstderr:\n" + result.stderr)
    sys.exit(1)


def result_rows(stdout, device=None):
    """perftest's result rows: the lines after its #bytes header, as number lists;
    with `device`, only those of the program whose banner names that device (each
    program's output reaches the pipe whole, when it exits)."""
    rows, in_table, current = [], False, None
    for line in stdout.splitlines():
        named = re.search(r"Device\s*:\s*(\S+)", line)
        if named:
            current = named.group(1)
        if device is not None and current != device:
            continue
        if line.lstrip().startswith("#bytes"):
            in_table = True
            continue
        if in_table and re.match(r"\s*\d+\s+\d+\s+[\d.]+", line):
            rows.append([float(x) for x in line.split()])
        elif in_table and line.startswith("-"):
            in_table = False
    return rows


def skip_if_tsc_untrapped(result, what):
    """Exit 77 when rnicsim exec said (once) that this machine does not trap RDTSC and
    the run completed, or failed only in perftest's calibration of the TSC; fail on any
    other failure of the run."""
    try:
        said = untrapped_warning(result.stderr)
    except ValueError as error:
        fail(str(error), result)
    if said is None:
        return
    if result.returncode != 0 and not calibration_failed(result.stderr):
        fail(f"{what} failed", result)
    outcome = ("completed" if result.returncode == 0 else
               f"exited {result.returncode}: perftest could not calibrate its TSC")
    print(f"SKIP: {what} {outcome}; this machine does not trap RDTSC, so perftest's "
          "get_cycles reads wall-clock cycles and its figures are not simulated: not "
          "checked.\n" + said)
    sys.exit(SKIP)


def exec_perftest(rnicsim, config, test, options):
    program = shutil.which("ib_" + test)
    server = [program, "-p", "{port}", *options]
    client = [program, "-p", "{port}", *options, "{server}"]
    r = run([rnicsim, "exec", config, "--", *server, ":::", *client])
    skip_if_tsc_untrapped(r, f"ib_{test} {' '.join(options)} under rnicsim exec")
    if r.returncode != 0:
        fail(f"ib_{test} under rnicsim exec failed", r)
    return r


def compared_columns(test):
    # Latency rows: bytes iters t_min t_max t_typical t_avg t_stdev p99 p99.9;
    # bandwidth rows: bytes iters BW_peak BW_average MsgRate.
    if test.endswith("_lat"):
        return {"t_typical": 4, "t_avg": 5}
    return {"BW average": 3, "MsgRate": 4}


def check_program(rnicsim, config, test, options):
    if shutil.which("ib_" + test) is None:
        print(f"SKIP: ib_{test} is not installed (Debian's perftest)")
        sys.exit(SKIP)
    r = exec_perftest(rnicsim, config, test, options)
    # The client's figures, as rnicsim perf's are: it runs on roles.client's node,
    # a in the preset (the server's, the receiver of send_bw, start at its first
    # completion and so differ).
    exec_rows = result_rows(r.stdout, CLIENT_DEVICE)
    p = run([rnicsim, "perf", test, config, *options])
    if p.returncode != 0:
        fail(f"rnicsim perf {test} failed", p)
    perf_rows = result_rows(p.stdout)
    if not exec_rows or not perf_rows:
        fail(f"no result row: exec printed {len(exec_rows)}, perf {len(perf_rows)}",
             r if not exec_rows else p)
    got, want = exec_rows[-1], perf_rows[-1]
    if got[0] != want[0] or got[1] != want[1]:
        fail(f"different runs: exec {got[:2]} bytes/iterations, perf {want[:2]}", r)
    problems = []
    for name, column in compared_columns(test).items():
        a, b = got[column], want[column]
        gap = abs(a - b) / b if b else abs(a)
        verdict = "ok" if gap <= TOLERANCE else "FAIL"
        print(f"ib_{test} {' '.join(options)}: {name} exec {a:.3f} perf {b:.3f} "
              f"({100 * gap:.2f}%) {verdict}")
        if gap > TOLERANCE:
            problems.append(name)
    if problems:
        print("exec stdout:\n" + r.stdout + "\nperf stdout:\n" + p.stdout)
        fail(f"ib_{test} and rnicsim perf differ by more than 2% in {', '.join(problems)}")


def check_deterministic(rnicsim, config, test, options):
    if shutil.which("ib_" + test) is None:
        print(f"SKIP: ib_{test} is not installed (Debian's perftest)")
        sys.exit(SKIP)
    def figures(stdout):
        # Each side's rows, by the device its banner names: the two programs'
        # outputs reach the pipe in the order they exit, which the host decides.
        return {device: result_rows(stdout, device) for device in ("rnicsim_a", "rnicsim_b")}

    first = figures(exec_perftest(rnicsim, config, test, options).stdout)
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
               for _ in range(os.cpu_count() or 2)]
    try:
        second = figures(exec_perftest(rnicsim, config, test, options).stdout)
    finally:
        for b in burners:
            b.kill()
            b.wait()
    if not first[CLIENT_DEVICE] or first != second:
        fail(f"ib_{test}'s figures differ between an idle and a loaded run:\n{first}\n{second}")
    print(f"ib_{test} {' '.join(options)}: the same figures on idle and loaded cores: {first}")


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    check, rnicsim, config, options = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    if check.startswith("deterministic_"):
        check_deterministic(rnicsim, config, check[len("deterministic_"):], options)
    else:
        check_program(rnicsim, config, check, options)


if __name__ == "__main__":
    main()
