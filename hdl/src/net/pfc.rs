//! Priority flow control (IEEE 802.1Qbb) and 802.3x PAUSE, for the lossless priorities
//! (`PFC_ENABLE`, bit p = priority p):
//!
//! - **Reaction**: a PFC frame pauses each lossless priority whose class-enable bit it sets, for
//!   that class's time (`paused` bit p: RoCE frames *of priority p* must not start; the top level
//!   compares each frame's priority, its DSCP through the DSCP → priority map), and a PAUSE frame
//!   pauses all eight for its one time. Times are in quanta of 512 bit times (`PFC_QUANTUM_Q4`:
//!   core cycles per quantum × 16, which scales with the line rate); a time of 0 resumes at once.
//!   One `PauseTimer` per priority, so each lossless priority resumes at its own time. A frame
//!   already on the wire finishes, and the top level lets the one frame the transmit engine had
//!   committed to when the pause began still start. PFC for a priority that is not lossless is
//!   ignored (a NIC honours PFC only on its PFC-enabled priorities).
//! - **Watchdog** (a PFC storm from a broken peer must not freeze the NIC), per priority: paused
//!   without a break for `PFC_WATCHDOG_CYCLES`, that priority stops honouring pause for
//!   `PFC_WATCHDOG_RECOVERY_CYCLES` (lossy for that while); the event is counted (priorities
//!   tripping in the same cycle count once).
//! - **Generation**, per lossless priority from its own count of stored words in the receive buffer
//!   (`fill0`..`fill7`): when priority p holds `PFC_XOFF_WORDS` words or more, send XOFF for p
//!   (class p paused for `PFC_PAUSE_QUANTA`); while any priority stays above `PFC_XON_WORDS`,
//!   refresh every `PFC_REFRESH_CYCLES`; when p falls to `PFC_XON_WORDS`, send XON for p (time 0).
//!   One frame carries every change of the moment and every priority still in XOFF: its
//!   class-enable vector names the priorities in XOFF (with `PFC_PAUSE_QUANTA`) and those resuming
//!   (with 0). A priority that leaves `PFC_ENABLE` while in XOFF, or generation turned off
//!   (`PFC_XOFF_WORDS` = 0), resumes with an XON.
//!   The marks are compared with the fills a cycle before the frame is decided (a register between
//!   the 32-bit compares and the frame's start), so an XOFF follows its fill one cycle later; the
//!   refresh timer's compare is registered the same way (`refresh_due`), so a refresh comes a cycle
//!   after the timer reaches `PFC_REFRESH_CYCLES`.
use super::pause_timer::PauseTimer;
use super::short_frame::{FrameHead, ShortFrameTx, REG_BYTES};
use crate::prim::byteswap::be_shift;
use rust_hdl::prelude::*;
/// 01-80-C2-00-00-01, the MAC control (PAUSE/PFC) destination.
pub const MAC_CONTROL_DST: u64 = 0x0180_C200_0001;
pub const ETHERTYPE_MAC_CONTROL: u64 = 0x8808;
pub const OPCODE_PAUSE: u64 = 0x0001;
pub const OPCODE_PFC: u64 = 0x0101;

#[derive(LogicBlock)]
pub struct PfcUnit<const W: usize, const B: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub enable: Signal<In, bool>,
    pub mac_lo: Signal<In, Bits<32>>,
    pub mac_hi: Signal<In, Bits<32>>,
    /// The lossless priorities (PFC_ENABLE), bit p = priority p.
    pub lossless: Signal<In, Bits<8>>,
    pub quantum_q4: Signal<In, Bits<32>>,
    pub watchdog_cycles: Signal<In, Bits<32>>,
    pub recovery_cycles: Signal<In, Bits<32>>,
    /// Words of priority p's stored frames in the receive buffer.
    pub fill0: Signal<In, Bits<32>>,
    pub fill1: Signal<In, Bits<32>>,
    pub fill2: Signal<In, Bits<32>>,
    pub fill3: Signal<In, Bits<32>>,
    pub fill4: Signal<In, Bits<32>>,
    pub fill5: Signal<In, Bits<32>>,
    pub fill6: Signal<In, Bits<32>>,
    pub fill7: Signal<In, Bits<32>>,
    pub xoff_words: Signal<In, Bits<32>>,
    pub xon_words: Signal<In, Bits<32>>,
    pub pause_quanta: Signal<In, Bits<32>>,
    pub refresh_cycles: Signal<In, Bits<32>>,
    /// Fast-forward (simulation; 0 in hardware): this clock edge stands for `1 + warp` cycles.
    pub warp: Signal<In, Bits<32>>,
    /// Cycles the XOFF refresh timer can run before it expires, as of the last cycle (all ones when
    /// no priority is in XOFF).
    pub wake: Signal<Out, Bits<32>>,
    /// The MAC receive stream, observed.
    pub rx_tdata: Signal<In, Bits<W>>,
    pub rx_tlast: Signal<In, bool>,
    pub rx_fire: Signal<In, bool>,
    /// With the last beat: the MAC marked the frame bad (a bad FCS); it is ignored.
    pub rx_tuser: Signal<In, bool>,
    /// Bit p: frames of priority p must not start.
    pub paused: Signal<Out, Bits<8>>,
    /// Generated PFC frames, as an AXI-Stream source.
    pub tx_tdata: Signal<Out, Bits<W>>,
    pub tx_tkeep: Signal<Out, Bits<B>>,
    pub tx_tlast: Signal<Out, bool>,
    pub tx_tvalid: Signal<Out, bool>,
    pub tx_tready: Signal<In, bool>,
    pub rx_pause_inc: Signal<Out, bool>,
    /// Bit p: a PFC frame naming priority p arrived (honoured or not: RX_PRIOn_PAUSE).
    pub rx_prio_pause_inc: Signal<Out, Bits<8>>,
    pub pause_cycle_inc: Signal<Out, bool>,
    pub watchdog_inc: Signal<Out, bool>,
    pub tx_xoff_inc: Signal<Out, bool>,
    pub tx_xon_inc: Signal<Out, bool>,
    /// Bit p: the frame sent now pauses priority p (TX_PRIOn_PAUSE).
    pub tx_prio_pause_inc: Signal<Out, Bits<8>>,
    // reception
    rx: FrameHead<W>,
    f_dst: Signal<Local, Bits<48>>,
    f_type: Signal<Local, Bits<16>>,
    f_op: Signal<Local, Bits<16>>,
    f_cev: Signal<Local, Bits<16>>,
    /// The eight class times of a PFC frame, class 0's in the top 16 bits.
    f_times: Signal<Local, Bits<128>>,
    /// The classes the frame pauses or resumes (a PAUSE frame: all eight).
    f_load: Signal<Local, Bits<8>>,
    /// The priorities a pause frame received now (re)loads.
    load: Signal<Local, Bits<8>>,
    /// A MAC Control frame to 01-80-C2-00-00-01.
    macc: Signal<Local, bool>,
    pfc_op: Signal<Local, bool>,
    pause_op: Signal<Local, bool>,
    // One pause per priority.
    t0: PauseTimer,
    t1: PauseTimer,
    t2: PauseTimer,
    t3: PauseTimer,
    t4: PauseTimer,
    t5: PauseTimer,
    t6: PauseTimer,
    t7: PauseTimer,
    timer_reset: Signal<Local, bool>,
    pause_now: Signal<Local, Bits<8>>,
    // generation
    /// Bit p: priority p is in XOFF (the peer was told to pause it).
    xoff: DFF<Bits<8>>,
    /// Bit p: priority p is lossless and at or above the XOFF mark / at or below the XON mark
    /// (or no longer lossless, or generation off).
    over: Signal<Local, Bits<8>>,
    under: Signal<Local, Bits<8>>,
    /// `over` and `under` a cycle later: the fills' 32-bit compares take a cycle of their own.
    over_q: DFF<Bits<8>>,
    under_q: DFF<Bits<8>>,
    /// The XOFF set after this cycle's changes, and the priorities it resumes.
    nx: Signal<Local, Bits<8>>,
    fall: Signal<Local, Bits<8>>,
    refresh: DFF<Bits<32>>,
    /// `refresh` reached `refresh_cycles` last cycle (and no frame went since).
    refresh_due: DFF<bool>,
    wake_r: DFF<Bits<32>>,
    tx: ShortFrameTx<W, B>,
    want: Signal<Local, bool>,
    want_quanta: Signal<Local, Bits<16>>,
    /// The class times of the frame to send: `want_quanta` for each class in XOFF, 0 for the
    /// others.
    tx_times: Signal<Local, Bits<128>>,
    my_mac: Signal<Local, Bits<48>>,
    // constants
    sh_dst: Constant<Bits<16>>,
    sh_src: Constant<Bits<16>>,
    sh_type: Constant<Bits<16>>,
    sh_op: Constant<Bits<16>>,
    sh_cev: Constant<Bits<16>>,
    sh_times: Constant<Bits<16>>,
    mac_ctl: Constant<Bits<48>>,
    /// A PFC frame's constant fields: destination, EtherType, opcode.
    fixed: Constant<Bits<512>>,
}

impl<const W: usize, const B: usize> Default for PfcUnit<W, B> {
    fn default() -> Self {
        let c16 = |v: usize| Constant::new((v as u64).into());
        let sh = |off: usize, len: usize| c16(be_shift(REG_BYTES, off, len) as usize);
        let field = |v: u64, off: usize, len: usize| -> Bits<512> {
            bit_cast::<512, 64>(v.into()) << be_shift(REG_BYTES, off, len)
        };
        let fixed = field(MAC_CONTROL_DST, 0, 6)
            | field(ETHERTYPE_MAC_CONTROL, 12, 2)
            | field(OPCODE_PFC, 14, 2);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enable: Default::default(),
            mac_lo: Default::default(),
            mac_hi: Default::default(),
            lossless: Default::default(),
            quantum_q4: Default::default(),
            watchdog_cycles: Default::default(),
            recovery_cycles: Default::default(),
            fill0: Default::default(),
            fill1: Default::default(),
            fill2: Default::default(),
            fill3: Default::default(),
            fill4: Default::default(),
            fill5: Default::default(),
            fill6: Default::default(),
            fill7: Default::default(),
            xoff_words: Default::default(),
            xon_words: Default::default(),
            pause_quanta: Default::default(),
            refresh_cycles: Default::default(),
            rx_tdata: Default::default(),
            rx_tlast: Default::default(),
            rx_fire: Default::default(),
            rx_tuser: Default::default(),
            paused: Default::default(),
            tx_tdata: Default::default(),
            tx_tkeep: Default::default(),
            tx_tlast: Default::default(),
            tx_tvalid: Default::default(),
            tx_tready: Default::default(),
            rx_pause_inc: Default::default(),
            rx_prio_pause_inc: Default::default(),
            pause_cycle_inc: Default::default(),
            watchdog_inc: Default::default(),
            tx_xoff_inc: Default::default(),
            tx_xon_inc: Default::default(),
            tx_prio_pause_inc: Default::default(),
            over: Default::default(),
            under: Default::default(),
            over_q: Default::default(),
            under_q: Default::default(),
            nx: Default::default(),
            fall: Default::default(),
            rx: Default::default(),
            f_dst: Default::default(),
            f_type: Default::default(),
            f_op: Default::default(),
            f_cev: Default::default(),
            f_times: Default::default(),
            f_load: Default::default(),
            load: Default::default(),
            macc: Default::default(),
            pfc_op: Default::default(),
            pause_op: Default::default(),
            t0: Default::default(),
            t1: Default::default(),
            t2: Default::default(),
            t3: Default::default(),
            t4: Default::default(),
            t5: Default::default(),
            t6: Default::default(),
            t7: Default::default(),
            timer_reset: Default::default(),
            pause_now: Default::default(),
            xoff: Default::default(),
            refresh: Default::default(),
            refresh_due: Default::default(),
            wake_r: Default::default(),
            warp: Default::default(),
            wake: Default::default(),
            tx: Default::default(),
            want: Default::default(),
            want_quanta: Default::default(),
            tx_times: Default::default(),
            my_mac: Default::default(),
            sh_dst: sh(0, 6),
            sh_src: sh(6, 6),
            sh_type: sh(12, 2),
            sh_op: sh(14, 2),
            sh_cev: sh(16, 2),
            // time[i] is at bytes 18 + 2i, 19 + 2i.
            sh_times: sh(18, 16),
            mac_ctl: Constant::new(MAC_CONTROL_DST.into()),
            fixed: Constant::new(fixed),
        }
    }
}

impl<const W: usize, const B: usize> Logic for PfcUnit<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            xoff,
            refresh,
            refresh_due,
            wake_r,
            over_q,
            under_q
        );
        self.rx.clock.next = self.clock.val();
        self.rx.reset.next = self.reset.val();
        self.tx.clock.next = self.clock.val();
        self.tx.reset.next = self.reset.val();
        self.rx.rx_tdata.next = self.rx_tdata.val();
        self.rx.rx_tlast.next = self.rx_tlast.val();
        self.rx.rx_fire.next = self.rx_fire.val();
        self.rx.rx_tuser.next = self.rx_tuser.val();
        self.rx_pause_inc.next = false;
        self.tx_xoff_inc.next = false;
        self.tx_xon_inc.next = false;
        self.tx_prio_pause_inc.next = 0.into();
        self.my_mac.next = (bit_cast::<48, 32>(self.mac_hi.val() & 0xFFFF) << 32)
            | bit_cast::<48, 32>(self.mac_lo.val());

        // Reception: decode the frame's head at its last beat. 802.1Qbb: opcode 0x0101, a
        // class-enable vector and eight times; 802.3x: opcode 0x0001 and one time, where PFC's
        // vector is (all traffic).
        self.f_dst.next = bit_cast::<48, 512>(self.rx.head.val() >> self.sh_dst.val());
        self.f_type.next = bit_cast::<16, 512>(self.rx.head.val() >> self.sh_type.val());
        self.f_op.next = bit_cast::<16, 512>(self.rx.head.val() >> self.sh_op.val());
        self.f_cev.next = bit_cast::<16, 512>(self.rx.head.val() >> self.sh_cev.val());
        self.f_times.next = bit_cast::<128, 512>(self.rx.head.val() >> self.sh_times.val());
        self.macc.next = (self.f_dst.val() == self.mac_ctl.val()) && (self.f_type.val() == 0x8808);
        self.pfc_op.next = self.macc.val() && (self.f_op.val() == 0x0101);
        self.pause_op.next = self.macc.val() && (self.f_op.val() == 0x0001);
        self.f_load.next = 0.into();
        if self.pfc_op.val() {
            self.f_load.next = bit_cast::<8, 16>(self.f_cev.val()) & self.lossless.val();
        }
        if self.pause_op.val() {
            self.f_load.next = 0xFF.into();
            // Its one time, for every class.
            self.f_times.next = bit_cast::<128, 16>(self.f_cev.val());
            self.f_times.next = self.f_times.val() | (self.f_times.val() << 16);
            self.f_times.next = self.f_times.val() | (self.f_times.val() << 32);
            self.f_times.next = self.f_times.val() | (self.f_times.val() << 64);
        }
        self.rx_prio_pause_inc.next = 0.into();
        if self.rx.done.val() && self.enable.val() && self.pfc_op.val() {
            self.rx_prio_pause_inc.next = bit_cast::<8, 16>(self.f_cev.val());
        }
        self.load.next = 0.into();
        if self.rx.done.val() && self.enable.val() && (self.f_load.val() != 0) {
            self.rx_pause_inc.next = true;
            self.load.next = self.f_load.val();
        }

        // The pauses, one per priority.
        self.timer_reset.next = self.reset.val() || !self.enable.val();
        self.t0.clock.next = self.clock.val();
        self.t0.reset.next = self.timer_reset.val();
        self.t0.quantum_q4.next = self.quantum_q4.val();
        self.t0.watchdog_cycles.next = self.watchdog_cycles.val();
        self.t0.recovery_cycles.next = self.recovery_cycles.val();
        self.t0.load.next = (self.load.val() & 1) != 0;
        self.t0.quanta.next = bit_cast::<16, 128>(self.f_times.val() >> 112);
        self.t1.clock.next = self.clock.val();
        self.t1.reset.next = self.timer_reset.val();
        self.t1.quantum_q4.next = self.quantum_q4.val();
        self.t1.watchdog_cycles.next = self.watchdog_cycles.val();
        self.t1.recovery_cycles.next = self.recovery_cycles.val();
        self.t1.load.next = (self.load.val() & 2) != 0;
        self.t1.quanta.next = bit_cast::<16, 128>(self.f_times.val() >> 96);
        self.t2.clock.next = self.clock.val();
        self.t2.reset.next = self.timer_reset.val();
        self.t2.quantum_q4.next = self.quantum_q4.val();
        self.t2.watchdog_cycles.next = self.watchdog_cycles.val();
        self.t2.recovery_cycles.next = self.recovery_cycles.val();
        self.t2.load.next = (self.load.val() & 4) != 0;
        self.t2.quanta.next = bit_cast::<16, 128>(self.f_times.val() >> 80);
        self.t3.clock.next = self.clock.val();
        self.t3.reset.next = self.timer_reset.val();
        self.t3.quantum_q4.next = self.quantum_q4.val();
        self.t3.watchdog_cycles.next = self.watchdog_cycles.val();
        self.t3.recovery_cycles.next = self.recovery_cycles.val();
        self.t3.load.next = (self.load.val() & 8) != 0;
        self.t3.quanta.next = bit_cast::<16, 128>(self.f_times.val() >> 64);
        self.t4.clock.next = self.clock.val();
        self.t4.reset.next = self.timer_reset.val();
        self.t4.quantum_q4.next = self.quantum_q4.val();
        self.t4.watchdog_cycles.next = self.watchdog_cycles.val();
        self.t4.recovery_cycles.next = self.recovery_cycles.val();
        self.t4.load.next = (self.load.val() & 16) != 0;
        self.t4.quanta.next = bit_cast::<16, 128>(self.f_times.val() >> 48);
        self.t5.clock.next = self.clock.val();
        self.t5.reset.next = self.timer_reset.val();
        self.t5.quantum_q4.next = self.quantum_q4.val();
        self.t5.watchdog_cycles.next = self.watchdog_cycles.val();
        self.t5.recovery_cycles.next = self.recovery_cycles.val();
        self.t5.load.next = (self.load.val() & 32) != 0;
        self.t5.quanta.next = bit_cast::<16, 128>(self.f_times.val() >> 32);
        self.t6.clock.next = self.clock.val();
        self.t6.reset.next = self.timer_reset.val();
        self.t6.quantum_q4.next = self.quantum_q4.val();
        self.t6.watchdog_cycles.next = self.watchdog_cycles.val();
        self.t6.recovery_cycles.next = self.recovery_cycles.val();
        self.t6.load.next = (self.load.val() & 64) != 0;
        self.t6.quanta.next = bit_cast::<16, 128>(self.f_times.val() >> 16);
        self.t7.clock.next = self.clock.val();
        self.t7.reset.next = self.timer_reset.val();
        self.t7.quantum_q4.next = self.quantum_q4.val();
        self.t7.watchdog_cycles.next = self.watchdog_cycles.val();
        self.t7.recovery_cycles.next = self.recovery_cycles.val();
        self.t7.load.next = (self.load.val() & 128) != 0;
        self.t7.quanta.next = bit_cast::<16, 128>(self.f_times.val() >> 0);
        self.pause_now.next = 0.into();
        if self.t0.paused.val() {
            self.pause_now.next = self.pause_now.val() | 1;
        }
        if self.t1.paused.val() {
            self.pause_now.next = self.pause_now.val() | 2;
        }
        if self.t2.paused.val() {
            self.pause_now.next = self.pause_now.val() | 4;
        }
        if self.t3.paused.val() {
            self.pause_now.next = self.pause_now.val() | 8;
        }
        if self.t4.paused.val() {
            self.pause_now.next = self.pause_now.val() | 16;
        }
        if self.t5.paused.val() {
            self.pause_now.next = self.pause_now.val() | 32;
        }
        if self.t6.paused.val() {
            self.pause_now.next = self.pause_now.val() | 64;
        }
        if self.t7.paused.val() {
            self.pause_now.next = self.pause_now.val() | 128;
        }
        self.paused.next = self.pause_now.val();
        self.pause_cycle_inc.next = self.pause_now.val() != 0;
        self.watchdog_inc.next = self.t0.watchdog.val()
            || self.t1.watchdog.val()
            || self.t2.watchdog.val()
            || self.t3.watchdog.val()
            || self.t4.watchdog.val()
            || self.t5.watchdog.val()
            || self.t6.watchdog.val()
            || self.t7.watchdog.val();

        // Generation, per priority: XOFF at the high-water mark, refreshed; XON at the low-water mark.
        self.over.next = 0.into();
        self.under.next = !self.lossless.val();
        if self.fill0.val() >= self.xoff_words.val() {
            self.over.next = self.over.val() | 1;
        }
        if self.fill0.val() <= self.xon_words.val() {
            self.under.next = self.under.val() | 1;
        }
        if self.fill1.val() >= self.xoff_words.val() {
            self.over.next = self.over.val() | 2;
        }
        if self.fill1.val() <= self.xon_words.val() {
            self.under.next = self.under.val() | 2;
        }
        if self.fill2.val() >= self.xoff_words.val() {
            self.over.next = self.over.val() | 4;
        }
        if self.fill2.val() <= self.xon_words.val() {
            self.under.next = self.under.val() | 4;
        }
        if self.fill3.val() >= self.xoff_words.val() {
            self.over.next = self.over.val() | 8;
        }
        if self.fill3.val() <= self.xon_words.val() {
            self.under.next = self.under.val() | 8;
        }
        if self.fill4.val() >= self.xoff_words.val() {
            self.over.next = self.over.val() | 16;
        }
        if self.fill4.val() <= self.xon_words.val() {
            self.under.next = self.under.val() | 16;
        }
        if self.fill5.val() >= self.xoff_words.val() {
            self.over.next = self.over.val() | 32;
        }
        if self.fill5.val() <= self.xon_words.val() {
            self.under.next = self.under.val() | 32;
        }
        if self.fill6.val() >= self.xoff_words.val() {
            self.over.next = self.over.val() | 64;
        }
        if self.fill6.val() <= self.xon_words.val() {
            self.under.next = self.under.val() | 64;
        }
        if self.fill7.val() >= self.xoff_words.val() {
            self.over.next = self.over.val() | 128;
        }
        if self.fill7.val() <= self.xon_words.val() {
            self.under.next = self.under.val() | 128;
        }
        self.over.next = self.over.val() & self.lossless.val();
        if self.xoff_words.val() == 0 {
            self.over.next = 0.into();
            self.under.next = 0xFF.into();
        }
        self.over_q.d.next = self.over.val();
        self.under_q.d.next = self.under.val();
        self.nx.next = (self.xoff.q.val() & !self.under_q.q.val())
            | (self.over_q.q.val() & !self.xoff.q.val());
        self.fall.next = self.xoff.q.val() & !self.nx.val();
        self.want.next = false;
        self.want_quanta.next = bit_cast::<16, 32>(self.pause_quanta.val());
        if !self.tx.busy.val() {
            self.refresh.d.next = self.refresh.q.val() + 1 + self.warp.val();
        }
        self.wake_r.d.next = !bits::<32>(0); // all ones: nothing to wake for
        if self.enable.val() && (self.xoff.q.val() != 0) {
            self.wake_r.d.next = 0.into();
            if self.refresh.q.val() < self.refresh_cycles.val() {
                self.wake_r.d.next = self.refresh_cycles.val() - self.refresh.q.val() - 1;
            }
        }
        self.wake.next = self.wake_r.q.val();
        if self.enable.val()
            && !self.tx.busy.val()
            && ((self.nx.val() != self.xoff.q.val())
                || ((self.xoff.q.val() != 0) && self.refresh_due.q.val()))
        {
            self.want.next = true;
            self.xoff.d.next = self.nx.val();
            self.tx_xoff_inc.next = self.nx.val() != 0;
            self.tx_xon_inc.next = self.fall.val() != 0;
            self.tx_prio_pause_inc.next = self.nx.val();
        }
        self.refresh_due.d.next = self.refresh.q.val() >= self.refresh_cycles.val();
        if self.want.val() {
            self.refresh.d.next = 0.into();
            self.refresh_due.d.next = false;
        }
        self.tx_times.next = 0.into();
        if (self.nx.val() & 1) != 0 {
            self.tx_times.next =
                self.tx_times.val() | (bit_cast::<128, 16>(self.want_quanta.val()) << 112);
        }
        if (self.nx.val() & 2) != 0 {
            self.tx_times.next =
                self.tx_times.val() | (bit_cast::<128, 16>(self.want_quanta.val()) << 96);
        }
        if (self.nx.val() & 4) != 0 {
            self.tx_times.next =
                self.tx_times.val() | (bit_cast::<128, 16>(self.want_quanta.val()) << 80);
        }
        if (self.nx.val() & 8) != 0 {
            self.tx_times.next =
                self.tx_times.val() | (bit_cast::<128, 16>(self.want_quanta.val()) << 64);
        }
        if (self.nx.val() & 16) != 0 {
            self.tx_times.next =
                self.tx_times.val() | (bit_cast::<128, 16>(self.want_quanta.val()) << 48);
        }
        if (self.nx.val() & 32) != 0 {
            self.tx_times.next =
                self.tx_times.val() | (bit_cast::<128, 16>(self.want_quanta.val()) << 32);
        }
        if (self.nx.val() & 64) != 0 {
            self.tx_times.next =
                self.tx_times.val() | (bit_cast::<128, 16>(self.want_quanta.val()) << 16);
        }
        if (self.nx.val() & 128) != 0 {
            self.tx_times.next =
                self.tx_times.val() | (bit_cast::<128, 16>(self.want_quanta.val()) << 0);
        }
        self.tx.load.next = self.want.val();
        self.tx.frame.next = self.fixed.val()
            | (bit_cast::<512, 48>(self.my_mac.val()) << self.sh_src.val())
            | (bit_cast::<512, 8>(self.nx.val() | self.fall.val()) << self.sh_cev.val())
            | (bit_cast::<512, 128>(self.tx_times.val()) << self.sh_times.val());
        self.tx_tdata.next = self.tx.tx_tdata.val();
        self.tx_tkeep.next = self.tx.tx_tkeep.val();
        self.tx_tlast.next = self.tx.tx_tlast.val();
        self.tx_tvalid.next = self.tx.tx_tvalid.val();
        self.tx.tx_tready.next = self.tx_tready.val();
        if self.reset.val() || !self.enable.val() {
            self.xoff.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthesizes() {
        let mut uut = PfcUnit::<64, 8>::default();
        uut.connect_all();
        let v = generate_verilog(&uut);
        assert!(v.contains("module top"));
    }
}
