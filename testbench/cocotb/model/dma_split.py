"""Reference model of the DMA read splitter (host/dma_split.rs): an engine read of `beats` beats of
`nbytes` bytes at `addr` becomes sub-requests that never cross a 4 KiB boundary (PCIe) and are never
longer than `max_beats` (Max_Read_Request_Size), issued in address order."""

PAGE = 4096


def split(addr: int, beats: int, max_beats: int, nbytes: int):
    """[(addr, beats, ends_request)] for one engine request; [] for a zero-beat request."""
    assert addr % nbytes == 0 and max_beats >= 1
    out = []
    while beats:
        to_page = (PAGE - addr % PAGE) // nbytes
        n = min(beats, to_page, max_beats)
        beats -= n
        out.append((addr & (2**64 - 1), n, beats == 0))
        addr += n * nbytes
    return out


def check_rules(subs, addr: int, beats: int, max_beats: int, nbytes: int):
    """Independent of `split`: the PCIe rules any correct split obeys (raises AssertionError)."""
    at = addr
    for a, n, _ in subs:
        assert a == at & (2**64 - 1), f"sub-request at {a:#x}, expected contiguous {at:#x}"
        assert 1 <= n <= max_beats, f"sub-request of {n} beats, max {max_beats}"
        assert a // PAGE == (a + n * nbytes - 1) // PAGE, f"{a:#x}+{n * nbytes} crosses 4 KiB"
        at += n * nbytes
    assert at - addr == beats * nbytes, "sub-requests do not add up to the request"
