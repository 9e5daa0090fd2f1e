//! `rocenic rc-pingpong`: rdma-core's `ibv_rc_pingpong` on the rocenic driver, with its options and its
//! TCP exchange, so it pairs with an unmodified `ibv_rc_pingpong` in either role.
//!
//! The exchange (rdma-core `libibverbs/examples/rc_pingpong.c`): the client connects to port 18515 and
//! writes `LID:QPN:PSN:GID` as `%04x:%06x:%06x:` plus the GID's 16 bytes in hex, NUL-terminated (52
//! bytes); the server answers with its own after moving its QP to RTS, and the client confirms with
//! `"done"` and its NUL. Then the client sends first and each side sends its next message only after its
//! previous send completed and the peer's message arrived.
//!
//! Data check: `ibv_rc_pingpong` sends and receives in one buffer, so every message it sends is the
//! message it last received. Each message we send carries a fresh pattern, and every message we receive
//! (after the server's first, which is the client's initial buffer) must be the pattern we sent last.
use super::attach::{self, Attach};
use super::oob::{gid_text, my_gid, peer_path, Peer, Pump};
use rocenic_driver::{
    AccessFlags, InitAttrs, QpAttr, QpCaps, QueuePair, RecvRequest, RtrAttrs, RtsAttrs, SendFlags,
    SendOp, Sge, WcOpcode, WcStatus, WorkRequest, DEFAULT_HOP_LIMIT,
};
use rocenic_sim::fault::{RngCore, SeedableRng, SplitMix64};
use std::time::{Duration, Instant};

/// `rocenic rc-pingpong`'s options: `ibv_rc_pingpong`'s, then rocenic's own, then the attachment's.
#[derive(clap::Parser, Debug)]
#[command(
    name = "rocenic rc-pingpong",
    allow_negative_numbers = true,
    about = "ibv_rc_pingpong on a co-simulated NIC whose Ethernet port is a socket (pairs with rdma-core)",
    long_about = "ibv_rc_pingpong on a co-simulated NIC whose Ethernet port is a socket: with its options \
        and its TCP exchange, so it pairs with an unmodified ibv_rc_pingpong in either role. Without \
        HOST it is the server and waits for a connection; with HOST it connects to the server there. \
        Not supported: -o/-O/-P (on-demand paging), -t (timestamps), -j (device memory), -N.",
    after_help = "Options of ibv_rc_pingpong keep its short and long names and its getopt forms \
        (-s512, --iters=7)."
)]
pub struct Args {
    #[command(flatten)]
    peer: Peer,
    /// Size of message to exchange
    #[arg(short = 's', long, default_value_t = 4096, value_parser = crate::opt::int_parser(1..=1 << 30))]
    size: u64,
    /// Path MTU: 256, 512, 1024, 2048 or 4096
    #[arg(short = 'm', long, default_value_t = 1024, value_parser = crate::opt::mtu_parser)]
    mtu: u32,
    /// Number of receives to post at a time
    #[arg(short = 'r', long = "rx-depth", default_value_t = 500, value_parser = crate::opt::int_parser(1..=1 << 16))]
    rx_depth: u64,
    /// Number of exchanges
    #[arg(short = 'n', long, default_value_t = 1000, value_parser = crate::opt::int_parser(1..=1 << 32))]
    iters: u64,
    /// Service level (accepted; RoCEv2 priority is not mapped from it yet)
    #[arg(short = 'l', long = "sl", value_parser = crate::opt::int_parser(0..=255))]
    sl: Option<u64>,
    /// Sleep on CQ events (the CQ is armed and the tool waits for the interrupt)
    #[arg(short = 'e', long)]
    events: bool,
    /// Local port GID index (accepted; the GID is ::ffff:<ip>, or the --ipv6 address)
    #[arg(short = 'g', long = "gid-idx", value_parser = crate::opt::int_parser(0..=255))]
    gid_idx: Option<u64>,
    /// Validate received buffer (always done here)
    #[arg(short = 'c', long = "chk")]
    chk: bool,
    /// ibv_rc_pingpong's on-demand paging, implicit ODP, prefetch, timestamps, device memory and new send
    /// API: not supported
    #[arg(short = 'o', long = "odp", hide = true)]
    odp: bool,
    #[arg(short = 'O', long = "iodp", hide = true)]
    iodp: bool,
    #[arg(short = 'P', long = "prefetch", hide = true)]
    prefetch: bool,
    #[arg(short = 't', long = "ts", hide = true)]
    ts: bool,
    #[arg(short = 'j', long = "dm", hide = true)]
    dm: bool,
    #[arg(short = 'N', long = "new_send", hide = true)]
    new_send: bool,
    /// Give up after this much wall time, seconds
    #[arg(long, value_name = "SECONDS", default_value_t = 300, value_parser = crate::opt::int_parser(1..=1 << 32))]
    timeout: u64,
    /// Seeds the starting PSN and the data patterns
    #[arg(long, default_value_t = 1, value_parser = crate::opt::int_parser(0..=u64::MAX))]
    seed: u64,
    /// Local ACK timeout in core cycles instead of IB timeout 14 (67 ms of simulated time, several seconds
    /// of wall time here): recovers our lost frames sooner
    #[arg(long, value_name = "N", value_parser = crate::opt::int_parser(crate::opt::U32))]
    ack_timeout_cycles: Option<u64>,
    /// Send back each message received, as ibv_rc_pingpong does, instead of fresh patterns (to pair two
    /// rocenic tools: the side without --echo checks the data)
    #[arg(long)]
    echo: bool,
    #[command(flatten)]
    attach: attach::AttachArgs,
}

pub struct Opts {
    server: Option<String>,
    port: u16,
    size: usize,
    mtu: u32,
    rx_depth: usize,
    iters: usize,
    timeout: Duration,
    seed: u64,
    ack_timeout_cycles: Option<u32>,
    echo: bool,
    events: bool,
    attach: Attach,
}

/// The run's options from the command line's, with what clap cannot check.
pub fn opts(a: Args) -> Result<Opts, String> {
    a.peer.check()?;
    for (on, name) in [
        (a.odp, "-o/--odp"),
        (a.iodp, "-O/--iodp"),
        (a.prefetch, "-P/--prefetch"),
        (a.ts, "-t/--ts"),
        (a.dm, "-j/--dm"),
        (a.new_send, "-N/--new_send"),
    ] {
        if on {
            return Err(format!("{name} is not supported by rocenic"));
        }
    }
    let _ = (a.sl, a.gid_idx, a.chk);
    Ok(Opts {
        server: a.peer.server,
        port: a.peer.port as u16,
        size: a.size as usize,
        mtu: a.mtu,
        rx_depth: a.rx_depth as usize,
        iters: a.iters as usize,
        timeout: Duration::from_secs(a.timeout),
        seed: a.seed,
        ack_timeout_cycles: a.ack_timeout_cycles.map(|v| v as u32),
        echo: a.echo,
        events: a.events,
        attach: a.attach.into(),
    })
}

/// One side's address as the exchange carries it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Dest {
    lid: u16,
    qpn: u32,
    psn: u32,
    gid: [u8; 16],
}

/// The exchange message: 51 characters and a NUL.
const MSG_LEN: usize = 52;

impl Dest {
    fn to_wire(self) -> [u8; MSG_LEN] {
        let gid: String = self.gid.iter().map(|b| format!("{b:02x}")).collect();
        let s = format!("{:04x}:{:06x}:{:06x}:{gid}", self.lid, self.qpn, self.psn);
        let mut m = [0u8; MSG_LEN];
        m[..s.len()].copy_from_slice(s.as_bytes());
        m
    }

    fn from_wire(m: &[u8]) -> Result<Dest, String> {
        let text = std::str::from_utf8(m.split(|&b| b == 0).next().unwrap_or_default())
            .map_err(|_| "peer's address message is not text".to_string())?;
        let bad = || format!("cannot parse the peer's address message {text:?}");
        let f: Vec<&str> = text.split(':').collect();
        if f.len() != 4 || f[3].len() != 32 {
            return Err(bad());
        }
        let hex = |s: &str| u32::from_str_radix(s, 16).map_err(|_| bad());
        let mut gid = [0u8; 16];
        for (k, b) in gid.iter_mut().enumerate() {
            *b = u8::from_str_radix(&f[3][2 * k..2 * k + 2], 16).map_err(|_| bad())?;
        }
        Ok(Dest {
            lid: hex(f[0])? as u16,
            qpn: hex(f[1])?,
            psn: hex(f[2])?,
            gid,
        })
    }

    fn gid_text(&self) -> String {
        gid_text(&self.gid)
    }
}

/// Data pattern of our `k`-th message.
fn pattern(seed: u64, k: usize, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u64 * 7 + k as u64 * 131 + seed * 17 + (i as u64 >> 8)) as u8)
        .collect()
}

/// Cycles the NIC keeps running after the last completion (≈ 1 ms of simulated time at 156.25 MHz).
const LINGER_CYCLES: u64 = 150_000;

const SEND_WRID: u64 = 1;
const RECV_WRID: u64 = 2;

pub fn run(o: Opts) -> Result<(), String> {
    let e = |e: rocenic_driver::Error| e.to_string();
    let (fabric, ctx) = o.attach.open()?;
    let pump = Pump {
        ctx: &ctx,
        fabric: &fabric,
        deadline: Instant::now() + o.timeout,
    };
    let pd = ctx.alloc_pd();
    let cq = ctx
        .create_cq((o.rx_depth + 1).next_power_of_two().clamp(2, 32768))
        .map_err(e)?;
    let qp = QueuePair::create(
        &pd,
        &cq,
        &cq,
        QpCaps {
            max_send_wr: 2,
            max_recv_wr: (o.rx_depth + 1).next_power_of_two().clamp(2, 32768),
            max_send_sge: 1,
            max_recv_sge: 1,
        },
    )
    .map_err(e)?;
    qp.modify(QpAttr::Init(InitAttrs {
        access: AccessFlags::LOCAL_WRITE,
        ..InitAttrs::default()
    }))
    .map_err(e)?;
    let len = o.size.max(1);
    let sbuf = ctx.alloc_dma(len).map_err(e)?;
    let rbuf = ctx.alloc_dma(len).map_err(e)?;
    let smr = pd
        .reg_mr(&sbuf, 0, len, AccessFlags::LOCAL_WRITE)
        .map_err(e)?;
    let rmr = pd
        .reg_mr(&rbuf, 0, len, AccessFlags::LOCAL_WRITE)
        .map_err(e)?;
    let recv = RecvRequest {
        wr_id: RECV_WRID,
        sge: Sge {
            addr: rmr.addr(),
            length: o.size as u32,
            lkey: rmr.lkey(),
        },
    };
    // Receives go up before the exchange, as ibv_rc_pingpong does: the peer may send as soon as it knows us.
    for _ in 0..o.rx_depth {
        // SAFETY: rbuf and its MR live until the QP is gone (declared before it, dropped after it).
        unsafe { qp.post_recv(&recv) }.map_err(e)?;
    }

    let me = Dest {
        lid: 0,
        qpn: qp.qp_num(),
        // Seeded, like ibv_rc_pingpong's `lrand48() & 0xffffff`.
        psn: (SplitMix64::seed_from_u64(o.seed).next_u64() & 0xFF_FFFF) as u32,
        gid: my_gid(&o.attach),
    };
    println!(
        "  local address:  LID 0x{:04x}, QPN 0x{:06x}, PSN 0x{:06x}, GID {}",
        me.lid,
        me.qpn,
        me.psn,
        me.gid_text()
    );
    let connect = |peer: &Dest| -> Result<(), String> {
        let (ip, mac) = peer_path(&fabric, &o.attach, &peer.gid, "-g")?;
        qp.modify(QpAttr::Rtr(RtrAttrs {
            path_mtu: o.mtu,
            dest_qpn: peer.qpn,
            rq_psn: peer.psn,
            dest_mac: mac,
            dest_ip: ip,
            sgid_index: 0,
            udp_sport: 0xC000 | (me.qpn as u16 & 0x3FFF),
            hop_limit: DEFAULT_HOP_LIMIT,
            flow_label: 0,
            vlan: o.attach.vlan,
            // As ibv_rc_pingpong: 12 = 0.64 ms.
            min_rnr_timer: 12,
            max_dest_rd_atomic: 1,
            traffic_class: 0,
        }))
        .map_err(e)?;
        qp.modify(QpAttr::Rts(RtsAttrs {
            sq_psn: me.psn,
            timeout: 14,
            retry_cnt: 7,
            rnr_retry: 7,
            max_rd_atomic: 1,
            ack_timeout_cycles: o.ack_timeout_cycles,
        }))
        .map_err(e)
    };

    // The exchange, with the NIC running throughout (the peer ARPs for us while it connects its QP).
    let peer = match &o.server {
        Some(host) => {
            let (mut s, m) = pump.connect(host, o.port, |s| {
                pump.write_all(s, &me.to_wire(), "sending our address")?;
                let mut m = [0u8; MSG_LEN];
                pump.read_exact(s, &mut m, "reading the server's address")?;
                Ok(m)
            })?;
            let peer = Dest::from_wire(&m)?;
            connect(&peer)?;
            pump.write_all(&mut s, b"done\0", "confirming")?;
            peer
        }
        None => {
            let mut s = pump.accept(o.port)?;
            let mut m = [0u8; MSG_LEN];
            pump.read_exact(&mut s, &mut m, "reading the client's address")?;
            let peer = Dest::from_wire(&m)?;
            connect(&peer)?;
            pump.write_all(&mut s, &me.to_wire(), "sending our address")?;
            let mut done = [0u8; 5];
            pump.read_exact(&mut s, &mut done, "waiting for the client's \"done\"")?;
            peer
        }
    };
    println!(
        "  remote address: LID 0x{:04x}, QPN 0x{:06x}, PSN 0x{:06x}, GID {}",
        peer.lid,
        peer.qpn,
        peer.psn,
        peer.gid_text()
    );

    let start = Instant::now();
    let start_cycles = fabric.lock().unwrap().cycles();
    let mut sent_last: Option<Vec<u8>> = None;
    let (mut scnt, mut rcnt, mut checked) = (0usize, 0usize, 0usize);
    let mut wakeups = 0u64;
    // Our next message: a fresh pattern, or in echo mode the message last received.
    let mut last_received: Option<Vec<u8>> = None;
    let post_send = |k: usize, echo: Option<&Vec<u8>>| -> Result<Vec<u8>, String> {
        let p = match echo {
            Some(m) if o.echo => m.clone(),
            _ => pattern(o.seed, k, o.size),
        };
        sbuf.write(0, &p).map_err(e)?;
        // SAFETY: sbuf is not written again until this send's completion was polled.
        unsafe {
            qp.post_send(&WorkRequest {
                wr_id: SEND_WRID,
                op: SendOp::Send,
                sge: Sge {
                    addr: smr.addr(),
                    length: o.size as u32,
                    lkey: smr.lkey(),
                },
                flags: SendFlags::SIGNALED,
            })
        }
        .map_err(e)?;
        Ok(p)
    };
    // pending: bit 0 = our send outstanding, bit 1 = waiting for the peer's message.
    let mut pending = 2u8;
    if o.server.is_some() {
        sent_last = Some(post_send(scnt, None)?);
        pending |= 1;
    }
    while rcnt < o.iters || scnt < o.iters {
        let wc = pump.next_completion(
            &cq,
            o.events,
            &mut wakeups,
            &format!("exchanging (sent {scnt}, received {rcnt})"),
        )?;
        if wc.status != WcStatus::Success {
            return Err(format!(
                "Failed status {:?} ({}) for wr_id {} (vendor_err {:#x})",
                wc.status, wc.status as u32, wc.wr_id, wc.vendor_err
            ));
        }
        match wc.opcode {
            WcOpcode::Send => {
                scnt += 1;
                pending &= !1;
            }
            WcOpcode::Recv => {
                if wc.byte_len as usize != o.size {
                    return Err(format!(
                        "message {rcnt}: {} bytes received, {} expected",
                        wc.byte_len, o.size
                    ));
                }
                let mut got = vec![0u8; o.size];
                rbuf.read(0, &mut got).map_err(e)?;
                if let Some(want) = sent_last.as_ref().filter(|_| !o.echo) {
                    if let Some(i) = (0..o.size).find(|&i| got[i] != want[i]) {
                        return Err(format!(
                            "message {rcnt}: byte {i} is {:#04x}, the peer should have echoed {:#04x}",
                            got[i], want[i]
                        ));
                    }
                    checked += 1;
                }
                last_received = Some(got);
                rcnt += 1;
                // SAFETY: as for the first receives.
                unsafe { qp.post_recv(&recv) }.map_err(e)?;
                pending &= !2;
            }
            other => return Err(format!("unexpected completion opcode {other:?}")),
        }
        if pending == 0 && scnt < o.iters {
            sent_last = Some(post_send(scnt, last_received.as_ref())?);
            pending = if rcnt < o.iters { 3 } else { 1 };
        }
    }
    let secs = start.elapsed().as_secs_f64();
    // A real NIC keeps running after the program exits; this one is the program. Keep it running long
    // enough to ACK the peer's last message, or the peer's last send never completes.
    fabric.lock().unwrap().run(LINGER_CYCLES);
    let usec = secs * 1e6;
    let bytes = (o.size * o.iters * 2) as f64;
    let f = fabric.lock().unwrap();
    let cycles = f.cycles() - start_cycles;
    let mhz = f.width().clock_mhz();
    drop(f);
    println!(
        "{} bytes in {:.2} seconds = {:.2} Mbit/sec",
        bytes as u64,
        secs,
        bytes * 8.0 / usec
    );
    println!(
        "{} iters in {:.2} seconds = {:.2} usec/iter",
        o.iters,
        secs,
        usec / o.iters as f64
    );
    println!(
        "rocenic: {checked} of {rcnt} received messages checked against what we sent{}; {cycles} core \
         cycles simulated ({:.1} us at {mhz} MHz)",
        if o.echo { " (echo mode: the peer checks)" } else { "" },
        cycles as f64 / mhz
    );
    if o.events {
        println!("rocenic: slept on completion events, woken by the interrupt {wakeups} times");
        if wakeups == 0 {
            return Err("-e given but no completion event ever woke the tool".into());
        }
    }
    if !o.echo && checked + 1 < rcnt {
        return Err(format!(
            "only {checked} of {rcnt} messages could be checked"
        ));
    }
    let mut f = fabric.lock().unwrap();
    if let Some(x) = f.external_stats() {
        println!(
            "rocenic: link frames in {}, out {}; ARP requests sent to resolve the peer {}; datagrams the host dropped {} (socket buffer {} bytes)",
            x.frames_in, x.frames_out, x.arp_requests_sent, x.socket_drops, x.receive_buffer
        );
    }
    f.flush_pcap().map_err(|err| format!("pcap: {err}"))?;
    drop(f);
    drop(qp);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::oob::{gid_ipv4, mapped_gid};
    use super::*;
    use std::net::Ipv4Addr;

    #[test]
    fn exchange_message_matches_rc_pingpong_format() {
        let d = Dest {
            lid: 0,
            qpn: 0x11,
            psn: 0x2f5a1c,
            gid: mapped_gid(Ipv4Addr::new(10, 0, 0, 2)),
        };
        let m = d.to_wire();
        assert_eq!(
            &m[..51],
            b"0000:000011:2f5a1c:00000000000000000000ffff0a000002"
        );
        assert_eq!(m[51], 0);
        assert_eq!(Dest::from_wire(&m).unwrap(), d);
        assert_eq!(gid_ipv4(&d.gid), Some(Ipv4Addr::new(10, 0, 0, 2)));
        assert!(Dest::from_wire(b"0000:11:22").is_err());
    }

    #[test]
    fn options_take_getopt_forms() {
        use clap::Parser;
        let parse = |w: &[&str]| {
            Args::try_parse_from(std::iter::once("rc-pingpong").chain(w.iter().copied()))
                .map_err(|e| e.to_string())
                .and_then(opts)
        };
        let refused = |w: &[&str]| parse(w).err().unwrap_or_default();
        let o = parse(&[
            "-s",
            "512",
            "--iters=7",
            "-m1024",
            "--link",
            "udp:1:2",
            "host",
        ])
        .unwrap();
        assert_eq!((o.size, o.iters, o.mtu), (512, 7, 1024));
        assert_eq!(o.server.as_deref(), Some("host"));
        assert!(parse(&["-m", "2000"]).is_err(), "not an IB MTU");
        assert!(refused(&["-t"]).contains("-t/--ts is not supported"));
        assert!(refused(&["-i", "2"]).contains("port 1 only"));
        assert!(refused(&["-d", "mlx5_0"]).contains("no device mlx5_0"));
    }
}
