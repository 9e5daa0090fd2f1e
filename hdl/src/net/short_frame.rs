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
    beat: DFF<Bits<8>>,
    /// The beat's `tlast` and `tkeep`, registers: a frame's beats are constants of their index (all
    /// lanes but in the last, which has the frame's remaining bytes), so each is loaded for beat 0 and
    /// set for the next beat as one is taken, and the outputs start at a flip-flop.
    last: DFF<bool>,
    keep: DFF<Bits<B>>,
    pick: SlotPick<N, W>,
    swap: ByteSwap<W>,
    /// The next beat is the last.
    next_last: Signal<Local, bool>,
    last_slot: Constant<Bits<8>>,
    /// The index of the beat before the last (ceil(LEN / B) - 2, modulo 256); the last beat's keep;
    /// whether beat 0 is the last.
    pre_last: Constant<Bits<8>>,
    last_keep: Constant<Bits<B>>,
    one_beat: Constant<bool>,
    ones_b: Constant<Bits<B>>,
}

impl<const W: usize, const B: usize, const N: usize, const LEN: usize> Default
    for FrameTx<W, B, N, LEN>
{
    fn default() -> Self {
        assert_eq!(W, 8 * B);
        assert!(W <= N && N.is_multiple_of(W) && N / W <= 256 && LEN <= N / 8);
        let beats = LEN.div_ceil(B);
        let rest = LEN - (beats - 1) * B;
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
            beat: Default::default(),
            last: Default::default(),
            keep: Default::default(),
            pick: Default::default(),
            swap: Default::default(),
            next_last: Default::default(),
            last_slot: Constant::new(((N / W - 1) as u64).into()),
            pre_last: Constant::new((((beats + 254) % 256) as u64).into()),
            last_keep: Constant::new(
                if rest == 64 {
                    u64::MAX
                } else {
                    (1u64 << rest) - 1
                }
                .into(),
            ),
            one_beat: Constant::new(beats == 1),
            ones_b: Constant::new(Bits::<B>::mask()),
        }
    }
}

impl<const W: usize, const B: usize, const N: usize, const LEN: usize> Logic
    for FrameTx<W, B, N, LEN>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, pend, rep, beat, last, keep);
        self.busy.next = self.pend.q.val();
        self.sent.next = false;
        // Beat k is W bits down from the top of the big-endian frame, byte-swapped to lane order.
        self.pick.a.next = self.rep.q.val();
        self.pick.slot.next = self.last_slot.val() - self.beat.q.val();
        self.swap.a.next = self.pick.y.val();
        self.tx_tdata.next = self.swap.y.val();
        self.tx_tlast.next = self.last.q.val();
        self.tx_tkeep.next = self.keep.q.val();
        self.next_last.next = self.beat.q.val() == self.pre_last.val();
        self.tx_tvalid.next = self.pend.q.val();
        if self.pend.q.val() && self.tx_tready.val() {
            self.beat.d.next = self.beat.q.val() + 1;
            self.last.d.next = self.next_last.val();
            self.keep.d.next = self.ones_b.val();
            if self.next_last.val() {
                self.keep.d.next = self.last_keep.val();
            }
            if self.last.q.val() {
                self.pend.d.next = false;
                self.sent.next = true;
            }
        }
        if self.load.val() && !self.pend.q.val() {
            self.pend.d.next = true;
            self.beat.d.next = 0.into();
            self.last.d.next = self.one_beat.val();
            self.keep.d.next = self.ones_b.val();
            if self.one_beat.val() {
                self.keep.d.next = self.last_keep.val();
            }
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

    /// Sends a frame of LEN bytes (byte i = i + 1) under random stalls and returns the bytes the
    /// stream carried (by `tkeep`), the beat count and how many `sent` pulses came.
    fn send<const W: usize, const B: usize, const N: usize, const LEN: usize>(
        seed: u64,
    ) -> (Vec<u8>, usize, usize) {
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<FrameTx<W, B, N, LEN>>| {
            x.clock.next = !x.clock.val()
        });
        let out = std::sync::Arc::new(std::sync::Mutex::new((Vec::new(), 0usize, 0usize)));
        let o2 = out.clone();
        sim.add_testbench(move |mut sim: Sim<FrameTx<W, B, N, LEN>>| {
            let mut x = sim.init()?;
            let mut rng = crate::prim::test_rng(seed);
            // Big-endian: byte i of the frame is bits N-8-8i.. of the register.
            let mut frame = Bits::<N>::default();
            for i in 0..LEN {
                frame =
                    frame | (Bits::<N>::from((i as u64 + 1) & 0xFF) << ((N - 8 - 8 * i) as u64));
            }
            x.reset.next = true;
            wait_clock_cycle!(sim, clock, x);
            x.reset.next = false;
            x.frame.next = frame;
            x.load.next = true;
            wait_clock_cycle!(sim, clock, x);
            x.load.next = false;
            let (mut bytes, mut beats, mut sent) = (Vec::new(), 0, 0);
            for _ in 0..200 {
                x.tx_tready.next = rng() % 100 < 60;
                x = sim.wait(1, x)?;
                sent += x.sent.val() as usize;
                if x.tx_tvalid.val() && x.tx_tready.val() {
                    let keep = x.tx_tkeep.val();
                    let data = x.tx_tdata.val();
                    for j in 0..B {
                        if keep.get_bit(j) {
                            bytes.push((data >> (8 * j) as u64).get_bits::<8>(0).to_u64() as u8);
                        }
                    }
                    beats += 1;
                    sim_assert!(sim, x.tx_tlast.val() == (bytes.len() == LEN), x);
                }
                wait_clock_cycle!(sim, clock, x);
            }
            *o2.lock().unwrap() = (bytes, beats, sent);
            sim.done(x)
        });
        let mut uut = FrameTx::<W, B, N, LEN>::default();
        uut.connect_all();
        sim.run(Box::new(uut), 100_000).unwrap();
        let r = out.lock().unwrap();
        r.clone()
    }

    #[test]
    fn sends_each_byte_once_with_keep_and_last_from_the_beat_index() {
        let want = |len: usize| (1..=len).map(|i| i as u8).collect::<Vec<u8>>();
        // ARP and PFC's 60 bytes: 8 beats at 64 bits (the last with 4 lanes), 1 at 512.
        assert_eq!(send::<64, 8, 512, 60>(1), (want(60), 8, 1));
        assert_eq!(send::<512, 64, 512, 60>(2), (want(60), 1, 1));
        // NDP's 86 bytes in a 1024-bit register: 11 beats at 64 bits, 2 at 512 (22 lanes last).
        assert_eq!(send::<64, 8, 1024, 86>(3), (want(86), 11, 1));
        assert_eq!(send::<512, 64, 1024, 86>(4), (want(86), 2, 1));
    }

    #[test]
    fn short_frame_tx_synthesizes() {
        let mut uut = ShortFrameTx::<512, 64>::default();
        uut.connect_all();
        assert!(generate_verilog(&uut).contains("module top"));
    }
}
