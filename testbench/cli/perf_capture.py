"""What the perf checks read from a run: its pcap's RoCEv2 request headers
and perftest's address lines in its banner. Plain byte offsets, no rnicsim
code: Ethernet II (14 bytes), IPv4 (IHL words), UDP (8), then the BTH."""
import re
import struct
from pathlib import Path

ROCE_PORT = 4791
# Request opcodes whose RETH or AtomicETH names the remote buffer (RC).
RETH_OPCODES = {0x06, 0x0A, 0x0B, 0x0C}  # WRITE FIRST, WRITE ONLY (+IMM), READ REQUEST
ATOMIC_OPCODES = {0x13, 0x14}             # COMPARE SWAP, FETCH ADD


def frames(path):
    """The pcap's records as (time_ns, bytes)."""
    data = Path(path).read_bytes()
    records, at = [], 24
    while at + 16 <= len(data):
        seconds, fraction, captured, _ = struct.unpack_from("<IIII", data, at)
        records.append((seconds * 10**9 + fraction, data[at + 16:at + 16 + captured]))
        at += 16 + captured
    return records


def bth_of(frame):
    """(source MAC, opcode, dest QP, PSN, ack_req, offset after the BTH), or None."""
    if len(frame) < 14 + 20 + 8 + 12 or struct.unpack_from("!H", frame, 12)[0] != 0x0800:
        return None
    ip = 14
    header = (frame[ip] & 0x0F) * 4
    udp = ip + header
    if frame[ip + 9] != 17 or struct.unpack_from("!H", frame, udp + 2)[0] != ROCE_PORT:
        return None
    bth = udp + 8
    opcode = frame[bth]
    dest_qp = int.from_bytes(frame[bth + 5:bth + 8], "big")
    ack_req = frame[bth + 8] >> 7
    psn = int.from_bytes(frame[bth + 9:bth + 12], "big")
    source = ":".join(f"{b:02x}" for b in frame[6:12])
    return source, opcode, dest_qp, psn, ack_req, bth + 12


def remote_buffer(frame):
    """(VA, rkey) a request's RETH or AtomicETH carries, or None."""
    parsed = bth_of(frame)
    if parsed is None:
        return None
    _, opcode, _, _, _, at = parsed
    if opcode in RETH_OPCODES or opcode in ATOMIC_OPCODES:
        return struct.unpack_from("!QI", frame, at)
    return None


# printf's %#x prints 0 without its 0x: "RKey 00000000".
ADDRESS = re.compile(r"^ (local|remote) address: LID \S+ QPN ((?:0x)?[0-9a-f]+) PSN \S+"
                     r"(?: OUT \S+)?(?: RKey ((?:0x)?[0-9a-f]+) VAddr ((?:0x)?[0-9a-f]+))?$")


def banner_addresses(text):
    """perftest's address lines: [(side, qpn, rkey or None, vaddr or None)]."""
    out = []
    for line in text.splitlines():
        m = ADDRESS.match(line)
        if m:
            rkey = int(m.group(3), 16) if m.group(3) else None
            vaddr = int(m.group(4), 16) if m.group(4) else None
            out.append((m.group(1), int(m.group(2), 16), rkey, vaddr))
    return out
