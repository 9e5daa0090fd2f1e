//! The length of a WQE's list: the sum of the lengths of its first `n` entries (a 128-byte WQE's list
//! area, `MAX_SGE` entries of `rocenic_proto::host::sge`; entries past `n` do not count). The transmit
//! engine checks a gather list against the WQE's LENGTH with it, the receive engine a scatter list. 40
//! bits: four 32-bit lengths cannot overflow it.
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct SglSum {
    pub sgl: Signal<In, Bits<512>>,
    /// Entries that count (NUM_SGE; above 4 all four count, and the engines refuse such a list anyway).
    pub n: Signal<In, Bits<8>>,
    pub sum: Signal<Out, Bits<40>>,
    len0: Signal<Local, Bits<40>>,
    len1: Signal<Local, Bits<40>>,
    len2: Signal<Local, Bits<40>>,
    len3: Signal<Local, Bits<40>>,
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
            sgl: Default::default(),
            n: Default::default(),
            sum: Default::default(),
            len0: Default::default(),
            len1: Default::default(),
            len2: Default::default(),
            len3: Default::default(),
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
        self.len0.next =
            bit_cast::<40, 32>(bit_cast::<32, 512>(self.sgl.val() >> self.sh_len0.val()));
        self.len1.next = 0.into();
        self.len2.next = 0.into();
        self.len3.next = 0.into();
        if self.n.val() >= 2 {
            self.len1.next =
                bit_cast::<40, 32>(bit_cast::<32, 512>(self.sgl.val() >> self.sh_len1.val()));
        }
        if self.n.val() >= 3 {
            self.len2.next =
                bit_cast::<40, 32>(bit_cast::<32, 512>(self.sgl.val() >> self.sh_len2.val()));
        }
        if self.n.val() >= 4 {
            self.len3.next =
                bit_cast::<40, 32>(bit_cast::<32, 512>(self.sgl.val() >> self.sh_len3.val()));
        }
        self.sum.next = (self.len0.val() + self.len1.val()) + (self.len2.val() + self.len3.val());
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
        let mut uut = SglSum::default();
        uut.connect_all();
        for n in 0..=6u64 {
            uut.sgl.next = list;
            uut.n.next = n.into();
            // Settle: the lengths, then their sum.
            for _ in 0..3 {
                uut.update_all();
            }
            let counted = n.clamp(1, 4) as usize;
            let want: u64 = lens[..counted].iter().sum();
            assert_eq!(uut.sum.val().to_u64(), want, "n = {n}");
        }
    }

    #[test]
    fn sgl_sum_synthesizes() {
        let mut uut = SglSum::default();
        uut.connect_all();
        yosys_validate("sgl_sum", &generate_verilog(&uut)).unwrap();
    }
}
