"""Host side of device printf on GPU targets (preludes/printf_buffer.h has the layout).

    lines = decode(buffer_bytes)      # the module global __pyshim_printf, copied to the host
"""

from __future__ import annotations

import re
import struct

SYMBOL = "__pyshim_printf"
HEADER = 64
_CONV = re.compile(r"%([-+ #0]*\d*(?:\.\d+)?)(hh|h|ll|l|z|j|t)?([diouxXcfFeEgGaAsp%])")


def format_record(fmt: str, args: bytes, strings: list[str]) -> str:
    """C printf of `fmt` over a packed vprintf argument buffer."""
    out: list[str] = []
    pos = 0
    last = 0
    texts = iter(strings)
    for m in _CONV.finditer(fmt):
        out.append(fmt[last:m.start()])
        last = m.end()
        flags, length, conv = m.groups()
        if conv == "%":
            out.append("%")
            continue
        wide = bool(length in ("l", "ll", "z", "j", "t")) or conv in "fFeEgGaAsp"
        size = 8 if wide else 4
        pos = (pos + size - 1) & ~(size - 1)
        raw = args[pos:pos + size].ljust(size, b"\0")
        pos += size
        if conv == "s":
            out.append(("%" + flags + "s") % next(texts, ""))
        elif conv in "fFeEgGaA":
            value = struct.unpack("<d", raw)[0]
            out.append(("%" + flags + (conv if conv not in "aA" else "e")) % value)
        elif conv == "p":
            out.append(hex(int.from_bytes(raw, "little")))
        elif conv == "c":
            out.append(chr(raw[0]))
        else:
            signed = conv in "di"
            value = int.from_bytes(raw, "little", signed=signed)
            if length in ("h",):
                value = (value & 0xFFFF) - (0x10000 if signed and value & 0x8000 else 0)
            elif length == "hh":
                value = (value & 0xFF) - (0x100 if signed and value & 0x80 else 0)
            out.append(("%" + flags + ("d" if conv in "diu" else conv)) % value)
    out.append(fmt[last:])
    return "".join(out)


def decode(buf: bytes) -> list[str]:
    """The printed lines in a drained buffer; a last entry notes dropped records."""
    if len(buf) < HEADER:
        return []
    used = int.from_bytes(buf[0:8], "little")
    end = min(HEADER + used, len(buf))
    out = []
    at = HEADER
    while at + 16 <= end:
        total, fmt_n, arg_n, str_n = struct.unpack_from("<IIII", buf, at)
        if total < 16 or at + total > end:
            break
        body = buf[at + 16:at + total]
        fmt = body[:fmt_n].split(b"\0", 1)[0].decode("utf-8", "replace")
        args = body[fmt_n:fmt_n + arg_n]
        strs = body[fmt_n + arg_n:fmt_n + arg_n + str_n].split(b"\0")[:-1]
        out.append(format_record(fmt, args, [s.decode("utf-8", "replace") for s in strs]))
        at += total
    if HEADER + used > len(buf):
        out.append(f"[pyshim: device printf buffer full, {HEADER + used - len(buf)} bytes "
                   "of output dropped]")
    return out
