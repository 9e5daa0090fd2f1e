//! Priority flow control (IEEE 802.1Qbb) and 802.3x PAUSE, for the one lossless priority
//! (`PFC_PRIORITY`):
//!
//! - **Reaction**: a PFC frame whose class-enable vector names our priority stops RoCE frames *of that
//!   priority* (`paused`; the top level compares each frame's priority, its DSCP through the DSCP →
//!   priority map), and a PAUSE frame stops every RoCE frame (`paused_all` too), for the time it gives, in
//!   quanta of 512 bit times (`PFC_QUANTUM_Q4`: core cycles per quantum × 16, which scales with the line
//!   rate); a time of 0 resumes at once. A frame already on the wire finishes, and the top level lets
//!   the one frame the transmit engine had committed to when the pause began still start. Priorities
//!   other than the lossless one are never paused by PFC (a NIC honours PFC only on its PFC-enabled
//!   priorities). One timer serves both kinds: the latest pause frame sets it (a port runs PFC or PAUSE,
//!   not both).
//! - **Watchdog** (a PFC storm from a broken peer must not freeze the NIC): paused without a break for
//!   `PFC_WATCHDOG_CYCLES`, the NIC stops honouring pause for `PFC_WATCHDOG_RECOVERY_CYCLES` (lossy for that
//!   while) and counts the event.
//! - **Generation**: when the receive buffer holds `PFC_XOFF_WORDS` words or more, send XOFF (our priority
//!   paused for `PFC_PAUSE_QUANTA`), refresh it every `PFC_REFRESH_CYCLES` while above `PFC_XON_WORDS`, then
//!   send XON (time 0). `PFC_XOFF_WORDS` = 0 turns generation off.
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
    pub prio: Signal<In, Bits<32>>,
    pub quantum_q4: Signal<In, Bits<32>>,
    pub watchdog_cycles: Signal<In, Bits<32>>,
    pub recovery_cycles: Signal<In, Bits<32>>,
    pub fill: Signal<In, Bits<32>>,
    pub xoff_words: Signal<In, Bits<32>>,
    pub xon_words: Signal<In, Bits<32>>,
    pub pause_quanta: Signal<In, Bits<32>>,
    pub refresh_cycles: Signal<In, Bits<32>>,
    /// The MAC receive stream, observed.
    pub rx_tdata: Signal<In, Bits<W>>,
    pub rx_tlast: Signal<In, bool>,
    pub rx_fire: Signal<In, bool>,
    /// With the last beat: the MAC marked the frame bad (a bad FCS); it is ignored.
    pub rx_tuser: Signal<In, bool>,
    /// Frames of the lossless priority (`prio`) must not start.
    pub paused: Signal<Out, bool>,
    /// With `paused`: the pause came from an 802.3x PAUSE frame and holds every frame, whatever its
    /// priority.
    pub paused_all: Signal<Out, bool>,
    /// Generated PFC frames, as an AXI-Stream source.
    pub tx_tdata: Signal<Out, Bits<W>>,
    pub tx_tkeep: Signal<Out, Bits<B>>,
    pub tx_tlast: Signal<Out, bool>,
    pub tx_tvalid: Signal<Out, bool>,
    pub tx_tready: Signal<In, bool>,
    pub rx_pause_inc: Signal<Out, bool>,
    pub pause_cycle_inc: Signal<Out, bool>,
    pub watchdog_inc: Signal<Out, bool>,
    pub tx_xoff_inc: Signal<Out, bool>,
    pub tx_xon_inc: Signal<Out, bool>,
    // reception
    rx: FrameHead<W>,
    f_dst: Signal<Local, Bits<48>>,
    f_type: Signal<Local, Bits<16>>,
    f_op: Signal<Local, Bits<16>>,
    f_cev: Signal<Local, Bits<16>>,
    f_time: Signal<Local, Bits<16>>,
    f_pause_time: Signal<Local, Bits<16>>,
    prio3: Signal<Local, Bits<16>>,
    sh_time: Signal<Local, Bits<16>>,
    qnext: Signal<Local, Bits<32>>,
    for_us: Signal<Local, bool>,
    pause_op: Signal<Local, bool>,
    quanta: Signal<Local, Bits<16>>,
    // pause state
    quanta_left: DFF<Bits<16>>,
    qcount: DFF<Bits<32>>,
    run: DFF<Bits<32>>,
    ignore_left: DFF<Bits<32>>,
    /// The running pause is an 802.3x PAUSE's (every priority), not a PFC frame's.
    all: DFF<bool>,
    // generation
    xoff: DFF<bool>,
    refresh: DFF<Bits<32>>,
    tx: ShortFrameTx<W, B>,
    want: Signal<Local, bool>,
    want_quanta: Signal<Local, Bits<16>>,
    my_mac: Signal<Local, Bits<48>>,
    // constants
    sh_dst: Constant<Bits<16>>,
    sh_src: Constant<Bits<16>>,
    sh_type: Constant<Bits<16>>,
    sh_op: Constant<Bits<16>>,
    sh_cev: Constant<Bits<16>>,
    sh_t0: Constant<Bits<16>>,
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
            prio: Default::default(),
            quantum_q4: Default::default(),
            watchdog_cycles: Default::default(),
            recovery_cycles: Default::default(),
            fill: Default::default(),
            xoff_words: Default::default(),
            xon_words: Default::default(),
            pause_quanta: Default::default(),
            refresh_cycles: Default::default(),
            rx_tdata: Default::default(),
            rx_tlast: Default::default(),
            rx_fire: Default::default(),
            rx_tuser: Default::default(),
            paused: Default::default(),
            paused_all: Default::default(),
            tx_tdata: Default::default(),
            tx_tkeep: Default::default(),
            tx_tlast: Default::default(),
            tx_tvalid: Default::default(),
            tx_tready: Default::default(),
            rx_pause_inc: Default::default(),
            pause_cycle_inc: Default::default(),
            watchdog_inc: Default::default(),
            tx_xoff_inc: Default::default(),
            tx_xon_inc: Default::default(),
            rx: Default::default(),
            f_dst: Default::default(),
            f_type: Default::default(),
            f_op: Default::default(),
            f_cev: Default::default(),
            f_time: Default::default(),
            f_pause_time: Default::default(),
            prio3: Default::default(),
            sh_time: Default::default(),
            qnext: Default::default(),
            for_us: Default::default(),
            pause_op: Default::default(),
            quanta: Default::default(),
            quanta_left: Default::default(),
            qcount: Default::default(),
            run: Default::default(),
            ignore_left: Default::default(),
            all: Default::default(),
            xoff: Default::default(),
            refresh: Default::default(),
            tx: Default::default(),
            want: Default::default(),
            want_quanta: Default::default(),
            my_mac: Default::default(),
            sh_dst: sh(0, 6),
            sh_src: sh(6, 6),
            sh_type: sh(12, 2),
            sh_op: sh(14, 2),
            sh_cev: sh(16, 2),
            // time[i] is at byte 18 + 2i: its shift is sh_t0 - 16 i.
            sh_t0: sh(18, 2),
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
            quanta_left,
            qcount,
            run,
            ignore_left,
            all,
            xoff,
            refresh
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
        self.pause_cycle_inc.next = false;
        self.watchdog_inc.next = false;
        self.tx_xoff_inc.next = false;
        self.tx_xon_inc.next = false;
        self.my_mac.next = (bit_cast::<48, 32>(self.mac_hi.val() & 0xFFFF) << 32)
            | bit_cast::<48, 32>(self.mac_lo.val());

        // Reception: decode the frame's head at its last beat.
        self.f_dst.next = bit_cast::<48, 512>(self.rx.head.val() >> self.sh_dst.val());
        self.f_type.next = bit_cast::<16, 512>(self.rx.head.val() >> self.sh_type.val());
        self.f_op.next = bit_cast::<16, 512>(self.rx.head.val() >> self.sh_op.val());
        self.f_cev.next = bit_cast::<16, 512>(self.rx.head.val() >> self.sh_cev.val());
        self.prio3.next = bit_cast::<16, 32>(self.prio.val() & 7);
        self.sh_time.next = self.sh_t0.val() - (self.prio3.val() << 4);
        self.f_time.next = bit_cast::<16, 512>(self.rx.head.val() >> self.sh_time.val());
        self.f_pause_time.next = self.f_cev.val(); // PAUSE: its one time field is where PFC's vector is
                                                   // 802.1Qbb: opcode 0x0101 with our priority's class-enable bit; 802.3x: opcode 0x0001 (all traffic).
        self.for_us.next = false;
        self.pause_op.next = false;
        self.quanta.next = self.f_time.val();
        if (self.f_dst.val() == self.mac_ctl.val()) && (self.f_type.val() == 0x8808) {
            if (self.f_op.val() == 0x0101) && (((self.f_cev.val() >> self.prio3.val()) & 1) != 0) {
                self.for_us.next = true;
            }
            if self.f_op.val() == 0x0001 {
                self.for_us.next = true;
                self.pause_op.next = true;
                self.quanta.next = self.f_pause_time.val();
            }
        }

        // The pause: quanta count down at QUANTUM_Q4 / 16 cycles each.
        self.paused.next = (self.quanta_left.q.val() != 0) && (self.ignore_left.q.val() == 0);
        self.paused_all.next = self.paused.val() && self.all.q.val();
        self.qnext.next = self.qcount.q.val() + 16;
        if self.quanta_left.q.val() != 0 {
            self.pause_cycle_inc.next = true;
            self.run.d.next = self.run.q.val() + 1;
            self.qcount.d.next = self.qnext.val();
            if self.qnext.val() >= self.quantum_q4.val() {
                self.qcount.d.next = self.qnext.val() - self.quantum_q4.val();
                self.quanta_left.d.next = self.quanta_left.q.val() - 1;
            }
        } else {
            self.run.d.next = 0.into();
        }
        // A pause frame received restarts the count with its time (an XON: zero), after the countdown
        // so that a frame landing on a quantum boundary is not overridden by it.
        if self.rx.done.val() && self.for_us.val() && self.enable.val() {
            self.rx_pause_inc.next = true;
            if self.ignore_left.q.val() == 0 {
                self.quanta_left.d.next = self.quanta.val();
                self.qcount.d.next = 0.into();
                self.all.d.next = self.pause_op.val();
            }
        }
        if self.ignore_left.q.val() != 0 {
            self.ignore_left.d.next = self.ignore_left.q.val() - 1;
        }
        // Watchdog: paused too long without a break → stop honouring pause for a while.
        if (self.watchdog_cycles.val() != 0) && (self.run.q.val() >= self.watchdog_cycles.val()) {
            self.watchdog_inc.next = true;
            self.quanta_left.d.next = 0.into();
            self.run.d.next = 0.into();
            self.ignore_left.d.next = self.recovery_cycles.val();
        }

        // Generation: XOFF above the high-water mark, refreshed; XON at the low-water mark.
        self.want.next = false;
        self.want_quanta.next = bit_cast::<16, 32>(self.pause_quanta.val());
        if !self.tx.busy.val() {
            self.refresh.d.next = self.refresh.q.val() + 1;
        }
        if (self.xoff_words.val() != 0) && self.enable.val() && !self.tx.busy.val() {
            if !self.xoff.q.val() && (self.fill.val() >= self.xoff_words.val()) {
                self.want.next = true;
                self.xoff.d.next = true;
                self.tx_xoff_inc.next = true;
            } else if self.xoff.q.val() && (self.fill.val() <= self.xon_words.val()) {
                self.want.next = true;
                self.want_quanta.next = 0.into();
                self.xoff.d.next = false;
                self.tx_xon_inc.next = true;
            } else if self.xoff.q.val() && (self.refresh.q.val() >= self.refresh_cycles.val()) {
                self.want.next = true;
                self.tx_xoff_inc.next = true;
            }
        }
        if self.want.val() {
            self.refresh.d.next = 0.into();
        }
        self.tx.load.next = self.want.val();
        self.tx.frame.next = self.fixed.val()
            | (bit_cast::<512, 48>(self.my_mac.val()) << self.sh_src.val())
            | (bit_cast::<512, 16>(bits::<16>(1) << self.prio3.val()) << self.sh_cev.val())
            | (bit_cast::<512, 16>(self.want_quanta.val()) << self.sh_time.val());
        self.tx_tdata.next = self.tx.tx_tdata.val();
        self.tx_tkeep.next = self.tx.tx_tkeep.val();
        self.tx_tlast.next = self.tx.tx_tlast.val();
        self.tx_tvalid.next = self.tx.tx_tvalid.val();
        self.tx.tx_tready.next = self.tx_tready.val();
        if self.reset.val() || !self.enable.val() {
            self.quanta_left.d.next = 0.into();
            self.ignore_left.d.next = 0.into();
            self.run.d.next = 0.into();
            self.xoff.d.next = false;
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
