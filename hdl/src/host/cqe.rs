//! Completion writer: formats a CQE (layout in `rocenic_proto::host::cqe`) and writes it into the CQ ring
//! by DMA, owner bit last. It refuses to overwrite a CQE the driver has not consumed: the CQ is then in
//! overrun and the QP goes to the error state (IBA §11.4.2.1: CQ overrun is an affiliated error).
//! When the CQ is armed (`CQ_ARM`, IBA §11.4.2.2), finishing a CQE that matches the arming raises `irq`
//! for one cycle and disarms the CQ. The match is decided when the CQE's last beat is written, not when
//! it is accepted, so an arm that lands while a CQE is in flight is not lost.
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
    slot_addr: Signal<Local, Bits<64>>,
    used: Signal<Local, Bits<32>>,
    beat_next: Signal<Local, Bits<8>>,
    beats: Constant<Bits<8>>,
    low_mask: Constant<Bits<64>>,
    cqe_strb: Constant<Bits<64>>,
    log_b: Constant<Bits<8>>,
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
            data_pick: Default::default(),
            strb_pick: Default::default(),
            strb_img: Default::default(),
            fields: Default::default(),
            upper: Default::default(),
            used: Default::default(),
            beat_next: Default::default(),
            beats: Constant::new((cqe_bytes.div_ceil(B) as u64).into()),
            low_mask: Constant::new(((B - 1) as u64).into()),
            cqe_strb: Constant::new(((1u64 << cqe_bytes) - 1).into()),
            log_b: Constant::new((B.trailing_zeros() as u64).into()),
        }
    }
}

impl<const W: usize, const B: usize> Logic for CqeWriter<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, cqe, addr, beat, irq_q, notable);
        self.ready.next = false;
        self.wr_valid.next = false;
        self.cq_pi_inc.next = false;
        self.overrun.next = false;
        self.arm_clear.next = false;
        self.irq.next = self.irq_q.q.val();
        self.irq_q.d.next = false;
        self.used.next = self.cq_pi.val() - self.cq_ci.val();
        self.beat_next.next = self.beat.q.val() + 1;
        self.slot_addr.next = (bit_cast::<64, 32>(self.cq_base_hi.val()) << 32)
            + bit_cast::<64, 32>(self.cq_base_lo.val())
            + (bit_cast::<64, 32>(
                self.cq_pi.val() & !(bits::<32>(0xFFFF_FFFF_u64) << self.cq_log_size.val()),
            ) << 5);
        // Owner bit: 1 on the ring's first pass, 0 on the second, ...
        self.fields.next = bit_cast::<512, 64>(self.wr_id.val())
            | (bit_cast::<512, 32>(self.byte_len.val()) << 64)
            | (bit_cast::<512, 32>(self.imm.val()) << 96)
            | (bit_cast::<512, 8>(self.flags.val()) << 208)
            | (bit_cast::<512, 32>(self.qpn.val() & 0xFF_FFFF) << 128)
            | (bit_cast::<512, 32>(self.src_qp.val() & 0xFF_FFFF) << 160)
            | (bit_cast::<512, 8>(self.status.val()) << 192)
            | (bit_cast::<512, 8>(self.opcode.val()) << 200)
            | (bit_cast::<512, 8>(self.vendor_err.val()) << 216)
            | (bit_cast::<512, 32>(!(self.cq_pi.val() >> self.cq_log_size.val()) & 1) << 248);
        // A 64-byte beat holds a 32-byte slot in its lower or upper half; narrower beats start at a slot.
        self.upper.next = (self.addr.q.val() & self.low_mask.val() & 32) != 0;
        self.wr_addr.next = (self.addr.q.val() & !self.low_mask.val())
            + (bit_cast::<64, 8>(self.beat.q.val()) << self.log_b.val());
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
                if self.valid.val() {
                    if self.used.val() == (bits::<32>(1) << self.cq_log_size.val()) {
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

    /// DMA writes (address, data bytes, strobe) the writer makes for one request with `cq_pi`, and
    /// whether it reported an overrun.
    fn run<const W: usize, const B: usize>(
        cq_pi: u64,
        cq_ci: u64,
    ) -> (Vec<(u64, Vec<u8>, u64)>, bool) {
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
            x.valid.next = true;
            wait_clock_cycle!(sim, clock, x);
            x.valid.next = false;
            for _ in 0..8 {
                if x.wr_valid.val() {
                    let data = x.wr_data.val();
                    let bytes = (0..B)
                        .map(|i| data.get_bits::<8>(i * 8).to_u64() as u8)
                        .collect();
                    o.lock().unwrap().0.push((
                        x.wr_addr.val().to_u64(),
                        bytes,
                        x.wr_strb.val().to_u64(),
                    ));
                }
                if x.overrun.val() {
                    o.lock().unwrap().1 = true;
                }
                wait_clock_cycle!(sim, clock, x);
            }
            sim.done(x)
        });
        let mut uut = CqeWriter::<W, B>::default();
        uut.connect_all();
        sim.run(Box::new(uut), 100_000).unwrap();
        let r = out.lock().unwrap().clone();
        r
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
