//! The register block, generated from the one register table (`rocenic_proto::regs`) by `hdl/build.rs`.
//! Port names are the register names in lower case; see `docs/registers.md`.
use rust_hdl::prelude::*;

include!(concat!(env!("OUT_DIR"), "/regs_gen.rs"));

#[cfg(test)]
mod tests {
    use super::*;
    use rocenic_proto::regs::{block_header_words, by_offset, Access, REGISTERS};
    use std::collections::HashMap;

    #[test]
    fn regs_synthesize() {
        let mut uut = Regs::default();
        uut.connect_all();
        let v = generate_verilog(&uut);
        std::fs::write(std::env::temp_dir().join("regs.v"), &v).unwrap();
        assert!(v.contains("32'h104"), "QPN decode missing");
    }

    /// What a read of `off` returns after `written` (host writes; the core's inputs all zero).
    fn expected(off: u16, written: &HashMap<u16, u32>) -> u32 {
        if let Some(v) = written.get(&off) {
            return *v;
        }
        if let Some((_, v)) = block_header_words().into_iter().find(|(o, _)| *o == off) {
            return v;
        }
        match by_offset(off) {
            Some(r) if r.access == Access::Ro => 0,
            Some(r) => r.reset,
            None => 0,
        }
    }

    /// Every word of the map and past it (0x0000..0x0800) read back after a distinct value was written to
    /// each writable register: each returns its own register (the written value, the reset value of a
    /// constant, the directory word) one cycle after the request; holes and addresses past the map read 0.
    #[test]
    fn every_word_reads_back() {
        let written: HashMap<u16, u32> = REGISTERS
            .iter()
            .filter(|r| !matches!(r.access, Access::Ro | Access::Const))
            .map(|r| {
                (
                    r.offset,
                    0xA500_0000 ^ ((r.offset as u32) << 8) ^ r.offset as u32,
                )
            })
            .collect();
        let mismatches = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let out = mismatches.clone();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<Regs>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut sim: Sim<Regs>| {
            let mut x = sim.init()?;
            x.reset.next = true;
            wait_clock_cycles!(sim, clock, x, 2);
            x.reset.next = false;
            for (off, v) in &written {
                x.wr_valid.next = true;
                x.wr_addr.next = (*off as u64).into();
                x.wr_data.next = (*v as u64).into();
                wait_clock_cycle!(sim, clock, x);
            }
            x.wr_valid.next = false;
            for off in (0u16..0x0800).step_by(4) {
                x.rd_valid.next = true;
                x.rd_addr.next = (off as u64).into();
                wait_clock_cycle!(sim, clock, x);
                // The data and their valid, one cycle after the request.
                let got = x.rd_data.val().to_u64() as u32;
                let want = expected(off, &written);
                if !x.rd_data_valid.val() || got != want {
                    out.lock()
                        .unwrap()
                        .push((off, got, want, x.rd_data_valid.val()));
                }
                x.rd_valid.next = false;
                x.rd_addr.next = 0xFFFC.into();
                wait_clock_cycle!(sim, clock, x);
            }
            sim.done(x)
        });
        let mut uut = Regs::default();
        uut.connect_all();
        sim.run(Box::new(uut), 1_000_000).unwrap();
        let m = mismatches.lock().unwrap();
        assert!(
            m.is_empty(),
            "(offset, read, expected, valid): {:x?}",
            &m[..m.len().min(8)]
        );
    }
}
