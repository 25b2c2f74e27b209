#!/usr/bin/env python3
"""`rnicsim coll`: exact results, OSU's and nccl-tests' tables, bad options.

usage: check_collectives_run.py RNICSIM WORK_DIR [--long] [--ranks N,N,...] [--small-only]

--ranks limits parts 1 and --long to those N; the sanitizer build passes
--ranks 2,3,8 (one rank pair, a count that is no power of two, and three
exchanges) and --small-only (no 8 MiB runs).

1. Every collective (allreduce by ring and by recursive doubling, allgather,
   reduce_scatter, bcast by binomial tree and by chain, alltoall) completes at
   N = 2, 3, 8 and 16 ranks of a 16-host star, over RDMA and over TCP, at
   sizes from one element up (doubling), and at sizes that are no power of
   two: each run checks every rank's result byte for byte and exits 1 on a
   wrong byte, so exit 0 is the check. RDMA runs name no RNR NAK. Then each
   collective once at 8 MiB (the ring's scratch changes above 4 MiB), every
   (N, transport) pair once among them: pairwise, as the whole product is
   too big for CI. --long runs the whole product from 8 KiB up to 64 MiB at
   every N over both transports (for allgather and alltoall, 64 MiB moved:
   a rank's size times N; recursive doubling on 16 ranks up to 16 MiB), with
   the memory budget raised to 4.5 GiB (ctest label long, run alone).
2. The point-to-point tests complete: latency, bw, bibw (2 ranks), mbw_mr (4).
3. RDMA with PFC off on a switch with a 32 KiB buffer: frames are dropped,
   RC retransmits, every result still exact.
4. The tables: OSU's banner and columns (osu_util's widths), nccl-tests'
   columns whose busbw is algbw x 2(N-1)/N, both agreeing with results.json;
   the same command twice gives the same results.json.
5. Bad options exit 2 with one line naming the option: -np beyond the
   topology, a size not a whole number of elements, an unknown algorithm, an
   algorithm of another test, latency on 3 ranks, an unknown test.
Exits 1 listing every problem, 0 with a summary line.
"""
import json
import subprocess
import sys
from pathlib import Path

STAR = ["--set", "topology.preset=star", "--set", "topology.hosts=16", "--set", "pfc.enabled=true"]
# The kernel path has no loss recovery: every connection's window must find
# receive descriptors, and AllToAll on 16 ranks has 15 connections a host.
TCP = ["--set", "kernel.ring_entries=1024", "--set", "kernel.tcp_receive_buffer_bytes=65536",
       "--set", "kernel.tcp_send_buffer_bytes=262144"]
COLLECTIVES = [("allreduce", ["--algorithm", "ring"]), ("allreduce", ["--algorithm", "recursive_doubling"]),
               ("allgather", []), ("reduce_scatter", []), ("bcast", ["--algorithm", "binomial"]),
               ("bcast", ["--algorithm", "chain"]), ("alltoall", [])]
# Each collective once at 8 MiB, with every (N, transport) pair once.
LARGE_PAIRS = [(COLLECTIVES[0], 16, "rdma"), (COLLECTIVES[0], 8, "tcp"),
               (COLLECTIVES[1], 3, "tcp"), (COLLECTIVES[3], 8, "rdma"),
               (COLLECTIVES[2], 2, "tcp"), (COLLECTIVES[4], 16, "tcp"),
               (COLLECTIVES[5], 3, "rdma"), (COLLECTIVES[6], 2, "rdma")]
# --long: the most the ranks' buffers of one run may hold, and the run's
# budget above it (the nodes and the simulator; ctest runs it alone).
MIB_64 = 64 << 20
LONG_MEMORY_MIB = 4096
LONG_BUDGET_BYTES = (LONG_MEMORY_MIB + 512) << 20


def main():
    rnicsim, work = sys.argv[1], Path(sys.argv[2])
    long = "--long" in sys.argv[3:]
    small_only = "--small-only" in sys.argv[3:]
    ranks = (2, 3, 8, 16)
    if "--ranks" in sys.argv[3:]:
        ranks = tuple(int(n) for n in sys.argv[sys.argv.index("--ranks") + 1].split(","))
    work.mkdir(parents=True, exist_ok=True)
    problems = []
    runs = 0

    def coll(name, args):
        out = work / name
        p = subprocess.run([rnicsim, "coll"] + args + ["--out", str(out)], capture_output=True, text=True)
        return p, out

    def exact(name, args):
        nonlocal runs
        p, out = coll(name, args)
        runs += 1
        if p.returncode != 0:
            problems.append(f"{name}: exit {p.returncode}: {p.stderr.strip()[-300:]}")
            return None
        return p, json.loads((out / "results.json").read_text())

    def collective(prefix, transport, n, test, extra, args):
        """One collective, once per size, on n ranks over transport; its name
        and exact()'s answer."""
        name = f"{prefix}{transport}_{n}_{test}_{'_'.join(extra[1:]) or 'auto'}"
        return name, exact(name, [test] + STAR + ["-np", str(n), "-i", "1", "-x", "0",
                                                  "--transport", transport] + args + extra
                           + (TCP if transport == "tcp" else []))

    # 1. Exact at N = 2, 3, 8, 16 over both transports. A segment of 4 KiB
    # makes the ring pipeline even at these sizes.
    for transport in ("rdma", "tcp"):
        for n in ranks:
            top = "16K" if n < 16 else "4K"
            for test, extra in COLLECTIVES:
                name, r = collective("", transport, n, test, extra,
                                     ["--segment", "4K", "-m", f"4:{top}"])
                if r and transport == "rdma" and r[1]["rnr_naks_received"] != 0:
                    problems.append(f"{name}: {r[1]['rnr_naks_received']} RNR NAKs")
        # Sizes that are no power of two, and fewer elements than ranks.
        more = TCP if transport == "tcp" else []
        exact(f"{transport}_odd_sizes", ["allreduce"] + STAR + more + [
            "-np", "3", "-m", "12:100", "-i", "1", "-x", "0", "--transport", transport])
        exact(f"{transport}_few_elements", ["reduce_scatter"] + STAR + more + [
            "-np", "8", "-m", "12:12", "-i", "1", "-x", "0", "--transport", transport])
    # Two TCP connections of a host sending 1 MiB at once: their frames share
    # the transmit ring, and their doorbells must reach the NIC in order (this
    # run once ended in "transmit with a full ring").
    exact("tcp_two_connections_at_once", ["allreduce"] + STAR + TCP + [
        "-np", "3", "-m", "1M:1M", "-i", "1", "-x", "0", "--algorithm", "recursive_doubling",
        "--transport", "tcp"])
    # Above 4 MiB the ring keeps three blocks of scratch instead of one a
    # step (collectives_config.cpp): each collective once at 8 MiB, every
    # (N, transport) pair once among them. The sanitizer build leaves these
    # out (--small-only); --long runs the whole product up to 64 MiB.
    if not small_only:
        for (test, extra), n, transport in LARGE_PAIRS:
            collective("large_", transport, n, test, extra,
                       ["-m", "8M:8M", "--set", "host.page_bytes=2097152"])
    if long:
        # From 8 KiB (part 1 stops at 4 KiB on 16 ranks) up to 64 MiB at every
        # N over both transports: the size a rank holds, or for allgather and
        # alltoall the size the operation moves (nccl-tests' size, N x a
        # rank's), as far as LONG_MEMORY_MIB of the ranks' buffers allows (only
        # recursive doubling on 16 ranks, whose scratch is 9 x the size, stops
        # below: at 16 MiB). The run's budget is raised to match
        # (collectives.memory_budget_bytes).
        for transport in ("rdma", "tcp"):
            for n in ranks:
                for test, extra in COLLECTIVES:
                    # MiB a rank holds per MiB of the size (collectives_config.cpp).
                    exchanges = max(1, n.bit_length() - 1)
                    per_mib = {"allgather": n + 1, "alltoall": 2 * n, "bcast": 1}.get(
                        test, 2 * exchanges + 2 if "recursive_doubling" in extra else 2.5)
                    spread = test in ("allgather", "alltoall")
                    # A rank's size: 64 MiB, or 64 MiB / N in whole elements.
                    top = -(-MIB_64 // (4 * n)) * 4 if spread else MIB_64
                    while n * per_mib * top > LONG_MEMORY_MIB << 20:
                        top //= 2
                    moved = top * n if spread else top
                    if moved < MIB_64 and not ("recursive_doubling" in extra and n == 16):
                        problems.append(f"long {transport} {test} on {n} ranks stops at "
                                        f"{moved} bytes")
                    collective("long_", transport, n, test, extra,
                               ["-m", f"8K:{top}", "--set", "host.page_bytes=2097152", "--set",
                                f"collectives.memory_budget_bytes={LONG_BUDGET_BYTES}"])

    # 2. Point to point; the table's figure is results.json's (latency: one way).
    for test, n in (("latency", 2), ("bw", 2), ("bibw", 2), ("mbw_mr", 4)):
        r = exact(f"p2p_{test}", [test] + STAR + ["-np", str(n), "-m", "1:64K", "-i", "2", "-x", "1",
                                                  "-W", "8"])
        if r:
            table = [line.split() for line in r[0].stdout.splitlines() if not line.startswith("#")]
            for cells, row in zip(table, r[1]["rows"]):
                figure = row["avg_latency_us"] if test == "latency" else row["osu_figure"]
                if cells[:2] != [str(row["bytes"]), f"{figure:.2f}"]:
                    problems.append(f"{test}: row {cells} against results.json's {figure}")

    # 3. Lossy: RC recovers.
    lossy = ["--set", "topology.preset=star", "--set", "topology.hosts=8",
             "--set", "switch.buffer_bytes=32768"]
    r = exact("lossy", ["allreduce"] + lossy + ["-m", "64K:256K", "-i", "1", "-x", "0"])
    if r:
        stats = json.loads((work / "lossy" / "statistics.json").read_text())
        retransmitted = sum(n["transport"]["retransmitted_packets"] for n in stats["nodes"].values())
        dropped = sum(c["dropped_buffer_full"] + c["dropped_dynamic_threshold"]
                      for s in stats["switches"].values() for port in s["ports"].values()
                      for k, c in port.items() if k.startswith("class_"))
        if dropped == 0 or retransmitted == 0:
            problems.append(f"lossy: {dropped} drops, {retransmitted} retransmitted: no loss to recover")

    # 4. The tables.
    r = exact("osu_table", ["allreduce"] + STAR + ["-np", "8", "-m", "4:8", "-i", "3", "-x", "0"])
    if r:
        lines = r[0].stdout.splitlines()
        want = ["# OSU MPI Allreduce Latency Test v7.4", "# Size       Avg Latency(us)"]
        if lines[:2] != want:
            problems.append(f"osu table header {lines[:2]}, not {want}")
        for line, row in zip(lines[2:4], r[1]["rows"]):
            expected = f"{row['bytes']:<10d}{row['avg_latency_us']:18.2f}"
            if line != expected:
                problems.append(f"osu row {line!r}, not {expected!r}")
    r = exact("nccl_table", ["allreduce"] + STAR + ["-np", "8", "-m", "1M:1M", "-i", "2", "-x", "0",
                                                    "--nccl"])
    if r:
        row = r[1]["rows"][0]
        if abs(row["busbw_gbytes_per_s"] - row["algbw_gbytes_per_s"] * 2 * 7 / 8) > 1e-9:
            problems.append(f"busbw {row['busbw_gbytes_per_s']} is not algbw x 2(N-1)/N")
        data = [line.split() for line in r[0].stdout.splitlines() if not line.startswith("#")]
        if len(data) != 1 or data[0][:5] != ["1048576", "262144", "int32", "sum", "-1"] or \
                f"{row['busbw_gbytes_per_s']:.2f}" != data[0][7]:
            problems.append(f"nccl row {data} against {row}")
        again = exact("nccl_table_again", ["allreduce"] + STAR + ["-np", "8", "-m", "1M:1M", "-i", "2",
                                                                  "-x", "0", "--nccl"])
        if again and again[1] != r[1]:
            problems.append("the same command gave another results.json")

    # 5. Bad options.
    bad = [(["allreduce"] + STAR + ["-np", "17"], "-np 17"),
           (["allreduce"] + STAR + ["-m", "6"], "-m 6"),
           (["allreduce"] + STAR + ["--algorithm", "fastest"], "--algorithm fastest"),
           (["allreduce"] + STAR + ["--algorithm", "chain"], "--algorithm chain"),
           (["latency"] + STAR + ["-np", "3"], "-np 3"),
           (["allsum"], "allsum")]
    for i, (args, option) in enumerate(bad):
        p, out = coll(f"bad_{i}", args)
        err = p.stderr.strip().splitlines()
        if p.returncode != 2 or len(err) != 1 or option not in err[0] or out.exists():
            problems.append(f"{' '.join(args[-2:])}: exit {p.returncode}, {err}, "
                            f"folder left: {out.exists()}")

    if problems:
        print("\n".join(problems))
        return 1
    print(f"{runs} runs exact; OSU and nccl tables agree with results.json; {len(bad)} bad "
          f"command lines refused")
    return 0


if __name__ == "__main__":
    sys.exit(main())
