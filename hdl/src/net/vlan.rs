//! IEEE 802.1Q tags on the MAC side: `VlanStrip` takes the tag out of received frames before the receive
//! buffer, `VlanInsert` puts one into transmitted frames after the transmit arbiter. The rest of the core
//! then sees untagged Ethernet II frames at fixed offsets, and the ICRC (which starts at the IP header)
//! is the same either way.
//!
//! The tag is the 4 bytes at frame offsets 12..15: TPID 0x8100, then the TCI (PCP 3 bits, DEI 1, VID 12).
//! Both blocks are AXI-Stream stages with the widths the core uses (8 to 64 byte lanes). When their mode
//! is off they pass frames through in the same cycle, so a port without VLANs behaves (and times) exactly
//! as without these blocks; a mode change takes effect between frames, never inside one.
use rust_hdl::prelude::*;

/// Frame offset of the tag.
const TAG_AT: usize = 12;
/// TPID of a C-VLAN tag, as the 16 bits of lanes 12..13 read little-endian (0x81 first on the wire).
const TPID_LANES: u64 = 0x0081;

/// Per-beat lane masks and the tag's place, from the width: lanes before the tag (copied as they are)
/// and the tag's lanes, for the frame's beats 0 and 1 (from beat 2 on there are neither).
fn masks(b: usize) -> (u64, u64, u64, u64, usize, usize) {
    assert!(b.is_power_of_two() && (8..=64).contains(&b));
    let lanes = |from: usize, to: usize, beat: usize| -> u64 {
        // Lanes j of `beat` with from <= beat * b + j < to.
        (0..b)
            .filter(|j| (from..to).contains(&(beat * b + j)))
            .fold(0u64, |m, j| m | 1 << j)
    };
    (
        lanes(0, TAG_AT, 0),
        lanes(0, TAG_AT, 1),
        lanes(TAG_AT, TAG_AT + 4, 0),
        lanes(TAG_AT, TAG_AT + 4, 1),
        TAG_AT / b,
        TAG_AT % b,
    )
}

/// Expands a lane mask to a bit mask of `w` bits (8 per lane).
fn lane_bits<const W: usize>(m: u64) -> Bits<W> {
    let mut v = Bits::<W>::default();
    for j in 0..W / 8 {
        if m >> j & 1 == 1 {
            v = v | (Bits::<W>::from(0xFFu64) << (8 * j) as u64);
        }
    }
    v
}

/// Removes the 802.1Q tag of received frames while `mode` is set. With the mode set, each frame is held
/// one beat (the tag may only be complete in the second), a tagged frame leaves 4 bytes shorter, and
/// `vlan_drop` (valid with every output beat) says the frame should not be taken: it was untagged while
/// `untagged_ok` is clear, or its VID is none of the port VLAN table's entries that are on (`vid`,
/// `vid1`..`vid3`, entry i on when `vid_on` bit i). `pcp` and `rx_vid` are the received priority and
/// VID (valid with the beats of a tagged frame; `rx_vid` is 0 for an untagged one).
#[derive(LogicBlock)]
pub struct VlanStrip<const W: usize, const B: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub mode: Signal<In, bool>,
    pub untagged_ok: Signal<In, bool>,
    pub vid: Signal<In, Bits<12>>,
    pub vid1: Signal<In, Bits<12>>,
    pub vid2: Signal<In, Bits<12>>,
    pub vid3: Signal<In, Bits<12>>,
    pub vid_on: Signal<In, Bits<4>>,
    pub in_tdata: Signal<In, Bits<W>>,
    pub in_tkeep: Signal<In, Bits<B>>,
    pub in_tlast: Signal<In, bool>,
    pub in_tvalid: Signal<In, bool>,
    /// The MAC's bad-frame flag (a bad FCS), with the last beat; `out_tuser` carries it to the output's
    /// last beat.
    pub in_tuser: Signal<In, bool>,
    pub in_tready: Signal<Out, bool>,
    pub out_tdata: Signal<Out, Bits<W>>,
    pub out_tkeep: Signal<Out, Bits<B>>,
    pub out_tlast: Signal<Out, bool>,
    pub out_tvalid: Signal<Out, bool>,
    pub out_tuser: Signal<Out, bool>,
    pub out_tready: Signal<In, bool>,
    pub vlan_drop: Signal<Out, bool>,
    pub pcp: Signal<Out, Bits<3>>,
    pub rx_vid: Signal<Out, Bits<12>>,
    /// The mode of the frame in progress (taken at its first beat).
    on: DFF<bool>,
    /// A pass-through frame is in progress (its first beat went through, its last not yet).
    mid: DFF<bool>,
    /// The held beat: data, keep, last, and its index in the frame (0, 1, 2 = 2 or more).
    hv: DFF<bool>,
    hd: DFF<Bits<W>>,
    hk: DFF<Bits<B>>,
    hl: DFF<bool>,
    hu: DFF<bool>,
    k: DFF<Bits<2>>,
    /// The frame's tag, once its beat 0 has left.
    frame_tagged: DFF<bool>,
    tci: DFF<Bits<16>>,
    tag_src: Signal<Local, Bits<W>>,
    tag32: Signal<Local, Bits<32>>,
    cur_tagged: Signal<Local, bool>,
    cur_tci: Signal<Local, Bits<16>>,
    /// Lanes of the held beat copied as they are (before the tag).
    direct: Signal<Local, Bits<B>>,
    direct_bits: Signal<Local, Bits<W>>,
    shifted: Signal<Local, Bits<W>>,
    shifted_keep: Signal<Local, Bits<B>>,
    /// The incoming beat's bytes all fit in this output beat (it has 4 lanes or fewer).
    fits: Signal<Local, bool>,
    fire_out: Signal<Local, bool>,
    start_mode: Signal<Local, bool>,
    /// The outputs in VLAN mode.
    s_tdata: Signal<Local, Bits<W>>,
    s_tkeep: Signal<Local, Bits<B>>,
    s_tlast: Signal<Local, bool>,
    s_tvalid: Signal<Local, bool>,
    s_tready: Signal<Local, bool>,
    s_drop: Signal<Local, bool>,
    s_pcp: Signal<Local, Bits<3>>,
    s_vid: Signal<Local, Bits<12>>,
    /// The frame's VID is an entry that is on.
    vid_hit: Signal<Local, bool>,
    d0: Constant<Bits<B>>,
    d1: Constant<Bits<B>>,
    d0_bits: Constant<Bits<W>>,
    d1_bits: Constant<Bits<W>>,
    tag_in_next: Constant<bool>,
    sh_tag: Constant<Bits<16>>,
    sh_up: Constant<Bits<16>>,
    sh_keep_up: Constant<Bits<16>>,
    ones_b: Constant<Bits<B>>,
    ones_w: Constant<Bits<W>>,
    tpid: Constant<Bits<32>>,
}

impl<const W: usize, const B: usize> Default for VlanStrip<W, B> {
    fn default() -> Self {
        assert_eq!(W, 8 * B);
        let (d0, d1, _, _, tag_beat, tag_lane) = masks(B);
        let c16 = |v: usize| Constant::new((v as u64).into());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            mode: Default::default(),
            untagged_ok: Default::default(),
            vid: Default::default(),
            vid1: Default::default(),
            vid2: Default::default(),
            vid3: Default::default(),
            vid_on: Default::default(),
            in_tdata: Default::default(),
            in_tkeep: Default::default(),
            in_tlast: Default::default(),
            in_tvalid: Default::default(),
            in_tuser: Default::default(),
            in_tready: Default::default(),
            out_tdata: Default::default(),
            out_tkeep: Default::default(),
            out_tlast: Default::default(),
            out_tvalid: Default::default(),
            out_tuser: Default::default(),
            out_tready: Default::default(),
            vlan_drop: Default::default(),
            pcp: Default::default(),
            rx_vid: Default::default(),
            on: Default::default(),
            mid: Default::default(),
            hv: Default::default(),
            hd: Default::default(),
            hk: Default::default(),
            hl: Default::default(),
            hu: Default::default(),
            k: Default::default(),
            frame_tagged: Default::default(),
            tci: Default::default(),
            tag_src: Default::default(),
            tag32: Default::default(),
            cur_tagged: Default::default(),
            cur_tci: Default::default(),
            direct: Default::default(),
            direct_bits: Default::default(),
            shifted: Default::default(),
            shifted_keep: Default::default(),
            fits: Default::default(),
            fire_out: Default::default(),
            start_mode: Default::default(),
            s_tdata: Default::default(),
            s_tkeep: Default::default(),
            s_tlast: Default::default(),
            s_tvalid: Default::default(),
            s_tready: Default::default(),
            s_drop: Default::default(),
            s_pcp: Default::default(),
            s_vid: Default::default(),
            vid_hit: Default::default(),
            d0: Constant::new(d0.into()),
            d1: Constant::new(d1.into()),
            d0_bits: Constant::new(lane_bits::<W>(d0)),
            d1_bits: Constant::new(lane_bits::<W>(d1)),
            tag_in_next: Constant::new(tag_beat == 1),
            sh_tag: c16(8 * tag_lane),
            sh_up: c16(W - 32),
            sh_keep_up: c16(B - 4),
            ones_b: Constant::new(Bits::<B>::mask()),
            ones_w: Constant::new(Bits::<W>::mask()),
            tpid: Constant::new(TPID_LANES.into()),
        }
    }
}

impl<const W: usize, const B: usize> Logic for VlanStrip<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            on,
            mid,
            hv,
            hd,
            hk,
            hl,
            hu,
            k,
            frame_tagged,
            tci
        );
        // The mode a frame starting now gets.
        self.start_mode.next = self.on.q.val();
        if !self.mid.q.val() && !self.hv.q.val() {
            self.start_mode.next = self.mode.val();
        }
        // The tag of beat 0 (held), complete in the held beat or with the incoming one.
        self.tag_src.next = self.hd.q.val();
        if self.tag_in_next.val() {
            self.tag_src.next = self.in_tdata.val();
        }
        self.tag32.next = bit_cast::<32, W>(self.tag_src.val() >> self.sh_tag.val());
        self.cur_tagged.next = self.frame_tagged.q.val();
        self.cur_tci.next = self.tci.q.val();
        if self.k.q.val() == 0 {
            self.cur_tagged.next = (self.tag32.val() & 0xFFFF) == self.tpid.val();
            // TCI: lane 14 is its high byte, lane 15 its low byte.
            self.cur_tci.next = (bit_cast::<16, 32>((self.tag32.val() >> 16) & 0xFF) << 8)
                | bit_cast::<16, 32>(self.tag32.val() >> 24);
        }
        self.s_pcp.next = bit_cast::<3, 16>(self.cur_tci.val() >> 13);
        self.s_vid.next = 0.into();
        if self.cur_tagged.val() {
            self.s_vid.next = bit_cast::<12, 16>(self.cur_tci.val() & 0x0FFF);
        }
        self.vid_hit.next = (((self.vid_on.val() & 1) != 0)
            && (self.s_vid.val() == self.vid.val()))
            || (((self.vid_on.val() & 2) != 0) && (self.s_vid.val() == self.vid1.val()))
            || (((self.vid_on.val() & 4) != 0) && (self.s_vid.val() == self.vid2.val()))
            || (((self.vid_on.val() & 8) != 0) && (self.s_vid.val() == self.vid3.val()));
        self.s_drop.next = !self.untagged_ok.val();
        if self.cur_tagged.val() {
            self.s_drop.next = !self.vid_hit.val();
        }
        // A tagged frame: lanes before the tag from the held beat, the rest 4 bytes further on.
        self.direct.next = 0.into();
        self.direct_bits.next = 0.into();
        if self.k.q.val() == 0 {
            self.direct.next = self.d0.val();
            self.direct_bits.next = self.d0_bits.val();
        } else if self.k.q.val() == 1 {
            self.direct.next = self.d1.val();
            self.direct_bits.next = self.d1_bits.val();
        }
        self.shifted.next = (self.hd.q.val() >> 32) | (self.in_tdata.val() << self.sh_up.val());
        self.shifted_keep.next =
            (self.hk.q.val() >> 4) | (self.in_tkeep.val() << self.sh_keep_up.val());
        self.fits.next = (self.in_tkeep.val() >> 4) == 0;
        if !self.cur_tagged.val() {
            self.direct.next = self.ones_b.val();
            self.direct_bits.next = self.ones_w.val();
        }
        if self.hl.q.val() {
            // No beat after the held one.
            self.shifted.next = self.hd.q.val() >> 32;
            self.shifted_keep.next = self.hk.q.val() >> 4;
        }
        self.s_tdata.next = (self.hd.q.val() & self.direct_bits.val())
            | (self.shifted.val() & !self.direct_bits.val());
        self.s_tkeep.next =
            (self.hk.q.val() & self.direct.val()) | (self.shifted_keep.val() & !self.direct.val());
        self.s_tlast.next =
            self.hl.q.val() || (self.cur_tagged.val() && self.in_tlast.val() && self.fits.val());
        self.s_tvalid.next = self.hv.q.val() && (self.hl.q.val() || self.in_tvalid.val());
        self.s_tready.next = self.out_tready.val() || !self.hv.q.val();
        self.fire_out.next = self.s_tvalid.val() && self.out_tready.val();
        if self.fire_out.val() && (self.k.q.val() == 0) {
            self.frame_tagged.d.next = self.cur_tagged.val();
            self.tci.d.next = self.cur_tci.val();
        }
        if self.fire_out.val() {
            self.hv.d.next = false;
            if self.k.q.val() != 2 {
                self.k.d.next = self.k.q.val() + 1;
            }
        }
        // The incoming beat becomes the held one, unless it ended the frame in this output beat.
        if self.in_tvalid.val() && self.s_tready.val() {
            if !self.hv.q.val() || self.hl.q.val() {
                // A new frame's first beat.
                self.on.d.next = self.start_mode.val();
                self.hv.d.next = true;
                self.k.d.next = 0.into();
            } else if !(self.cur_tagged.val() && self.in_tlast.val() && self.fits.val()) {
                self.hv.d.next = true;
            }
            self.hd.d.next = self.in_tdata.val();
            self.hk.d.next = self.in_tkeep.val();
            self.hl.d.next = self.in_tlast.val();
            self.hu.d.next = self.in_tuser.val();
        }
        // Each output is assigned once (a glitch on a port makes event-driven simulators re-evaluate
        // the whole NIC around it). Mode off: the frame passes in the same cycle.
        if self.start_mode.val() {
            self.out_tdata.next = self.s_tdata.val();
            self.out_tkeep.next = self.s_tkeep.val();
            self.out_tlast.next = self.s_tlast.val();
            self.out_tvalid.next = self.s_tvalid.val();
            // The flag of the last beat: held with it, or the incoming one when that ends the frame here.
            self.out_tuser.next = self.in_tuser.val();
            if self.hl.q.val() {
                self.out_tuser.next = self.hu.q.val();
            }
            self.in_tready.next = self.s_tready.val();
            self.vlan_drop.next = self.s_drop.val();
            self.pcp.next = self.s_pcp.val();
            self.rx_vid.next = self.s_vid.val();
        } else {
            self.out_tdata.next = self.in_tdata.val();
            self.out_tkeep.next = self.in_tkeep.val();
            self.out_tlast.next = self.in_tlast.val();
            self.out_tvalid.next = self.in_tvalid.val();
            self.out_tuser.next = self.in_tuser.val();
            self.in_tready.next = self.out_tready.val();
            self.vlan_drop.next = false;
            self.pcp.next = 0.into();
            self.rx_vid.next = 0.into();
            self.hv.d.next = false;
            if self.in_tvalid.val() && self.out_tready.val() {
                self.on.d.next = false;
                self.mid.d.next = !self.in_tlast.val();
            }
        }
        if self.reset.val() {
            self.hv.d.next = false;
            self.mid.d.next = false;
            self.on.d.next = false;
        }
    }
}

/// Adds an 802.1Q tag with `tci` (PCP, DEI, VID) to every frame that starts while `tag_en` is set;
/// other frames pass through in the same cycle. A tagged frame is 4 bytes longer: when its last beat
/// has more than `B - 4` bytes, one more beat follows it (the source waits that cycle).
#[derive(LogicBlock)]
pub struct VlanInsert<const W: usize, const B: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub tag_en: Signal<In, bool>,
    pub tci: Signal<In, Bits<16>>,
    pub in_tdata: Signal<In, Bits<W>>,
    pub in_tkeep: Signal<In, Bits<B>>,
    pub in_tlast: Signal<In, bool>,
    pub in_tvalid: Signal<In, bool>,
    pub in_tready: Signal<Out, bool>,
    pub out_tdata: Signal<Out, Bits<W>>,
    pub out_tkeep: Signal<Out, Bits<B>>,
    pub out_tlast: Signal<Out, bool>,
    pub out_tvalid: Signal<Out, bool>,
    pub out_tready: Signal<In, bool>,
    /// The frame in progress is being tagged.
    on: DFF<bool>,
    mid: DFF<bool>,
    /// The previous input beat (its top 4 lanes move into the next output beat), its keep, and whether
    /// only they are left to send (the frame's extra beat).
    pd: DFF<Bits<W>>,
    pk: DFF<Bits<B>>,
    tail: DFF<bool>,
    k: DFF<Bits<2>>,
    tagging: Signal<Local, bool>,
    direct: Signal<Local, Bits<B>>,
    direct_bits: Signal<Local, Bits<W>>,
    tag_lanes: Signal<Local, Bits<B>>,
    tag_bits: Signal<Local, Bits<W>>,
    tag_w: Signal<Local, Bits<W>>,
    shifted: Signal<Local, Bits<W>>,
    shifted_keep: Signal<Local, Bits<B>>,
    /// The input's last beat fits in this output beat with the 4 bytes' shift (B - 4 lanes or fewer).
    fits: Signal<Local, bool>,
    v_tdata: Signal<Local, Bits<W>>,
    v_tkeep: Signal<Local, Bits<B>>,
    v_tlast: Signal<Local, bool>,
    d0: Constant<Bits<B>>,
    d1: Constant<Bits<B>>,
    d0_bits: Constant<Bits<W>>,
    d1_bits: Constant<Bits<W>>,
    t0: Constant<Bits<B>>,
    t1: Constant<Bits<B>>,
    t0_bits: Constant<Bits<W>>,
    t1_bits: Constant<Bits<W>>,
    sh_tag: Constant<Bits<16>>,
    sh_down: Constant<Bits<16>>,
    sh_keep_down: Constant<Bits<16>>,
    tpid: Constant<Bits<W>>,
}

impl<const W: usize, const B: usize> Default for VlanInsert<W, B> {
    fn default() -> Self {
        assert_eq!(W, 8 * B);
        let (d0, d1, t0, t1, _, tag_lane) = masks(B);
        let c16 = |v: usize| Constant::new((v as u64).into());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            tag_en: Default::default(),
            tci: Default::default(),
            in_tdata: Default::default(),
            in_tkeep: Default::default(),
            in_tlast: Default::default(),
            in_tvalid: Default::default(),
            in_tready: Default::default(),
            out_tdata: Default::default(),
            out_tkeep: Default::default(),
            out_tlast: Default::default(),
            out_tvalid: Default::default(),
            out_tready: Default::default(),
            on: Default::default(),
            mid: Default::default(),
            pd: Default::default(),
            pk: Default::default(),
            tail: Default::default(),
            k: Default::default(),
            tagging: Default::default(),
            direct: Default::default(),
            direct_bits: Default::default(),
            tag_lanes: Default::default(),
            tag_bits: Default::default(),
            tag_w: Default::default(),
            shifted: Default::default(),
            shifted_keep: Default::default(),
            fits: Default::default(),
            v_tdata: Default::default(),
            v_tkeep: Default::default(),
            v_tlast: Default::default(),
            d0: Constant::new(d0.into()),
            d1: Constant::new(d1.into()),
            d0_bits: Constant::new(lane_bits::<W>(d0)),
            d1_bits: Constant::new(lane_bits::<W>(d1)),
            t0: Constant::new(t0.into()),
            t1: Constant::new(t1.into()),
            t0_bits: Constant::new(lane_bits::<W>(t0)),
            t1_bits: Constant::new(lane_bits::<W>(t1)),
            sh_tag: c16(8 * tag_lane),
            sh_down: c16(W - 32),
            sh_keep_down: c16(B - 4),
            tpid: Constant::new(TPID_LANES.into()),
        }
    }
}

impl<const W: usize, const B: usize> Logic for VlanInsert<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, on, mid, pd, pk, tail, k);
        self.tagging.next = self.on.q.val();
        if !self.mid.q.val() {
            self.tagging.next = self.tag_en.val();
        }
        self.direct.next = 0.into();
        self.direct_bits.next = 0.into();
        self.tag_lanes.next = 0.into();
        self.tag_bits.next = 0.into();
        if self.k.q.val() == 0 {
            self.direct.next = self.d0.val();
            self.direct_bits.next = self.d0_bits.val();
            self.tag_lanes.next = self.t0.val();
            self.tag_bits.next = self.t0_bits.val();
        } else if self.k.q.val() == 1 {
            self.direct.next = self.d1.val();
            self.direct_bits.next = self.d1_bits.val();
            self.tag_lanes.next = self.t1.val();
            self.tag_bits.next = self.t1_bits.val();
        }
        // TPID 0x8100 then the TCI, big-endian, at the tag's lanes.
        self.tag_w.next = (bit_cast::<W, 16>(self.tci.val() & 0xFF) << 24
            | bit_cast::<W, 16>(self.tci.val() >> 8) << 16
            | self.tpid.val())
            << self.sh_tag.val();
        self.shifted.next = (self.in_tdata.val() << 32) | (self.pd.q.val() >> self.sh_down.val());
        self.shifted_keep.next =
            (self.in_tkeep.val() << 4) | (self.pk.q.val() >> self.sh_keep_down.val());
        if self.tail.q.val() {
            // The extra beat is all shifted bytes.
            self.shifted.next = self.pd.q.val() >> self.sh_down.val();
            self.shifted_keep.next = self.pk.q.val() >> self.sh_keep_down.val();
            self.direct.next = 0.into();
            self.direct_bits.next = 0.into();
            self.tag_lanes.next = 0.into();
            self.tag_bits.next = 0.into();
        }
        self.fits.next = (self.in_tkeep.val() >> self.sh_keep_down.val()) == 0;
        self.v_tdata.next = (self.in_tdata.val() & self.direct_bits.val())
            | (self.tag_w.val() & self.tag_bits.val())
            | (self.shifted.val() & !(self.direct_bits.val() | self.tag_bits.val()));
        self.v_tkeep.next = (self.in_tkeep.val() & self.direct.val())
            | self.tag_lanes.val()
            | (self.shifted_keep.val() & !(self.direct.val() | self.tag_lanes.val()));
        self.v_tlast.next = self.tail.q.val() || (self.in_tlast.val() && self.fits.val());
        self.out_tvalid.next = self.tail.q.val() || self.in_tvalid.val();
        self.in_tready.next = self.out_tready.val() && !self.tail.q.val();
        if self.tail.q.val() {
            if self.out_tready.val() {
                self.tail.d.next = false;
                self.on.d.next = false;
                self.mid.d.next = false;
            }
        } else if self.in_tvalid.val() && self.out_tready.val() {
            self.on.d.next = self.tagging.val();
            self.mid.d.next = !self.in_tlast.val();
            self.pd.d.next = self.in_tdata.val();
            self.pk.d.next = self.in_tkeep.val();
            if self.k.q.val() != 2 {
                self.k.d.next = self.k.q.val() + 1;
            }
            if self.in_tlast.val() {
                self.k.d.next = 0.into();
                if self.tagging.val() && !self.fits.val() {
                    // The extra beat: the last input beat's top 4 lanes.
                    self.tail.d.next = true;
                    self.mid.d.next = true;
                    self.on.d.next = true;
                }
            }
        }
        // Each output assigned once (see VlanStrip); an untagged frame passes unchanged.
        if self.tagging.val() || self.tail.q.val() {
            self.out_tdata.next = self.v_tdata.val();
            self.out_tkeep.next = self.v_tkeep.val();
            self.out_tlast.next = self.v_tlast.val();
        } else {
            self.out_tdata.next = self.in_tdata.val();
            self.out_tkeep.next = self.in_tkeep.val();
            self.out_tlast.next = self.in_tlast.val();
        }
        if self.reset.val() {
            self.tail.d.next = false;
            self.mid.d.next = false;
            self.on.d.next = false;
            self.k.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_place_the_tag() {
        // 8 lanes: beat 0 is all before the tag; beat 1 has 4 lanes before it and the tag in lanes 4..7.
        assert_eq!(masks(8), (0xFF, 0x0F, 0x00, 0xF0, 1, 4));
        // 64 lanes: 12 lanes before the tag, the tag in lanes 12..15 of beat 0.
        assert_eq!(masks(64), (0xFFF, 0, 0xF000, 0, 0, 12));
    }

    #[test]
    fn vlan_strip_synthesizes() {
        let mut uut = VlanStrip::<64, 8>::default();
        uut.connect_all();
        assert!(generate_verilog(&uut).contains("module top"));
    }

    #[test]
    fn vlan_insert_synthesizes() {
        let mut uut = VlanInsert::<512, 64>::default();
        uut.connect_all();
        assert!(generate_verilog(&uut).contains("module top"));
    }
}
