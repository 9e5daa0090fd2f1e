//! The payload prefetch's next packet: which packet of the WQE in progress is read next, and its
//! length and local address, over four registered stages so that the transmit engine's claim reads
//! only registers and equalities.
//!
//! Stage a: the packet index (the one after the packet being sent, or after those already
//! prefetched), tagged with what it was worked out from. Stage b: whether it is below the WQE's
//! packets (the add and the compare in different cycles), and its byte offset (index << PMTU). Stage c: the message's bytes left and the address's low
//! half with its carry. Stage d: the length (a whole MTU or the rest) and the address.
//!
//! `ok` when stages b and d hold the packet that stage a names, stage b's compare was made with stage
//! a's packet count, and stage a's tags are the live inputs. The
//! WQE's length, address and path MTU are not tagged: the engine raises `load` in the cycle at whose
//! end they change, and `ok` stays low until they have gone through every stage.
//!
//! `ok_q` is the same verdict from a register, about the inputs as they were at the last clock edge:
//! worked out a cycle ahead from what the stages will hold after it (stage a's tags equal to the
//! inputs then, so stage a keeps its packet, and stage c's index equal to it), for a reader that knows
//! its inputs did not move at that edge and wants no compare in front of its own logic.
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct PfSeg {
    pub clock: Signal<In, Clock>,
    /// The packet being sent; the first prefetched packet, how many are prefetched, and whether a
    /// prefetch read is under way (one more after those).
    pub snd_idx: Signal<In, Bits<24>>,
    pub pf_idx: Signal<In, Bits<24>>,
    pub pf_n: Signal<In, Bits<3>>,
    pub pf_on: Signal<In, bool>,
    /// The WQE's packets, length and local address; its path MTU as log2 bytes.
    pub npk: Signal<In, Bits<24>>,
    pub w_len: Signal<In, Bits<32>>,
    pub w_laddr: Signal<In, Bits<64>>,
    pub pmtu: Signal<In, Bits<32>>,
    /// The WQE's fields above change this cycle.
    pub load: Signal<In, bool>,
    /// The next packet (stage a's), and whether it is below the WQE's packets (stage b's).
    pub idx: Signal<Out, Bits<24>>,
    pub lt: Signal<Out, bool>,
    /// Its length and address (stage d's), and whether they are of the inputs as they are now.
    pub len: Signal<Out, Bits<16>>,
    pub addr: Signal<Out, Bits<64>>,
    pub ok: Signal<Out, bool>,
    /// `len`, `addr`, `idx` and `lt` are of the inputs as they were at the last clock edge.
    pub ok_q: Signal<Out, bool>,
    next: Signal<Local, Bits<24>>,
    fresh: Signal<Local, bool>,
    hi: Signal<Local, Bits<32>>,
    // stage a and its tags
    a_idx: DFF<Bits<24>>,
    a_pidx: DFF<Bits<24>>,
    a_sidx: DFF<Bits<24>>,
    a_npk: DFF<Bits<24>>,
    a_pn: DFF<Bits<3>>,
    a_pon: DFF<bool>,
    // stages b, c, d, each with the index it is for
    b_idx: DFF<Bits<24>>,
    b_lt: DFF<bool>,
    b_npk: DFF<Bits<24>>,
    b_off: DFF<Bits<32>>,
    c_idx: DFF<Bits<24>>,
    c_rem: DFF<Bits<32>>,
    c_lo: DFF<Bits<33>>,
    c_mtu: DFF<Bits<32>>,
    hi1: DFF<Bits<32>>,
    d_idx: DFF<Bits<24>>,
    d_len: DFF<Bits<16>>,
    d_addr: DFF<Bits<64>>,
    /// Cycles since `load`, up to 3: the stages hold the old WQE's packet until then.
    age: DFF<Bits<2>>,
    ok_r: DFF<bool>,
}

impl Logic for PfSeg {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, a_idx, a_pidx, a_sidx, a_npk, a_pn, a_pon, b_idx, b_off, c_idx, c_rem,
            c_lo, c_mtu, hi1, d_idx, d_len, d_addr, age, b_lt, b_npk, ok_r
        );
        // Stage a.
        self.next.next = self.snd_idx.val() + 1;
        if self.pf_on.val() || (self.pf_n.val() != 0) {
            self.next.next = self.pf_idx.val() + bit_cast::<24, 3>(self.pf_n.val());
            if self.pf_on.val() {
                self.next.next = self.pf_idx.val() + bit_cast::<24, 3>(self.pf_n.val()) + 1;
            }
        }
        self.a_idx.d.next = self.next.val();
        self.a_pidx.d.next = self.pf_idx.val();
        self.a_sidx.d.next = self.snd_idx.val();
        self.a_npk.d.next = self.npk.val();
        self.a_pn.d.next = self.pf_n.val();
        self.a_pon.d.next = self.pf_on.val();
        self.fresh.next = (self.a_pidx.q.val() == self.pf_idx.val())
            && (self.a_sidx.q.val() == self.snd_idx.val())
            && (self.a_npk.q.val() == self.npk.val())
            && (self.a_pn.q.val() == self.pf_n.val())
            && (self.a_pon.q.val() == self.pf_on.val());
        // Stage b.
        self.b_idx.d.next = self.a_idx.q.val();
        self.b_lt.d.next = self.a_idx.q.val() < self.a_npk.q.val();
        self.b_npk.d.next = self.a_npk.q.val();
        self.b_off.d.next = bit_cast::<32, 24>(self.a_idx.q.val()) << self.pmtu.val();
        // Stage c.
        self.c_idx.d.next = self.b_idx.q.val();
        self.c_rem.d.next = self.w_len.val() - self.b_off.q.val();
        self.c_lo.d.next = bit_cast::<33, 32>(self.w_laddr.val().get_bits::<32>(0))
            + bit_cast::<33, 32>(self.b_off.q.val());
        self.c_mtu.d.next = bits::<32>(1) << self.pmtu.val();
        self.hi1.d.next = self.w_laddr.val().get_bits::<32>(32) + 1;
        // Stage d: every packet before the last carries a whole MTU.
        self.d_idx.d.next = self.c_idx.q.val();
        self.d_len.d.next = bit_cast::<16, 32>(self.c_rem.q.val());
        if self.c_rem.q.val() > self.c_mtu.q.val() {
            self.d_len.d.next = bit_cast::<16, 32>(self.c_mtu.q.val());
        }
        self.hi.next = self.w_laddr.val().get_bits::<32>(32);
        if self.c_lo.q.val().get_bit(32) {
            self.hi.next = self.hi1.q.val();
        }
        self.d_addr.d.next = (bit_cast::<64, 32>(self.hi.val()) << 32)
            | bit_cast::<64, 32>(self.c_lo.q.val().get_bits::<32>(0));
        if self.age.q.val() != 3 {
            self.age.d.next = self.age.q.val() + 1;
        }
        if self.load.val() {
            self.age.d.next = 0.into();
        }

        self.idx.next = self.a_idx.q.val();
        self.lt.next = self.b_lt.q.val();
        self.len.next = self.d_len.q.val();
        self.addr.next = self.d_addr.q.val();
        self.ok.next = (self.age.q.val() == 3)
            && self.fresh.val()
            && (self.d_idx.q.val() == self.a_idx.q.val())
            && (self.b_idx.q.val() == self.a_idx.q.val())
            && (self.b_npk.q.val() == self.a_npk.q.val());
        // After this edge stage b holds stage a's packet and count, stage d stage c's index, and with
        // the inputs as stage a's tags say, stage a keeps its packet: the compares `ok` makes then.
        self.ok_r.d.next = (self.age.q.val() >= 2)
            && !self.load.val()
            && self.fresh.val()
            && (self.c_idx.q.val() == self.a_idx.q.val());
        self.ok_q.next = self.ok_r.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug)]
    struct In {
        snd_idx: u32,
        pf_idx: u32,
        pf_n: u32,
        pf_on: bool,
        npk: u32,
        w_len: u32,
        w_laddr: u64,
        pmtu: u32,
    }

    const M24: u32 = 0xFF_FFFF;

    /// (index, below the packets, length, address) of the packet prefetched next.
    fn model(i: &In) -> (u32, bool, u32, u64) {
        let idx = if i.pf_on || i.pf_n != 0 {
            i.pf_idx + i.pf_n + i.pf_on as u32
        } else {
            i.snd_idx + 1
        } & M24;
        let off = idx.wrapping_shl(i.pmtu);
        let len = i.w_len.wrapping_sub(off).min(1 << i.pmtu);
        (idx, idx < i.npk, len, i.w_laddr.wrapping_add(off as u64))
    }

    fn drive(x: &mut PfSeg, i: &In) {
        x.snd_idx.next = (i.snd_idx as u64).into();
        x.pf_idx.next = (i.pf_idx as u64).into();
        x.pf_n.next = (i.pf_n as u64).into();
        x.pf_on.next = i.pf_on;
        x.npk.next = (i.npk as u64).into();
        x.w_len.next = (i.w_len as u64).into();
        x.w_laddr.next = i.w_laddr.into();
        x.pmtu.next = (i.pmtu as u64).into();
    }

    #[test]
    fn segments_the_next_packet_and_never_offers_a_stale_one() {
        // Each WQE starts at its first packet, nothing prefetched.
        let start = |npk, w_len, w_laddr, pmtu| In {
            snd_idx: 0,
            pf_idx: 0,
            pf_n: 0,
            pf_on: false,
            npk,
            w_len,
            w_laddr,
            pmtu,
        };
        let wqes = [
            // 10,000 bytes at 1,024: packets 0..9, the last one 784 bytes.
            start(10, 10_000, 0x1000, 10),
            // The address's low half carries into the high half mid-message.
            start(8, 32_768, 0x7_FFFF_E000, 12),
            // The last packet exactly one MTU, the address wrapping past 2^64.
            start(5, 1_280, 0xFFFF_FFFF_FFFF_FF00, 8),
        ];
        // Each WQE loaded and held until its packet is out; then each input that names the packet
        // moved for one cycle and back, then moved on for good, then back to the start.
        let mut steps: Vec<(In, bool, usize)> = Vec::new();
        for &w in &wqes {
            steps.push((w, true, 4));
            let moved = [
                In { snd_idx: 3, ..w },
                In {
                    pf_idx: 1,
                    pf_n: 2,
                    ..w
                },
                In {
                    pf_idx: 2,
                    pf_n: 3,
                    pf_on: true,
                    ..w
                },
                In {
                    pf_idx: 4,
                    pf_on: true,
                    ..w
                },
                In { npk: 1, ..w },
            ];
            for m in moved {
                steps.push((m, false, 1));
                steps.push((w, false, 4));
            }
            for m in moved {
                steps.push((m, false, 4));
            }
            steps.push((w, false, 4));
        }
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<PfSeg>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut sim: Sim<PfSeg>| {
            let mut x = sim.init()?;
            // The inputs the last clock edge saw (the testbench starts them at zero).
            let mut at_edge = In {
                snd_idx: 0,
                pf_idx: 0,
                pf_n: 0,
                pf_on: false,
                npk: 0,
                w_len: 0,
                w_laddr: 0,
                pmtu: 0,
            };
            for (k, (c, load, hold)) in steps.iter().enumerate() {
                if *load {
                    // The engine raises `load` in the cycle at whose end the WQE's fields change.
                    x.load.next = true;
                    wait_clock_cycle!(sim, clock, x);
                    x.load.next = false;
                }
                drive(&mut x, c);
                x = sim.wait(1, x)?;
                // Just after the inputs moved, and after every edge: what is offered is the packet
                // of the inputs as they are (`ok`), or as the last edge saw them (`ok_q`).
                for cycle in 0..=*hold {
                    if cycle > 0 {
                        wait_clock_cycle!(sim, clock, x);
                        at_edge = *c;
                    }
                    let g = (
                        x.idx.val().to_u64() as u32,
                        x.lt.val(),
                        x.len.val().to_u64() as u32,
                        x.addr.val().to_u64(),
                    );
                    let w = model(c);
                    if x.ok.val() && g != w {
                        println!("step {k} cycle {cycle}: offered {g:x?}, want {w:x?}");
                    }
                    let w_q = model(&at_edge);
                    if x.ok_q.val() && g != w_q {
                        println!("step {k} cycle {cycle}: ok_q on {g:x?}, want {w_q:x?}");
                    }
                    sim_assert!(sim, !x.ok.val() || g == w, x);
                    sim_assert!(sim, !x.ok_q.val() || g == w_q, x);
                }
                // Four edges after the inputs settle, the packet is out, and both say so.
                if *hold >= 4 {
                    sim_assert!(sim, x.ok.val() && x.ok_q.val(), x);
                }
            }
            sim.done(x)
        });
        sim.run(Box::new(PfSeg::default()), 50_000).unwrap();
    }

    #[test]
    fn synthesizes() {
        let mut uut = PfSeg::default();
        uut.connect_all();
        yosys_validate("pf_seg", &generate_verilog(&uut)).unwrap();
    }
}
