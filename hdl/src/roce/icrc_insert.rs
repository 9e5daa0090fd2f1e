//! ICRC generation on transmit (IBA §7.8, RoCEv2 annex A17.3.3): fills a frame's ICRC from the bytes it
//! covers, in a pipeline beside the frame.
//!
//! Frames come in with their ICRC's four bytes in place (inside `tkeep`) and zero, and with each beat:
//! the lanes the ICRC covers (`in_cen`, the IP header on up to the ICRC), whether the beat holds the
//! last covered byte (`in_eoc`), and IPv6 or not (which header fields count as ones, `in_v6`). The beats
//! are registered as they come, run through [`Crc32Pipe`] and, beside it, through a delay of the same
//! length, so that the beat holding the end of the region leaves just as its CRC does: its complement
//! goes into the lanes after the region, and the bytes past the beat's top lane into the next beat.
//!
//! Channel: `in_*` and `out_*` are AXI-stream (valid/ready). The pipeline stalls as a whole on
//! `out_tready`, so `in_tready` is `out_tready` or an empty output stage. Latency: [`LATENCY`] cycles
//! from a beat taken to the same beat offered, the ICRC in it.
use crate::prim::beat_reg::BeatReg;
use crate::prim::crc32::icrc_masks;
use crate::prim::crc32_pipe::{self, Crc32Pipe};
use rust_hdl::prelude::*;

/// Cycles from a beat taken to the same beat on `out_*`: the input register, the CRC pipeline's stages
/// (the data waits beside them) and the output register.
pub const LATENCY: usize = crc32_pipe::LATENCY + 2;

#[derive(LogicBlock)]
pub struct IcrcInsert<const W: usize, const B: usize> {
    pub clock: Signal<In, Clock>,
    pub in_tdata: Signal<In, Bits<W>>,
    pub in_tkeep: Signal<In, Bits<B>>,
    pub in_tlast: Signal<In, bool>,
    pub in_tvalid: Signal<In, bool>,
    pub in_tready: Signal<Out, bool>,
    /// Lanes of the beat the ICRC covers (frame bytes from the IP header up to the ICRC).
    pub in_cen: Signal<In, Bits<B>>,
    /// The beat holds the last byte the ICRC covers.
    pub in_eoc: Signal<In, bool>,
    /// The frame is IPv6 (RFC 8200): its own ICRC-masked fields.
    pub in_v6: Signal<In, bool>,
    pub out_tdata: Signal<Out, Bits<W>>,
    pub out_tkeep: Signal<Out, Bits<B>>,
    pub out_tlast: Signal<Out, bool>,
    pub out_tvalid: Signal<Out, bool>,
    pub out_tready: Signal<In, bool>,
    r0: BeatReg<W, B>,
    r0_cen: DFF<Bits<B>>,
    r0_eoc: DFF<bool>,
    r0_v6: DFF<bool>,
    r0_sof: DFF<bool>,
    /// Beat index of R0's beat in its frame, held at `beat_max` (the masked fields lie before it).
    r0_beat: DFF<Bits<8>>,
    /// Inside a frame: the next beat taken does not start one.
    mid: DFF<bool>,
    crc: Crc32Pipe<W, B>,
    d1: BeatReg<W, B>,
    d2: BeatReg<W, B>,
    d3: BeatReg<W, B>,
    d4: BeatReg<W, B>,
    d5: BeatReg<W, B>,
    out: BeatReg<W, B>,
    /// ICRC bytes that did not fit in their beat, for the next one.
    rem: DFF<Bits<32>>,
    rem_pend: DFF<bool>,
    adv: Signal<Local, bool>,
    mask_at: Signal<Local, Bits<16>>,
    mask: Signal<Local, Bits<W>>,
    icrc: Signal<Local, Bits<32>>,
    lane: Signal<Local, Bits<16>>,
    part: Signal<Local, Bits<W>>,
    rem_part: Signal<Local, Bits<W>>,
    mask4: Constant<Bits<1024>>,
    mask6: Constant<Bits<1024>>,
    beat_max: Constant<Bits<8>>,
    log_w: Constant<Bits<16>>,
    beat_bytes: Constant<Bits<16>>,
}

impl<const W: usize, const B: usize> Default for IcrcInsert<W, B> {
    fn default() -> Self {
        // Fields a router may change count as all ones (§7.8, annex A17); all inside the first 1024
        // bits, so beats from there on have none.
        let (mask4, mask6) = icrc_masks();
        Self {
            clock: Default::default(),
            in_tdata: Default::default(),
            in_tkeep: Default::default(),
            in_tlast: Default::default(),
            in_tvalid: Default::default(),
            in_tready: Default::default(),
            in_cen: Default::default(),
            in_eoc: Default::default(),
            in_v6: Default::default(),
            out_tdata: Default::default(),
            out_tkeep: Default::default(),
            out_tlast: Default::default(),
            out_tvalid: Default::default(),
            out_tready: Default::default(),
            r0: Default::default(),
            r0_cen: Default::default(),
            r0_eoc: Default::default(),
            r0_v6: Default::default(),
            r0_sof: Default::default(),
            r0_beat: Default::default(),
            mid: Default::default(),
            crc: Default::default(),
            d1: Default::default(),
            d2: Default::default(),
            d3: Default::default(),
            d4: Default::default(),
            d5: Default::default(),
            out: Default::default(),
            rem: Default::default(),
            rem_pend: Default::default(),
            adv: Default::default(),
            mask_at: Default::default(),
            mask: Default::default(),
            icrc: Default::default(),
            lane: Default::default(),
            part: Default::default(),
            rem_part: Default::default(),
            mask4: Constant::new(mask4),
            mask6: Constant::new(mask6),
            beat_max: Constant::new(((1024 / W) as u64).into()),
            log_w: Constant::new((W.trailing_zeros() as u64).into()),
            beat_bytes: Constant::new((B as u64).into()),
        }
    }
}

impl<const W: usize, const B: usize> Logic for IcrcInsert<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r0_cen, r0_eoc, r0_v6, r0_sof, r0_beat, mid, rem, rem_pend);
        self.r0.clock.next = self.clock.val();
        self.crc.clock.next = self.clock.val();
        self.d1.clock.next = self.clock.val();
        self.d2.clock.next = self.clock.val();
        self.d3.clock.next = self.clock.val();
        self.d4.clock.next = self.clock.val();
        self.d5.clock.next = self.clock.val();
        self.out.clock.next = self.clock.val();
        // The whole pipeline moves unless the output holds a beat the sink does not take.
        self.adv.next = !self.out.valid.val() || self.out_tready.val();
        self.in_tready.next = self.adv.val();
        self.r0.adv.next = self.adv.val();
        self.crc.adv.next = self.adv.val();
        self.d1.adv.next = self.adv.val();
        self.d2.adv.next = self.adv.val();
        self.d3.adv.next = self.adv.val();
        self.d4.adv.next = self.adv.val();
        self.d5.adv.next = self.adv.val();
        self.out.adv.next = self.adv.val();

        // Input register, with where the beat stands in its frame.
        self.r0.in_data.next = self.in_tdata.val();
        self.r0.in_keep.next = self.in_tkeep.val();
        self.r0.in_last.next = self.in_tlast.val();
        self.r0.in_valid.next = self.in_tvalid.val();
        if self.adv.val() && self.in_tvalid.val() {
            self.r0_cen.d.next = self.in_cen.val();
            self.r0_eoc.d.next = self.in_eoc.val();
            self.r0_v6.d.next = self.in_v6.val();
            self.r0_sof.d.next = !self.mid.q.val();
            if !self.mid.q.val() {
                self.r0_beat.d.next = 0.into();
            } else if self.r0_beat.q.val() != self.beat_max.val() {
                self.r0_beat.d.next = self.r0_beat.q.val() + 1;
            }
            self.mid.d.next = !self.in_tlast.val();
        }

        // The CRC takes R0's beat with the masked fields set to ones.
        self.mask_at.next = bit_cast::<16, 8>(self.r0_beat.q.val()) << self.log_w.val();
        self.mask.next = bit_cast::<W, 1024>(self.mask4.val() >> self.mask_at.val());
        if self.r0_v6.q.val() {
            self.mask.next = bit_cast::<W, 1024>(self.mask6.val() >> self.mask_at.val());
        }
        self.crc.in_valid.next = self.r0.valid.val();
        self.crc.data.next = self.r0.data.val() | self.mask.val();
        self.crc.en.next = self.r0_cen.q.val();
        self.crc.sof.next = self.r0_sof.q.val();
        self.crc.eoc.next = self.r0_eoc.q.val();

        // The frame waits beside the CRC.
        self.d1.in_data.next = self.r0.data.val();
        self.d1.in_keep.next = self.r0.keep.val();
        self.d1.in_last.next = self.r0.last.val();
        self.d1.in_valid.next = self.r0.valid.val();
        self.d2.in_data.next = self.d1.data.val();
        self.d2.in_keep.next = self.d1.keep.val();
        self.d2.in_last.next = self.d1.last.val();
        self.d2.in_valid.next = self.d1.valid.val();
        self.d3.in_data.next = self.d2.data.val();
        self.d3.in_keep.next = self.d2.keep.val();
        self.d3.in_last.next = self.d2.last.val();
        self.d3.in_valid.next = self.d2.valid.val();
        self.d4.in_data.next = self.d3.data.val();
        self.d4.in_keep.next = self.d3.keep.val();
        self.d4.in_last.next = self.d3.last.val();
        self.d4.in_valid.next = self.d3.valid.val();
        self.d5.in_data.next = self.d4.data.val();
        self.d5.in_keep.next = self.d4.keep.val();
        self.d5.in_last.next = self.d4.last.val();
        self.d5.in_valid.next = self.d4.valid.val();

        // The region's CRC comes out with the beat that ends it (d5): its complement, least-significant
        // byte first, goes in at the lane after the region's last byte, `B - pad`; bytes past the top
        // lane go at lane 0 of the next beat.
        self.icrc.next = !self.crc.res_crc.val();
        self.lane.next = self.beat_bytes.val() - bit_cast::<16, 8>(self.crc.res_pad.val());
        self.part.next = 0.into();
        if self.crc.res_valid.val() {
            self.part.next = bit_cast::<W, 32>(self.icrc.val()) << (self.lane.val() << 3);
        }
        self.rem_part.next = 0.into();
        if self.rem_pend.q.val() {
            self.rem_part.next = bit_cast::<W, 32>(self.rem.q.val());
        }
        if self.adv.val() && self.d5.valid.val() {
            self.rem_pend.d.next = self.crc.res_valid.val() && (self.crc.res_pad.val() < 4);
            self.rem.d.next = self.icrc.val() >> (bit_cast::<16, 8>(self.crc.res_pad.val()) << 3);
        }
        self.out.in_data.next = self.d5.data.val() | self.part.val() | self.rem_part.val();
        self.out.in_keep.next = self.d5.keep.val();
        self.out.in_last.next = self.d5.last.val();
        self.out.in_valid.next = self.d5.valid.val();
        self.out_tdata.next = self.out.data.val();
        self.out_tkeep.next = self.out.keep.val();
        self.out_tlast.next = self.out.last.val();
        self.out_tvalid.next = self.out.valid.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prim::crc32::over;
    use rocenic_proto::icrc::{MASKED_BITS_IPV6, MASKED_BYTES_IPV4};
    use std::sync::{Arc, Mutex};

    /// The ICRC a frame should carry: the CRC over the 8-byte all-ones prefix and bytes 14..len-4 with
    /// the masked fields as ones, complemented, least-significant byte first.
    fn want_icrc(f: &[u8], v6: bool) -> [u8; 4] {
        let mut m = f[..f.len() - 4].to_vec();
        if v6 {
            for (p, bits) in MASKED_BITS_IPV6 {
                m[p] |= bits;
            }
        } else {
            for p in MASKED_BYTES_IPV4 {
                m[p] |= 0xFF;
            }
        }
        let mut all = vec![0xFFu8; 8];
        all.extend_from_slice(&m[14..]);
        (!over(&all)).to_le_bytes()
    }

    /// Frames of every length modulo the beat (so the ICRC starts at every lane, and straddles two beats
    /// at the top ones), IPv4 and IPv6, through the inserter with gaps at its input and a sink that
    /// stalls: each comes out whole, in order, with its ICRC filled in and every other byte as it went in.
    fn frames_get_their_icrc<const W: usize, const B: usize>() {
        let mut rand = crate::prim::test_rng(0x1234_5678_9ABC_DEF1_u64);
        let mut frames = Vec::new();
        for k in 0..2 * B {
            let len = 62 + 2 * B + k;
            let mut f: Vec<u8> = (0..len).map(|_| rand() as u8).collect();
            f[len - 4..].fill(0);
            frames.push((f, k % 3 == 1));
        }
        let sent = frames.clone();
        let got = Arc::new(Mutex::new(Vec::new()));
        let got2 = got.clone();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<IcrcInsert<W, B>>| {
            x.clock.next = !x.clock.val()
        });
        sim.add_testbench(move |mut ep: Sim<IcrcInsert<W, B>>| {
            let mut x = ep.init()?;
            wait_clock_true!(ep, clock, x);
            let (mut fi, mut bi) = (0usize, 0usize);
            let mut cur = Vec::new();
            let mut cycle = 0u64;
            while got2.lock().unwrap().len() < sent.len() {
                assert!(cycle < 40 * sent.len() as u64 * 8, "stalled");
                x.out_tready.next = cycle % 7 != 3 && cycle % 11 != 5;
                x.in_tvalid.next = false;
                if fi < sent.len() && cycle % 5 != 2 {
                    let (f, v6) = &sent[fi];
                    let at = bi * B;
                    let n = (f.len() - at).min(B);
                    let mut data: Bits<W> = 0.into();
                    for l in 0..n {
                        data =
                            data | (bit_cast::<W, 8>((f[at + l] as u64).into()) << (8 * l) as u64);
                    }
                    let e = f.len() - 4;
                    let mut keep: Bits<B> = 0.into();
                    let mut cen: Bits<B> = 0.into();
                    for l in 0..n {
                        keep = keep | (bit_cast::<B, 1>(true.into()) << l as u64);
                        if at + l >= 14 && at + l < e {
                            cen = cen | (bit_cast::<B, 1>(true.into()) << l as u64);
                        }
                    }
                    x.in_tvalid.next = true;
                    x.in_tdata.next = data;
                    x.in_tkeep.next = keep;
                    x.in_tlast.next = at + n == f.len();
                    x.in_cen.next = cen;
                    x.in_eoc.next = at < e && e <= at + B;
                    x.in_v6.next = *v6;
                }
                wait_clock_false!(ep, clock, x);
                if x.in_tvalid.val() && x.in_tready.val() {
                    bi += 1;
                    if bi * B >= sent[fi].0.len() {
                        fi += 1;
                        bi = 0;
                    }
                }
                if x.out_tvalid.val() && x.out_tready.val() {
                    let keep = x.out_tkeep.val();
                    for l in 0..B {
                        if keep.get_bit(l) {
                            cur.push(x.out_tdata.val().get_bits::<8>(8 * l).to_u64() as u8);
                        }
                    }
                    if x.out_tlast.val() {
                        got2.lock().unwrap().push(std::mem::take(&mut cur));
                    }
                }
                wait_clock_true!(ep, clock, x);
                cycle += 1;
            }
            ep.done(x)
        });
        let mut uut = IcrcInsert::<W, B>::default();
        uut.connect_all();
        sim.run(Box::new(uut), 10_000_000).unwrap();
        let got = got.lock().unwrap();
        for ((f, v6), g) in frames.iter().zip(got.iter()) {
            let n = f.len();
            assert_eq!(g.len(), n, "length");
            assert_eq!(
                g[..n - 4],
                f[..n - 4],
                "bytes before the ICRC, frame of {n}"
            );
            assert_eq!(
                g[n - 4..],
                want_icrc(f, *v6),
                "ICRC, frame of {n} (v6 {v6})"
            );
        }
    }

    #[test]
    fn frames_get_their_icrc_64() {
        frames_get_their_icrc::<64, 8>();
    }

    #[test]
    fn frames_get_their_icrc_512() {
        frames_get_their_icrc::<512, 64>();
    }

    /// A beat taken comes out LATENCY cycles later when nothing stalls.
    #[test]
    fn latency_is_as_documented() {
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<IcrcInsert<64, 8>>| {
            x.clock.next = !x.clock.val()
        });
        sim.add_testbench(move |mut ep: Sim<IcrcInsert<64, 8>>| {
            let mut x = ep.init()?;
            wait_clock_true!(ep, clock, x);
            let mut out_at = None;
            for cycle in 0..20usize {
                x.out_tready.next = true;
                x.in_tvalid.next = cycle == 0;
                x.in_tkeep.next = 0xFF.into();
                x.in_tlast.next = true;
                wait_clock_false!(ep, clock, x);
                if x.out_tvalid.val() && out_at.is_none() {
                    out_at = Some(cycle);
                }
                wait_clock_true!(ep, clock, x);
            }
            assert_eq!(out_at, Some(LATENCY));
            ep.done(x)
        });
        let mut uut = IcrcInsert::<64, 8>::default();
        uut.connect_all();
        sim.run(Box::new(uut), 10_000).unwrap();
    }
}
