//! MR table: `2^M` memory regions in on-chip RAM, looked up by R_Key for every remote access.
//!
//! A key is `index << 8 | variant` (the layout ConnectX uses for its mkeys): bits 8.. name the entry, and
//! the whole 32-bit key must equal the entry's, so a key kept after deregistration stops matching as soon
//! as the driver registers that entry again with another variant. The receive engine presents the key it
//! needs every cycle (`lk_key`); the entry comes out the next cycle together with the key it was read for
//! (`e_for`) and whether a host command wrote the table in between (`e_fresh`), so the engine knows when
//! its answer is valid without a handshake. The R_Key checks themselves (access, PD, bounds; IBA
//! §9.7.5.1.7, C9-88) are in `roce::recv_check`, where the packet's fields are. The entry holds the
//! region's end (IOVA + length) rather than its length, so the bounds check compares and never adds;
//! MR_CMD WRITE computes it in two stages (two 32-bit halves, the carry between them) and stores the
//! entry on its third cycle.
//!
//! A SEND with invalidate (IBA chapter 10, remote invalidation) invalidates an entry from the engine's
//! side: the engine asks for the write (`inv`) after checking the entry, which goes before any host
//! command. While the engine checks an entry it raises `hold`, and host commands wait for it to fall,
//! so nothing changes the entry between the check and what the engine does on it.
//!
//! The entry is the MR_ENTRY record (`rocenic_proto::ctx`, docs/contexts.md), read and written by field.
use super::ctx::{MrEntryPack, MrEntryUnpack, MR_ENTRY_BITS};
use rocenic_proto::regs;
use rust_hdl::prelude::*;

/// Bits of one entry.
pub const MR_ENTRY: usize = MR_ENTRY_BITS;

#[derive(Copy, Clone, PartialEq, Debug, LogicState)]
enum MrState {
    Idle,
    /// MR_CMD CLEAR: every entry invalid, one per cycle.
    Clear,
    /// MR_CMD WRITE: the region's end, low half and carry.
    Sum,
    /// MR_CMD WRITE: the end's high half; the entry is stored once the engine does not hold it.
    Store,
}

#[derive(LogicBlock)]
pub struct MrTable<const M: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    // Host side: the MR window registers, MR_INDEX and MR_CMD.
    pub sel: Signal<In, Bits<32>>,
    pub cmd: Signal<In, Bits<32>>,
    pub cmd_done: Signal<Out, bool>,
    pub w_base: Signal<In, Bits<64>>,
    pub w_len: Signal<In, Bits<32>>,
    pub w_len_hi: Signal<In, Bits<32>>,
    pub w_key: Signal<In, Bits<32>>,
    pub w_access: Signal<In, Bits<32>>,
    pub w_pd: Signal<In, Bits<32>>,
    // Lookup port (receive engine), and invalidation of the entry of `lk_key` (a SEND with invalidate
    // the engine has checked against the entry it read the cycle before).
    pub lk_key: Signal<In, Bits<32>>,
    pub inv: Signal<In, bool>,
    /// The engine is checking the entry it read: host commands wait.
    pub hold: Signal<In, bool>,
    pub e_for: Signal<Out, Bits<32>>,
    pub e_fresh: Signal<Out, bool>,
    pub e_base: Signal<Out, Bits<64>>,
    /// The region's end: IOVA + length.
    pub e_end: Signal<Out, Bits<64>>,
    pub e_key: Signal<Out, Bits<32>>,
    pub e_access: Signal<Out, Bits<32>>,
    pub e_pd: Signal<Out, Bits<32>>,
    ram: RAM<Bits<MR_ENTRY>, M>,
    state: DFF<MrState>,
    clr_idx: DFF<Bits<32>>,
    lk_q: DFF<Bits<32>>,
    fresh: DFF<bool>,
    end_lo: DFF<Bits<33>>,
    end_hi: DFF<Bits<32>>,
    end_q: DFF<Bits<64>>,
    base_hi: Signal<Local, Bits<32>>,
    end_c: Signal<Local, Bits<32>>,
    end_hi_c: Signal<Local, Bits<32>>,
    sel_ok: Signal<Local, bool>,
    n: Constant<Bits<32>>,
    /// MR_CMD's WRITE and CLEAR bits (`regs::MR_CMD_*`).
    cmd_write: Constant<Bits<32>>,
    cmd_clear: Constant<Bits<32>>,
    /// The entry by field: as a command writes it, as the RAM gives it.
    ent_w: MrEntryPack,
    ent_r: MrEntryUnpack,
    mask: Constant<Bits<32>>,
}

impl<const M: usize> Default for MrTable<M> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            sel: Default::default(),
            cmd: Default::default(),
            cmd_done: Default::default(),
            w_base: Default::default(),
            w_len: Default::default(),
            w_len_hi: Default::default(),
            w_key: Default::default(),
            w_access: Default::default(),
            w_pd: Default::default(),
            lk_key: Default::default(),
            inv: Default::default(),
            hold: Default::default(),
            e_for: Default::default(),
            e_fresh: Default::default(),
            e_base: Default::default(),
            e_end: Default::default(),
            e_key: Default::default(),
            e_access: Default::default(),
            e_pd: Default::default(),
            ram: Default::default(),
            state: Default::default(),
            clr_idx: Default::default(),
            lk_q: Default::default(),
            fresh: Default::default(),
            end_lo: Default::default(),
            end_hi: Default::default(),
            end_q: Default::default(),
            base_hi: Default::default(),
            end_c: Default::default(),
            end_hi_c: Default::default(),
            sel_ok: Default::default(),
            n: Constant::new((1u64 << M).into()),
            cmd_write: Constant::new((regs::MR_CMD_WRITE as u64).into()),
            cmd_clear: Constant::new((regs::MR_CMD_CLEAR as u64).into()),
            ent_w: Default::default(),
            ent_r: Default::default(),
            mask: Constant::new(((1u64 << M) - 1).into()),
        }
    }
}

impl<const M: usize> Logic for MrTable<M> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, clr_idx, lk_q, fresh, end_lo, end_hi, end_q);
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.ram.read_address.next = bit_cast::<M, 32>((self.lk_key.val() >> 8) & self.mask.val());
        self.ram.write_address.next = bit_cast::<M, 32>(self.sel.val() & self.mask.val());
        // The region's end: the low halves' sum and carry, the high halves' sum; then the carry in.
        self.end_lo.d.next = bit_cast::<33, 64>(self.w_base.val() & 0xFFFF_FFFF_u64)
            + bit_cast::<33, 32>(self.w_len.val());
        self.base_hi.next = bit_cast::<32, 64>(self.w_base.val() >> 32);
        self.end_hi.d.next = self.base_hi.val() + self.w_len_hi.val();
        self.end_c.next = bit_cast::<32, 33>(self.end_lo.q.val() >> 32);
        self.end_hi_c.next = self.end_hi.q.val() + self.end_c.val();
        self.end_q.d.next = (bit_cast::<64, 32>(self.end_hi_c.val()) << 32)
            | bit_cast::<64, 33>(self.end_lo.q.val() & 0xFFFF_FFFF_u64);
        self.ent_w.iova.next = self.w_base.val();
        self.ent_w.iova_end.next = self.end_q.q.val();
        self.ent_w.key.next = self.w_key.val();
        self.ent_w.access.next = bit_cast::<8, 32>(self.w_access.val());
        self.ent_w.pd.next = bit_cast::<24, 32>(self.w_pd.val());
        self.ram.write_data.next = self.ent_w.word.val();
        self.ram.write_enable.next = false;
        self.cmd_done.next = false;
        self.sel_ok.next = self.sel.val() < self.n.val();

        self.lk_q.d.next = self.lk_key.val();
        self.e_for.next = self.lk_q.q.val();
        self.e_fresh.next = self.fresh.q.val();
        self.ent_r.word.next = self.ram.read_data.val();
        self.e_base.next = self.ent_r.iova.val();
        self.e_end.next = self.ent_r.iova_end.val();
        self.e_key.next = self.ent_r.key.val();
        self.e_access.next = bit_cast::<32, 8>(self.ent_r.access.val());
        self.e_pd.next = bit_cast::<32, 24>(self.ent_r.pd.val());

        match self.state.q.val() {
            MrState::Idle => {
                if self.hold.val() {
                    // The engine holds the entry it checked; the command waits.
                } else if (self.cmd.val() & self.cmd_clear.val()) != 0 {
                    self.clr_idx.d.next = 0.into();
                    self.state.d.next = MrState::Clear;
                } else if (self.cmd.val() & self.cmd_write.val()) != 0 {
                    self.state.d.next = MrState::Sum;
                } else if self.cmd.val() != 0 {
                    // INVALIDATE takes one cycle; an index beyond the table changes nothing.
                    self.cmd_done.next = true;
                    self.ram.write_enable.next = self.sel_ok.val();
                    self.ram.write_data.next = 0.into();
                }
            }
            MrState::Sum => {
                self.state.d.next = MrState::Store;
            }
            MrState::Store => {
                if !self.hold.val() {
                    self.cmd_done.next = true;
                    self.ram.write_enable.next = self.sel_ok.val();
                    self.state.d.next = MrState::Idle;
                }
            }
            MrState::Clear => {
                self.ram.write_address.next = bit_cast::<M, 32>(self.clr_idx.q.val());
                self.ram.write_data.next = 0.into();
                self.ram.write_enable.next = true;
                self.clr_idx.d.next = self.clr_idx.q.val() + 1;
                if self.clr_idx.q.val() == self.mask.val() {
                    self.cmd_done.next = true;
                    self.state.d.next = MrState::Idle;
                }
            }
            _ => {
                self.state.d.next = MrState::Idle;
            }
        }
        if self.inv.val() {
            // First: the engine's check holds only for the entry as it read it; a host command waits
            // a cycle.
            self.ram.write_address.next =
                bit_cast::<M, 32>((self.lk_key.val() >> 8) & self.mask.val());
            self.ram.write_data.next = 0.into();
            self.ram.write_enable.next = true;
            self.cmd_done.next = false;
            self.state.d.next = self.state.q.val();
            self.clr_idx.d.next = self.clr_idx.q.val();
        }
        // A read in the cycle of a write may return the entry from before it: not an answer.
        self.fresh.d.next = !self.ram.write_enable.val();
        if self.reset.val() {
            self.state.d.next = MrState::Idle;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes entries through the window, looks them up by key, invalidates one, clears the table:
    /// every field comes back in its place (the end past a 64-bit length with a carry between the
    /// halves, a PD of 24 bits whatever lies beside it). A command waits while the engine holds the
    /// entry; an invalidation from the engine goes first.
    #[test]
    fn entries_come_back_by_key_with_every_field() {
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<MrTable<6>>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut sim: Sim<MrTable<6>>| {
            let mut x = sim.init()?;
            wait_clock_true!(sim, clock, x);
            // (index, base, length, key, access, pd)
            let entries: [(u64, u64, u64, u64, u64, u64); 3] = [
                (3, 0x1_2345_6789, 0x1_4000_0000, 3 << 8 | 7, 0x8F, 0xFF_FFFF),
                (5, 0xFFFF_0000_FFFF_F000, 0x1001, 5 << 8 | 1, 0x04, 1),
                (
                    63,
                    0x1000,
                    0xFFFF_FFFF_FFFF,
                    63 << 8 | 0xFF,
                    0x02,
                    0x12_3456,
                ),
            ];
            for &(idx, base, len, key, acc, pd) in &entries {
                x.sel.next = idx.into();
                x.w_base.next = base.into();
                x.w_len.next = (len & 0xFFFF_FFFF).into();
                x.w_len_hi.next = (len >> 32).into();
                x.w_key.next = key.into();
                x.w_access.next = acc.into();
                // Bits above the PD's 24 must not reach the entry.
                x.w_pd.next = (pd | 0xAB00_0000).into();
                x.cmd.next = 1.into();
                let mut n = 0;
                loop {
                    wait_clock_cycle!(sim, clock, x);
                    n += 1;
                    if x.cmd_done.val() {
                        break;
                    }
                    sim_assert!(sim, n < 10, x);
                }
                // The entry is stored at this edge.
                x.cmd.next = 0.into();
                wait_clock_cycle!(sim, clock, x);
            }
            let look = |x: &mut Box<MrTable<6>>, key: u64| {
                x.lk_key.next = key.into();
            };
            for &(_, base, len, key, acc, pd) in &entries {
                look(&mut x, key);
                wait_clock_cycle!(sim, clock, x);
                wait_clock_cycle!(sim, clock, x);
                sim_assert_eq!(sim, x.e_for.val().to_u64(), key, x);
                sim_assert!(sim, x.e_fresh.val(), x);
                sim_assert_eq!(sim, x.e_base.val().to_u64(), base, x);
                sim_assert_eq!(sim, x.e_end.val().to_u64(), base.wrapping_add(len), x);
                sim_assert_eq!(sim, x.e_key.val().to_u64(), key, x);
                sim_assert_eq!(sim, x.e_access.val().to_u64(), acc, x);
                sim_assert_eq!(sim, x.e_pd.val().to_u64(), pd, x);
            }
            // INVALIDATE entry 5 while the engine holds an entry: nothing until it lets go.
            x.hold.next = true;
            x.sel.next = 5.into();
            x.cmd.next = 2.into();
            for _ in 0..4 {
                wait_clock_cycle!(sim, clock, x);
                sim_assert!(sim, !x.cmd_done.val(), x);
            }
            x.hold.next = false;
            wait_clock_cycle!(sim, clock, x);
            sim_assert!(sim, x.cmd_done.val(), x);
            x.cmd.next = 0.into();
            wait_clock_cycle!(sim, clock, x);
            look(&mut x, entries[1].3);
            wait_clock_cycle!(sim, clock, x);
            wait_clock_cycle!(sim, clock, x);
            sim_assert_eq!(sim, x.e_end.val().to_u64(), x.e_base.val().to_u64(), x);
            look(&mut x, entries[0].3);
            wait_clock_cycle!(sim, clock, x);
            wait_clock_cycle!(sim, clock, x);
            sim_assert_eq!(sim, x.e_end.val().to_u64(), entries[0].1 + entries[0].2, x);
            // A WRITE of entry 63 under way when the engine takes the hold waits with the entry unstored;
            // the engine's invalidation of entry 3 (its key on the lookup port) goes at once.
            x.sel.next = 63.into();
            x.w_base.next = 0x5000_u64.into();
            x.w_len.next = 0x10.into();
            x.w_len_hi.next = 0.into();
            x.cmd.next = 1.into();
            wait_clock_cycle!(sim, clock, x);
            x.hold.next = true;
            look(&mut x, entries[2].3);
            for _ in 0..4 {
                wait_clock_cycle!(sim, clock, x);
                sim_assert!(sim, !x.cmd_done.val(), x);
            }
            sim_assert_eq!(sim, x.e_end.val().to_u64(), entries[2].1 + entries[2].2, x);
            look(&mut x, entries[0].3);
            wait_clock_cycle!(sim, clock, x);
            x.inv.next = true;
            wait_clock_cycle!(sim, clock, x);
            sim_assert!(sim, !x.cmd_done.val(), x);
            x.inv.next = false;
            x.hold.next = false;
            // Stored at this edge.
            x.cmd.next = 0.into();
            for _ in 0..3 {
                wait_clock_cycle!(sim, clock, x);
            }
            sim_assert_eq!(sim, x.e_end.val().to_u64(), x.e_base.val().to_u64(), x);
            look(&mut x, entries[2].3);
            wait_clock_cycle!(sim, clock, x);
            wait_clock_cycle!(sim, clock, x);
            sim_assert_eq!(sim, x.e_end.val().to_u64(), 0x5010, x);
            // CLEAR: every entry invalid once MR_CMD is done.
            x.cmd.next = 16.into();
            wait_clock_cycle!(sim, clock, x);
            x.cmd.next = 0.into();
            let mut n = 0;
            while !x.cmd_done.val() {
                wait_clock_cycle!(sim, clock, x);
                n += 1;
                sim_assert!(sim, n < 100, x);
            }
            for &(_, _, _, key, _, _) in &entries {
                look(&mut x, key);
                wait_clock_cycle!(sim, clock, x);
                wait_clock_cycle!(sim, clock, x);
                sim_assert_eq!(sim, x.e_end.val().to_u64(), x.e_base.val().to_u64(), x);
            }
            sim.done(x)
        });
        let mut uut = MrTable::<6>::default();
        uut.connect_all();
        sim.run(Box::new(uut), 100_000).unwrap();
    }

    #[test]
    fn mr_table_synthesizes() {
        let mut uut = MrTable::<6>::default();
        uut.connect_all();
        let v = generate_verilog(&uut);
        assert!(v.contains("module top"));
    }
}
