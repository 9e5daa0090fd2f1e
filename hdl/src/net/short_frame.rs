//! The two halves every Ethernet-control responder needs (ARP, PFC, NDP): the first `N / 8` bytes of each
//! received frame as a big-endian register, and a transmitter for one frame of `LEN` bytes built in such a
//! register. Fields are then plain bit slices at `be_shift(N / 8, offset, len)`. ARP and PFC use 64 bytes
//! and one minimum-size (60-byte) frame ([`FrameHead`], [`ShortFrameTx`]); neighbour discovery needs
//! 86 bytes, so 128-byte registers.
use crate::prim::byteswap::ByteSwap;
use crate::prim::slot_fill::SlotFill;
use crate::prim::slot_pick::SlotPick;
use rust_hdl::prelude::*;

/// Bytes of the head and frame registers.
pub const REG_BYTES: usize = 64;
/// A minimum Ethernet frame without FCS (the MAC appends it).
pub const FRAME_BYTES: usize = 60;

/// The 64-byte head of ARP and PFC.
pub type FrameHead<const W: usize> = FrameHeadN<W, 512>;

/// Watches a W-bit MAC receive stream: the cycle after a frame's last beat (`done`), `head` holds its
/// first N / 8 bytes, big-endian (byte 0 most significant); shorter frames read as zero beyond their end.
/// `head` is the capture register itself: no multiplexer per bit puts the last beat into a combinational
/// copy, and the register's own input multiplexer becomes its flip-flops' clock enable.
#[derive(LogicBlock)]
pub struct FrameHeadN<const W: usize, const N: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub rx_tdata: Signal<In, Bits<W>>,
    pub rx_tlast: Signal<In, bool>,
    /// A beat is taken this cycle (valid and ready).
    pub rx_fire: Signal<In, bool>,
    /// With the last beat: the MAC marked the frame bad (a bad FCS); such a frame is never `done`.
    pub rx_tuser: Signal<In, bool>,
    pub head: Signal<Out, Bits<N>>,
    pub done: Signal<Out, bool>,
    cap: DFF<Bits<N>>,
    done_r: DFF<bool>,
    k: DFF<Bits<8>>,
    cap_now: Signal<Local, Bits<N>>,
    swap: ByteSwap<N>,
    fill: SlotFill<N, W>,
    cap_beats: Constant<Bits<8>>,
}

impl<const W: usize, const N: usize> Default for FrameHeadN<W, N> {
    fn default() -> Self {
        assert!(W <= N && N.is_multiple_of(W) && N / W < 256);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            rx_tdata: Default::default(),
            rx_tlast: Default::default(),
            rx_fire: Default::default(),
            rx_tuser: Default::default(),
            head: Default::default(),
            done: Default::default(),
            cap: Default::default(),
            done_r: Default::default(),
            k: Default::default(),
            cap_now: Default::default(),
            swap: Default::default(),
            fill: Default::default(),
            cap_beats: Constant::new(((N / W) as u64).into()),
        }
    }
}

impl<const W: usize, const N: usize> Logic for FrameHeadN<W, N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, cap, k, done_r);
        // Beat k of the frame lands at bits [k * W, (k + 1) * W) of the lane-order capture.
        self.fill.base.next = self.cap.q.val();
        if self.k.q.val() == 0 {
            self.fill.base.next = 0.into();
        }
        self.fill.data.next = self.rx_tdata.val();
        self.fill.slot.next = self.k.q.val();
        self.fill.en.next = self.k.q.val() < self.cap_beats.val();
        self.cap_now.next = self.fill.y.val();
        self.done_r.d.next = self.rx_fire.val() && self.rx_tlast.val() && !self.rx_tuser.val();
        self.done.next = self.done_r.q.val();
        self.swap.a.next = self.cap.q.val();
        self.head.next = self.swap.y.val();
        if self.rx_fire.val() {
            self.cap.d.next = self.cap_now.val();
            // Counts only up to the captured beats: an 8-bit count of every beat wrapped after 256
            // (2 KiB at 64 bits) and took the bytes there for the head of a new frame.
            if self.k.q.val() < self.cap_beats.val() {
                self.k.d.next = self.k.q.val() + 1;
            }
            if self.rx_tlast.val() {
                self.k.d.next = 0.into();
            }
        }
        if self.reset.val() {
            self.k.d.next = 0.into();
            self.done_r.d.next = false;
        }
    }
}

/// The 60-byte frame of ARP and PFC, in a 64-byte register.
pub type ShortFrameTx<const W: usize, const B: usize> = FrameTx<W, B, 512, FRAME_BYTES>;

/// Sends one LEN-byte frame, loaded as a big-endian N-bit register (`load` while not `busy`), as a W-bit
/// AXI-Stream source; `sent` pulses with its last beat.
#[derive(LogicBlock)]
pub struct FrameTx<const W: usize, const B: usize, const N: usize, const LEN: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub load: Signal<In, bool>,
    pub frame: Signal<In, Bits<N>>,
    pub busy: Signal<Out, bool>,
    pub sent: Signal<Out, bool>,
    pub tx_tdata: Signal<Out, Bits<W>>,
    pub tx_tkeep: Signal<Out, Bits<B>>,
    pub tx_tlast: Signal<Out, bool>,
    pub tx_tvalid: Signal<Out, bool>,
    pub tx_tready: Signal<In, bool>,
    pend: DFF<bool>,
    /// The frame, loaded once and read a beat at a time (not shifted: the bits a responder never changes
    /// stay constant flip-flops, which synthesis removes).
    rep: DFF<Bits<N>>,
    pos: DFF<Bits<16>>,
    beat: DFF<Bits<8>>,
    pick: SlotPick<N, W>,
    swap: ByteSwap<W>,
    to_f: Signal<Local, Bits<16>>,
    last: Signal<Local, bool>,
    last_slot: Constant<Bits<8>>,
    beat_bytes: Constant<Bits<16>>,
    frame_bytes: Constant<Bits<16>>,
    ones_b: Constant<Bits<B>>,
}

impl<const W: usize, const B: usize, const N: usize, const LEN: usize> Default
    for FrameTx<W, B, N, LEN>
{
    fn default() -> Self {
        assert_eq!(W, 8 * B);
        assert!(W <= N && N.is_multiple_of(W) && N / W <= 256 && LEN <= N / 8);
        let c16 = |v: usize| Constant::new((v as u64).into());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            load: Default::default(),
            frame: Default::default(),
            busy: Default::default(),
            sent: Default::default(),
            tx_tdata: Default::default(),
            tx_tkeep: Default::default(),
            tx_tlast: Default::default(),
            tx_tvalid: Default::default(),
            tx_tready: Default::default(),
            pend: Default::default(),
            rep: Default::default(),
            pos: Default::default(),
            beat: Default::default(),
            pick: Default::default(),
            swap: Default::default(),
            to_f: Default::default(),
            last: Default::default(),
            last_slot: Constant::new(((N / W - 1) as u64).into()),
            beat_bytes: c16(B),
            frame_bytes: c16(LEN),
            ones_b: Constant::new(Bits::<B>::mask()),
        }
    }
}

impl<const W: usize, const B: usize, const N: usize, const LEN: usize> Logic
    for FrameTx<W, B, N, LEN>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, pend, rep, pos, beat);
        self.busy.next = self.pend.q.val();
        self.sent.next = false;
        // Beat k is W bits down from the top of the big-endian frame, byte-swapped to lane order.
        self.pick.a.next = self.rep.q.val();
        self.pick.slot.next = self.last_slot.val() - self.beat.q.val();
        self.swap.a.next = self.pick.y.val();
        self.tx_tdata.next = self.swap.y.val();
        self.to_f.next = self.frame_bytes.val() - self.pos.q.val();
        self.last.next = self.to_f.val() <= self.beat_bytes.val();
        self.tx_tlast.next = self.last.val();
        self.tx_tkeep.next = self.ones_b.val();
        if self.last.val() {
            self.tx_tkeep.next = !(self.ones_b.val() << self.to_f.val());
        }
        self.tx_tvalid.next = self.pend.q.val();
        if self.pend.q.val() && self.tx_tready.val() {
            self.pos.d.next = self.pos.q.val() + self.beat_bytes.val();
            self.beat.d.next = self.beat.q.val() + 1;
            if self.last.val() {
                self.pend.d.next = false;
                self.sent.next = true;
            }
        }
        if self.load.val() && !self.pend.q.val() {
            self.pend.d.next = true;
            self.pos.d.next = 0.into();
            self.beat.d.next = 0.into();
            self.rep.d.next = self.frame.val();
        }
        if self.reset.val() {
            self.pend.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_head_synthesizes() {
        let mut uut = FrameHead::<64>::default();
        uut.connect_all();
        assert!(generate_verilog(&uut).contains("module top"));
    }

    #[test]
    fn short_frame_tx_synthesizes() {
        let mut uut = ShortFrameTx::<512, 64>::default();
        uut.connect_all();
        assert!(generate_verilog(&uut).contains("module top"));
    }
}
