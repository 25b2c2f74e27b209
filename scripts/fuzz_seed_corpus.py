#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpus from the RoCEv2 captures.

Every frame of testbench/data/roce/captures/*.pcap (classic pcap, read here
without third-party modules) goes to testbench/fuzz/corpus/parse_frame/
<capture>_<n>, n the frame's index in its capture; a frame whose bytes an
earlier one already had is left out. For request_checks, each RoCEv2 frame
goes to testbench/fuzz/corpus/request_checks/ behind a request_checks header
(testbench/fuzz/fuzz_targets.hpp gives the layout): one a responder would
accept (a ready QP expecting the frame's PSN, in the message state the opcode
needs, an MPT that covers the RETH's or AtomicETH's range) and, for RC
requests, two that fail just past a boundary (the MPT one byte short; a PSN
one behind). Existing seed files are replaced; files libFuzzer merged into
the corpus (their names are SHA-1 sums) are kept.

usage: scripts/fuzz_seed_corpus.py [repository root]
"""
import hashlib
import pathlib
import struct
import sys

CAPTURES = "testbench/data/roce/captures"
CORPUS = "testbench/fuzz/corpus"
HEADER_BYTES = 86  # fuzz_targets.hpp kRequestChecksHeaderBytes

ETHERTYPE_VLAN, ETHERTYPE_IPV4, ETHERTYPE_IPV6 = 0x8100, 0x0800, 0x86DD
ROCE_PORT = 4791
RETH_OPCODES = {0x06, 0x0A, 0x0B, 0x0C}  # WRITE FIRST / ONLY (+IMM), READ REQUEST
ATOMIC_OPCODES = {0x13, 0x14}
# Bytes of the extended headers before the payload, per RC request opcode.
EXT_BYTES = {0x03: 4, 0x05: 4, 0x06: 16, 0x09: 4, 0x0A: 16, 0x0B: 20, 0x0C: 16, 0x13: 28, 0x14: 28}
FIRST_OR_MIDDLE = {0x00, 0x01, 0x06, 0x07}
MIDDLE_OR_LAST = {0x01, 0x02, 0x03, 0x07, 0x08, 0x09}
PMTUS = [256, 512, 1024, 2048, 4096]
ALL_RIGHTS = 0x0F  # IBV_ACCESS_LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC
PD = 1


def read_pcap(path):
    """The frames of a classic pcap file (either byte order, us or ns stamps)."""
    data = path.read_bytes()
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        order = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        order = ">"
    else:
        raise ValueError(f"{path}: not a classic pcap file")
    link_type = struct.unpack(order + "I", data[20:24])[0]
    if link_type != 1:
        raise ValueError(f"{path}: link type {link_type}, not Ethernet")
    frames, at = [], 24
    while at + 16 <= len(data):
        captured = struct.unpack(order + "I", data[at + 8 : at + 12])[0]
        at += 16
        frames.append(data[at : at + captured])
        at += captured
    return frames


def roce_fields(frame):
    """(opcode, psn, payload length, ext header bytes) of a RoCEv2 frame, else None."""
    at = 12
    ether_type = struct.unpack(">H", frame[at : at + 2])[0]
    at += 2
    if ether_type == ETHERTYPE_VLAN:
        ether_type = struct.unpack(">H", frame[at + 2 : at + 4])[0]
        at += 4
    if ether_type == ETHERTYPE_IPV4:
        ip_header = (frame[at] & 0x0F) * 4
        ip_end = at + struct.unpack(">H", frame[at + 2 : at + 4])[0]
        protocol = frame[at + 9]
    elif ether_type == ETHERTYPE_IPV6:
        ip_header = 40
        ip_end = at + 40 + struct.unpack(">H", frame[at + 4 : at + 6])[0]
        protocol = frame[at + 6]
    else:
        return None
    udp = at + ip_header
    if protocol != 17 or len(frame) < udp + 8 + 12 + 4:
        return None
    if struct.unpack(">H", frame[udp + 2 : udp + 4])[0] != ROCE_PORT:
        return None
    bth = udp + 8
    opcode = frame[bth]
    pad = (frame[bth + 1] >> 4) & 3
    psn = int.from_bytes(frame[bth + 9 : bth + 12], "big")
    ext = bth + 12
    payload = ip_end - 4 - ext - EXT_BYTES.get(opcode, 0) - pad
    return {"opcode": opcode, "psn": psn, "ext": frame[ext:], "payload": max(payload, 0)}


def header(*, flags, psn, pmtu, qp_access, offset, target, mpt, key, va, length, access, pd):
    """A request_checks header (fuzz_targets.hpp), all fields little-endian."""
    valid, variant, rights, base, size = mpt
    mpt_bytes = struct.pack("<BBBBIQQQI", valid, variant, rights, 12, PD, base, size, 0, 1)
    h = struct.pack("<B", flags) + (psn & 0xFFFFFF).to_bytes(3, "little")
    h += struct.pack("<BBQQ", PMTUS.index(pmtu), qp_access, offset, target) + mpt_bytes
    h += struct.pack("<IQQII", key, va, length, access, pd)
    assert len(h) == HEADER_BYTES, len(h)
    return h


def request_seeds(fields):
    """Headers for one RoCEv2 frame: accepted, then the near misses."""
    opcode, payload = fields["opcode"], fields["payload"]
    pmtu = payload if opcode in FIRST_OR_MIDDLE and payload in PMTUS else 4096
    in_message = opcode in MIDDLE_OR_LAST
    is_send = opcode <= 0x05
    last = opcode not in FIRST_OR_MIDDLE
    # ready, in_message, message_is_send; then is_send and last for the
    # stand-alone check_message_length.
    flags = 1 | (2 if in_message else 0) | (4 if is_send else 0)
    flags |= (8 if is_send else 0) | (16 if last else 0)
    # Mid-message: some packets so far, exactly room for this one and the rest.
    offset = 4 * pmtu if in_message else 0
    target = offset + payload + (pmtu if opcode in FIRST_OR_MIDDLE else 0)
    if is_send and not in_message:
        target = 1 << 16  # the receive buffer
    key, va, length, access = 0x100, 0x10000, 4096, 2
    if opcode in RETH_OPCODES and len(fields["ext"]) >= 16:
        va, key, length = struct.unpack(">QII", fields["ext"][:16])
        access = 4 if opcode == 0x0C else 2
    elif opcode in ATOMIC_OPCODES and len(fields["ext"]) >= 12:
        va, key = struct.unpack(">QI", fields["ext"][:12])
        length, access = 8, 8
    common = dict(pmtu=pmtu, qp_access=ALL_RIGHTS, offset=offset, target=target, key=key, va=va,
                  length=length, access=access, pd=PD)
    covers = (1, key & 0xFF, ALL_RIGHTS, va, length)
    seeds = [header(flags=flags, psn=fields["psn"], mpt=covers, **common)]
    if opcode in EXT_BYTES or opcode in (0x00, 0x01, 0x02, 0x04, 0x07, 0x08):  # an RC request
        short = (1, key & 0xFF, ALL_RIGHTS, va, max(length - 1, 0))
        seeds.append(header(flags=flags, psn=fields["psn"], mpt=short, **common))
        seeds.append(header(flags=flags, psn=fields["psn"] + 1, mpt=covers, **common))
    return seeds


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parents[1])
    parse_dir = root / CORPUS / "parse_frame"
    request_dir = root / CORPUS / "request_checks"
    for d in (parse_dir, request_dir):
        d.mkdir(parents=True, exist_ok=True)
        for old in d.iterdir():
            if not (len(old.name) == 40 and all(c in "0123456789abcdef" for c in old.name)):
                old.unlink()  # an earlier run's seed; merged inputs stay
    seen, frames_written, requests_written = set(), 0, 0
    for capture in sorted((root / CAPTURES).glob("*.pcap")):
        for n, frame in enumerate(read_pcap(capture)):
            digest = hashlib.sha1(frame).digest()
            if digest in seen:
                continue
            seen.add(digest)
            (parse_dir / f"{capture.stem}_{n}").write_bytes(frame)
            frames_written += 1
            fields = roce_fields(frame)
            if fields is None:
                continue
            for i, h in enumerate(request_seeds(fields)):
                (request_dir / f"{capture.stem}_{n}_{i}").write_bytes(h + frame)
                requests_written += 1
    print(f"{frames_written} frames into {parse_dir.relative_to(root)}, "
          f"{requests_written} inputs into {request_dir.relative_to(root)}")


if __name__ == "__main__":
    main()
