#!/usr/bin/env python3
"""Checks `rnicsim decode` against Wireshark's dissector, frame by frame.

usage: compare_with_tshark.py RNICSIM VECTORS_JSON WORK_DIR CAPTURE.pcap...

The ICRC test vectors (full frames in hex) are written to WORK_DIR/vectors.pcap
first. For every frame tshark dissects as RoCEv2, rnicsim must decode it with
icrc_ok true and the same header fields; tshark has no ICRC check of its own
(it only shows the field), so the ICRC must also equal tshark's display of
it. Exits 1 listing every mismatch, 0 with a count of frames compared.
"""
import json
import struct
import subprocess
import sys
from pathlib import Path

# tshark field -> rnicsim decode key. Values are compared as integers.
FIELDS = {
    "infiniband.bth.opcode": "opcode",
    "infiniband.bth.se": "se",
    "infiniband.bth.m": "mig_req",
    "infiniband.bth.padcnt": "pad",
    "infiniband.bth.p_key": "pkey",
    "infiniband.bth.destqp": "dest_qp",
    "infiniband.bth.a": "ack_req",
    "infiniband.bth.psn": "psn",
    "infiniband.reth.va": "va",
    "infiniband.reth.r_key": "rkey",
    "infiniband.reth.dmalen": "dma_len",
    "infiniband.aeth.syndrome": "syndrome",
    "infiniband.aeth.msn": "msn",
    "infiniband.atomiceth.swapdt": "swap_add",
    "infiniband.atomiceth.cmpdt": "compare",
    "infiniband.atomicacketh.origremdt": "orig_data",
    "infiniband.immdt": "imm",
    "infiniband.ieth": "invalidate_rkey",
    "infiniband.deth.q_key": "qkey",
    "infiniband.deth.srcqp": "src_qp",
    "infiniband.invariant.crc": "icrc",
}


# Fields tshark prints as raw bytes (hex, with or without colons).
BYTE_FIELDS = {"infiniband.immdt", "infiniband.ieth"}


def to_int(field, text):
    text = text.strip()
    if text in ("True", "False"):
        return int(text == "True")
    if field in BYTE_FIELDS:
        return int(text.replace(":", ""), 16)
    return int(text, 0)


def write_vectors_pcap(vectors_json, path):
    vectors = json.loads(Path(vectors_json).read_text())
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, v in enumerate(vectors):
            frame = bytes.fromhex(v["frame_hex"])
            f.write(struct.pack("<IIII", i, 0, len(frame), len(frame)))
            f.write(frame)
    return len(vectors)


def tshark_rows(pcap):
    # RoCEv2 from UDP port 69 would be TFTP to Wireshark, and a short SEND payload
    # the RPC-over-RDMA heuristic's (which then hides the ICRC): both off.
    command = ["tshark", "-r", str(pcap), "--disable-protocol", "tftp",
               "--disable-protocol", "rpcordma", "-T", "fields",
               "-E", "separator=\t", "-E", "occurrence=f", "-e", "frame.number"]
    for field in FIELDS:
        command += ["-e", field]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        cells = line.split("\t")
        rows.append((int(cells[0]), dict(zip(FIELDS, cells[1:]))))
    return rows


def compare(rnicsim, pcap, problems):
    decoded = subprocess.run([rnicsim, "decode", str(pcap)], check=True, capture_output=True,
                             text=True).stdout.splitlines()
    ours = {obj["index"]: obj for obj in map(json.loads, decoded)}
    compared = 0
    for number, theirs in tshark_rows(pcap):
        if not theirs["infiniband.bth.opcode"]:
            continue  # not RoCEv2 for Wireshark either
        mine = ours.get(number)
        where = f"{pcap.name} frame {number}"
        if mine is None or "error" in mine:
            problems.append(f"{where}: rnicsim says {mine}")
            continue
        if mine.get("icrc_ok") is not True:
            problems.append(f"{where}: icrc_ok is {mine.get('icrc_ok')}")
        for field, key in FIELDS.items():
            # Wireshark shows the AtomicETH's VA and R_Key under the RETH's field names.
            if "atomic_va" in mine and key in ("va", "rkey"):
                key = "atomic_" + key
            if not theirs[field]:
                if key in mine and field != "infiniband.invariant.crc":
                    problems.append(f"{where}: rnicsim has {key}, tshark has no {field}")
                continue
            expected = to_int(field, theirs[field])
            if key == "icrc":  # Wireshark reads the little-endian wire bytes big-endian
                expected = int.from_bytes(expected.to_bytes(4, "big"), "little")
            if mine.get(key) is None or int(mine[key]) != expected:
                problems.append(f"{where}: {key} = {mine.get(key)}, tshark {field} = {theirs[field]}")
        compared += 1
    if compared == 0:
        problems.append(f"{pcap.name}: no RoCEv2 frame compared")
    return compared


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    rnicsim, vectors_json, work = argv[0], argv[1], Path(argv[2])
    work.mkdir(parents=True, exist_ok=True)
    vectors_pcap = work / "vectors.pcap"
    expected_vectors = write_vectors_pcap(vectors_json, vectors_pcap)
    problems = []
    total = 0
    for pcap in [vectors_pcap] + [Path(p) for p in argv[3:]]:
        n = compare(rnicsim, pcap, problems)
        if pcap == vectors_pcap and n != expected_vectors:
            problems.append(f"vectors: {n} of {expected_vectors} compared")
        total += n
    if problems:
        print("\n".join(problems[:200]))
        print(f"{len(problems)} mismatches")
        sys.exit(1)
    print(f"{total} RoCEv2 frames match tshark field by field")


if __name__ == "__main__":
    main(sys.argv[1:])
