"""Reference model of receive scatter (hdl/src/host/scatter.rs): where each byte of a message lands in a
scatter list, and the engine's bursts that carry a message (the input the unit sees)."""

SGE_BYTES = 16  # address u64, length u32, lkey u32 (rocenic_proto::host::sge)


def pack_list(entries):
    """The 512-bit list word: entry i at bytes [16 i, 16 i + 16), little-endian fields."""
    word = 0
    for i, (addr, length) in enumerate(entries):
        word |= addr << (8 * SGE_BYTES * i)
        word |= length << (8 * SGE_BYTES * i + 64)
        word |= (0x1000 + i) << (8 * SGE_BYTES * i + 96)  # an lkey (the unit does not look at it)
    return word


def landing(entries, nbytes):
    """{address: message offset} for the first `nbytes` bytes of a message scattered over `entries`."""
    out = {}
    k = 0
    for addr, length in entries:
        for i in range(length):
            if k == nbytes:
                return out
            out[addr + i] = k
            k += 1
    assert k == nbytes, "message longer than the list"
    return out


def bursts(msg_len, mtu, nb):
    """The engine's bursts of a message cut at `mtu`: (offset, length) per packet; each burst is the
    words at offset + j nb, lane l holding message byte offset + j nb + l."""
    out = []
    off = 0
    while off < msg_len or (msg_len == 0 and not out):
        n = min(mtu, msg_len - off)
        out.append((off, n))
        off += n
        if n == 0:
            break
    return out
