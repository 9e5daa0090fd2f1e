//! Generates the register block (`Regs`) from the one register table in `rocenic_proto::regs`, so the RTL
//! decoder can never disagree with the driver or the docs. The output is an ordinary rust-hdl block.
//! Also generates the context records' pack and unpack blocks from `rocenic_proto::ctx` (`contexts`).
use rocenic_proto::ctx::RECORDS;
use rocenic_proto::regs::{block_header_words, Access, Register, REGISTERS};
use std::fmt::Write;

/// The table with port names (register names in lower case).
fn all_registers() -> Vec<(String, Register)> {
    REGISTERS
        .iter()
        .map(|r| (r.name.to_lowercase(), *r))
        .collect()
}

/// Counters that stay in flip-flops; every other counter lives in the counter RAM below. CQ_PI: the CQE
/// writer takes the next slot from it every cycle. QP_ERR_EVENTS: the driver reads it on every post and
/// poll (`QueuePair::query`), so it keeps the one-cycle read of a plain register.
const FLOP_COUNTERS: [&str; 2] = ["CQ_PI", "QP_ERR_EVENTS"];

/// Bits to hold `n` (n > 0).
fn bits_for(n: usize) -> usize {
    (usize::BITS - n.leading_zeros()) as usize
}

fn main() {
    contexts();
    println!("cargo:rerun-if-changed=../proto/src/regs.rs");
    println!("cargo:rerun-if-changed=build.rs");
    let regs = all_registers();
    let mut fields = String::new();
    let mut dffs = Vec::new();
    let mut body = String::new();
    let mut writes = String::new();
    let mut core = String::new();
    let mut reset = String::new();
    let mut reads = String::new();
    // The counter RAM: one 32-bit word per counter in a block RAM instead of a flip-flop register, an
    // incrementer and a read-multiplexer input each. Events add into a small accumulator per counter; a
    // sweep visits one counter per cycle in three stages (address the RAM; take its word and the
    // accumulator; write back their sum), so a counter is exact whenever it is visited and no stage has
    // more than 6 LUT levels: the RAM read has a stage of its own, the 32-bit add one without the selects.
    // A host read visits its counter at once (the sweep waits that cycle) and answers at most four cycles
    // after it was taken; a host write waits for the sweep. rd_ready/wr_ready are low meanwhile.
    let in_ram = |r: &Register| r.access == Access::Counter && !FLOP_COUNTERS.contains(&r.name);
    let ram_counters: Vec<&(String, Register)> = regs.iter().filter(|(_, r)| in_ram(r)).collect();
    let cn = ram_counters.len();
    assert!(cn >= 2, "the sweep reads and writes one word per cycle");
    let ib = bits_for(cn - 1);
    // An accumulator is emptied once per sweep and gains at most one a cycle. A sweep takes `cn` cycles,
    // plus one for each host read visit, which come at most one in three cycles (a read answered three
    // cycles after it was taken lets the next be taken the cycle after): at most 2 * cn, with a margin (one cycle
    // of it for the sweep's restart: it stands still while no accumulator holds anything). The same
    // bound is the longest a host write waits for the sweep.
    let sweep_max = 2 * cn + 2;
    let aw = bits_for(sweep_max);
    // The shadow RAM: the host's read-back of the plain writable registers (Access::Rw; RwCore ones also
    // change from the core). The register's flip-flops still drive the core, but reads come from a RAM
    // word written beside them, so these registers leave the read multiplexer, and synthesis drops the
    // flip-flops of bits the core never reads. A word counts only once written since reset (`shw_*`);
    // until then a read gives the reset value. Same latency as a flip-flop read: the RAM is read in the
    // cycle the read is taken and answers the next.
    let shadowed = |r: &Register| r.access == Access::Rw;
    let sn = regs.iter().filter(|(_, r)| shadowed(r)).count();
    assert!(sn >= 2, "the shadow RAM needs an address bit");
    let sb = bits_for(sn - 1);
    let mut sk = 0usize;
    let mut sweep = String::new();
    // The sweep's take of the visited counter's accumulator, and the decode of a host write to a RAM
    // counter: cases over an index, not chains of compares (one table lookup in simulation).
    let mut take = String::new();
    let mut counter_writes = String::new();
    // Whether the sweep has anything to take: an accumulator holds events or gains one now.
    let mut pending = String::new();
    for (k, (n, r)) in ram_counters.iter().enumerate() {
        let off = r.offset;
        writeln!(
            pending,
            "        if (self.acc_{n}.q.val() != bits::<{aw}>(0)) || self.{n}_inc.val() {{ self.cnt_any.d.next = true; }}"
        )
        .unwrap();
        writeln!(
            fields,
            "    /// {}\n    pub {n}_inc: Signal<In, bool>,\n    acc_{n}: DFF<Bits<{aw}>>,",
            r.doc
        )
        .unwrap();
        dffs.push(format!("acc_{n}"));
        writeln!(reset, "            self.acc_{n}.d.next = bits::<{aw}>(0);").unwrap();
        // Emptied when the sweep takes it or a host write sets the counter; the event of this cycle
        // is kept either way.
        write!(
            sweep,
            "        if (self.cnt_q.q.val() == bits::<{ib}>({k})) || (self.wr_cnt.val() && (self.wr_cidx.val() == bits::<{ib}>({k}))) {{
            self.acc_{n}.d.next = bits::<{aw}>(0);
            if self.{n}_inc.val() {{ self.acc_{n}.d.next = bits::<{aw}>(1); }}
        }} else {{
            if self.{n}_inc.val() {{ self.acc_{n}.d.next = self.acc_{n}.q.val() + 1; }}
        }}
"
        )
        .unwrap();
        writeln!(
            take,
            "            {k} => {{ self.cnt_add.d.next = self.acc_{n}.q.val(); }}"
        )
        .unwrap();
        writeln!(
            counter_writes,
            "                {off} => {{ self.wr_cnt.next = true; self.wr_cidx.next = bits::<{ib}>({k}); }}"
        )
        .unwrap();
        writeln!(
            reads,
            "            {off} => {{ self.rdata.d.next = bits::<32>(0); if self.rd_take.val() {{ self.rvalid.d.next = false; self.crd_pend.d.next = true; self.crd_go.d.next = true; self.crd_idx.d.next = bits::<{ib}>({k}); }} }}"
        )
        .unwrap();
    }
    for (n, r) in regs.iter().filter(|(_, r)| !in_ram(r)) {
        let off = r.offset;
        match r.access {
            Access::Const => {
                writeln!(
                    reads,
                    "            {off} => {{ self.rdata.d.next = bits::<32>({:#x}); }}",
                    r.reset
                )
                .unwrap();
            }
            Access::Ro => {
                writeln!(
                    fields,
                    "    /// {}\n    pub {n}: Signal<In, Bits<32>>,",
                    r.doc
                )
                .unwrap();
                writeln!(
                    reads,
                    "            {off} => {{ self.rdata.d.next = self.{n}.val(); }}"
                )
                .unwrap();
            }
            Access::Rw | Access::RwCore | Access::Counter => {
                writeln!(
                    fields,
                    "    /// {}\n    pub {n}: Signal<Out, Bits<32>>,\n    r_{n}: DFF<Bits<32>>,",
                    r.doc
                )
                .unwrap();
                dffs.push(format!("r_{n}"));
                writeln!(body, "        self.{n}.next = self.r_{n}.q.val();").unwrap();
                writeln!(
                    reset,
                    "            self.r_{n}.d.next = bits::<32>({:#x});",
                    r.reset
                )
                .unwrap();
                if shadowed(r) {
                    let k = sk;
                    sk += 1;
                    writeln!(
                        fields,
                        "    /// {n} written since reset: its shadow word holds it.\n    shw_{n}: DFF<bool>,"
                    )
                    .unwrap();
                    dffs.push(format!("shw_{n}"));
                    writeln!(writes, "                {off} => {{ self.r_{n}.d.next = self.wr_data.val(); self.shd_ram.write_enable.next = true; self.shd_ram.write_address.next = bits::<{sb}>({k}); self.shw_{n}.d.next = true; }}").unwrap();
                    writeln!(reset, "            self.shw_{n}.d.next = false;").unwrap();
                    writeln!(
                        reads,
                        "            {off} => {{ self.rdata.d.next = bits::<32>({:#x}); self.shd_ra.next = bits::<{sb}>({k}); self.shd_sel.d.next = true; self.shd_ok.d.next = self.shw_{n}.q.val(); }}",
                        r.reset
                    )
                    .unwrap();
                } else {
                    writeln!(
                        writes,
                        "                {off} => {{ self.r_{n}.d.next = self.wr_data.val(); }}"
                    )
                    .unwrap();
                    writeln!(
                        reads,
                        "            {off} => {{ self.rdata.d.next = self.r_{n}.q.val(); }}"
                    )
                    .unwrap();
                }
                if r.access == Access::RwCore {
                    writeln!(fields, "    pub {n}_set: Signal<In, bool>,\n    pub {n}_val: Signal<In, Bits<32>>,").unwrap();
                    writeln!(core, "        if self.{n}_set.val() {{ self.r_{n}.d.next = self.{n}_val.val(); }}").unwrap();
                }
                if r.access == Access::Counter {
                    writeln!(fields, "    pub {n}_inc: Signal<In, bool>,").unwrap();
                    // A host write in the same cycle wins (it is emitted after this, below).
                    writeln!(core, "        if self.{n}_inc.val() {{ self.r_{n}.d.next = self.r_{n}.q.val() + 1; }}").unwrap();
                }
            }
        }
    }
    // The register-block directory: constants.
    for (off, v) in block_header_words() {
        writeln!(
            reads,
            "            {off} => {{ self.rdata.d.next = bits::<32>({v:#x}); }}"
        )
        .unwrap();
    }
    assert_eq!(sk, sn);
    dffs.push("rdata".into());
    dffs.push("rvalid".into());
    dffs.push("shd_sel".into());
    dffs.push("shd_ok".into());
    for d in [
        "cnt_p",
        "cnt_q",
        "cnt_any",
        "cnt_add",
        "cnt_init",
        "cnt_r",
        "cnt_w",
        "cnt_base_q",
        "cnt_w_val",
        "crd_pend",
        "crd_go",
        "crd_idx",
        "cwr_pend",
        "cwr_idx",
        "cwr_data",
    ] {
        dffs.push(d.into());
    }
    let last = cn - 1;
    let mut src = format!(
        r#"// Generated by hdl/build.rs from rocenic_proto::regs::REGISTERS. Do not edit.

/// The register block: host-facing read/write port, one flop per writable register (the plain ones read
/// back from a shadow RAM), counters the core increments, and read-only inputs the core drives. A read
/// returns its data one cycle after it is taken
/// (`rd_valid` with `rd_ready`), a counter's at most four cycles after (in the first {cn} cycles after reset, when
/// the counter RAM's first sweep reaches it); `rd_ready` is low until then. A write to a counter holds
/// `wr_ready` low until the sweep reaches it, at most {sweep_max} cycles.
#[derive(LogicBlock, Default)]
pub struct Regs {{
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub wr_valid: Signal<In, bool>,
    pub wr_addr: Signal<In, Bits<16>>,
    pub wr_data: Signal<In, Bits<32>>,
    pub rd_valid: Signal<In, bool>,
    pub rd_addr: Signal<In, Bits<16>>,
    pub rd_data: Signal<Out, Bits<32>>,
    pub rd_data_valid: Signal<Out, bool>,
    pub rd_ready: Signal<Out, bool>,
    pub wr_ready: Signal<Out, bool>,
{fields}    rdata: DFF<Bits<32>>,
    rvalid: DFF<bool>,
    wr_take: Signal<Local, bool>,
    rd_take: Signal<Local, bool>,
    /// The write taken now is to RAM counter `wr_cidx`.
    wr_cnt: Signal<Local, bool>,
    wr_cidx: Signal<Local, Bits<{ib}>>,
    /// Counter RAM, one word per RAM counter; the sweep's next counter `cnt_p`.
    cnt_ram: RAM<Bits<32>, {ib}>,
    cnt_p: DFF<Bits<{ib}>>,
    /// The counter visited (its word addressed) this cycle: the sweep's, or a host read's.
    cnt_v: Signal<Local, Bits<{ib}>>,
    /// The take stage's counter (its word on the RAM's output, its accumulator taken) and the write
    /// stage's (`cnt_base_q` + `cnt_add` written back); `cnt_w` was written last cycle, `cnt_w_val`.
    cnt_q: DFF<Bits<{ib}>>,
    cnt_r: DFF<Bits<{ib}>>,
    cnt_w: DFF<Bits<{ib}>>,
    cnt_base_q: DFF<Bits<32>>,
    cnt_w_val: DFF<Bits<32>>,
    /// The take stage's word before the write stage's sum is forwarded into it.
    cnt_pre: Signal<Local, Bits<32>>,
    cnt_cwr: Signal<Local, bool>,
    /// The accumulator taken from counter `cnt_q`, added in the write stage.
    cnt_add: DFF<Bits<{aw}>>,
    /// The first sweep after reset: the RAM's words count as 0.
    cnt_init: DFF<bool>,
    /// Some accumulator held events or gained one last cycle. Without any the sweep stands still: it
    /// would only rewrite words unchanged, and a core at rest then changes no state at all (what the
    /// co-simulation's fast-forward looks for).
    cnt_any: DFF<bool>,
    cnt_sum: Signal<Local, Bits<32>>,
    /// A host read of counter `crd_idx` is under way: visited at once, or, in the first sweep after
    /// reset, when the sweep reaches it.
    crd_pend: DFF<bool>,
    /// The read's counter is still to be visited.
    crd_go: DFF<bool>,
    crd_idx: DFF<Bits<{ib}>>,
    /// A host write of counter `cwr_idx` waits for the sweep.
    cwr_pend: DFF<bool>,
    cwr_idx: DFF<Bits<{ib}>>,
    cwr_data: DFF<Bits<32>>,
    /// Shadow RAM: the host's read-back of the {sn} plain writable registers, one word each.
    shd_ram: RAM<Bits<32>, {sb}>,
    /// The shadow word the read taken this cycle addresses.
    shd_ra: Signal<Local, Bits<{sb}>>,
    /// The read answered now is of a shadowed register ...
    shd_sel: DFF<bool>,
    /// ... written since reset: its data are the RAM's, else `rdata`'s (the reset value).
    shd_ok: DFF<bool>,
}}

impl Logic for Regs {{
    #[hdl_gen]
    fn update(&mut self) {{
        dff_setup!(self, clock, {dffs});
        self.wr_take.next = self.wr_valid.val() && !self.cwr_pend.q.val();
        self.rd_take.next = self.rd_valid.val() && !self.crd_pend.q.val();
        self.wr_ready.next = !self.cwr_pend.q.val();
        self.rd_ready.next = !self.crd_pend.q.val();
        // The counter RAM's write stage: the word taken last cycle plus what its accumulator held.
        self.cnt_ram.read_clock.next = self.clock.val();
        self.cnt_ram.write_clock.next = self.clock.val();
        self.cnt_sum.next = self.cnt_base_q.q.val() + bit_cast::<32, {aw}>(self.cnt_add.q.val());
        self.cnt_ram.write_enable.next = true;
        self.cnt_ram.write_address.next = self.cnt_r.q.val();
        self.cnt_ram.write_data.next = self.cnt_sum.val();
        self.cnt_w.d.next = self.cnt_r.q.val();
        self.cnt_w_val.d.next = self.cnt_sum.val();
        // The take stage: the RAM's word, or the one written last cycle (the RAM gave the old one), or
        // 0 in the first sweep, or a pending host write (the events since are added to it); the write
        // stage's sum when it is the same counter, selected last (the adder's path).
        self.cnt_pre.next = self.cnt_ram.read_data.val();
        if self.cnt_w.q.val() == self.cnt_q.q.val() {{ self.cnt_pre.next = self.cnt_w_val.q.val(); }}
        if self.cnt_init.q.val() {{ self.cnt_pre.next = bits::<32>(0); }}
        self.cnt_cwr.next = self.cwr_pend.q.val() && (self.cwr_idx.q.val() == self.cnt_q.q.val());
        if self.cnt_cwr.val() {{
            self.cnt_pre.next = self.cwr_data.q.val();
            self.cwr_pend.d.next = false;
        }}
        self.cnt_base_q.d.next = self.cnt_pre.val();
        if (self.cnt_r.q.val() == self.cnt_q.q.val()) && !self.cnt_init.q.val() && !self.cnt_cwr.val() {{
            self.cnt_base_q.d.next = self.cnt_sum.val();
        }}
        self.cnt_r.d.next = self.cnt_q.q.val();
        if self.cnt_q.q.val() == bits::<{ib}>({last}) {{ self.cnt_init.d.next = false; }}
        // The read stage: the sweep's next counter, or a host read's (not in the first sweep, whose
        // words count as 0 only once).
        self.cnt_v.next = self.cnt_p.q.val();
        self.cnt_p.d.next = self.cnt_p.q.val() + 1;
        if self.cnt_p.q.val() == bits::<{ib}>({last}) {{ self.cnt_p.d.next = bits::<{ib}>(0); }}
        if !self.cnt_any.q.val() && !self.cnt_init.q.val() && !self.cwr_pend.q.val() {{ self.cnt_p.d.next = self.cnt_p.q.val(); }}
        self.cnt_any.d.next = false;
{pending}        if self.crd_pend.q.val() && self.crd_go.q.val() && !self.cnt_init.q.val() {{
            self.cnt_v.next = self.crd_idx.q.val();
            self.cnt_p.d.next = self.cnt_p.q.val();
            self.crd_go.d.next = false;
        }}
        self.cnt_ram.read_address.next = self.cnt_v.val();
        self.cnt_q.d.next = self.cnt_v.val();
        self.cnt_add.d.next = bits::<{aw}>(0);
        // The shadow RAM's defaults: the host writes below may set its write port, the read case its
        // read address.
        self.shd_ram.read_clock.next = self.clock.val();
        self.shd_ram.write_clock.next = self.clock.val();
        self.shd_ram.write_enable.next = false;
        self.shd_ram.write_address.next = bits::<{sb}>(0);
        self.shd_ram.write_data.next = self.wr_data.val();
        self.shd_ra.next = bits::<{sb}>(0);
        self.shd_sel.d.next = false;
        self.shd_ok.d.next = false;
        self.wr_cnt.next = false;
        self.wr_cidx.next = bits::<{ib}>(0);
        if self.wr_take.val() {{
            match self.wr_addr.val().index() {{
{counter_writes}                _ => {{ self.wr_cnt.next = false; }}
            }}
        }}
{sweep}        match self.cnt_q.q.val().index() {{
{take}            _ => {{ self.cnt_add.d.next = bits::<{aw}>(0); }}
        }}
        if self.wr_cnt.val() {{
            self.cwr_pend.d.next = true;
            self.cwr_idx.d.next = self.wr_cidx.val();
            self.cwr_data.d.next = self.wr_data.val();
            // Events before the write are not part of the written value.
            if self.cnt_q.q.val() == self.wr_cidx.val() {{ self.cnt_add.d.next = bits::<{aw}>(0); }}
        }}
{body}{core}        if self.wr_take.val() {{
            match self.wr_addr.val().index() {{
{writes}                _ => {{ self.shd_ram.write_enable.next = false; }}
            }}
        }}
        self.rvalid.d.next = self.rd_take.val();
        // One case over the address (a parallel mux), not a chain of ifs: the chain was the core's
        // longest path and deep enough to exhaust Yosys' recursion.
        match self.rd_addr.val().index() {{
{reads}            _ => {{ self.rdata.d.next = bits::<32>(0); }}
        }}
        self.shd_ram.read_address.next = self.shd_ra.val();
        if self.crd_pend.q.val() && (self.crd_idx.q.val() == self.cnt_r.q.val()) {{
            self.rdata.d.next = self.cnt_sum.val();
            self.shd_sel.d.next = false;
            self.rvalid.d.next = true;
            self.crd_pend.d.next = false;
            self.crd_go.d.next = false;
        }}
        if self.reset.val() {{
{reset}            self.cnt_p.d.next = bits::<{ib}>(0);
            self.cnt_add.d.next = bits::<{aw}>(0);
            self.cnt_base_q.d.next = bits::<32>(0);
            self.cnt_init.d.next = true;
            self.crd_pend.d.next = false;
            self.crd_go.d.next = false;
            self.cwr_pend.d.next = false;
            self.rvalid.d.next = false;
            self.shd_sel.d.next = false;
        }}
        self.rd_data.next = self.rdata.q.val();
        if self.shd_sel.q.val() && self.shd_ok.q.val() {{ self.rd_data.next = self.shd_ram.read_data.val(); }}
        self.rd_data_valid.next = self.rvalid.q.val();
    }}
}}
"#,
        dffs = dffs.join(", "),
    );
    // Test support: every counter's event input driven from one mask, bit k for COUNTER_OFFSETS[k].
    let counters: Vec<&(String, Register)> = regs
        .iter()
        .filter(|(_, r)| r.access == Access::Counter)
        .collect();
    let mut drive = String::new();
    let mut offsets = String::new();
    for (k, (n, r)) in counters.iter().enumerate() {
        let bit = if k == 0 {
            "mask".to_string()
        } else {
            format!("(mask >> {k})")
        };
        writeln!(drive, "        self.{n}_inc.next = {bit} & 1 != 0;").unwrap();
        write!(offsets, "{:#06x}, ", r.offset).unwrap();
    }
    write!(
        src,
        r#"
/// Offsets of the counters, in the bit order of [`Regs::drive_counter_events`].
#[cfg(test)]
pub(crate) const COUNTER_OFFSETS: [u16; {nc}] = [{offsets}];
/// Offsets of the counters kept in flip-flops (a host write in the same cycle as an event wins).
#[cfg(test)]
pub(crate) const FLOP_COUNTER_OFFSETS: [u16; {nf}] = [{flops}];
/// Most cycles a counter write waits for the sweep, and a counter read in the first sweep after reset.
#[cfg(test)]
pub(crate) const COUNTER_SWEEP_CYCLES: usize = {sweep_max};

#[cfg(test)]
impl Regs {{
    /// Drives counter k's event input from bit k of `mask` (the order of [`COUNTER_OFFSETS`]).
    pub(crate) fn drive_counter_events(&mut self, mask: u128) {{
{drive}    }}
}}
"#,
        nc = counters.len(),
        nf = FLOP_COUNTERS.len(),
        flops = regs
            .iter()
            .filter(|(_, r)| FLOP_COUNTERS.contains(&r.name))
            .map(|(_, r)| format!("{:#06x}", r.offset))
            .collect::<Vec<_>>()
            .join(", "),
    )
    .unwrap();
    assert!(counters.len() <= 128, "drive_counter_events takes a u128");
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("regs_gen.rs");
    std::fs::write(out, src).unwrap();
}

/// `QP_REQ_ATTR` -> `QpReqAttr`.
fn camel(name: &str) -> String {
    name.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next().unwrap().to_string() + &c.as_str().to_lowercase()
        })
        .collect()
}

/// For each context record: `<NAME>_BITS`, a pack block (fields in, `word` out) and an unpack block
/// (`word` in, fields out), one-bit fields as `bool`; and a test that each field lands at the bits the
/// table gives it and comes back out.
fn contexts() {
    println!("cargo:rerun-if-changed=../proto/src/ctx.rs");
    let mut src =
        String::from("// Generated by hdl/build.rs from rocenic_proto::ctx; do not edit.\n");
    let mut tests = String::new();
    for r in RECORDS {
        let (name, n, cm) = (r.name, r.bits(), camel(r.name));
        let ty = |b: usize| {
            if b == 1 {
                "bool".to_string()
            } else {
                format!("Bits<{b}>")
            }
        };
        let mut pack_ports = String::new();
        let mut unpack_ports = String::new();
        let mut pack = Vec::new();
        let mut unpack = String::new();
        let mut drive = String::new();
        let mut check = String::new();
        for (lo, f) in r.layout() {
            let (fname, b) = (f.name, f.bits);
            writeln!(
                pack_ports,
                "    /// {}\n    pub {fname}: Signal<In, {}>,",
                f.doc,
                ty(b)
            )
            .unwrap();
            writeln!(
                unpack_ports,
                "    /// {}\n    pub {fname}: Signal<Out, {}>,",
                f.doc,
                ty(b)
            )
            .unwrap();
            let val = if b == 1 {
                format!("bit_cast::<{n}, 1>(self.{fname}.val().into())")
            } else {
                format!("bit_cast::<{n}, {b}>(self.{fname}.val())")
            };
            pack.push(if lo == 0 {
                val
            } else {
                format!("({val} << {lo})")
            });
            if b == 1 {
                writeln!(
                    unpack,
                    "        self.{fname}.next = self.word.val().get_bit({lo});"
                )
                .unwrap();
            } else if lo == 0 {
                writeln!(
                    unpack,
                    "        self.{fname}.next = bit_cast::<{b}, {n}>(self.word.val());"
                )
                .unwrap();
            } else {
                writeln!(
                    unpack,
                    "        self.{fname}.next = bit_cast::<{b}, {n}>(self.word.val() >> {lo});"
                )
                .unwrap();
            }
            // The test's value for the field: its own pattern, all its bits used.
            let k = drive.lines().count();
            if b == 1 {
                let v = k % 2 == 1;
                writeln!(drive, "        p.{fname}.next = {v};").unwrap();
                writeln!(check, "        assert_eq!((u.{fname}.val(), w.get_bit({lo})), ({v}, {v}), \"{name}.{fname}\");").unwrap();
            } else {
                writeln!(drive, "        p.{fname}.next = pattern::<{b}>({k});").unwrap();
                writeln!(
                    check,
                    "        assert_eq!(u.{fname}.val(), pattern::<{b}>({k}), \"{name}.{fname}\");"
                )
                .unwrap();
                writeln!(check, "        assert_eq!(bit_cast::<{b}, {n}>(w >> {lo}), pattern::<{b}>({k}), \"{name}.{fname}\");").unwrap();
            }
        }
        write!(
            src,
            r#"
/// Bits of a {name} record.
pub const {name}_BITS: usize = {n};

/// {doc} Packed: the fields in, the record out.
#[derive(LogicBlock, Default)]
pub struct {cm}Pack {{
{pack_ports}    pub word: Signal<Out, Bits<{n}>>,
}}

impl Logic for {cm}Pack {{
    #[hdl_gen]
    fn update(&mut self) {{
        self.word.next = {pack};
    }}
}}

/// {doc} Unpacked: the record in, the fields out.
#[derive(LogicBlock, Default)]
pub struct {cm}Unpack {{
    pub word: Signal<In, Bits<{n}>>,
{unpack_ports}}}

impl Logic for {cm}Unpack {{
    #[hdl_gen]
    fn update(&mut self) {{
{unpack}    }}
}}
"#,
            doc = r.doc,
            pack = pack.join("\n            | "),
        )
        .unwrap();
        write!(
            tests,
            r#"
    #[test]
    fn {lname}_fields_land_where_the_table_says() {{
        let mut p = {cm}Pack::default();
        let mut u = {cm}Unpack::default();
        p.connect_all();
        u.connect_all();
{drive}        // Twice: the inputs are taken, then the block's update runs on them.
        p.update_all();
        p.update_all();
        let w = p.word.val();
        u.word.next = w;
        u.update_all();
        u.update_all();
{check}    }}
"#,
            lname = name.to_lowercase(),
        )
        .unwrap();
    }
    write!(
        src,
        r#"
#[cfg(test)]
mod generated_tests {{
    use super::*;

    /// A value of `B` bits that differs from field to field and uses the field's top and bottom bits.
    fn pattern<const B: usize>(k: usize) -> Bits<B> {{
        let mut v: Bits<B> = 0.into();
        for i in 0..B {{
            let bit = (((k as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (i % 64)) ^ (i as u64 / 64)) & 1 == 1;
            v = v.replace_bit(i, bit || i == 0 || i + 1 == B);
        }}
        v
    }}
{tests}}}
"#
    )
    .unwrap();
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("ctx_gen.rs");
    std::fs::write(out, src).unwrap();
}
