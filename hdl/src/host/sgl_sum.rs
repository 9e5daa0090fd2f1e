//! The length of a WQE's list: the sum of the lengths of its first `n` entries (a 128-byte WQE's list
//! area, `MAX_SGE` entries of `rocenic_proto::host::sge`; entries past `n` do not count). The transmit
//! engine checks a gather list against the WQE's LENGTH with it, the receive engine a scatter list. 40
//! bits: four 32-bit lengths cannot overflow it.
//!
//! Three registered stages, so no path has more than one add: the counted lengths, the pairs' sums,
//! the total. `sum` is the total of the `sgl` and `n` held `LATENCY` cycles before; the engines hold
//! them (the list is in its register, NUM_SGE in its own) while they wait for it.
use rust_hdl::prelude::*;

/// Cycles from `sgl` and `n` to `sum`.
pub const LATENCY: usize = 3;

#[derive(LogicBlock)]
pub struct SglSum {
    pub clock: Signal<In, Clock>,
    pub sgl: Signal<In, Bits<512>>,
    /// Entries that count (NUM_SGE; above 4 all four count, and the engines refuse such a list anyway).
    pub n: Signal<In, Bits<8>>,
    pub sum: Signal<Out, Bits<40>>,
    len0: DFF<Bits<32>>,
    len1: DFF<Bits<32>>,
    len2: DFF<Bits<32>>,
    len3: DFF<Bits<32>>,
    pair0: DFF<Bits<33>>,
    pair1: DFF<Bits<33>>,
    total: DFF<Bits<40>>,
    /// Bit offsets of the entries' lengths (16-bit signals: a literal beside a 512-bit value does not
    /// emit).
    sh_len0: Constant<Bits<16>>,
    sh_len1: Constant<Bits<16>>,
    sh_len2: Constant<Bits<16>>,
    sh_len3: Constant<Bits<16>>,
}

impl Default for SglSum {
    fn default() -> Self {
        use rocenic_proto::host::sge;
        let sh = |i: usize| Constant::new((((i * sge::BYTES + sge::LENGTH) * 8) as u64).into());
        Self {
            clock: Default::default(),
            sgl: Default::default(),
            n: Default::default(),
            sum: Default::default(),
            len0: Default::default(),
            len1: Default::default(),
            len2: Default::default(),
            len3: Default::default(),
            pair0: Default::default(),
            pair1: Default::default(),
            total: Default::default(),
            sh_len0: sh(0),
            sh_len1: sh(1),
            sh_len2: sh(2),
            sh_len3: sh(3),
        }
    }
}

impl Logic for SglSum {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, len0, len1, len2, len3, pair0, pair1, total);
        self.len0.d.next = bit_cast::<32, 512>(self.sgl.val() >> self.sh_len0.val());
        self.len1.d.next = 0.into();
        self.len2.d.next = 0.into();
        self.len3.d.next = 0.into();
        if self.n.val() >= 2 {
            self.len1.d.next = bit_cast::<32, 512>(self.sgl.val() >> self.sh_len1.val());
        }
        if self.n.val() >= 3 {
            self.len2.d.next = bit_cast::<32, 512>(self.sgl.val() >> self.sh_len2.val());
        }
        if self.n.val() >= 4 {
            self.len3.d.next = bit_cast::<32, 512>(self.sgl.val() >> self.sh_len3.val());
        }
        self.pair0.d.next =
            bit_cast::<33, 32>(self.len0.q.val()) + bit_cast::<33, 32>(self.len1.q.val());
        self.pair1.d.next =
            bit_cast::<33, 32>(self.len2.q.val()) + bit_cast::<33, 32>(self.len3.q.val());
        self.total.d.next =
            bit_cast::<40, 33>(self.pair0.q.val()) + bit_cast::<40, 33>(self.pair1.q.val());
        self.sum.next = self.total.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_the_counted_entries_only() {
        use rocenic_proto::host::sge;
        let lens: [u64; 4] = [0xFFFF_FFFF, 7, 0x8000_0000, 300];
        let mut list = Bits::<512>::default();
        for (i, &l) in lens.iter().enumerate() {
            // An address and an lkey around each length, so a misplaced field would show.
            list = list | (Bits::<512>::from(0xDEAD_BEEF_u64) << (i * sge::BYTES * 8) as u64);
            list = list | (Bits::<512>::from(l) << ((i * sge::BYTES + sge::LENGTH) * 8) as u64);
            list = list
                | (Bits::<512>::from(0x1234_5678_u64) << ((i * sge::BYTES + sge::LKEY) * 8) as u64);
        }
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<SglSum>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut sim: Sim<SglSum>| {
            let mut x = sim.init()?;
            // A new count every cycle: each sum names the count of LATENCY cycles before.
            let ns: Vec<u64> = (0..=6).chain([2, 4, 1, 3]).collect();
            let mut seen = Vec::new();
            for k in 0..ns.len() + LATENCY {
                x.sgl.next = list;
                x.n.next = ns.get(k).copied().unwrap_or(0).into();
                wait_clock_cycle!(sim, clock, x);
                if k + 1 >= LATENCY {
                    seen.push(x.sum.val().to_u64());
                }
            }
            for (i, &n) in ns.iter().enumerate() {
                let counted = n.clamp(1, 4) as usize;
                let want: u64 = lens[..counted].iter().sum();
                sim_assert_eq!(sim, seen[i], want, x);
            }
            sim.done(x)
        });
        let mut uut = SglSum::default();
        uut.connect_all();
        sim.run(Box::new(uut), 1_000).unwrap();
    }

    #[test]
    fn sgl_sum_synthesizes() {
        let mut uut = SglSum::default();
        uut.connect_all();
        yosys_validate("sgl_sum", &generate_verilog(&uut)).unwrap();
    }
}
