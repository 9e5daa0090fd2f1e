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
        // The QPN register (0x104) is decoded by both the write and the read case.
        let labels = v.lines().filter(|l| l.trim() == "260:").count();
        assert_eq!(labels, 2, "QPN decode missing");
        assert!(v.contains("r_qpn$d = wr_data;"), "QPN write missing");
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
    /// constant, the directory word) one cycle after the request, a counter within the counter RAM's
    /// sweep; holes and addresses past the map read 0. Then again after a second reset, which the shadow
    /// RAM's words outlive: every register reads its reset value but one, written in the cycle it was
    /// read (that read gets the value before the write, as from a flip-flop).
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
            // A read that is not valid, or not the value wanted, is recorded.
            let check = |off: u16, got: u32, want: u32, valid: bool| {
                if !valid || got != want {
                    out.lock().unwrap().push((off, got, want, valid));
                }
            };
            let mut x = sim.init()?;
            x.reset.next = true;
            wait_clock_cycles!(sim, clock, x, 2);
            x.reset.next = false;
            for (off, v) in &written {
                x.wr_valid.next = true;
                x.wr_addr.next = (*off as u64).into();
                x.wr_data.next = (*v as u64).into();
                // Held until taken: a counter's write waits for the sweep.
                let mut taken = false;
                while !taken {
                    taken = x.wr_ready.val();
                    wait_clock_cycle!(sim, clock, x);
                }
            }
            x.wr_valid.next = false;
            let mut want_now = written.clone();
            for pass in 0..2 {
                if pass == 1 {
                    x.reset.next = true;
                    wait_clock_cycles!(sim, clock, x, 2);
                    x.reset.next = false;
                    let off = rocenic_proto::regs::UDP_DPORT;
                    x.rd_valid.next = true;
                    x.rd_addr.next = (off as u64).into();
                    x.wr_valid.next = true;
                    x.wr_addr.next = (off as u64).into();
                    x.wr_data.next = 0x1234.into();
                    wait_clock_cycle!(sim, clock, x);
                    x.rd_valid.next = false;
                    x.wr_valid.next = false;
                    let want = by_offset(off).unwrap().reset;
                    check(
                        off,
                        x.rd_data.val().to_u64() as u32,
                        want,
                        x.rd_data_valid.val(),
                    );
                    wait_clock_cycle!(sim, clock, x);
                    want_now = HashMap::from([(off, 0x1234)]);
                }
                for off in (0u16..0x0800).step_by(4) {
                    let counter = by_offset(off).is_some_and(|r| r.access == Access::Counter);
                    sim_assert!(sim, x.rd_ready.val(), x);
                    x.rd_valid.next = true;
                    x.rd_addr.next = (off as u64).into();
                    wait_clock_cycle!(sim, clock, x);
                    x.rd_valid.next = false;
                    x.rd_addr.next = 0xFFFC.into();
                    // The data and their valid one cycle after the request; a counter's within the sweep.
                    let mut waited = 1;
                    while counter && !x.rd_data_valid.val() && waited <= COUNTER_SWEEP_CYCLES {
                        wait_clock_cycle!(sim, clock, x);
                        waited += 1;
                    }
                    let want = expected(off, &want_now);
                    check(
                        off,
                        x.rd_data.val().to_u64() as u32,
                        want,
                        x.rd_data_valid.val(),
                    );
                    wait_clock_cycle!(sim, clock, x);
                    sim_assert!(sim, !x.rd_data_valid.val(), x);
                }
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

    /// Every counter counts every event: four counters see one every cycle (the accumulators' worst
    /// case), the rest at random, while the host sets counters and reads them. A read during events
    /// returns a value between the counter's at the request and at the answer; after the events stop,
    /// every counter reads exactly its events since reset or since its last write.
    #[test]
    fn counters_count_every_event() {
        let n = COUNTER_OFFSETS.len();
        let failures = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
        let out = failures.clone();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<Regs>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut sim: Sim<Regs>| {
            let mut x = sim.init()?;
            // The events: the same every run.
            let mut rng = crate::prim::test_rng(0x2545_F491_4F6C_DD1D);
            let mut model = vec![0u32; n];
            x.reset.next = true;
            wait_clock_cycles!(sim, clock, x, 2);
            x.reset.next = false;
            // Host operation in flight: (counter, write value or None for a read, value at the request).
            let mut op: Option<(usize, Option<u32>, u32)> = None;
            let mut reading: Option<(usize, u32, usize)> = None;
            for cycle in 0..3000 {
                let mut mask = 0u128;
                for k in 0..n {
                    if k < 4 || rng().is_multiple_of(4) {
                        mask |= 1 << k;
                    }
                }
                x.drive_counter_events(mask);
                // Back to back half the time: each read visit holds the sweep for a cycle.
                if op.is_none() && reading.is_none() && rng().is_multiple_of(2) {
                    let k = (rng() % n as u64) as usize;
                    let w = rng().is_multiple_of(3).then(|| rng() as u32 | 0x8000_0000);
                    op = Some((k, w, model[k]));
                }
                x.wr_valid.next = false;
                x.rd_valid.next = false;
                let mut set = None;
                if let Some((k, w, lo)) = op {
                    let addr = COUNTER_OFFSETS[k] as u64;
                    match w {
                        Some(v) => {
                            x.wr_valid.next = true;
                            x.wr_addr.next = addr.into();
                            x.wr_data.next = (v as u64).into();
                            if x.wr_ready.val() {
                                set = Some((k, v));
                                op = None;
                            }
                        }
                        None => {
                            x.rd_valid.next = true;
                            x.rd_addr.next = addr.into();
                            if x.rd_ready.val() {
                                reading = Some((k, lo, cycle));
                                op = None;
                            }
                        }
                    }
                }
                for (k, m) in model.iter_mut().enumerate() {
                    if (mask >> k) & 1 != 0 {
                        *m = m.wrapping_add(1);
                    }
                }
                if let Some((k, v)) = set {
                    // The write takes the place of what came before; an event in the same cycle
                    // counts after it, except in a flip-flop counter, where the write wins.
                    let flop = FLOP_COUNTER_OFFSETS.contains(&COUNTER_OFFSETS[k]);
                    model[k] = if (mask >> k) & 1 != 0 && !flop {
                        v.wrapping_add(1)
                    } else {
                        v
                    };
                }
                wait_clock_cycle!(sim, clock, x);
                if x.rd_data_valid.val() {
                    let got = x.rd_data.val().to_u64() as u32;
                    match reading.take() {
                        // After the first sweep a read visits its counter at once: four cycles, two
                        // or three when the sweep was visiting it as the read was taken (a
                        // flip-flop counter's, one).
                        Some((k, _, t))
                            if t > COUNTER_SWEEP_CYCLES
                                && !if FLOP_COUNTER_OFFSETS.contains(&COUNTER_OFFSETS[k]) {
                                    cycle - t == 0
                                } else {
                                    (1..=3).contains(&(cycle - t))
                                } =>
                        {
                            out.lock().unwrap().push(format!(
                                "cycle {cycle}: a counter read taken at cycle {t} answered late"
                            ))
                        }
                        Some((k, lo, _)) if got >= lo && got <= model[k] => {}
                        Some((k, lo, _)) => out.lock().unwrap().push(format!(
                            "cycle {cycle}: counter {:#x} read {got}, not in {lo}..={}",
                            COUNTER_OFFSETS[k], model[k]
                        )),
                        None => out
                            .lock()
                            .unwrap()
                            .push(format!("cycle {cycle}: data not asked for")),
                    }
                }
            }
            x.drive_counter_events(0);
            x.wr_valid.next = false;
            x.rd_valid.next = false;
            // Finish a read in flight, then read every counter once the events have stopped.
            wait_clock_cycles!(sim, clock, x, COUNTER_SWEEP_CYCLES);
            sim_assert!(sim, reading.is_none() || x.rd_ready.val(), x);
            for (k, off) in COUNTER_OFFSETS.iter().enumerate() {
                x.rd_valid.next = true;
                x.rd_addr.next = (*off as u64).into();
                wait_clock_cycle!(sim, clock, x);
                x.rd_valid.next = false;
                let mut waited = 1;
                while !x.rd_data_valid.val() && waited <= COUNTER_SWEEP_CYCLES {
                    wait_clock_cycle!(sim, clock, x);
                    waited += 1;
                }
                let got = x.rd_data.val().to_u64() as u32;
                if !x.rd_data_valid.val() || got != model[k] {
                    out.lock().unwrap().push(format!(
                        "counter {off:#x}: read {got} (valid {}), expected {}",
                        x.rd_data_valid.val(),
                        model[k]
                    ));
                }
                wait_clock_cycle!(sim, clock, x);
            }
            sim.done(x)
        });
        let mut uut = Regs::default();
        uut.connect_all();
        sim.run(Box::new(uut), 10_000_000).unwrap();
        let f = failures.lock().unwrap();
        assert!(
            f.is_empty(),
            "{} failures: {:#?}",
            f.len(),
            &f[..f.len().min(8)]
        );
    }
}
