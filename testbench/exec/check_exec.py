#!/usr/bin/env python3
"""rnicsim exec with unmodified Debian programs (ibverbs-utils).

usage: check_exec.py CHECK RNICSIM UNSUPPORTED_VERB_PROGRAM SPIN_ON_MEMORY_PROGRAM
                    RDMA_CM_EXAMPLE_PROGRAM

devinfo                 ibv_devinfo lists the simulated device: its name, port 1
                        PORT_ACTIVE, active MTU 1024 (the preset's 1500-byte Ethernet
                        MTU), link layer Ethernet, one GID of type RoCE v2.
pingpong                ibv_rc_pingpong -g 0 -c (its data check) completes its default
                        exchange (1000 x 4096 B) on both sides, exit 0.
pingpong_deterministic  the same run twice, the second with both cores busy with
                        another process: the figures each side prints are identical.
unsupported_verb        a program calling verbs the library lacks gets one message
                        naming each, never a crash or a hang, and goes on.
bad_input               usage errors exit 2 naming what is wrong; a command that does
                        not exist exits 127 naming it.
spin_on_memory          a WRITE ping-pong whose sides wait by spinning on their buffer's
                        last byte, calling nothing (perftest's write_lat's way): the spin
                        watch sees them wait, the run ends, and its figures are the same
                        on idle and on loaded cores.
rdma_cm_example         a connection made with the simulator's librdmacm (the exchange
                        through the launcher's connection manager): the server gets the
                        client's SEND and RDMA WRITE, checks and prints them; both see
                        DISCONNECTED, exit 0.
write_lat_rdma_cm       Debian's ib_write_lat -R (rdma_cm for its own exchange and the test
                        QP) completes and prints a result line on both sides; skipped
                        (exit 77) when perftest is not installed. On a machine that does
                        not trap RDTSC (rnicsim exec says so) both sides must still run
                        over rdma_cm and end (exit 0, or perftest's failed calibration of
                        its TSC against the simulated gettimeofday), but their result
                        lines, timed by get_cycles in wall-clock cycles (inf when that
                        calibration failed), are not checked: skipped (77) after that.
"""
import os
import re
import subprocess
import sys
import time

from tsc_trap import SKIP, calibration_failed, untrapped_warning

PINGPONG = ["ibv_rc_pingpong", "-g", "0", "-c", "-p", "{port}"]
PRESET = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "configs",
                      "cx5_100g.json")


def run_exec(rnicsim, args, timeout=240):
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    return subprocess.run([rnicsim, "exec"] + args, capture_output=True, text=True,
                          timeout=timeout, env=env)


def fail(message, result=None):
    print("FAIL:", message)
    if result is not None:
        print("exit", result.returncode, "\nstdout:\n" + result.stdout + "\nstderr:\n" + result.stderr)
    sys.exit(1)


def check_devinfo(rnicsim, *_):
    r = run_exec(rnicsim, ["--", "ibv_devinfo", "-v"])
    if r.returncode != 0:
        fail("ibv_devinfo failed", r)
    expected = [r"hca_id:\s+rnicsim_b\n",  # roles.server is node b in the preset
                r"transport:\s+InfiniBand \(0\)",
                r"phys_port_cnt:\s+1\n",
                r"state:\s+PORT_ACTIVE \(4\)",
                r"active_mtu:\s+1024 \(3\)",
                r"link_layer:\s+Ethernet",
                r"GID\[\s*0\]:\s+::ffff:192\.168\.0\.2, RoCE v2"]
    for pattern in expected:
        if not re.search(pattern, r.stdout):
            fail("ibv_devinfo's output lacks " + pattern, r)
    print("ibv_devinfo -v lists rnicsim_b: port active, MTU 1024, Ethernet, a RoCE v2 GID")


def figures(stdout):
    """Each side's figures: the lines after its addresses (bytes, iterations)."""
    lines = [l for l in stdout.splitlines() if re.match(r"\d+ (bytes|iters) in ", l)]
    return sorted(lines)


def pingpong(rnicsim):
    server = PINGPONG
    client = PINGPONG + ["{server}"]
    return run_exec(rnicsim, ["--"] + server + [":::"] + client)


def check_pingpong(rnicsim, *_):
    r = pingpong(rnicsim)
    if r.returncode != 0:
        fail("ibv_rc_pingpong failed", r)
    lines = figures(r.stdout)
    if len(lines) != 4 or sum("1000 iters in" in l for l in lines) != 2 or \
            sum(l.startswith("8192000 bytes in") for l in lines) != 2:
        fail("expected both sides' 8192000 bytes and 1000 iters lines", r)
    if r.stdout.count("remote address: LID 0x0000") != 2:
        fail("expected both sides' remote address lines", r)
    print("ibv_rc_pingpong -g 0 -c:", "; ".join(lines))


def check_pingpong_deterministic(rnicsim, *_):
    quiet = pingpong(rnicsim)
    if quiet.returncode != 0:
        fail("the first run failed", quiet)
    # Both cores busy: a program's time must not come from the wall clock.
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        time.sleep(0.3)
        loaded = pingpong(rnicsim)
    finally:
        for b in burners:
            b.kill()
            b.wait()
    if loaded.returncode != 0:
        fail("the run on loaded cores failed", loaded)
    if figures(quiet.stdout) != figures(loaded.stdout) or len(figures(quiet.stdout)) != 4:
        fail("the figures differ:\n" + "\n".join(figures(quiet.stdout)) + "\nvs\n" +
             "\n".join(figures(loaded.stdout)))
    print("identical on idle and loaded cores:", "; ".join(figures(quiet.stdout)))


def check_spin_on_memory(rnicsim, _, program, *__):
    args = ["--", program, "server", "{port}", ":::", program, "client", "{port}", "{server}"]
    quiet = run_exec(rnicsim, args, timeout=120)
    if quiet.returncode != 0:
        fail("the spinning ping-pong failed", quiet)
    lines = sorted(l for l in quiet.stdout.splitlines() if "round trips" in l)
    if len(lines) != 2 or not all(" 100 round trips, " in l for l in lines):
        fail("expected both sides' round-trip lines", quiet)
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        time.sleep(0.3)
        loaded = run_exec(rnicsim, args, timeout=240)
    finally:
        for b in burners:
            b.kill()
            b.wait()
    again = sorted(l for l in loaded.stdout.splitlines() if "round trips" in l)
    if loaded.returncode != 0 or again != lines:
        fail("the run on loaded cores differs:\n" + "\n".join(lines), loaded)
    print("spinning on memory recognised; identical on idle and loaded cores:", "; ".join(lines))


def check_unsupported_verb(rnicsim, program, *_):
    r = run_exec(rnicsim, ["--", program], timeout=60)
    if r.returncode != 0:
        fail("the program did not see every unsupported verb fail cleanly", r)
    for verb in ["ibv_create_srq", "ibv_alloc_mw", "ibv_create_qp", "ibv_create_cq_ex"]:
        if len(re.findall(r"^rnicsim libibverbs: " + verb + r"\b.*$", r.stderr, re.M)) != 1:
            fail("expected one message naming " + verb, r)
    print("four unsupported verbs, each named once on stderr, the program went on")


def check_bad_input(rnicsim, *_):
    cases = [(["ibv_devinfo"], 2, "exec needs -- and the server's command"),
             (["--"], 2, "the server's command is empty"),
             (["--", "ibv_devinfo", ":::"], 2, "the client's command is empty"),
             (["--", "a", ":::", "b", ":::", "c"], 2, "more than one :::"),
             (["--bogus", "--", "ibv_devinfo"], 2, "unknown option --bogus"),
             (["--pcap", "--", "ibv_devinfo"], 2, "--pcap needs the file to write"),
             (["--pcap", "/nonexistent/x.pcap", "--", "ibv_devinfo"], 2,
              "--pcap /nonexistent/x.pcap: cannot create a file in /nonexistent"),
             (["--", "/nonexistent/program"], 127, "cannot run /nonexistent/program")]
    for args, code, message in cases:
        r = run_exec(rnicsim, args, timeout=60)
        if r.returncode != code or message not in r.stderr:
            fail("rnicsim exec %s: expected exit %d naming %r" % (args, code, message), r)
    print("usage errors exit 2 naming the problem; a missing program exits 127")


def check_rdma_cm_example(rnicsim, _, __, program):
    args = [PRESET, "--", program, "server", "{port}", ":::",
            program, "client", "{server}", "{port}"]
    r = run_exec(rnicsim, args, timeout=120)
    if r.returncode != 0:
        fail("the rdma_cm example failed", r)
    expected = ('rdma_cm_example server: received "a SEND over an rdma_cm connection" by SEND '
                'and "an RDMA WRITE into the server\'s buffer" by RDMA WRITE')
    if expected not in r.stdout or "rdma_cm_example client: wrote and sent" not in r.stdout:
        fail("expected the server's line of what it received and the client's", r)
    print("rdma_cm: connected, a SEND and an RDMA WRITE checked, both disconnected")


def check_write_lat_rdma_cm(rnicsim, *_):
    if not os.path.exists("/usr/bin/ib_write_lat"):
        print("SKIP: /usr/bin/ib_write_lat is missing (Debian's perftest package)")
        sys.exit(SKIP)
    lat = ["ib_write_lat", "-R", "-n", "200", "-p", "{port}"]
    r = run_exec(rnicsim, [PRESET, "--"] + lat + [":::"] + lat + ["{server}"], timeout=240)
    try:
        said = untrapped_warning(r.stderr)
    except ValueError as error:
        fail(str(error), r)
    if r.returncode != 0 and not (said and calibration_failed(r.stderr)):
        fail("ib_write_lat -R failed", r)
    if len(re.findall(r"Data ex\. method\s*:\s*rdma_cm", r.stdout)) != 2:
        fail("expected both sides to say they exchanged their data by rdma_cm", r)
    if said:
        print("SKIP: ib_write_lat -R ran over rdma_cm on both sides (exit %d), but this machine "
              "does not trap RDTSC: perftest's get_cycles reads wall-clock cycles, so its result "
              "lines are not simulated and are not checked.\n%s" % (r.returncode, said))
        sys.exit(SKIP)
    rows = [l for l in r.stdout.splitlines() if re.match(r"\s*2\s+200\s+\d", l)]
    if len(rows) != 2:
        fail("expected a result line (2 bytes, 200 iterations) from each side", r)
    print("ib_write_lat -R:", "; ".join(l.strip() for l in rows))


def main():
    check, rnicsim = sys.argv[1:3]
    globals()["check_" + check](rnicsim, *sys.argv[3:])


if __name__ == "__main__":
    main()
