#!/usr/bin/env python3
"""Interrupting a run, as a user does, and what a terminal shows meanwhile.

usage: check_interrupt.py RNICSIM CONFIG WORK_DIR terminal|pipe

terminal: rnicsim runs on a pseudo-terminal. A long run must show a progress
          line (simulated time, Data done, rate) within a few seconds; then
          SIGINT (Ctrl-C) must end it, by that signal once it has cleaned
          up, with one message and no output or staging folder left.
pipe:     stdout is a pipe. SIGTERM once the staging folder exists must end
          the run the same way (by SIGTERM) and leave nothing; stdout must
          hold no progress line.
"""
import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

LONG_RUN = ["--set", "workload.count=10000000", "--set", "output.plot=false"]
TIMEOUT_S = 300  # the sanitizer build is many times slower


def fail(message, output=""):
    print(f"FAIL: {message}\n--- output ---\n{output}")
    sys.exit(1)


def leftovers(out):
    return [p.name for p in out.parent.glob(out.name + "*")]


def run_on_terminal(rnicsim, config, out):
    pid, master = pty.fork()
    if pid == 0:
        os.execv(rnicsim, [rnicsim, "run", config, "--out", str(out)] + LONG_RUN)
    seen = b""
    deadline = time.monotonic() + TIMEOUT_S
    while b"Data/s" not in seen:
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            fail("no progress line on the terminal", seen.decode(errors="replace"))
        ready, _, _ = select.select([master], [], [], 1.0)
        if ready:
            try:
                seen += os.read(master, 4096)
            except OSError:
                break
    os.kill(pid, signal.SIGINT)
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    _, status = os.waitpid(pid, 0)
    text = seen.decode(errors="replace")
    if b"\r" not in seen:
        fail("the progress line is not rewritten in place (no carriage return)", text)
    return os.waitstatus_to_exitcode(status), text, -signal.SIGINT, "interrupted by SIGINT"


def run_on_pipe(rnicsim, config, out):
    process = subprocess.Popen([rnicsim, "run", config, "--out", str(out)] + LONG_RUN,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    staging = out.parent / f"{out.name}.partial-{process.pid}"
    deadline = time.monotonic() + TIMEOUT_S
    while not staging.exists():
        if time.monotonic() > deadline or process.poll() is not None:
            process.kill()
            fail(f"{staging} never appeared")
        time.sleep(0.05)
    time.sleep(0.5)  # well into the simulation
    process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=TIMEOUT_S)
    text = stdout.decode(errors="replace") + stderr.decode(errors="replace")
    if b"\r" in stdout or b"Data/s" in stdout:
        fail("progress was written to a pipe", text)
    return process.returncode, text, -signal.SIGTERM, "interrupted by SIGTERM"


def main(argv):
    if len(argv) != 4 or argv[3] not in ("terminal", "pipe"):
        sys.exit(__doc__)
    rnicsim, config, work, mode = argv[0], argv[1], Path(argv[2]), argv[3]
    work.mkdir(parents=True, exist_ok=True)
    out = work / f"interrupt_{mode}"
    for name in leftovers(out):
        subprocess.run(["rm", "-rf", str(work / name)], check=True)
    runner = run_on_terminal if mode == "terminal" else run_on_pipe
    code, text, expected_code, expected_message = runner(rnicsim, config, out)
    if code != expected_code:
        fail(f"ended with {code}, expected to end by signal {-expected_code}", text)
    if expected_message not in text:
        fail(f"no '{expected_message}' message", text)
    if leftovers(out):
        fail(f"left behind: {leftovers(out)}", text)
    print(f"{mode}: ended by {signal.Signals(-code).name}, nothing left behind")


if __name__ == "__main__":
    main(sys.argv[1:])
