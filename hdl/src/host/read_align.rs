//! Host-read realigner: lets the transmit engine read a payload from any byte address.
//!
//! The engine asks for `len` bytes at `addr` and expects `ceil(len / B)` words back whose lanes hold
//! bytes `[addr + jB, addr + jB + B)`, as if `addr` were on a beat; what it does not use of the last word
//! it masks. The DMA port reads whole beats, so for an address `a` lanes past a beat boundary the request
//! becomes `ceil((a + len) / B)` beats from the beat below `addr` (never a byte of another beat: a read
//! cannot stray into a page the IOMMU does not map), and each word out joins the top `B - a` lanes of one
//! beat with the low `a` lanes of the next. When the bytes fit the same number of beats either way, the
//! last word comes from the last beat alone, one cycle after it (`flush`). An aligned read passes through
//! beat for beat.
//!
//! Requests and their data are in order; the offset and flush bit of each request in flight wait in a
//! small ring (`DEPTH`), and a full ring holds the engine's next request back. The data out is registered,
//! so the rotator sits between the host's data and this register, not in front of the engine's logic.
//!
//! Every path is at most 6 LUT levels at 512 bits: the flush bit is worked out from the low bits of the
//! address and length alone, and the oldest request's offset and flush bit are read from the ring a cycle
//! ahead into registers (`cur_*`), so the rotation amount comes straight from a flip-flop. A request
//! pushed into a ring of at most one entry may be the one read ahead: its data waits one cycle
//! (`cur_ok`), which data never has to, as it comes back from the host several cycles later.
use crate::prim::lane_rotate::LaneRotate;
use rust_hdl::prelude::*;

/// Requests in flight: the transmit engine keeps at most `roce::req::PF_DEPTH` payload reads and one
/// other (a WQE fetch or a READ response's payload) outstanding; 8 leaves room.
const DEPTH: u64 = 8;

#[derive(LogicBlock)]
pub struct ReadAlign<const W: usize, const B: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    // The engine's request: bytes [addr, addr + len), len > 0.
    pub req_in_valid: Signal<In, bool>,
    pub req_in_ready: Signal<Out, bool>,
    pub req_in_addr: Signal<In, Bits<64>>,
    pub req_in_len: Signal<In, Bits<16>>,
    // The beat-aligned request to the DMA read port.
    pub req_out_valid: Signal<Out, bool>,
    pub req_out_ready: Signal<In, bool>,
    pub req_out_addr: Signal<Out, Bits<64>>,
    pub req_out_beats: Signal<Out, Bits<16>>,
    // The port's data, `last` on the request's last beat.
    pub resp_in_valid: Signal<In, bool>,
    pub resp_in_ready: Signal<Out, bool>,
    pub resp_in_data: Signal<In, Bits<W>>,
    pub resp_in_last: Signal<In, bool>,
    // Realigned data to the engine, `last` on its request's last word.
    pub resp_out_valid: Signal<Out, bool>,
    pub resp_out_ready: Signal<In, bool>,
    pub resp_out_data: Signal<Out, Bits<W>>,
    pub resp_out_last: Signal<Out, bool>,
    /// Ring of requests in flight: 8 bits of lane offset and a flush bit each, `head` the oldest.
    offs: DFF<Bits<64>>,
    flushes: DFF<Bits<8>>,
    head: DFF<Bits<4>>,
    tail: DFF<Bits<4>>,
    /// Inside an unaligned request: `hold` is the previous beat, rotated.
    mid: DFF<bool>,
    hold: DFF<Bits<W>>,
    flush_pend: DFF<bool>,
    /// The oldest request's lane offset and flush bit, read from the ring a cycle ahead; `cur_ok` low for
    /// the one cycle after a push they may not show yet.
    cur_off: DFF<Bits<8>>,
    cur_flush: DFF<bool>,
    cur_ok: DFF<bool>,
    out_valid: DFF<bool>,
    out_data: DFF<Bits<W>>,
    out_last: DFF<bool>,
    rot: LaneRotate<W, B>,
    full: Signal<Local, bool>,
    off_in: Signal<Local, Bits<8>>,
    /// The bytes of the request's last word (`len mod B`, 0 for a whole word) and `off_in` plus them.
    m_in: Signal<Local, Bits<8>>,
    om_in: Signal<Local, Bits<8>>,
    count: Signal<Local, Bits<4>>,
    beats0: Signal<Local, Bits<16>>,
    head1: Signal<Local, Bits<4>>,
    push: Signal<Local, bool>,
    pop: Signal<Local, bool>,
    /// The ring's entries at `head` and `head + 1`.
    e0_off: Signal<Local, Bits<8>>,
    e1_off: Signal<Local, Bits<8>>,
    e0_flush: Signal<Local, bool>,
    e1_flush: Signal<Local, bool>,
    /// Lanes below `B - cur_off`: taken from `hold`, the rest from the current beat.
    keep: Signal<Local, Bits<W>>,
    take_ok: Signal<Local, bool>,
    fire_in: Signal<Local, bool>,
    low_mask: Constant<Bits<64>>,
    beat_bytes: Constant<Bits<8>>,
    lane_mask16: Constant<Bits<16>>,
    log_b: Constant<Bits<16>>,
    depth: Constant<Bits<4>>,
    ones_w: Constant<Bits<W>>,
}

impl<const W: usize, const B: usize> Default for ReadAlign<W, B> {
    fn default() -> Self {
        assert_eq!(W, 8 * B);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            req_in_valid: Default::default(),
            req_in_ready: Default::default(),
            req_in_addr: Default::default(),
            req_in_len: Default::default(),
            req_out_valid: Default::default(),
            req_out_ready: Default::default(),
            req_out_addr: Default::default(),
            req_out_beats: Default::default(),
            resp_in_valid: Default::default(),
            resp_in_ready: Default::default(),
            resp_in_data: Default::default(),
            resp_in_last: Default::default(),
            resp_out_valid: Default::default(),
            resp_out_ready: Default::default(),
            resp_out_data: Default::default(),
            resp_out_last: Default::default(),
            offs: Default::default(),
            flushes: Default::default(),
            head: Default::default(),
            tail: Default::default(),
            mid: Default::default(),
            hold: Default::default(),
            flush_pend: Default::default(),
            cur_off: Default::default(),
            cur_flush: Default::default(),
            cur_ok: Default::default(),
            out_valid: Default::default(),
            out_data: Default::default(),
            out_last: Default::default(),
            rot: Default::default(),
            full: Default::default(),
            off_in: Default::default(),
            m_in: Default::default(),
            om_in: Default::default(),
            count: Default::default(),
            beats0: Default::default(),
            head1: Default::default(),
            push: Default::default(),
            pop: Default::default(),
            e0_off: Default::default(),
            e1_off: Default::default(),
            e0_flush: Default::default(),
            e1_flush: Default::default(),
            keep: Default::default(),
            take_ok: Default::default(),
            fire_in: Default::default(),
            low_mask: Constant::new(((B - 1) as u64).into()),
            beat_bytes: Constant::new((B as u64).into()),
            lane_mask16: Constant::new(((B - 1) as u64).into()),
            log_b: Constant::new((B.trailing_zeros() as u64).into()),
            depth: Constant::new(DEPTH.into()),
            ones_w: Constant::new(!Bits::<W>::default()),
        }
    }
}

impl<const W: usize, const B: usize> Logic for ReadAlign<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, offs, flushes, head, tail, mid, hold, flush_pend, cur_off, cur_flush,
            cur_ok, out_valid, out_data, out_last
        );
        // Request: the beats under [addr, addr + len), from the whole words of `len` and the low bits.
        self.off_in.next = bit_cast::<8, 64>(self.req_in_addr.val() & self.low_mask.val());
        self.m_in.next = bit_cast::<8, 16>(self.req_in_len.val() & self.lane_mask16.val());
        self.om_in.next = self.off_in.val() + self.m_in.val();
        self.count.next = self.tail.q.val() - self.head.q.val();
        self.full.next = self.count.val() == self.depth.val();
        self.req_out_valid.next = self.req_in_valid.val() && !self.full.val();
        self.req_in_ready.next = self.req_out_ready.val() && !self.full.val();
        self.req_out_addr.next = self.req_in_addr.val() & !self.low_mask.val();
        // The whole words of `len`, one more when any byte is left over or the start is off the beat, one
        // more again when those bytes do not fit one beat: three sums chosen by compares beside them.
        self.beats0.next = self.req_in_len.val() >> self.log_b.val();
        self.req_out_beats.next = self.beats0.val();
        if (self.off_in.val() != 0) || (self.m_in.val() != 0) {
            self.req_out_beats.next = self.beats0.val() + 1;
        }
        if self.om_in.val() > self.beat_bytes.val() {
            self.req_out_beats.next = self.beats0.val() + 2;
        }
        self.push.next = self.req_in_valid.val() && self.req_in_ready.val();
        if self.push.val() {
            self.offs.d.next = (self.offs.q.val()
                & !(bit_cast::<64, 8>(0xFF.into())
                    << (bit_cast::<64, 4>(self.tail.q.val() & 7) << 3)))
                | (bit_cast::<64, 8>(self.off_in.val())
                    << (bit_cast::<64, 4>(self.tail.q.val() & 7) << 3));
            self.flushes.d.next = self.flushes.q.val()
                & !(bit_cast::<8, 1>(1.into()) << bit_cast::<8, 4>(self.tail.q.val() & 7));
            // The last word comes from the last beat alone when the bytes fit as many beats as words:
            // the request starts off the beat and its last word's bytes still fit the last beat.
            if (self.off_in.val() != 0)
                && (self.m_in.val() != 0)
                && (self.om_in.val() <= self.beat_bytes.val())
            {
                self.flushes.d.next = self.flushes.q.val()
                    | (bit_cast::<8, 1>(1.into()) << bit_cast::<8, 4>(self.tail.q.val() & 7));
            }
            self.tail.d.next = self.tail.q.val() + 1;
        }

        // Data: the oldest request's offset and flush bit, registered.
        self.e0_off.next =
            bit_cast::<8, 64>(self.offs.q.val() >> (bit_cast::<64, 4>(self.head.q.val() & 7) << 3));
        self.head1.next = self.head.q.val() + 1;
        self.e1_off.next =
            bit_cast::<8, 64>(self.offs.q.val() >> (bit_cast::<64, 4>(self.head1.val() & 7) << 3));
        self.e0_flush.next = (self.flushes.q.val()
            & (bit_cast::<8, 1>(1.into()) << bit_cast::<8, 4>(self.head.q.val() & 7)))
            != 0;
        self.e1_flush.next = (self.flushes.q.val()
            & (bit_cast::<8, 1>(1.into()) << bit_cast::<8, 4>(self.head1.val() & 7)))
            != 0;
        self.rot.a.next = self.resp_in_data.val();
        self.rot.n.next = self.cur_off.q.val();
        self.keep.next = self.ones_w.val() >> (bit_cast::<16, 8>(self.cur_off.q.val()) << 3);
        // The output register is free when empty or taken this cycle.
        self.take_ok.next = !self.out_valid.q.val() || self.resp_out_ready.val();
        self.resp_in_ready.next =
            self.take_ok.val() && !self.flush_pend.q.val() && self.cur_ok.q.val();
        self.fire_in.next = self.resp_in_valid.val() && self.resp_in_ready.val();
        self.pop.next = false;
        if self.take_ok.val() {
            self.out_valid.d.next = false;
        }
        if self.flush_pend.q.val() && self.take_ok.val() {
            // The last word, from the last beat alone.
            self.out_valid.d.next = true;
            self.out_data.d.next = self.hold.q.val() & self.keep.val();
            self.out_last.d.next = true;
            self.flush_pend.d.next = false;
            self.pop.next = true;
        } else if self.fire_in.val() {
            if self.cur_off.q.val() == 0 {
                self.out_valid.d.next = true;
                self.out_data.d.next = self.resp_in_data.val();
                self.out_last.d.next = self.resp_in_last.val();
                self.pop.next = self.resp_in_last.val();
            } else if !self.mid.q.val() {
                // The first beat only supplies the first word's low lanes: nothing out yet. A single
                // beat is also the last (its flush bit is set: one beat, one word).
                self.hold.d.next = self.rot.y.val();
                self.mid.d.next = !self.resp_in_last.val();
                self.flush_pend.d.next = self.resp_in_last.val();
            } else {
                self.out_valid.d.next = true;
                self.out_data.d.next =
                    (self.hold.q.val() & self.keep.val()) | (self.rot.y.val() & !self.keep.val());
                self.out_last.d.next = false;
                self.hold.d.next = self.rot.y.val();
                if self.resp_in_last.val() {
                    self.mid.d.next = false;
                    if self.cur_flush.q.val() {
                        self.flush_pend.d.next = true;
                    } else {
                        self.out_last.d.next = true;
                        self.pop.next = true;
                    }
                }
            }
        }
        // The next cycle's oldest request: the one after this one when it is done now.
        self.cur_off.d.next = self.e0_off.val();
        self.cur_flush.d.next = self.e0_flush.val();
        if self.pop.val() {
            self.head.d.next = self.head.q.val() + 1;
            self.cur_off.d.next = self.e1_off.val();
            self.cur_flush.d.next = self.e1_flush.val();
        }
        self.cur_ok.d.next = !(self.push.val() && (self.count.val() <= 1));
        self.resp_out_valid.next = self.out_valid.q.val();
        self.resp_out_data.next = self.out_data.q.val();
        self.resp_out_last.next = self.out_last.q.val();
        if self.reset.val() {
            self.head.d.next = 0.into();
            self.tail.d.next = 0.into();
            self.mid.d.next = false;
            self.flush_pend.d.next = false;
            self.out_valid.d.next = false;
            self.cur_ok.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;
    use std::sync::{Arc, Mutex};

    #[test]
    fn read_align_synthesizes() {
        let mut uut = ReadAlign::<64, 8>::default();
        uut.connect_all();
        let v = generate_verilog(&uut);
        yosys_validate("read_align", &v).unwrap();
    }

    fn mem_byte(a: u64) -> u8 {
        (a.wrapping_mul(13) ^ (a >> 8)) as u8
    }

    /// What the engine saw: per request, the words it got (each with its `last`), the beats the port
    /// read, and the cycles until the last word.
    type Seen = (Vec<Vec<(Vec<u8>, bool)>>, usize, u64);

    /// Issues every `(addr, len)` request, back to back (at most `DEPTH` in flight), to a port that
    /// returns each request's beats `lat` cycles after it, in order, a beat whenever `port_ready(cycle)`;
    /// the engine takes a word whenever `eng_ready(cycle)`. Checks each port read is beat-aligned and
    /// covers exactly the beats under its bytes, and each word holds the bytes from the request's address
    /// on (the bytes past `len` of the last word are don't-care).
    fn run<const W: usize, const B: usize>(
        reqs: &[(u64, usize)],
        port_ready: fn(u64) -> bool,
        eng_ready: fn(u64) -> bool,
    ) -> Seen {
        run_lat::<W, B>(reqs, port_ready, eng_ready, 6)
    }

    /// `run` with the port's latency: a request's first beat may come `lat` cycles after it is taken.
    fn run_lat<const W: usize, const B: usize>(
        reqs: &[(u64, usize)],
        port_ready: fn(u64) -> bool,
        eng_ready: fn(u64) -> bool,
        lat: u64,
    ) -> Seen {
        let reqs_tb: Vec<(u64, usize)> = reqs.to_vec();
        let seen = Arc::new(Mutex::new((vec![Vec::new(); reqs.len()], 0usize, 0u64)));
        let s2 = seen.clone();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<ReadAlign<W, B>>| {
            x.clock.next = !x.clock.val()
        });
        sim.add_testbench(move |mut sim: Sim<ReadAlign<W, B>>| {
            let mut x = sim.init()?;
            wait_clock_true!(sim, clock, x);
            let mut issued = 0;
            // Beats the port owes: (cycle it may send from, address, last of its request).
            let mut port: VecDeque<(u64, u64, bool)> = VecDeque::new();
            let mut got = 0usize;
            let mut cycle = 0u64;
            let total: usize = reqs_tb.iter().map(|r| r.1.div_ceil(B)).sum();
            while got < total {
                assert!(cycle < 20 * total as u64 + 200, "stalled");
                x.req_in_valid.next = issued < reqs_tb.len();
                if issued < reqs_tb.len() {
                    x.req_in_addr.next = reqs_tb[issued].0.into();
                    x.req_in_len.next = (reqs_tb[issued].1 as u64).into();
                }
                x.req_out_ready.next = true;
                let (beat_ok, beat) = match port.front() {
                    Some(&(from, a, last)) if from <= cycle && port_ready(cycle) => {
                        (true, Some((a, last)))
                    }
                    _ => (false, None),
                };
                x.resp_in_valid.next = beat_ok;
                if let Some((a, last)) = beat {
                    let mut d: Bits<W> = 0.into();
                    for l in 0..B {
                        d = d
                            | (bit_cast::<W, 8>((mem_byte(a + l as u64) as u64).into())
                                << (8 * l) as u64);
                    }
                    x.resp_in_data.next = d;
                    x.resp_in_last.next = last;
                }
                x.resp_out_ready.next = eng_ready(cycle);
                wait_clock_false!(sim, clock, x);
                if x.req_out_valid.val() && x.req_out_ready.val() {
                    let (addr, len) = reqs_tb[issued];
                    let a = x.req_out_addr.val().to_u64();
                    let n = x.req_out_beats.val().to_u64();
                    assert_eq!(a, addr - addr % B as u64, "request {issued}: base");
                    assert_eq!(
                        n,
                        (addr % B as u64 + len as u64).div_ceil(B as u64),
                        "request {issued}: beats"
                    );
                    for k in 0..n {
                        port.push_back((cycle + lat, a + k * B as u64, k + 1 == n));
                    }
                    s2.lock().unwrap().1 += n as usize;
                    issued += 1;
                }
                if beat_ok && x.resp_in_ready.val() {
                    port.pop_front();
                }
                if x.resp_out_valid.val() && x.resp_out_ready.val() {
                    let mut s = s2.lock().unwrap();
                    let r =
                        s.0.iter()
                            .position(|w| w.last().map(|l: &(Vec<u8>, bool)| !l.1).unwrap_or(true));
                    let r = r.expect("a word after every request finished");
                    let bytes: Vec<u8> = (0..B)
                        .map(|l| x.resp_out_data.val().get_bits::<8>(8 * l).to_u64() as u8)
                        .collect();
                    s.0[r].push((bytes, x.resp_out_last.val()));
                    got += 1;
                }
                wait_clock_true!(sim, clock, x);
                cycle += 1;
            }
            s2.lock().unwrap().2 = cycle;
            sim.done(x)
        });
        let mut uut = ReadAlign::<W, B>::default();
        uut.connect_all();
        sim.run(Box::new(uut), 10_000_000).unwrap();
        let r = seen.lock().unwrap().clone();
        for (i, &(addr, len)) in reqs.iter().enumerate() {
            let words = &r.0[i];
            assert_eq!(
                words.len(),
                len.div_ceil(B),
                "request {i} ({addr:#x}, {len}): words"
            );
            for (j, (w, last)) in words.iter().enumerate() {
                assert_eq!(*last, j + 1 == words.len(), "request {i} word {j}: last");
                for (l, &b) in w.iter().enumerate() {
                    let k = j * B + l;
                    if k < len {
                        assert_eq!(b, mem_byte(addr + k as u64), "request {i} byte {k}");
                    }
                }
            }
        }
        r
    }

    #[test]
    fn every_offset_and_length_reads_byte_for_byte() {
        for off in 0..8u64 {
            for len in [1, 2, 7, 8, 9, 15, 16, 17, 64, 100] {
                let (_, beats, _) = run::<64, 8>(&[(0x1000 + off, len)], |_| true, |_| true);
                assert_eq!(
                    beats,
                    (off as usize + len).div_ceil(8),
                    "off {off} len {len}"
                );
            }
        }
    }

    #[test]
    fn backpressure_and_wide_beats() {
        for off in [0u64, 1, 31, 63] {
            for len in [1, 63, 64, 65, 200] {
                run::<512, 64>(&[(0x2000 + off, len)], |c| c % 3 != 1, |c| c % 4 != 2);
            }
        }
        run::<64, 8>(&[(0x43, 61)], |c| c % 2 == 0, |c| c % 3 == 0);
    }

    #[test]
    fn requests_back_to_back_do_not_mix() {
        // More requests than the ring holds, offsets changing every request, flush and no flush.
        let reqs = [
            (0x105, 13),
            (0x200, 16),
            (0x303, 5),
            (0x407, 9),
            (0x501, 7),
            (0x606, 2),
            (0x700, 1),
            (0x8FF, 64),
            (0x902, 14),
            (0xA07, 1),
        ];
        run::<64, 8>(&reqs, |_| true, |_| true);
        run::<64, 8>(&reqs, |c| c % 5 != 0, |c| c % 2 == 0);
        run::<512, 64>(
            &[(0x1011, 100), (0x2000, 64), (0x3021, 1), (0x403F, 66)],
            |_| true,
            |c| c % 4 != 0,
        );
    }

    #[test]
    fn data_right_behind_its_request() {
        // The first beat the cycle after the request is taken, into an empty ring and behind one
        // request: the offset read ahead is not the new request's yet, so the beat waits a cycle.
        let reqs = [
            (0x105, 13),
            (0x203, 5),
            (0x300, 16),
            (0x407, 1),
            (0x501, 64),
        ];
        for lat in 1..4 {
            run_lat::<64, 8>(&reqs, |_| true, |_| true, lat);
            run_lat::<64, 8>(&reqs[..1], |_| true, |_| true, lat);
            run_lat::<512, 64>(&[(0x1011, 100), (0x2001, 3)], |_| true, |c| c % 2 == 0, lat);
        }
    }

    #[test]
    fn full_rate_when_the_engine_keeps_up() {
        // One word a cycle through an unaligned burst: the flush costs one cycle, the first beat none
        // after the port's latency (6 cycles + the output register).
        let (_, _, cycles) = run::<64, 8>(&[(0x1003, 800)], |_| true, |_| true);
        let (_, _, aligned) = run::<64, 8>(&[(0x1000, 800)], |_| true, |_| true);
        assert!(
            cycles <= aligned + 2,
            "unaligned {cycles} cycles, aligned {aligned}"
        );
    }
}
