#!/usr/bin/env python3
"""Checks the frames we build ourselves (testbench/own_frames.cpp) against
scapy and tshark, which share no code with rnicsim.

usage: check_own_frames.py WRITE_OWN_FRAMES RNICSIM VECTORS_JSON WORK_DIR

1. ICRC. scapy's own ICRC (scapy.contrib.roce, BTH.compute_icrc) must equal
   the ICRC on the wire of every IPv4 frame. scapy 2.5 (Debian 12) computes
   no ICRC over IPv6: compute_icrc warns "The underlayer protocol IPv6 is not
   supported" and returns 0. IPv6 frames are therefore checked with
   masked_icrc() below: scapy's IPv6, UDP and BTH fields (tc, fl, hlim,
   chksum, fecn, becn, resv6) are set to ones and zlib's CRC-32 runs over
   8 x 0xFF and the packet (the masks Linux rxe applies in rxe_icrc.c and
   that scapy applies to IPv4). masked_icrc() must itself agree with scapy on
   every IPv4 frame and with the ICRCs of VECTORS_JSON (the rxe senders' on
   IPv4, the synthetic vector's on IPv6), and every ICRC check must notice a
   corrupted byte.
2. Header fields. tshark (IPv4 and UDP checksum validation on) must show the
   values in EXPECTED, written here from what each frame is meant to carry.
3. rnicsim decode must accept every frame with icrc_ok and agree with tshark
   field by field (compare_with_tshark.py).

Exits 1 listing every problem, 0 with a summary line.
"""
import json
import struct
import subprocess
import sys
import zlib
from pathlib import Path

from scapy.compat import raw
from scapy.contrib.roce import BTH
from scapy.error import log_runtime
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether

import compare_with_tshark

# Each frame's name (as write_own_frames prints it) -> tshark field -> value.
# Integers are compared as numbers; strings are raw bytes in hex.
EXPECTED = {
    "cnp_becn_dscp48_ect0": {
        "frame.len": 74, "ip.dsfield": 0xC2, "ip.dsfield.dscp": 48, "ip.dsfield.ecn": 2,
        "ip.id": 0x1001, "ip.ttl": 64, "ip.len": 60, "ip.flags.df": 1, "ip.checksum.status": 1,
        "udp.srcport": 0, "udp.dstport": 4791, "udp.length": 40, "udp.checksum": 0,
        "infiniband.bth.opcode": 0x81, "infiniband.bth.se": 0, "infiniband.bth.m": 0,
        "infiniband.bth.padcnt": 0, "infiniband.bth.tver": 0, "infiniband.bth.p_key": 0xFFFF,
        "infiniband.reserved": "40",  # BTH byte 4: BECN alone
        "infiniband.bth.destqp": 0x00D2C1, "infiniband.bth.a": 0, "infiniband.bth.psn": 0,
        "infiniband.vendor": "00" * 16 + "ICRC",  # Wireshark 4.0 knows no CNP body
    },
    "rc_send_only_imm_reserved_bth_bit_migreq_pad3": {
        "frame.len": 70, "ip.dsfield": 0x02, "ip.dsfield.ecn": 2, "ip.id": 0, "ip.ttl": 64,
        "ip.checksum.status": 1, "udp.srcport": 69, "udp.length": 36,
        "infiniband.bth.opcode": 0x05, "infiniband.bth.m": 1, "infiniband.bth.padcnt": 3,
        "infiniband.reserved": "10", "infiniband.bth.destqp": 0x45, "infiniband.bth.a": 1,
        "infiniband.bth.psn": 0x100, "infiniband.immdt": "cafef00d",
    },
    "rc_ack_ect0_migreq_credit6": {
        "frame.len": 62, "ip.dsfield": 0x02, "ip.ttl": 255, "ip.id": 0, "ip.checksum.status": 1,
        "udp.srcport": 72, "udp.length": 28, "infiniband.bth.opcode": 0x11,
        "infiniband.bth.m": 1, "infiniband.reserved": "00", "infiniband.bth.destqp": 0x46,
        "infiniband.bth.psn": 0x100, "infiniband.aeth.syndrome": 0x06,
        "infiniband.aeth.syndrome.credit_count": 6, "infiniband.aeth.msn": 1,
    },
    "uc_send_only_udp_checksum_migreq_pad2": {
        "frame.len": 78, "ip.dsfield": 0x01, "ip.dsfield.ecn": 1, "ip.id": 0x0478,
        "ip.checksum.status": 1, "udp.srcport": 0xC000, "udp.length": 44,
        "udp.checksum.status": 1,  # present and right
        "infiniband.bth.opcode": 0x24, "infiniband.bth.m": 1, "infiniband.bth.padcnt": 2,
        "infiniband.bth.destqp": 0x123, "infiniband.bth.psn": 0x42,
    },
    "rc_write_only_pad2": {
        "frame.len": 94, "ip.id": 0x2222, "ip.checksum.status": 1, "udp.length": 60,
        "infiniband.bth.opcode": 0x0A, "infiniband.bth.padcnt": 2, "infiniband.bth.a": 1,
        "infiniband.bth.destqp": 0x777, "infiniband.bth.psn": 0x123456,
        "infiniband.reth.va": 0x00007F0012345000, "infiniband.reth.r_key": 0x1234,
        "infiniband.reth.dmalen": 18,
    },
    "rc_read_response_last_pad1": {
        "frame.len": 70, "ip.checksum.status": 1, "infiniband.bth.opcode": 0x0F,
        "infiniband.bth.padcnt": 1, "infiniband.bth.destqp": 0x778, "infiniband.bth.psn": 9,
        "infiniband.aeth.syndrome": 0x1F, "infiniband.aeth.msn": 7,
    },
    "ipv6_rc_send_only_pad2": {
        "frame.len": 86, "ipv6.tclass": 0x6A, "ipv6.tclass.dscp": 26, "ipv6.tclass.ecn": 2,
        "ipv6.flow": 0xABCDE, "ipv6.hlim": 5, "ipv6.plen": 32, "ipv6.nxt": 17,
        "udp.srcport": 0xC200, "udp.length": 32, "infiniband.bth.opcode": 0x04,
        "infiniband.bth.se": 1, "infiniband.bth.a": 1, "infiniband.bth.padcnt": 2,
        "infiniband.bth.destqp": 0xABC, "infiniband.bth.psn": 0xFFFFFF,
    },
    "ipv6_rc_nak_fecn": {
        "frame.len": 82, "ipv6.tclass": 0x03, "ipv6.tclass.ecn": 3, "ipv6.flow": 0,
        "ipv6.hlim": 255, "ipv6.plen": 28, "infiniband.bth.opcode": 0x11,
        "infiniband.reserved": "80",  # FECN
        "infiniband.bth.destqp": 0xABD, "infiniband.bth.psn": 1,
        "infiniband.aeth.syndrome": 0x60, "infiniband.aeth.syndrome.error_code": 0,
        "infiniband.aeth.msn": 0x123456,
    },
    "vlan_rc_send_only": {
        "frame.len": 66, "vlan.priority": 3, "vlan.dei": 0, "vlan.id": 100, "vlan.etype": 0x0800,
        "ip.dsfield": 0x68, "ip.dsfield.dscp": 26, "ip.id": 0x3333, "ip.checksum.status": 1,
        "infiniband.bth.opcode": 0x04, "infiniband.bth.a": 1, "infiniband.bth.padcnt": 0,
        "infiniband.bth.destqp": 0x101, "infiniband.bth.psn": 0x200,
    },
    "ud_send_only_imm_pad1": {
        "frame.len": 74, "ip.id": 0x4444, "ip.checksum.status": 1,
        "infiniband.bth.opcode": 0x65, "infiniband.bth.padcnt": 1,
        "infiniband.bth.destqp": 0x321, "infiniband.bth.psn": 0x33,
        "infiniband.deth.q_key": 0x11111111, "infiniband.deth.srcqp": 0xABC,
        "infiniband.immdt": "01020304",
    },
}

# Wireshark 4.0 adds a hidden vendor item before the one it shows.
LAST_OCCURRENCE = {"infiniband.vendor"}


def scapy_icrc(frame):
    """scapy's ICRC in wire order, or None where scapy cannot compute one (IPv6)."""
    packet = Ether(frame)
    if IP not in packet:
        return None
    return bytes(packet[BTH].compute_icrc(None))


def masked_icrc(frame):
    """The ICRC in wire order, with the masked fields set through scapy's fields."""
    packet = Ether(frame)
    masked = (packet[IPv6] if IPv6 in packet else packet[IP]).copy()
    if IPv6 in masked:
        masked.tc, masked.fl, masked.hlim = 0xFF, 0xFFFFF, 0xFF
    else:
        masked.tos, masked.ttl, masked.chksum = 0xFF, 0xFF, 0xFFFF
    masked[UDP].chksum = 0xFFFF
    masked[BTH].fecn, masked[BTH].becn, masked[BTH].resv6 = 1, 1, 0x3F
    covered = raw(masked)[:-4]  # up to the pad; the ICRC field last
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + covered))


def corrupted(frame):
    """The frame with the last byte of the PSN changed: covered by the ICRC."""
    packet = Ether(frame)
    at = len(frame) - len(raw(packet[BTH])) + 11
    return frame[:at] + bytes([frame[at] ^ 0x01]) + frame[at + 1:]


def check_icrcs(name, frame, problems):
    wire = frame[-4:]
    theirs = scapy_icrc(frame)
    mine = masked_icrc(frame)
    if theirs is None:
        if IPv6 not in Ether(frame):
            problems.append(f"{name}: scapy computes no ICRC")
    elif theirs != wire:
        problems.append(f"{name}: ICRC on the wire {wire.hex()}, scapy computes {theirs.hex()}")
    if mine != wire:
        problems.append(f"{name}: ICRC on the wire {wire.hex()}, masked CRC-32 is {mine.hex()}")
    if theirs is not None and theirs != mine:
        problems.append(f"{name}: scapy {theirs.hex()} and the masked CRC-32 {mine.hex()} differ")
    bad = corrupted(frame)
    if masked_icrc(bad) == wire or (theirs is not None and scapy_icrc(bad) == wire):
        problems.append(f"{name}: a corrupted PSN leaves the computed ICRC unchanged")


def write_pcap(writer, work):
    pcap = work / "own_frames.pcap"
    names = subprocess.run([writer, str(pcap)], check=True, capture_output=True,
                           text=True).stdout.split()
    return pcap, names


def read_frames(pcap):
    data = pcap.read_bytes()
    frames, at = [], 24
    while at < len(data):
        length = struct.unpack_from("<I", data, at + 8)[0]
        frames.append(data[at + 16:at + 16 + length])
        at += 16 + length
    return frames


def tshark_fields(pcap, fields):
    command = ["tshark", "-r", str(pcap), "--disable-protocol", "tftp",
               "--disable-protocol", "rpcordma",
               "-o", "ip.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE",
               "-T", "fields", "-E", "separator=\t", "-E", "occurrence=a", "-E", "aggregator=;"]
    for field in fields:
        command += ["-e", field]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return [dict(zip(fields, line.split("\t"))) for line in out.splitlines()]


def check_fields(name, expected, shown, frame, problems):
    for field, want in expected.items():
        cells = [c for c in shown.get(field, "").split(";") if c]
        if not cells:
            problems.append(f"{name}: tshark shows no {field}")
            continue
        text = cells[-1] if field in LAST_OCCURRENCE else cells[0]
        if isinstance(want, str):
            want = want.replace("ICRC", frame[-4:].hex())
            ok = text.replace(":", "").lower() == want
        else:
            ok = compare_with_tshark.to_int(field, text) == want
        if not ok:
            problems.append(f"{name}: tshark {field} = {text}, expected {want!r}")


def main(argv):
    if len(argv) != 4:
        sys.exit(__doc__)
    writer, rnicsim, vectors_json, work = argv[0], argv[1], argv[2], Path(argv[3])
    work.mkdir(parents=True, exist_ok=True)
    log_runtime.setLevel("ERROR")  # the IPv6 "not supported" warning is expected
    problems = []

    pcap, names = write_pcap(writer, work)
    frames = read_frames(pcap)
    if sorted(names) != sorted(EXPECTED) or len(frames) != len(names):
        problems.append(f"frames written {names}, expected {sorted(EXPECTED)}")
    for name, frame in zip(names, frames):
        check_icrcs(name, frame, problems)

    vectors = json.loads(Path(vectors_json).read_text())
    for v in vectors:
        check_icrcs(f"vector {v['name']}", bytes.fromhex(v["frame_hex"]), problems)

    fields = sorted({f for e in EXPECTED.values() for f in e})
    for name, frame, shown in zip(names, frames, tshark_fields(pcap, fields)):
        check_fields(name, EXPECTED.get(name, {}), shown, frame, problems)

    decoded = compare_with_tshark.compare(rnicsim, pcap, problems)
    if decoded != len(frames):
        problems.append(f"rnicsim and tshark compared {decoded} of {len(frames)} frames")

    if problems:
        print("\n".join(problems))
        print(f"{len(problems)} problems")
        sys.exit(1)
    ipv4 = sum(IP in Ether(f) for f in frames)
    print(f"{len(frames)} own frames: ICRC agrees with scapy on {ipv4} IPv4 frames and with "
          f"the masked CRC-32 on all; {sum(map(len, EXPECTED.values()))} tshark fields as "
          f"expected; rnicsim decode agrees with tshark. {len(vectors)} vectors' ICRCs agree.")


if __name__ == "__main__":
    main(sys.argv[1:])
