"""CRC-32 (IEEE 802.3, reflected, zlib's polynomial) as a register machine, computed with zlib only.

`advance(reg, data)` is the register after `data` starting from `reg`, with no initial or final
complement: zlib.crc32(data, v) starts from ~v and returns ~register, so it is undone on both sides.
"""
import zlib

MASK = 0xFFFFFFFF
RESIDUE = 0xDEBB20E3          # register after a message followed by its own CRC (LSB first)
ICRC_START = None             # set below: register after the ICRC's 8-byte all-ones prefix


def advance(reg: int, data: bytes) -> int:
    return zlib.crc32(bytes(data), reg ^ MASK) ^ MASK


def lanes(reg: int, data: int, en: int, nbytes: int) -> int:
    """The lane matrix's reference: `reg` advanced over the bytes of `data` whose `en` bit is set,
    lane 0 first, disabled lanes skipped (not zero-filled)."""
    picked = bytes((data >> (8 * i)) & 0xFF for i in range(nbytes) if en >> i & 1)
    return advance(reg, picked)


ICRC_START = advance(MASK, b"\xff" * 8)
