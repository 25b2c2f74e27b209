#!/usr/bin/env python3
"""DCQCN in the NIC, from the command line and in the capture.

usage: check_dcqcn_run.py RNICSIM CONFIGS_DIR VECTORS_JSON WORK_DIR

1. CNP pacing, exact, in the capture of the receiver's port (output.pcap_port):
   an 8-to-1 incast of WRITEs with the paper preset, then with the firmware
   preset. Every CNP has BTH opcode 0x81, BECN set, P_Key 0xFFFF, PSN 0, 16
   zero bytes after the BTH, DSCP dcqcn.cnp_dscp, and an ICRC good by scapy and
   by the spec's masks (check_perf_pcap.py's checkers); no two CNPs to one QP
   closer than the preset's interval (50 us, 4 us); the capture holds as many
   as the receiver counts sent (np_cnp_sent) and the senders count handled or
   ignored (rp_cnp_*). (tshark 4.0 shows 0x81 as an unknown opcode, so the
   fields are read, not a name.)
2. Every verb stays exact: write, send (8-to-1 incast) and read (one node
   reading from eight: the READ responses converge) under each preset, with
   PFC and without (lossy, a small switch buffer): every run passes its own
   end-of-run byte comparison (exit 0). The reads' marks are answered: the
   reader sends CNPs and the responders' rate limiters cut.
3. Bad dcqcn keys exit 2 naming the key: a preset's key under the other
   preset, a dcqcn key on a back-to-back cable, an unknown mode.
Exits 1 listing every problem, 0 with a summary line.
"""
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_perf_pcap import check_icrc, check_the_checkers, headers, read_pcap  # noqa: E402

CNP_OPCODE = 0x81
BASE = ["--set", "topology.hosts=9", "--set", "output.plot=false", "--set", "qos.ecn=ect0",
        "--set", "nic.queue_items=8"]
INTERVAL_US = {"paper": 50, "firmware": 4}


def statistics(folder):
    return json.loads((folder / "statistics.json").read_text())["nodes"]


def main(argv):
    rnicsim, configs, vectors_json, work = argv[0], Path(argv[1]), argv[2], Path(argv[3])
    work.mkdir(parents=True, exist_ok=True)
    problems = []
    check_the_checkers(vectors_json, problems)

    def run(name, extra, expect=0):
        folder = work / name
        command = [rnicsim, "run", str(configs / "fabric_incast.json"), "--out", str(folder),
                   *BASE, *extra]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != expect:
            problems.append(f"{name}: exit {done.returncode}, expected {expect}: "
                            f"{done.stderr.strip()[-400:]}")
        return folder, done

    # 1. CNPs in the capture.
    cnps_checked = 0
    for mode in ("paper", "firmware"):
        folder, done = run(f"pacing_{mode}", [
            "--set", f"dcqcn.mode={mode}", "--set", "traffic.bytes=65536",
            "--set", "traffic.messages=16", "--set", "output.pcap_port=h1"])
        if done.returncode != 0:
            continue
        last_ns = {}
        gaps_ns = []
        cnps = 0
        for number, (time_ns, frame) in enumerate(read_pcap(folder / "capture.pcap", problems), 1):
            ip_at, packet = headers(frame)
            if ip_at is None:
                continue
            bth = frame[ip_at + 28:ip_at + 40]
            if bth[0] != CNP_OPCODE:
                continue
            cnps += 1
            where = f"{mode} record {number}"
            if bth[4] & 0x40 == 0:
                problems.append(f"{where}: a CNP without BECN")
            if bth[1] != 0 or bth[2:4] != b"\xff\xff" or bth[9:12] != b"\0\0\0":
                problems.append(f"{where}: flags {bth[1]:#x}, P_Key {bth[2:4].hex()}, "
                                f"PSN {bth[9:12].hex()}: expected 0, ffff, 0")
            if frame[ip_at + 40:ip_at + 56] != bytes(16):
                problems.append(f"{where}: the 16 bytes after the BTH are not zero")
            if len(frame) - ip_at != 60:
                problems.append(f"{where}: IP length {len(frame) - ip_at}, expected 60")
            if frame[ip_at + 1] >> 2 != 48:
                problems.append(f"{where}: DSCP {frame[ip_at + 1] >> 2}, expected 48")
            check_icrc(where, frame, problems)
            qp = (frame[ip_at + 16:ip_at + 20], bth[5:8])  # destination IP and QP
            if qp in last_ns:
                gaps_ns.append(time_ns - last_ns[qp])
            last_ns[qp] = time_ns
        cnps_checked += cnps
        nodes = statistics(folder)
        sent = nodes["h1"]["notification_point"]["np_cnp_sent"]
        received = sum(nodes[n]["reaction_point"]["rp_cnp_handled"] +
                       nodes[n]["reaction_point"]["rp_cnp_ignored"] for n in nodes if n != "h1")
        if not (cnps == sent == received) or cnps == 0:
            problems.append(f"{mode}: {cnps} CNPs in the capture, h1 sent {sent}, the senders "
                            f"received {received}: expected the same, more than 0")
        if not gaps_ns:
            problems.append(f"{mode}: no QP got two CNPs: the pacing is not exercised")
        elif min(gaps_ns) < INTERVAL_US[mode] * 1000:
            problems.append(f"{mode}: two CNPs to one QP {min(gaps_ns)} ns apart, under the "
                            f"{INTERVAL_US[mode]} us interval")
        print(f"{mode}: {cnps} CNPs, closest two to one QP {min(gaps_ns or [0]) / 1000} us apart")

    # 2. Every verb exact under each preset, lossless and lossy.
    readers = [f"h1 h{n} read 65536 messages=8" for n in range(2, 10)]
    exact = 0
    for mode in ("paper", "firmware"):
        for pfc in (True, False):
            lossy = [] if pfc else ["--set", "switch.buffer_bytes=262144"]
            for verb in ("write", "send", "read"):
                traffic = (["--set", "traffic.pattern=flows", "--set",
                            "traffic.flows=" + json.dumps(readers)] if verb == "read" else
                           ["--set", f"traffic.verb={verb}", "--set", "traffic.bytes=65536",
                            "--set", "traffic.messages=8"])
                name = f"exact_{mode}_{'pfc' if pfc else 'lossy'}_{verb}"
                folder, done = run(name, ["--set", f"dcqcn.mode={mode}",
                                          "--set", f"pfc.enabled={str(pfc).lower()}",
                                          *lossy, *traffic])
                if done.returncode != 0:
                    continue
                exact += 1
                if verb == "read" and mode == "paper" and pfc:
                    nodes = statistics(folder)
                    cut = sum(nodes[n]["reaction_point"]["rp_cnp_handled"] for n in nodes)
                    if nodes["h1"]["notification_point"]["np_cnp_sent"] == 0 or cut == 0:
                        problems.append(f"{name}: the READ responses' marks made no CNP or "
                                        f"no cut ({cut})")

    # 3. Bad keys.
    refused = 0
    for name, extra, key in [
            ("paper_key_under_firmware", ["--set", "dcqcn.mode=firmware", "--set",
                                          "dcqcn.g=0.5"], "dcqcn.g"),
            ("unknown_mode", ["--set", "dcqcn.mode=fast"], "dcqcn.mode")]:
        folder, done = run(name, extra, expect=2)
        if key not in done.stderr or folder.exists():
            problems.append(f"{name}: stderr does not name {key}, or an output folder was "
                            f"made: {done.stderr.strip()}")
        else:
            refused += 1
    folder = work / "back_to_back"
    done = subprocess.run([rnicsim, "perf", "write_bw", "-n", "10", "--out", str(folder),
                           "--set", "dcqcn.mode=paper"], capture_output=True, text=True)
    if done.returncode != 2 or "dcqcn.mode" not in done.stderr:
        problems.append(f"back_to_back: exit {done.returncode}: {done.stderr.strip()}")
    else:
        refused += 1

    if problems:
        print("\n".join(problems))
        return 1
    print(f"{cnps_checked} CNPs paced and well formed; {exact} runs exact; "
          f"{refused} bad configurations refused")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
