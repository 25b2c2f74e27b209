#!/usr/bin/env python3
"""rnicsim perf's progress: on stderr while stderr is a terminal, nowhere otherwise.

usage: check_perf_progress.py RNICSIM WORK_DIR stderr_terminal|stderr_pipe

Both run `perf write_lat -a` long enough to be stopped part way.
stderr_terminal: stderr is a pseudo-terminal, stdout a pipe. The terminal must
                 show a progress line (iterations done of every size's, which
                 size of the 23), rewritten in place; SIGINT must then end the
                 run by that signal with nothing left behind, and stdout (the
                 report) must hold no progress.
stderr_pipe:     stdout is a pseudo-terminal, stderr a pipe. Three seconds
                 after the banner (progress shows after one), SIGTERM must
                 find the run still going; neither stream may hold progress,
                 and stderr holds only the interruption's message.
"""
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

ITERATIONS = 100000
SIZES = 23  # -a: 2 B to 8 MiB
TIMEOUT_S = 300  # the sanitizer build is many times slower
LINE = re.compile(
    rb"\rrnicsim: [0-9.]+ (s|ms|us|ns) simulated \| [0-9]+ of %d iterations \([0-9]+%%\) "
    rb"\| size [0-9]+ of %d: [0-9]+ B \| [0-9.]+k? iterations/s" % (ITERATIONS * SIZES, SIZES))


def fail(message, output=b""):
    print(f"FAIL: {message}\n--- output ---\n{output.decode(errors='replace')}")
    sys.exit(1)


def read_until(fd, pattern, process, seen=b""):
    """Reads `fd` until `pattern` matches what it gave; returns all it read."""
    deadline = time.monotonic() + TIMEOUT_S
    while not re.search(pattern, seen):
        if time.monotonic() > deadline or process.poll() is not None:
            process.kill()
            fail(f"never saw {pattern!r}", seen)
        ready, _, _ = select.select([fd], [], [], 1.0)
        if ready:
            seen += os.read(fd, 4096)
    return seen


def drain(fd):
    seen = b""
    while True:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if not ready:
            return seen
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the other side closed
            return seen
        if not chunk:
            return seen
        seen += chunk


def main(argv):
    if len(argv) != 3 or argv[2] not in ("stderr_terminal", "stderr_pipe"):
        sys.exit(__doc__)
    rnicsim, work, mode = argv[0], Path(argv[1]), argv[2]
    work.mkdir(parents=True, exist_ok=True)
    out = work / f"perf_progress_{mode}"
    subprocess.run(["rm", "-rf", str(out)] + [str(p) for p in work.glob(out.name + ".partial-*")],
                   check=True)
    command = [rnicsim, "perf", "write_lat", "-a", "-n", str(ITERATIONS), "--out", str(out)]
    master, slave = pty.openpty()
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    if mode == "stderr_terminal":
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=slave, env=env)
        os.close(slave)
        terminal = read_until(master, LINE, process)
        process.send_signal(signal.SIGINT)
        stdout, _ = process.communicate(timeout=TIMEOUT_S)
        terminal += drain(master)
        expected, message = -signal.SIGINT, b"interrupted by SIGINT"
        report, progress_stream = stdout, terminal
    else:
        process = subprocess.Popen(command, stdout=slave, stderr=subprocess.PIPE, env=env)
        os.close(slave)
        terminal = read_until(master, rb"RDMA_Write Latency Test", process)
        time.sleep(3)
        if process.poll() is not None:
            fail("the run ended before it could be interrupted", terminal)
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=TIMEOUT_S)
        terminal += drain(master)
        expected, message = -signal.SIGTERM, b"interrupted by SIGTERM"
        report, progress_stream = terminal, stderr
        if stderr != b"rnicsim: " + message + b"; the run's partial results were removed\n":
            fail("stderr holds more than the interruption's message", stderr)
    if process.returncode != expected:
        fail(f"ended with {process.returncode}, expected by signal {-expected}",
             report + progress_stream)
    if message not in progress_stream:
        fail(f"no '{message.decode()}' message", progress_stream)
    if b"iterations/s" in report or b"\x1b[K" in report:
        fail("progress went to the report's stream", report)
    if mode == "stderr_pipe" and b"iterations/s" in progress_stream:
        fail("progress was written to a pipe", progress_stream)
    left = [p.name for p in work.glob(out.name + "*")]
    if left:
        fail(f"left behind: {left}", report + progress_stream)
    print(f"{mode}: progress only on a terminal stderr; ended by {signal.Signals(-expected).name}")


if __name__ == "__main__":
    main(sys.argv[1:])
