//! Completion writer: formats a CQE (layout in `rocenic_proto::host::cqe`) and writes it into the CQ ring
//! by DMA, owner bit last. It refuses to overwrite a CQE the driver has not consumed: the CQ is then in
//! overrun and the QP goes to the error state (IBA §11.4.2.1: CQ overrun is an affiliated error).
//! When the CQ is armed (`CQ_ARM`, IBA §11.4.2.2), finishing a CQE that matches the arming raises `irq`
//! for one cycle and disarms the CQ. The match is decided when the CQE's last beat is written, not when
//! it is accepted, so an arm that lands while a CQE is in flight is not lost.
//!
//! Every path is at most 6 LUT levels at 512 bits. The slot address (ring base + index * 32, 64 bits)
//! and the ring-full check (`CQ_PI - CQ_CI` against the ring size) are worked out over three registered
//! stages from the CQ registers, for the producer index and the one after it, each result tagged with
//! the producer index it is for. A CQE is accepted when a tag equals `CQ_PI` now, so the CQE after one
//! just written finds its slot ready; a burst of CQEs goes at one per two or three cycles at 512 bits.
//! The consumer index used is up to three cycles old (as if the driver's write had come that much
//! later), and the ring's base and size are settings: the driver changes them only while the CQ
//! produces nothing.
use crate::prim::slot_pick::SlotPick;
use rust_hdl::prelude::*;

#[derive(Copy, Clone, PartialEq, Debug, LogicState)]
enum CqeState {
    Idle,
    Write,
}

#[derive(LogicBlock)]
pub struct CqeWriter<const W: usize, const B: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub cq_base_lo: Signal<In, Bits<32>>,
    pub cq_base_hi: Signal<In, Bits<32>>,
    pub cq_log_size: Signal<In, Bits<32>>,
    pub cq_pi: Signal<In, Bits<32>>,
    pub cq_ci: Signal<In, Bits<32>>,
    pub qpn: Signal<In, Bits<32>>,
    /// CQ_ARM: 1 = next CQE, 2 = next solicited or unsuccessful CQE, 0 = disarmed.
    pub cq_arm: Signal<In, Bits<32>>,
    /// One-cycle pulse: the interrupt was raised, clear CQ_ARM.
    pub arm_clear: Signal<Out, bool>,
    // request
    pub valid: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    pub wr_id: Signal<In, Bits<64>>,
    pub byte_len: Signal<In, Bits<32>>,
    pub status: Signal<In, Bits<8>>,
    pub opcode: Signal<In, Bits<8>>,
    pub src_qp: Signal<In, Bits<32>>,
    pub vendor_err: Signal<In, Bits<8>>,
    /// Immediate data and CQE flags (bit 0 WITH_IMM).
    pub imm: Signal<In, Bits<32>>,
    pub flags: Signal<In, Bits<8>>,
    // DMA write
    pub wr_valid: Signal<Out, bool>,
    pub wr_ready: Signal<In, bool>,
    pub wr_addr: Signal<Out, Bits<64>>,
    pub wr_data: Signal<Out, Bits<W>>,
    pub wr_strb: Signal<Out, Bits<B>>,
    // effects
    pub cq_pi_inc: Signal<Out, bool>,
    pub overrun: Signal<Out, bool>,
    pub irq: Signal<Out, bool>,
    state: DFF<CqeState>,
    /// The CQE placed in its first beat: at bit 0, or at bit 256 when a 64-byte beat holds it in its
    /// upper half (ring slots are 32 bytes, the ring 32-byte aligned).
    cqe: DFF<Bits<512>>,
    /// Beat `beat` of the CQE and of its byte strobes (multiplexers, not shifters).
    data_pick: SlotPick<512, W>,
    strb_pick: SlotPick<64, B>,
    strb_img: Signal<Local, Bits<64>>,
    /// The CQE's fields (proto::host::cqe layout) at bit 0.
    fields: Signal<Local, Bits<512>>,
    upper: Signal<Local, bool>,
    addr: DFF<Bits<64>>,
    beat: DFF<Bits<8>>,
    irq_q: DFF<bool>,
    /// The CQE being written is solicited (CQE flag) or unsuccessful.
    notable: DFF<bool>,
    /// Each stage holds results (from the third cycle after reset on).
    v1: DFF<bool>,
    v2: DFF<bool>,
    v3: DFF<bool>,
    // Stage 1: the CQ registers, the producer index and the one after it, the index mask and ring size.
    s_pi0: DFF<Bits<32>>,
    s_pi1: DFF<Bits<32>>,
    s_ci: DFF<Bits<32>>,
    s_mask: DFF<Bits<32>>,
    s_size: DFF<Bits<32>>,
    s_log: DFF<Bits<32>>,
    s_lo: DFF<Bits<32>>,
    s_hi: DFF<Bits<32>>,
    // Stage 2: each index's slot address low half (33 bits: its carry), entries in use, owner bit.
    t_pi0: DFF<Bits<32>>,
    t_pi1: DFF<Bits<32>>,
    t_lo0: DFF<Bits<33>>,
    t_lo1: DFF<Bits<33>>,
    t_used0: DFF<Bits<32>>,
    t_used1: DFF<Bits<32>>,
    t_own0: DFF<bool>,
    t_own1: DFF<bool>,
    t_size: DFF<Bits<32>>,
    t_hi: DFF<Bits<32>>,
    // Stage 3: per index (tag), its slot address, whether the ring is full, its owner bit.
    tag0: DFF<Bits<32>>,
    tag1: DFF<Bits<32>>,
    slot0: DFF<Bits<64>>,
    slot1: DFF<Bits<64>>,
    full0: DFF<bool>,
    full1: DFF<bool>,
    own0: DFF<bool>,
    own1: DFF<bool>,
    /// Each index's slot address high half, with the carry of its low half.
    hi0: Signal<Local, Bits<32>>,
    hi1: Signal<Local, Bits<32>>,
    /// `CQ_PI` matches tag 0 / tag 1; the matching slot, full flag and owner bit.
    hit0: Signal<Local, bool>,
    hit1: Signal<Local, bool>,
    slot_addr: Signal<Local, Bits<64>>,
    full: Signal<Local, bool>,
    owner: Signal<Local, bool>,
    beat_next: Signal<Local, Bits<8>>,
    beats: Constant<Bits<8>>,
    low_mask: Constant<Bits<64>>,
    cqe_strb: Constant<Bits<64>>,
    log_b: Constant<Bits<8>>,
    ones: Constant<Bits<32>>,
}

impl<const W: usize, const B: usize> Default for CqeWriter<W, B> {
    fn default() -> Self {
        assert_eq!(W, 8 * B);
        let cqe_bytes = rocenic_proto::host::CQE_BYTES;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cq_base_lo: Default::default(),
            cq_base_hi: Default::default(),
            cq_log_size: Default::default(),
            cq_pi: Default::default(),
            cq_ci: Default::default(),
            qpn: Default::default(),
            valid: Default::default(),
            ready: Default::default(),
            wr_id: Default::default(),
            byte_len: Default::default(),
            status: Default::default(),
            opcode: Default::default(),
            src_qp: Default::default(),
            vendor_err: Default::default(),
            imm: Default::default(),
            flags: Default::default(),
            wr_valid: Default::default(),
            wr_ready: Default::default(),
            wr_addr: Default::default(),
            wr_data: Default::default(),
            wr_strb: Default::default(),
            cq_pi_inc: Default::default(),
            overrun: Default::default(),
            irq: Default::default(),
            state: Default::default(),
            cqe: Default::default(),
            addr: Default::default(),
            beat: Default::default(),
            irq_q: Default::default(),
            notable: Default::default(),
            cq_arm: Default::default(),
            arm_clear: Default::default(),
            slot_addr: Default::default(),
            v1: Default::default(),
            v2: Default::default(),
            v3: Default::default(),
            s_pi0: Default::default(),
            s_pi1: Default::default(),
            s_ci: Default::default(),
            s_mask: Default::default(),
            s_size: Default::default(),
            s_log: Default::default(),
            s_lo: Default::default(),
            s_hi: Default::default(),
            t_pi0: Default::default(),
            t_pi1: Default::default(),
            t_lo0: Default::default(),
            t_lo1: Default::default(),
            t_used0: Default::default(),
            t_used1: Default::default(),
            t_own0: Default::default(),
            t_own1: Default::default(),
            t_size: Default::default(),
            t_hi: Default::default(),
            tag0: Default::default(),
            tag1: Default::default(),
            slot0: Default::default(),
            slot1: Default::default(),
            full0: Default::default(),
            full1: Default::default(),
            own0: Default::default(),
            own1: Default::default(),
            hi0: Default::default(),
            hi1: Default::default(),
            hit0: Default::default(),
            hit1: Default::default(),
            full: Default::default(),
            owner: Default::default(),
            data_pick: Default::default(),
            strb_pick: Default::default(),
            strb_img: Default::default(),
            fields: Default::default(),
            upper: Default::default(),
            beat_next: Default::default(),
            beats: Constant::new((cqe_bytes.div_ceil(B) as u64).into()),
            low_mask: Constant::new(((B - 1) as u64).into()),
            cqe_strb: Constant::new(((1u64 << cqe_bytes) - 1).into()),
            log_b: Constant::new((B.trailing_zeros() as u64).into()),
            ones: Constant::new(0xFFFF_FFFF_u64.into()),
        }
    }
}

impl<const W: usize, const B: usize> Logic for CqeWriter<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, cqe, addr, beat, irq_q, notable, v1, v2, v3, s_pi0, s_pi1, s_ci,
            s_mask, s_size, s_log, s_lo, s_hi, t_pi0, t_pi1, t_lo0, t_lo1, t_used0, t_used1,
            t_own0, t_own1, t_size, t_hi, tag0, tag1, slot0, slot1, full0, full1, own0, own1
        );
        // Stage 1.
        self.v1.d.next = true;
        self.v2.d.next = self.v1.q.val();
        self.v3.d.next = self.v2.q.val();
        self.s_pi0.d.next = self.cq_pi.val();
        self.s_pi1.d.next = self.cq_pi.val() + 1;
        self.s_ci.d.next = self.cq_ci.val();
        self.s_mask.d.next = !(self.ones.val() << self.cq_log_size.val());
        self.s_size.d.next = bits::<32>(1) << self.cq_log_size.val();
        self.s_log.d.next = self.cq_log_size.val();
        self.s_lo.d.next = self.cq_base_lo.val();
        self.s_hi.d.next = self.cq_base_hi.val();
        // Stage 2. Owner bit: 1 on the ring's first pass, 0 on the second, ...
        self.t_pi0.d.next = self.s_pi0.q.val();
        self.t_pi1.d.next = self.s_pi1.q.val();
        self.t_lo0.d.next = bit_cast::<33, 32>(self.s_lo.q.val())
            + (bit_cast::<33, 32>(self.s_pi0.q.val() & self.s_mask.q.val()) << 5);
        self.t_lo1.d.next = bit_cast::<33, 32>(self.s_lo.q.val())
            + (bit_cast::<33, 32>(self.s_pi1.q.val() & self.s_mask.q.val()) << 5);
        self.t_used0.d.next = self.s_pi0.q.val() - self.s_ci.q.val();
        self.t_used1.d.next = self.s_pi1.q.val() - self.s_ci.q.val();
        self.t_own0.d.next = ((self.s_pi0.q.val() >> self.s_log.q.val()) & 1) == 0;
        self.t_own1.d.next = ((self.s_pi1.q.val() >> self.s_log.q.val()) & 1) == 0;
        self.t_size.d.next = self.s_size.q.val();
        self.t_hi.d.next = self.s_hi.q.val();
        // Stage 3.
        self.tag0.d.next = self.t_pi0.q.val();
        self.tag1.d.next = self.t_pi1.q.val();
        self.hi0.next = self.t_hi.q.val() + bit_cast::<32, 1>(self.t_lo0.q.val().get_bits::<1>(32));
        self.hi1.next = self.t_hi.q.val() + bit_cast::<32, 1>(self.t_lo1.q.val().get_bits::<1>(32));
        self.slot0.d.next = (bit_cast::<64, 32>(self.hi0.val()) << 32)
            | bit_cast::<64, 33>(self.t_lo0.q.val() & bit_cast::<33, 32>(self.ones.val()));
        self.slot1.d.next = (bit_cast::<64, 32>(self.hi1.val()) << 32)
            | bit_cast::<64, 33>(self.t_lo1.q.val() & bit_cast::<33, 32>(self.ones.val()));
        self.full0.d.next = self.t_used0.q.val() == self.t_size.q.val();
        self.full1.d.next = self.t_used1.q.val() == self.t_size.q.val();
        self.own0.d.next = self.t_own0.q.val();
        self.own1.d.next = self.t_own1.q.val();
        // The slot of `CQ_PI` as it is now.
        self.hit0.next = self.v3.q.val() && (self.cq_pi.val() == self.tag0.q.val());
        self.hit1.next = self.v3.q.val() && (self.cq_pi.val() == self.tag1.q.val());
        self.slot_addr.next = self.slot1.q.val();
        self.full.next = self.full1.q.val();
        self.owner.next = self.own1.q.val();
        if self.hit0.val() {
            self.slot_addr.next = self.slot0.q.val();
            self.full.next = self.full0.q.val();
            self.owner.next = self.own0.q.val();
        }

        self.ready.next = false;
        self.wr_valid.next = false;
        self.cq_pi_inc.next = false;
        self.overrun.next = false;
        self.arm_clear.next = false;
        self.irq.next = self.irq_q.q.val();
        self.irq_q.d.next = false;
        self.beat_next.next = self.beat.q.val() + 1;
        self.fields.next = bit_cast::<512, 64>(self.wr_id.val())
            | (bit_cast::<512, 32>(self.byte_len.val()) << 64)
            | (bit_cast::<512, 32>(self.imm.val()) << 96)
            | (bit_cast::<512, 8>(self.flags.val()) << 208)
            | (bit_cast::<512, 32>(self.qpn.val() & 0xFF_FFFF) << 128)
            | (bit_cast::<512, 32>(self.src_qp.val() & 0xFF_FFFF) << 160)
            | (bit_cast::<512, 8>(self.status.val()) << 192)
            | (bit_cast::<512, 8>(self.opcode.val()) << 200)
            | (bit_cast::<512, 8>(self.vendor_err.val()) << 216);
        if self.owner.val() {
            self.fields.next = self.fields.val() | (bits::<512>(1) << 248);
        }
        // A 64-byte beat holds a 32-byte slot in its lower or upper half; narrower beats start at a slot,
        // and the CQE's beats stay inside it (no carry past bit 4).
        self.upper.next = (self.addr.q.val() & self.low_mask.val() & 32) != 0;
        self.wr_addr.next = (self.addr.q.val() & !self.low_mask.val())
            | (bit_cast::<64, 8>(self.beat.q.val()) << self.log_b.val());
        self.data_pick.a.next = self.cqe.q.val();
        self.data_pick.slot.next = self.beat.q.val();
        self.wr_data.next = self.data_pick.y.val();
        self.strb_img.next = self.cqe_strb.val();
        if self.upper.val() {
            self.strb_img.next = self.cqe_strb.val() << 32;
        }
        self.strb_pick.a.next = self.strb_img.val();
        self.strb_pick.slot.next = self.beat.q.val();
        self.wr_strb.next = self.strb_pick.y.val();
        match self.state.q.val() {
            CqeState::Idle => {
                if self.valid.val() && (self.hit0.val() || self.hit1.val()) {
                    if self.full.val() {
                        self.overrun.next = true;
                    } else {
                        self.ready.next = true;
                        self.addr.d.next = self.slot_addr.val();
                        self.beat.d.next = 0.into();
                        self.notable.d.next =
                            ((self.flags.val() & 2) != 0) || (self.status.val() != 0);
                        self.cqe.d.next = self.fields.val();
                        if (self.slot_addr.val() & self.low_mask.val() & 32) != 0 {
                            self.cqe.d.next = self.fields.val() << 256;
                        }
                        self.state.d.next = CqeState::Write;
                    }
                }
            }
            CqeState::Write => {
                self.wr_valid.next = true;
                if self.wr_ready.val() {
                    self.beat.d.next = self.beat_next.val();
                    if self.beat_next.val() == self.beats.val() {
                        self.cq_pi_inc.next = true;
                        if (self.cq_arm.val() == 1)
                            || ((self.cq_arm.val() == 2) && self.notable.q.val())
                        {
                            self.irq_q.d.next = true;
                            self.arm_clear.next = true;
                        }
                        self.state.d.next = CqeState::Idle;
                    }
                }
            }
            _ => {
                self.state.d.next = CqeState::Idle;
            }
        }
        if self.reset.val() {
            self.state.d.next = CqeState::Idle;
            self.v1.d.next = false;
            self.v2.d.next = false;
            self.v3.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cqe_writer_synthesizes() {
        let mut uut = CqeWriter::<512, 64>::default();
        uut.connect_all();
        assert!(generate_verilog(&uut).contains("module top"));
    }
}

#[cfg(test)]
mod behaviour {
    use super::*;
    use rocenic_proto::host::cqe;
    use std::sync::{Arc, Mutex};

    /// DMA writes as (address, data bytes, strobe).
    type Writes = Vec<(u64, Vec<u8>, u64)>;

    /// The DMA write the writer offers now, if any.
    fn written<const W: usize, const B: usize>(x: &CqeWriter<W, B>) -> Option<(u64, Vec<u8>, u64)> {
        x.wr_valid.val().then(|| {
            let data = x.wr_data.val();
            let bytes = (0..B)
                .map(|i| data.get_bits::<8>(i * 8).to_u64() as u8)
                .collect();
            (x.wr_addr.val().to_u64(), bytes, x.wr_strb.val().to_u64())
        })
    }

    /// DMA writes (address, data bytes, strobe) the writer makes for one request with `cq_pi`, and
    /// whether it reported an overrun.
    fn run<const W: usize, const B: usize>(cq_pi: u64, cq_ci: u64) -> (Writes, bool) {
        let out = Arc::new(Mutex::new((Vec::new(), false)));
        let o = out.clone();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<CqeWriter<W, B>>| {
            x.clock.next = !x.clock.val()
        });
        sim.add_testbench(move |mut sim: Sim<CqeWriter<W, B>>| {
            let mut x = sim.init()?;
            x.cq_base_lo.next = 0x1000.into();
            x.cq_base_hi.next = 0x1.into();
            x.cq_log_size.next = 2.into();
            x.cq_pi.next = cq_pi.into();
            x.cq_ci.next = cq_ci.into();
            x.qpn.next = 0x11.into();
            x.wr_id.next = 0x0102_0304_0506_0708_u64.into();
            x.byte_len.next = 300.into();
            x.status.next = 0.into();
            x.opcode.next = 128.into();
            x.src_qp.next = 0x22.into();
            x.vendor_err.next = 0.into();
            x.wr_ready.next = true;
            // The engine holds valid until the writer takes the CQE (or reports the overrun); outputs
            // are sampled before each rising edge.
            x.valid.next = true;
            wait_clock_true!(sim, clock, x);
            for _ in 0..16 {
                wait_clock_false!(sim, clock, x);
                if x.wr_ready.val() {
                    o.lock().unwrap().0.extend(written(&x));
                }
                if x.overrun.val() {
                    o.lock().unwrap().1 = true;
                }
                let taken = x.valid.val() && (x.ready.val() || x.overrun.val());
                wait_clock_true!(sim, clock, x);
                if taken {
                    x.valid.next = false;
                }
            }
            sim.done(x)
        });
        let mut uut = CqeWriter::<W, B>::default();
        uut.connect_all();
        sim.run(Box::new(uut), 100_000).unwrap();
        let r = out.lock().unwrap().clone();
        r
    }

    /// `n` CQEs offered back to back (valid held until taken), `wr_id` = their number, to a ring of
    /// 2^`log` slots at `base` starting at producer index `pi` with consumer index `ci`, `CQ_PI` advanced a
    /// cycle after each `cq_pi_inc` as the register block does. Returns every DMA write, how many CQEs
    /// were taken before the first overrun (all `n` if none), and the cycles the taken ones took.
    fn burst<const W: usize, const B: usize>(
        base: u64,
        log: u64,
        pi: u64,
        ci: u64,
        n: u64,
    ) -> (Writes, u64, u64) {
        let out = Arc::new(Mutex::new((Vec::new(), n, 0u64)));
        let o = out.clone();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<CqeWriter<W, B>>| {
            x.clock.next = !x.clock.val()
        });
        sim.add_testbench(move |mut sim: Sim<CqeWriter<W, B>>| {
            let mut x = sim.init()?;
            x.cq_base_lo.next = (base & 0xFFFF_FFFF).into();
            x.cq_base_hi.next = (base >> 32).into();
            x.cq_log_size.next = log.into();
            x.cq_ci.next = ci.into();
            x.wr_ready.next = true;
            let mut cq_pi = pi;
            let mut k = 0u64;
            let mut cycle = 0u64;
            wait_clock_true!(sim, clock, x);
            while cycle < 40 * n + 40 {
                x.cq_pi.next = cq_pi.into();
                x.valid.next = k < n;
                x.wr_id.next = k.into();
                wait_clock_false!(sim, clock, x);
                o.lock().unwrap().0.extend(written(&x));
                let inc = x.cq_pi_inc.val();
                if x.valid.val() && x.overrun.val() {
                    o.lock().unwrap().1 = k;
                    break;
                }
                if x.valid.val() && x.ready.val() {
                    k += 1;
                    o.lock().unwrap().2 = cycle;
                }
                wait_clock_true!(sim, clock, x);
                if inc {
                    cq_pi += 1;
                }
                cycle += 1;
            }
            sim.done(x)
        });
        let mut uut = CqeWriter::<W, B>::default();
        uut.connect_all();
        sim.run(Box::new(uut), 1_000_000).unwrap();
        let r = out.lock().unwrap().clone();
        r
    }

    #[test]
    fn a_burst_fills_the_ring_across_a_4gib_boundary_then_overruns() {
        // An 8-slot ring whose third slot is the first above 4 GiB; the consumer index is 4 behind the
        // producer's start, so 8 CQEs fit (the last four on the ring's second pass) and the ninth is an
        // overrun.
        let base = 0xFFFF_FFC0;
        let (writes, taken, cycles) = burst::<512, 64>(base, 3, 4, 4, 12);
        assert_eq!(taken, 8, "CQEs before the overrun");
        assert_eq!(writes.len(), 8);
        for (k, (addr, bytes, strb)) in writes.iter().enumerate() {
            let pi = 4 + k as u64;
            let slot = base + 32 * (pi % 8);
            let half = (slot % 64) as usize;
            assert_eq!(*addr, slot - slot % 64, "CQE {k}: address");
            assert_eq!(*strb, 0xFFFF_FFFF_u64 << half, "CQE {k}: strobes");
            assert_eq!(bytes[half + cqe::WR_ID], k as u8, "CQE {k}: wr_id");
            assert_eq!(
                bytes[half + cqe::OWNER] as u64,
                1 - (pi >> 3) % 2,
                "CQE {k}: owner"
            );
        }
        println!("8 CQEs in {cycles} cycles at 512 bits");
        let (writes, taken, _) = burst::<64, 8>(0x7_FFFF_FFE0, 2, 0, 0, 4);
        assert_eq!(taken, 4);
        let addrs: Vec<u64> = writes.iter().map(|w| w.0).collect();
        let want: Vec<u64> = (0..4)
            .flat_map(|k| (0..4).map(move |j| 0x7_FFFF_FFE0 + 32 * k + 8 * j))
            .collect();
        assert_eq!(addrs, want);
    }

    #[test]
    fn writes_a_cqe_in_four_beats_at_64_bits() {
        let (writes, overrun) = run::<64, 8>(0, 0);
        assert!(!overrun);
        assert_eq!(writes.len(), 4);
        let mut cqe_bytes = Vec::new();
        for (k, (addr, bytes, strb)) in writes.iter().enumerate() {
            assert_eq!(*addr, 0x1_0000_1000 + 8 * k as u64);
            assert_eq!(*strb, 0xFF);
            cqe_bytes.extend_from_slice(bytes);
        }
        assert_eq!(
            &cqe_bytes[cqe::WR_ID..cqe::WR_ID + 8],
            &[8, 7, 6, 5, 4, 3, 2, 1]
        );
        assert_eq!(
            &cqe_bytes[cqe::BYTE_LEN..cqe::BYTE_LEN + 4],
            &300u32.to_le_bytes()
        );
        assert_eq!(cqe_bytes[cqe::QP_NUM], 0x11);
        assert_eq!(cqe_bytes[cqe::SRC_QP], 0x22);
        assert_eq!(cqe_bytes[cqe::OPCODE], 128);
        assert_eq!(cqe_bytes[cqe::OWNER], 1, "first pass of the ring");
    }

    #[test]
    fn second_half_of_a_512_bit_beat_with_the_second_pass_owner() {
        // CQE number 5 of a 4-entry ring: slot 1 (offset 32 of the beat), second pass (owner 0).
        let (writes, overrun) = run::<512, 64>(5, 4);
        assert!(!overrun);
        assert_eq!(writes.len(), 1);
        let (addr, bytes, strb) = &writes[0];
        assert_eq!(*addr, 0x1_0000_1000);
        assert_eq!(*strb, 0xFFFF_FFFF_0000_0000);
        assert_eq!(
            &bytes[32 + cqe::WR_ID..32 + cqe::WR_ID + 8],
            &[8, 7, 6, 5, 4, 3, 2, 1]
        );
        assert_eq!(bytes[32 + cqe::OWNER], 0);
    }

    #[test]
    fn a_full_ring_is_an_overrun_not_an_overwrite() {
        let (writes, overrun) = run::<64, 8>(4, 0);
        assert!(overrun);
        assert!(writes.is_empty());
    }
}
