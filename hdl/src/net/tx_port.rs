//! The MAC's transmit side: the arbiter over the four frame sources (PFC/PAUSE frames, ARP replies, NDP
//! advertisements, the transmit engine's RoCE frames), the PFC hold of RoCE frames, a register slice,
//! and the 802.1Q tag insert.
//!
//! Whole frames: PFC first, then an ARP reply, then an NDP advertisement, then RoCE unless its priority
//! is paused or DCQCN holds it. A source is granted only while the MAC is free or already its own, so
//! the owner found at a frame's first beat keeps it to the last. The granted stream and its tag (the
//! side field of `StreamSlice`) are registered before `VlanInsert`, so the sources' output logic and the
//! grant end at a register, and the tag insert and the MAC's ready start at one.
use crate::net::vlan::VlanInsert;
use crate::prim::stream_slice::StreamSlice;
use rust_hdl::prelude::*;

/// One frame source: a stream whose `tready` the port drives.
#[derive(LogicInterface, Default)]
pub struct TxSource<const W: usize, const B: usize> {
    pub tdata: Signal<In, Bits<W>>,
    pub tkeep: Signal<In, Bits<B>>,
    pub tlast: Signal<In, bool>,
    pub tvalid: Signal<In, bool>,
    pub tready: Signal<Out, bool>,
}

#[derive(LogicBlock, Default)]
pub struct TxPort<const W: usize, const B: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub roce: TxSource<W, B>,
    pub pfc: TxSource<W, B>,
    pub arp: TxSource<W, B>,
    pub ndp: TxSource<W, B>,
    /// The RoCE frame's 802.1Qbb priority (its DSCP through the map) and VLAN (QP_VLAN: bit 0 on, bits
    /// 2..1 the port VLAN table entry); whether the engine had set it up (`tx_committed`).
    pub roce_prio: Signal<In, Bits<3>>,
    pub roce_vlan: Signal<In, Bits<3>>,
    pub roce_committed: Signal<In, bool>,
    /// The VID an ARP or NDP reply goes out on (0: untagged), from its request.
    pub arp_vid: Signal<In, Bits<12>>,
    pub ndp_vid: Signal<In, Bits<12>>,
    /// The port VLAN table's VIDs (entry 0 is the port's VLAN), VLAN mode, the PCP of ARP and NDP
    /// replies (the lowest lossless priority).
    pub vid0: Signal<In, Bits<12>>,
    pub vid1: Signal<In, Bits<12>>,
    pub vid2: Signal<In, Bits<12>>,
    pub vid3: Signal<In, Bits<12>>,
    pub vlan_on: Signal<In, bool>,
    pub ctl_pcp: Signal<In, Bits<3>>,
    /// Priorities paused by PFC or PAUSE (bit p), and the DCQCN pacer's hold of RoCE frames.
    pub paused: Signal<In, Bits<8>>,
    pub dcqcn_hold: Signal<In, bool>,
    /// To the MAC.
    pub out_tdata: Signal<Out, Bits<W>>,
    pub out_tkeep: Signal<Out, Bits<B>>,
    pub out_tlast: Signal<Out, bool>,
    pub out_tvalid: Signal<Out, bool>,
    pub out_tready: Signal<In, bool>,
    /// A RoCE beat left for the MAC this cycle (the DCQCN byte counter's).
    pub roce_beat: Signal<Out, bool>,
    /// Who owns the MAC until the current frame's last beat: 0 none, 1 RoCE, 2 ARP, 3 PFC, 4 NDP.
    own: DFF<Bits<3>>,
    /// `paused` a cycle ago, and the pass of the RoCE frame that was committed (set up, not yet on the
    /// wire) when the pause of its priority began: it may still start, once, as a frame already in a
    /// MAC's transmit FIFO would (were it held, every frame behind it would wait out the pause).
    was_paused: DFF<Bits<8>>,
    pass: DFF<bool>,
    roce_paused: Signal<Local, bool>,
    pfc_hold: Signal<Local, bool>,
    g_pfc: Signal<Local, bool>,
    g_arp: Signal<Local, bool>,
    g_ndp: Signal<Local, bool>,
    g_roce: Signal<Local, bool>,
    fire: Signal<Local, bool>,
    vid: Signal<Local, Bits<12>>,
    tag_on: Signal<Local, bool>,
    pcp: Signal<Local, Bits<3>>,
    slice: StreamSlice<W, B, 17>,
    vlan: VlanInsert<W, B>,
}

impl<const W: usize, const B: usize> Logic for TxPort<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, own, was_paused, pass);
        self.slice.clock.next = self.clock.val();
        self.slice.reset.next = self.reset.val();
        self.vlan.clock.next = self.clock.val();
        self.vlan.reset.next = self.reset.val();
        self.roce_paused.next = ((self.paused.val() >> self.roce_prio.val()) & 1) != 0;
        self.pfc_hold.next = self.roce_paused.val() && !self.pass.q.val();
        self.g_pfc.next =
            (self.own.q.val() == 3) || ((self.own.q.val() == 0) && self.pfc.tvalid.val());
        self.g_arp.next = (self.own.q.val() == 2)
            || ((self.own.q.val() == 0) && !self.pfc.tvalid.val() && self.arp.tvalid.val());
        self.g_ndp.next = (self.own.q.val() == 4)
            || ((self.own.q.val() == 0)
                && !self.pfc.tvalid.val()
                && !self.arp.tvalid.val()
                && self.ndp.tvalid.val());
        self.g_roce.next = (self.own.q.val() == 1)
            || ((self.own.q.val() == 0)
                && !self.pfc.tvalid.val()
                && !self.arp.tvalid.val()
                && !self.ndp.tvalid.val()
                && !self.pfc_hold.val()
                && !self.dcqcn_hold.val());
        // The granted source into the slice.
        self.slice.in_tdata.next = self.roce.tdata.val();
        self.slice.in_tkeep.next = self.roce.tkeep.val();
        self.slice.in_tlast.next = self.roce.tlast.val();
        self.slice.in_tvalid.next = self.roce.tvalid.val() && self.g_roce.val();
        self.roce.tready.next = self.slice.in_tready.val() && self.g_roce.val();
        self.pfc.tready.next = false;
        self.arp.tready.next = false;
        self.ndp.tready.next = false;
        if self.g_pfc.val() {
            self.slice.in_tdata.next = self.pfc.tdata.val();
            self.slice.in_tkeep.next = self.pfc.tkeep.val();
            self.slice.in_tlast.next = self.pfc.tlast.val();
            self.slice.in_tvalid.next = self.pfc.tvalid.val();
            self.roce.tready.next = false;
            self.pfc.tready.next = self.slice.in_tready.val();
        } else if self.g_arp.val() {
            self.slice.in_tdata.next = self.arp.tdata.val();
            self.slice.in_tkeep.next = self.arp.tkeep.val();
            self.slice.in_tlast.next = self.arp.tlast.val();
            self.slice.in_tvalid.next = self.arp.tvalid.val();
            self.roce.tready.next = false;
            self.arp.tready.next = self.slice.in_tready.val();
        } else if self.g_ndp.val() {
            self.slice.in_tdata.next = self.ndp.tdata.val();
            self.slice.in_tkeep.next = self.ndp.tkeep.val();
            self.slice.in_tlast.next = self.ndp.tlast.val();
            self.slice.in_tvalid.next = self.ndp.tvalid.val();
            self.roce.tready.next = false;
            self.ndp.tready.next = self.slice.in_tready.val();
        }
        self.fire.next = self.slice.in_tvalid.val() && self.slice.in_tready.val();
        self.roce_beat.next = self.fire.val()
            && self.g_roce.val()
            && !self.g_pfc.val()
            && !self.g_arp.val()
            && !self.g_ndp.val();
        // The pass: given when the pause begins to a committed frame not yet on the wire, spent when a
        // RoCE frame starts, void when the pause ends.
        self.was_paused.d.next = self.paused.val();
        if self.roce_paused.val()
            && (((self.was_paused.q.val() >> self.roce_prio.val()) & 1) == 0)
            && self.roce_committed.val()
            && (self.own.q.val() != 1)
        {
            self.pass.d.next = true;
        }
        if !self.roce_paused.val()
            || (self.fire.val() && self.g_roce.val() && (self.own.q.val() == 0))
        {
            self.pass.d.next = false;
        }
        if self.fire.val() {
            self.own.d.next = 1.into();
            if self.g_arp.val() {
                self.own.d.next = 2.into();
            }
            if self.g_ndp.val() {
                self.own.d.next = 4.into();
            }
            if self.g_pfc.val() {
                self.own.d.next = 3.into();
            }
            if self.slice.in_tlast.val() {
                self.own.d.next = 0.into();
            }
        }
        if self.reset.val() {
            self.pass.d.next = false;
            self.own.d.next = 0.into();
        }
        // The granted frame's tag: a RoCE frame's from its QP's VLAN (an entry of the port VLAN table),
        // else the port's in VLAN mode, PCP its priority; an ARP or NDP reply's from its request, PCP the
        // lowest lossless priority; PFC and PAUSE frames never. DEI 0.
        self.vid.next = self.vid0.val();
        self.tag_on.next = self.vlan_on.val();
        self.pcp.next = self.roce_prio.val();
        if self.roce_vlan.val().get_bit(0) {
            self.tag_on.next = true;
            if (self.roce_vlan.val() >> 1) == 1 {
                self.vid.next = self.vid1.val();
            }
            if (self.roce_vlan.val() >> 1) == 2 {
                self.vid.next = self.vid2.val();
            }
            if (self.roce_vlan.val() >> 1) == 3 {
                self.vid.next = self.vid3.val();
            }
        }
        if self.g_arp.val() {
            self.vid.next = self.arp_vid.val();
            self.tag_on.next = self.arp_vid.val() != 0;
            self.pcp.next = self.ctl_pcp.val();
        }
        if self.g_ndp.val() {
            self.vid.next = self.ndp_vid.val();
            self.tag_on.next = self.ndp_vid.val() != 0;
            self.pcp.next = self.ctl_pcp.val();
        }
        if self.g_pfc.val() {
            self.tag_on.next = false;
        }
        self.slice.in_tuser.next = (bit_cast::<17, 1>(self.tag_on.val().into()) << 16)
            | (bit_cast::<17, 3>(self.pcp.val()) << 13)
            | bit_cast::<17, 12>(self.vid.val());
        self.vlan.in_tdata.next = self.slice.out_tdata.val();
        self.vlan.in_tkeep.next = self.slice.out_tkeep.val();
        self.vlan.in_tlast.next = self.slice.out_tlast.val();
        self.vlan.in_tvalid.next = self.slice.out_tvalid.val();
        self.slice.out_tready.next = self.vlan.in_tready.val();
        self.vlan.tag_en.next = self.slice.out_tuser.val().get_bit(16);
        self.vlan.tci.next = bit_cast::<16, 17>(self.slice.out_tuser.val());
        self.out_tdata.next = self.vlan.out_tdata.val();
        self.out_tkeep.next = self.vlan.out_tkeep.val();
        self.out_tlast.next = self.vlan.out_tlast.val();
        self.out_tvalid.next = self.vlan.out_tvalid.val();
        self.vlan.out_tready.next = self.out_tready.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prim::test_rng;
    use std::sync::{Arc, Mutex};

    type Port = TxPort<64, 8>;
    /// Sources in the order of the port's fields: RoCE, PFC, ARP, NDP.
    const ROCE: usize = 0;
    const PFC: usize = 1;
    const ARP: usize = 2;
    const NDP: usize = 3;

    /// A frame from source `src`: `beats` whole beats, every byte `src << 4 | seq`, offered from cycle
    /// `at` on (after the frames of that source before it).
    #[derive(Clone)]
    struct Frame {
        src: usize,
        seq: u8,
        beats: usize,
        at: usize,
    }

    impl Frame {
        fn byte(&self) -> u8 {
            (self.src as u8) << 4 | self.seq
        }
    }

    /// The port's control inputs, per cycle.
    #[derive(Clone, Copy, Default)]
    struct Ctl {
        paused: u8,
        committed: bool,
    }

    struct Setup {
        frames: Vec<Frame>,
        ctl: fn(usize) -> Ctl,
        vlan_on: bool,
        roce_prio: u8,
        arp_vid: u16,
        p_ready: u64,
        cycles: usize,
    }

    /// Runs the port and returns the frames the MAC took, as bytes.
    fn run(s: Setup) -> Vec<Vec<u8>> {
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<Port>| x.clock.next = !x.clock.val());
        let got = Arc::new(Mutex::new(Vec::new()));
        let g2 = got.clone();
        sim.add_testbench(move |mut sim: Sim<Port>| {
            let mut x = sim.init()?;
            let mut rng = test_rng(11);
            x.reset.next = true;
            x.vlan_on.next = s.vlan_on;
            x.vid0.next = 5.into();
            x.roce_prio.next = (s.roce_prio as u64).into();
            x.ctl_pcp.next = 1.into();
            x.arp_vid.next = (s.arp_vid as u64).into();
            wait_clock_cycle!(sim, clock, x);
            x.reset.next = false;
            // Per source: its frames, the one offered and the beat of it.
            let mut queue: Vec<Vec<Frame>> = vec![Vec::new(); 4];
            for f in &s.frames {
                queue[f.src].push(f.clone());
            }
            let mut pos = [(0usize, 0usize); 4];
            let (mut frames, mut cur) = (Vec::new(), Vec::new());
            for cycle in 0..s.cycles {
                let c = (s.ctl)(cycle);
                x.paused.next = (c.paused as u64).into();
                x.roce_committed.next = c.committed;
                let mut offer = [None; 4];
                for (k, q) in queue.iter().enumerate() {
                    let (fi, bi) = pos[k];
                    if let Some(f) = q.get(fi).filter(|f| cycle >= f.at) {
                        let d = u64::from_le_bytes([f.byte(); 8]);
                        offer[k] = Some((d, bi + 1 == f.beats));
                    }
                }
                macro_rules! drive {
                    ($port:ident, $k:expr) => {
                        x.$port.tvalid.next = offer[$k].is_some();
                        x.$port.tdata.next = offer[$k].map_or(0, |o| o.0).into();
                        x.$port.tlast.next = offer[$k].is_some_and(|o| o.1);
                        x.$port.tkeep.next = 0xFF.into();
                    };
                }
                drive!(roce, ROCE);
                drive!(pfc, PFC);
                drive!(arp, ARP);
                drive!(ndp, NDP);
                x.out_tready.next = rng() % 100 < s.p_ready;
                x = sim.wait(1, x)?;
                let took = [
                    x.roce.tvalid.val() && x.roce.tready.val(),
                    x.pfc.tvalid.val() && x.pfc.tready.val(),
                    x.arp.tvalid.val() && x.arp.tready.val(),
                    x.ndp.tvalid.val() && x.ndp.tready.val(),
                ];
                // One source at a time.
                sim_assert!(sim, took.iter().filter(|t| **t).count() <= 1, x);
                if x.out_tvalid.val() && x.out_tready.val() {
                    let d = x.out_tdata.val().to_u64().to_le_bytes();
                    let keep = x.out_tkeep.val().to_u64();
                    cur.extend((0..8).filter(|j| keep >> j & 1 != 0).map(|j| d[j]));
                    if x.out_tlast.val() {
                        frames.push(std::mem::take(&mut cur));
                    }
                }
                wait_clock_cycle!(sim, clock, x);
                for (k, p) in pos.iter_mut().enumerate() {
                    if took[k] {
                        let f = &queue[k][p.0];
                        *p = if p.1 + 1 == f.beats {
                            (p.0 + 1, 0)
                        } else {
                            (p.0, p.1 + 1)
                        };
                    }
                }
            }
            *g2.lock().unwrap() = frames;
            sim.done(x)
        });
        let mut uut = Port::default();
        uut.connect_all();
        sim.run(Box::new(uut), 1_000_000).unwrap();
        let r = got.lock().unwrap();
        r.clone()
    }

    fn untagged(f: &Frame) -> Vec<u8> {
        vec![f.byte(); 8 * f.beats]
    }

    fn quiet(_: usize) -> Ctl {
        Ctl::default()
    }

    #[test]
    fn sends_whole_frames_pfc_then_arp_then_ndp_then_roce() {
        // A RoCE frame starts; the others arrive while it streams and wait for its last beat, then go
        // by priority, the second RoCE frame last.
        let f = |src, seq, beats, at| Frame {
            src,
            seq,
            beats,
            at,
        };
        let frames = vec![
            f(ROCE, 1, 6, 0),
            f(ROCE, 2, 3, 0),
            f(NDP, 1, 2, 2),
            f(ARP, 1, 2, 2),
            f(PFC, 1, 2, 3),
        ];
        for p_ready in [100, 60] {
            let got = run(Setup {
                frames: frames.clone(),
                ctl: quiet,
                vlan_on: false,
                roce_prio: 3,
                arp_vid: 0,
                p_ready,
                cycles: 200,
            });
            let want: Vec<Vec<u8>> = [0, 4, 3, 2, 1]
                .iter()
                .map(|&i| untagged(&frames[i]))
                .collect();
            assert_eq!(got, want, "ready {p_ready} %");
        }
    }

    #[test]
    fn a_paused_priority_holds_roce_but_a_committed_frame_goes_once() {
        let f = |src, seq, beats, at| Frame {
            src,
            seq,
            beats,
            at,
        };
        // Paused from the start, nothing committed: RoCE waits; ARP passes.
        let frames = vec![f(ROCE, 1, 2, 5), f(ARP, 1, 2, 10)];
        let held = run(Setup {
            frames: frames.clone(),
            ctl: |_| Ctl {
                paused: 1 << 3,
                committed: false,
            },
            vlan_on: false,
            roce_prio: 3,
            arp_vid: 0,
            p_ready: 100,
            cycles: 100,
        });
        assert_eq!(held, vec![untagged(&frames[1])]);
        // Another priority paused: RoCE goes.
        let other = run(Setup {
            frames: frames.clone(),
            ctl: |_| Ctl {
                paused: 1 << 2,
                committed: false,
            },
            vlan_on: false,
            roce_prio: 3,
            arp_vid: 0,
            p_ready: 100,
            cycles: 100,
        });
        assert_eq!(other.len(), 2);
        // The pause begins (cycle 4) while a frame is committed and not yet offered: it goes, once;
        // the next RoCE frame waits.
        let frames = vec![f(ROCE, 1, 2, 8), f(ROCE, 2, 2, 8)];
        let pass = run(Setup {
            frames: frames.clone(),
            ctl: |c| Ctl {
                paused: if c >= 4 { 1 << 3 } else { 0 },
                committed: c >= 2,
            },
            vlan_on: false,
            roce_prio: 3,
            arp_vid: 0,
            p_ready: 100,
            cycles: 100,
        });
        assert_eq!(pass, vec![untagged(&frames[0])]);
    }

    #[test]
    fn tags_roce_with_the_port_vlan_arp_with_its_request_and_never_pfc() {
        let f = |src, seq, beats, at| Frame {
            src,
            seq,
            beats,
            at,
        };
        let frames = vec![f(ROCE, 1, 3, 0), f(ARP, 1, 3, 10), f(PFC, 1, 3, 20)];
        let got = run(Setup {
            frames: frames.clone(),
            ctl: quiet,
            vlan_on: true,
            roce_prio: 3,
            arp_vid: 100,
            p_ready: 100,
            cycles: 100,
        });
        let tagged = |fr: &Frame, tci: u16| {
            let mut v = untagged(fr);
            v.splice(12..12, [0x81, 0x00, (tci >> 8) as u8, tci as u8]);
            v
        };
        assert_eq!(got.len(), 3);
        // PCP 3 (the frame's priority), VID 5 (the port's); PCP 1 (ctl_pcp), VID 100.
        assert_eq!(got[0], tagged(&frames[0], 3 << 13 | 5));
        assert_eq!(got[1], tagged(&frames[1], 1 << 13 | 100));
        assert_eq!(got[2], untagged(&frames[2]));
    }

    #[test]
    fn synthesizes() {
        let mut uut = TxPort::<512, 64>::default();
        uut.connect_all();
        yosys_validate("tx_port", &generate_verilog(&uut)).unwrap();
    }
}
