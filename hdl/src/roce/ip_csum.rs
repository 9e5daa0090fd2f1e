//! The IPv4 header checksum (RFC 791, RFC 1071) less its total length: the one's-complement sum of
//! every header word that is fixed for a QP's address vector (version and IHL with the TOS, ID 0,
//! flags DF, TTL with protocol UDP, source and destination address), for the QP's TOS and for a
//! CNP's. The transmit engine adds the packet's total length with one end-around add
//! ([`EndAroundAdd`]), so no multi-operand sum or fold stands in the cycle that fills the header.
//!
//! Two registered stages: (a) the words reduced to a carry-save pair ([`Csa16`], no carry chain),
//! (b) the pair added end-around. `ok` when the inputs are those the sums were worked out from: two
//! cycles after one changes.
use crate::prim::csa16::Csa16;
use crate::prim::end_around_add::EndAroundAdd;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct IpCsum {
    pub clock: Signal<In, Clock>,
    /// Source and destination IPv4 addresses, TTL, the TOS of the QP's packets and of its CNPs.
    pub src: Signal<In, Bits<32>>,
    pub dst: Signal<In, Bits<32>>,
    pub ttl: Signal<In, Bits<8>>,
    pub tos: Signal<In, Bits<8>>,
    pub tos_cnp: Signal<In, Bits<8>>,
    /// The sums, folded to 16 bits: the QP's packets' and its CNPs'.
    pub part: Signal<Out, Bits<16>>,
    pub part_cnp: Signal<Out, Bits<16>>,
    pub ok: Signal<Out, bool>,
    /// Source and destination addresses, the TTL/TOS word, the constant words: six 16-bit words.
    words: Signal<Local, Bits<96>>,
    csa: Csa16<96>,
    csa_c: Csa16<96>,
    // stage a
    a_s: DFF<Bits<16>>,
    a_c: DFF<Bits<16>>,
    a_sc: DFF<Bits<16>>,
    a_cc: DFF<Bits<16>>,
    // stage b
    fold: EndAroundAdd,
    fold_c: EndAroundAdd,
    b_part: DFF<Bits<16>>,
    b_part_c: DFF<Bits<16>>,
    /// The inputs the sums are of; whether they were the same a cycle ago too.
    t_src: DFF<Bits<32>>,
    t_dst: DFF<Bits<32>>,
    t_ttl: DFF<Bits<8>>,
    t_tos: DFF<Bits<8>>,
    t_tosc: DFF<Bits<8>>,
    same: Signal<Local, bool>,
    settled: DFF<bool>,
}

impl Logic for IpCsum {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, a_s, a_c, a_sc, a_cc, b_part, b_part_c, t_src, t_dst, t_ttl, t_tos,
            t_tosc, settled
        );
        // (a) The constant words summed: 0x4500 (version 4, IHL 5) under the TOS, 0x4000 (DF, ID 0,
        // offset 0), 0x0011 (protocol UDP) under the TTL. The TTL and the TOS sit in different words'
        // high and low bytes: TTL << 8 | TOS is their sum.
        self.words.next = bit_cast::<96, 32>(self.src.val())
            | (bit_cast::<96, 32>(self.dst.val()) << 32)
            | (bits::<96>(0x8511) << 64)
            | (bit_cast::<96, 8>(self.ttl.val()) << 88);
        self.csa.a.next = self.words.val() | (bit_cast::<96, 8>(self.tos.val()) << 80);
        self.csa_c.a.next = self.words.val() | (bit_cast::<96, 8>(self.tos_cnp.val()) << 80);
        self.a_s.d.next = self.csa.s.val();
        self.a_c.d.next = self.csa.c.val();
        self.a_sc.d.next = self.csa_c.s.val();
        self.a_cc.d.next = self.csa_c.c.val();
        // (b)
        self.fold.a.next = self.a_s.q.val();
        self.fold.b.next = self.a_c.q.val();
        self.fold_c.a.next = self.a_sc.q.val();
        self.fold_c.b.next = self.a_cc.q.val();
        self.b_part.d.next = self.fold.sum.val();
        self.b_part_c.d.next = self.fold_c.sum.val();

        self.t_src.d.next = self.src.val();
        self.t_dst.d.next = self.dst.val();
        self.t_ttl.d.next = self.ttl.val();
        self.t_tos.d.next = self.tos.val();
        self.t_tosc.d.next = self.tos_cnp.val();
        self.same.next = (self.t_src.q.val() == self.src.val())
            && (self.t_dst.q.val() == self.dst.val())
            && (self.t_ttl.q.val() == self.ttl.val())
            && (self.t_tos.q.val() == self.tos.val())
            && (self.t_tosc.q.val() == self.tos_cnp.val());
        self.settled.d.next = self.same.val();
        self.part.next = self.b_part.q.val();
        self.part_cnp.next = self.b_part_c.q.val();
        self.ok.next = self.same.val() && self.settled.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prim::csa16::fold;

    /// RFC 1071 over the IPv4 header with total length `len`, checksum field zero, complemented.
    fn rfc1071(src: u32, dst: u32, ttl: u8, tos: u8, len: u16) -> u16 {
        let words = [
            0x4500 | tos as u32,
            len as u32,
            0,
            0x4000,
            (ttl as u32) << 8 | 0x11,
            0,
            src >> 16,
            src & 0xFFFF,
            dst >> 16,
            dst & 0xFFFF,
        ];
        let mut s: u32 = words.iter().sum();
        while s > 0xFFFF {
            s = (s & 0xFFFF) + (s >> 16);
        }
        !(s as u16)
    }

    /// What the engine does with `part`: the length added end-around, complemented.
    fn with_len(part: u16, len: u16) -> u16 {
        !fold(part, len)
    }

    fn drive(x: &mut IpCsum, (src, dst, ttl, tos, tosc): (u32, u32, u8, u8, u8)) {
        x.src.next = (src as u64).into();
        x.dst.next = (dst as u64).into();
        x.ttl.next = (ttl as u64).into();
        x.tos.next = (tos as u64).into();
        x.tos_cnp.next = (tosc as u64).into();
    }

    #[test]
    fn sums_the_header_and_waits_for_changed_inputs() {
        // (src, dst, ttl, tos, CNP tos)
        let cases: Vec<(u32, u32, u8, u8, u8)> = vec![
            (0x0A00_0001, 0x0A00_0002, 64, 0x6A, 0xC0),
            // Every word at its largest: the folds carry.
            (0xFFFF_FFFF, 0xFFFF_FFFF, 255, 0xFF, 0xFF),
            (0xC0A8_0101, 0xC0A8_01FE, 1, 0x00, 0xB8),
            (0, 0, 0, 0, 0),
        ];
        let lens = [20u16, 28, 1_500, 4_158, 0xFFFF, 0xFFFF - 0x4500];
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<IpCsum>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut sim: Sim<IpCsum>| {
            let mut x = sim.init()?;
            for (k, &(src, dst, ttl, tos, tosc)) in cases.iter().enumerate() {
                // A field moved, and back, for one cycle each: the sums wait.
                let c = (src, dst, ttl, tos, tosc);
                let moved = [
                    (src ^ 1, dst, ttl, tos, tosc),
                    (src, dst ^ 0x10000, ttl, tos, tosc),
                    (src, dst, !ttl, tos, tosc),
                    (src, dst, ttl, tos ^ 4, tosc),
                    (src, dst, ttl, tos, tosc ^ 4),
                ];
                for m in moved {
                    drive(&mut x, m);
                    x = sim.wait(1, x)?;
                    sim_assert!(sim, !x.ok.val(), x);
                    wait_clock_cycle!(sim, clock, x);
                    drive(&mut x, c);
                    x = sim.wait(1, x)?;
                    for _ in 0..2 {
                        sim_assert!(sim, !x.ok.val(), x);
                        wait_clock_cycle!(sim, clock, x);
                    }
                    sim_assert!(sim, x.ok.val(), x);
                }
                for len in lens {
                    let got = (
                        with_len(x.part.val().to_u64() as u16, len),
                        with_len(x.part_cnp.val().to_u64() as u16, len),
                    );
                    let want = (
                        rfc1071(src, dst, ttl, tos, len),
                        rfc1071(src, dst, ttl, tosc, len),
                    );
                    if got != want {
                        println!("case {k} length {len}: {got:#x?}, want {want:#x?}");
                    }
                    sim_assert!(sim, got == want, x);
                }
            }
            sim.done(x)
        });
        sim.run(Box::new(IpCsum::default()), 10_000).unwrap();
    }

    #[test]
    fn synthesizes() {
        let mut uut = IpCsum::default();
        uut.connect_all();
        yosys_validate("ip_csum", &generate_verilog(&uut)).unwrap();
    }
}
