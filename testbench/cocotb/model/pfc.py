"""IEEE 802.1Qbb PFC and 802.3x PAUSE frames (MAC control, EtherType 0x8808) and the pause-time model."""
import struct

MAC_CONTROL_DST = 0x0180C2000001
OP_PAUSE, OP_PFC = 0x0001, 0x0101


def pfc_frame(src: int, cev: int, times, dst: int = MAC_CONTROL_DST, ethertype: int = 0x8808,
              opcode: int = OP_PFC) -> bytes:
    """A PFC frame: class-enable vector and eight pause times (quanta), padded to 60 bytes."""
    times = list(times) + [0] * (8 - len(times))
    f = (dst.to_bytes(6, "big") + src.to_bytes(6, "big") + struct.pack(">HHH", ethertype, opcode, cev)
         + struct.pack(">8H", *times))
    return f + bytes(60 - len(f))


def pause_frame(src: int, quanta: int, dst: int = MAC_CONTROL_DST) -> bytes:
    f = dst.to_bytes(6, "big") + src.to_bytes(6, "big") + struct.pack(">HHH", 0x8808, OP_PAUSE, quanta)
    return f + bytes(60 - len(f))


def decode(frame: bytes):
    """dict of a MAC control frame's fields; raises on anything that is not one."""
    dst, src = int.from_bytes(frame[0:6], "big"), int.from_bytes(frame[6:12], "big")
    ethertype, opcode, cev = struct.unpack(">HHH", frame[12:18])
    times = list(struct.unpack(">8H", frame[18:34]))
    return dict(dst=dst, src=src, ethertype=ethertype, opcode=opcode, cev=cev, times=times,
                pad=frame[34:], length=len(frame))


def pause_cycles(quanta: int, quantum_q4: int) -> int:
    """Core cycles a pause of `quanta` quanta lasts when one quantum is quantum_q4/16 cycles: the
    pause ends at the first cycle count c with 16 c >= quanta * quantum_q4."""
    return -(-quanta * quantum_q4 // 16)
