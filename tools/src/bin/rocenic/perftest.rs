//! `rocenic write-bw`, `read-bw`, `send-bw` and `write-lat`: perftest's `ib_write_bw`, `ib_read_bw`,
//! `ib_send_bw` and `ib_write_lat` on the rocenic driver, with their options and their out-of-band exchange, so they pair with unmodified perftest
//! in either role.
//!
//! The exchange (perftest 6.x `perftest_communication.c`, non-RDMA-CM, over TCP port 18515). In every step
//! the client writes first and then reads; the server reads first and then writes:
//! 1. versions: 16 bytes, NUL-padded text ("6.06"); a peer older than 5.70 is refused;
//! 2. if the peer is 5.32 or newer: the cycle buffer (page size) and the cache-line size, 4 bytes each,
//!    big-endian; each side takes the larger;
//! 3. if the peer is 5.1 or newer: the path MTU as the decimal `ibv_mtu` enum in 2 bytes ("3" + NUL for
//!    1024); each side takes the smaller;
//! 4. the QP's address, 108 bytes: `%04x:%04x:%06x:%06x:%08x:%016llx:` (LID, outstanding reads, QPN, PSN,
//!    rkey, buffer address), the GID as 16 `%02x:`, then `%08x:` (SRQ number) and a NUL; sent three times
//!    (before and after the QPs are connected, once more after RTR);
//! 5. the client runs the test while the server waits in a fourth address exchange; then the client's
//!    report goes to the server, field by field, big-endian: size (8 bytes), iterations (8), peak and
//!    average bandwidth and message rate (doubles); then a last address exchange and `"done"` + NUL.
//!
//! `send-bw` differs after step 4: the server posts its receives (`--rx-depth` of them, reposted as they
//! complete), a fourth address exchange starts the traffic, each side measures and prints its own row (no
//! report exchange in one direction), and the closing exchange and `"done"` follow.
//!
//! `write-lat` is a ping-pong of RDMA WRITEs: each side advertises the second half of its buffer, writes
//! `--size` bytes from the first half into the peer's, the last byte carrying the iteration number, and
//! waits for the peer's write to change its own last byte (the client waits before its first write). A
//! fourth address exchange precedes the test; each side prints its own latencies; a closing exchange
//! follows when the peer does one (perftest 6.06's ib_write_lat does not and just exits).
//!
//! The client writes (or reads) `--iters` messages of `--size` bytes at the peer's buffer, stepping the
//! remote address by the size rounded up to the cache line and wrapping at the cycle buffer, as perftest
//! does, so a perftest server's buffer covers every access; ours is registered the same size perftest's is.
use super::attach::{self, Attach};
use super::oob::{gid_text, my_gid, peer_path, Peer, Pump};
use rocenic_driver::{
    AccessFlags, InitAttrs, QpAttr, QpCaps, QueuePair, RecvRequest, RtrAttrs, RtsAttrs, SendFlags,
    SendOp, Sge, WcStatus, WorkRequest, DEFAULT_HOP_LIMIT,
};
use rocenic_sim::fault::{RngCore, SeedableRng, SplitMix64};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// The perftest version we speak: its exchange has been stable since 5.70, the oldest it accepts.
const VERSION: &str = "6.06";
const VERSION_LEN: usize = 16;
const KEY_MSG_LEN: usize = 108;
/// The device's page size and cache line, as perftest reads them from the host (sysconf, sysfs).
const CYCLE_BUFFER: u32 = 4096;
const CACHE_LINE: u32 = 64;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Verb {
    Write,
    Read,
    Send,
    WriteLat,
    /// ib_atomic_bw: FETCH_AND_ADD on one 8-byte word per request.
    Atomic,
}

impl Verb {
    fn title(self) -> &'static str {
        match self {
            Verb::Write => "RDMA_Write BW Test",
            Verb::Read => "RDMA_Read BW Test",
            Verb::Send => "Send BW Test",
            Verb::WriteLat => "RDMA_Write Latency Test",
            Verb::Atomic => "Atomic FETCH_AND_ADD BW Test",
        }
    }
}

/// The perftest tools' options: perftest's (`ib_write_bw` and its siblings), then rocenic's own, then the
/// attachment's.
#[derive(clap::Parser, Debug)]
#[command(
    allow_negative_numbers = true,
    about = "perftest's tool of the same name (ib_write_bw, ib_read_bw, ib_send_bw, ib_write_lat, \
             ib_atomic_bw) on a co-simulated NIC whose Ethernet port is a socket",
    long_about = "perftest's tool of the same name (write-bw: ib_write_bw, read-bw: ib_read_bw, send-bw: \
        ib_send_bw, write-lat: ib_write_lat, atomic-bw: ib_atomic_bw) on a co-simulated NIC whose \
        Ethernet port is a socket; it pairs with perftest in either role. Without HOST it is the server \
        and waits for a connection; with HOST it connects to the server there. Not supported: -a (all \
        sizes), -D (duration), -R/--rdma_cm, -b (bidirectional), --run_infinitely."
)]
pub struct Args {
    #[command(flatten)]
    peer: Peer,
    /// Size of message to exchange (default 65536; write-lat 2; atomic-bw 8 only)
    #[arg(short = 's', long, value_parser = crate::opt::int_parser(1..=1 << 30))]
    size: Option<u64>,
    /// Number of exchanges (default 5000; write-lat 1000)
    #[arg(short = 'n', long, value_parser = crate::opt::int_parser(1..=1 << 32))]
    iters: Option<u64>,
    /// Path MTU (lowered to the peer's)
    #[arg(short = 'm', long, default_value_t = 4096, value_parser = crate::opt::mtu_parser)]
    mtu: u32,
    /// GID index (accepted; the GID is ::ffff:<ip>, or the --ipv6 address)
    #[arg(short = 'x', long = "gid-index", value_name = "INDEX")]
    gid_index: Option<String>,
    /// Number of QPs (1: rocenic's perftest drives one QP per run)
    #[arg(short = 'q', long = "qp", value_name = "NUM", value_parser = crate::opt::int_parser(0..=1 << 24))]
    qp: Option<u64>,
    /// Send queue depth
    #[arg(short = 't', long = "tx-depth", default_value_t = 128, value_parser = crate::opt::int_parser(1..=1 << 16))]
    tx_depth: u64,
    /// Receives posted at once (send-bw server)
    #[arg(short = 'r', long = "rx-depth", default_value_t = 512, value_parser = crate::opt::int_parser(1..=1 << 16))]
    rx_depth: u64,
    /// Outstanding reads: the QP's max_rd_atomic and max_dest_rd_atomic, 1 to 4 (keep it within the
    /// peer's)
    #[arg(short = 'o', long = "outs", default_value_t = 1, value_parser = crate::opt::int_parser(0..=255))]
    outs: u64,
    /// Transport (RC only)
    #[arg(short = 'c', long = "connection", value_name = "RC")]
    connection: Option<String>,
    /// Sleep on CQ events instead of polling
    #[arg(short = 'e', long)]
    events: bool,
    /// Accepted (perftest's CPU frequency warning does not apply)
    #[arg(short = 'F', long = "CPU-freq")]
    cpu_freq: bool,
    /// Report Gb/s instead of MB/s
    #[arg(long = "report_gbits")]
    report_gbits: bool,
    #[arg(short = 'a', long = "all", hide = true)]
    all: bool,
    #[arg(short = 'D', long = "duration", hide = true, num_args = 0..=1)]
    duration: Option<Option<String>>,
    #[arg(short = 'R', long = "rdma_cm", hide = true)]
    rdma_cm: bool,
    #[arg(short = 'b', long = "bidirectional", hide = true)]
    bidirectional: bool,
    #[arg(long = "run_infinitely", hide = true)]
    run_infinitely: bool,
    /// Give up after this much wall time, seconds
    #[arg(long, value_name = "SECONDS", default_value_t = 600, value_parser = crate::opt::int_parser(1..=1 << 32))]
    timeout: u64,
    /// Seeds the starting PSN
    #[arg(long, default_value_t = 1, value_parser = crate::opt::int_parser(0..=u64::MAX))]
    seed: u64,
    /// Local ACK timeout in core cycles instead of IB timeout 14
    #[arg(long, value_name = "N", value_parser = crate::opt::int_parser(crate::opt::U32))]
    ack_timeout_cycles: Option<u64>,
    #[command(flatten)]
    attach: attach::AttachArgs,
}

pub struct Opts {
    verb: Verb,
    server: Option<String>,
    port: u16,
    size: usize,
    iters: u64,
    mtu: u32,
    tx_depth: usize,
    rx_depth: usize,
    gbits: bool,
    events: bool,
    timeout: Duration,
    seed: u64,
    ack_timeout_cycles: Option<u32>,
    attach: Attach,
    /// Outstanding reads (`--outs`): the QP's max_rd_atomic, and what the address message says.
    outs: u8,
}

/// The run's options for `verb` from the command line's, with what clap cannot check.
pub fn opts(verb: Verb, a: Args) -> Result<Opts, String> {
    let lat = verb == Verb::WriteLat;
    a.peer.check()?;
    if a.qp.is_some_and(|q| q != 1) {
        return Err("--qp: rocenic's perftest drives one QP per run".into());
    }
    if !(1..=rocenic_proto::regs::RD_ATOMIC_DEPTH as u64).contains(&a.outs) {
        return Err(format!(
            "--outs {}: the requester keeps 1 to {} READs outstanding",
            a.outs,
            rocenic_proto::regs::RD_ATOMIC_DEPTH
        ));
    }
    if let Some(v) = a.connection.as_deref().filter(|&v| v != "RC") {
        return Err(format!("--connection {v}: only RC is supported"));
    }
    for (on, name) in [
        (a.all, "-a/--all"),
        (a.duration.is_some(), "-D/--duration"),
        (a.rdma_cm, "-R/--rdma_cm"),
        (a.bidirectional, "-b/--bidirectional"),
        (a.run_infinitely, "--run_infinitely"),
    ] {
        if on {
            return Err(format!("{name} is not supported by rocenic"));
        }
    }
    let _ = (&a.gid_index, a.cpu_freq);
    let size = a.size.unwrap_or(match verb {
        Verb::WriteLat => 2,
        Verb::Atomic => 8,
        _ => 65536,
    }) as usize;
    if verb == Verb::Atomic && size != 8 {
        return Err(format!(
            "--size {size}: an atomic accesses one 8-byte word (ib_atomic_bw's size is 8)"
        ));
    }
    Ok(Opts {
        verb,
        server: a.peer.server,
        port: a.peer.port as u16,
        size,
        iters: a.iters.unwrap_or(if lat { 1000 } else { 5000 }),
        mtu: a.mtu,
        tx_depth: a.tx_depth as usize,
        rx_depth: a.rx_depth as usize,
        gbits: a.report_gbits,
        events: a.events,
        timeout: Duration::from_secs(a.timeout),
        seed: a.seed,
        ack_timeout_cycles: a.ack_timeout_cycles.map(|v| v as u32),
        attach: a.attach.into(),
        outs: a.outs as u8,
    })
}

/// `enum ibv_mtu`: 1 = 256 ... 5 = 4096.
fn mtu_enum(bytes: u32) -> Option<u32> {
    [256, 512, 1024, 2048, 4096]
        .iter()
        .position(|&m| m == bytes)
        .map(|i| i as u32 + 1)
}

/// One side's QP as the address message carries it (perftest's `struct pingpong_dest`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Dest {
    lid: u16,
    out_reads: u16,
    qpn: u32,
    psn: u32,
    rkey: u32,
    vaddr: u64,
    gid: [u8; 16],
    srqn: u32,
}

impl Dest {
    fn to_wire(self) -> [u8; KEY_MSG_LEN] {
        let mut s = format!(
            "{:04x}:{:04x}:{:06x}:{:06x}:{:08x}:{:016x}:",
            self.lid, self.out_reads, self.qpn, self.psn, self.rkey, self.vaddr
        );
        for b in self.gid {
            s += &format!("{b:02x}:");
        }
        s += &format!("{:08x}:", self.srqn);
        let mut m = [0u8; KEY_MSG_LEN];
        m[..s.len()].copy_from_slice(s.as_bytes());
        m
    }

    fn from_wire(m: &[u8]) -> Result<Dest, String> {
        let text = std::str::from_utf8(m.split(|&b| b == 0).next().unwrap_or_default())
            .map_err(|_| "peer's address message is not text".to_string())?;
        let bad = || format!("cannot parse the peer's address message {text:?}");
        let f: Vec<&str> = text.split(':').collect();
        if f.len() < 23 {
            return Err(bad());
        }
        let hex = |s: &str| u64::from_str_radix(s, 16).map_err(|_| bad());
        let mut gid = [0u8; 16];
        for (k, b) in gid.iter_mut().enumerate() {
            *b = hex(f[6 + k])? as u8;
        }
        Ok(Dest {
            lid: hex(f[0])? as u16,
            out_reads: hex(f[1])? as u16,
            qpn: hex(f[2])? as u32,
            psn: hex(f[3])? as u32,
            rkey: hex(f[4])? as u32,
            vaddr: hex(f[5])?,
            gid,
            srqn: hex(f[22])? as u32,
        })
    }

    fn print(&self, side: &str) {
        println!(
            " {side} address: LID {:#06x} QPN {:#06x} PSN {:#08x} RKey {:#010x} VAddr {:#018x}",
            self.lid, self.qpn, self.psn, self.rkey, self.vaddr
        );
        let gid: Vec<String> = self.gid.iter().map(|b| format!("{b:02}")).collect();
        println!(" GID: {} ({})", gid.join(":"), gid_text(&self.gid));
    }
}

/// The client's results as the exchange carries them (perftest's `struct bw_report_data`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Report {
    size: u64,
    iters: u64,
    bw_peak: f64,
    bw_avg: f64,
    msg_rate: f64,
}

impl Report {
    fn row(&self) -> String {
        format!(
            " {:<7}    {:<10}       {:<7.2}            {:<7.2}\t\t   {:<7.6}",
            self.size, self.iters, self.bw_peak, self.bw_avg, self.msg_rate
        )
    }
}

fn header(gbits: bool) -> &'static str {
    if gbits {
        " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]"
    } else {
        " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]"
    }
}

const RESULT_LINE: &str =
    "---------------------------------------------------------------------------------------";

/// The TCP exchange of one side: who writes first, and the peer's version once known.
struct Exchange<'p, 'a> {
    pump: &'p Pump<'a>,
    s: TcpStream,
    client: bool,
    peer_version: f64,
}

impl Exchange<'_, '_> {
    /// perftest's `ctx_xchg_data`: the client writes then reads, the server reads then writes.
    fn xchg(&mut self, mine: &[u8], theirs: &mut [u8], what: &str) -> Result<(), String> {
        if self.client {
            self.pump.write_all(&mut self.s, mine, what)?;
            self.pump.read_exact(&mut self.s, theirs, what)
        } else {
            self.pump.read_exact(&mut self.s, theirs, what)?;
            self.pump.write_all(&mut self.s, mine, what)
        }
    }

    fn hand_shake(&mut self, me: &Dest, what: &str) -> Result<Dest, String> {
        let mut m = [0u8; KEY_MSG_LEN];
        self.xchg(&me.to_wire(), &mut m, what)?;
        Dest::from_wire(&m)
    }

    fn report(&mut self, mine: &Report) -> Result<Report, String> {
        let mut r = Report::default();
        let mut b8 = [0u8; 8];
        self.xchg(&mine.size.to_be_bytes(), &mut b8, "exchanging reports")?;
        r.size = u64::from_be_bytes(b8);
        if self.peer_version >= 5.33 {
            self.xchg(&mine.iters.to_be_bytes(), &mut b8, "exchanging reports")?;
            r.iters = u64::from_be_bytes(b8);
        } else {
            let mut b4 = [0u8; 4];
            self.xchg(
                &(mine.iters as u32).to_be_bytes(),
                &mut b4,
                "exchanging reports",
            )?;
            r.iters = u32::from_be_bytes(b4) as u64;
        }
        for (m, t) in [
            (mine.bw_peak, &mut r.bw_peak),
            (mine.bw_avg, &mut r.bw_avg),
            (mine.msg_rate, &mut r.msg_rate),
        ] {
            self.xchg(&m.to_bits().to_be_bytes(), &mut b8, "exchanging reports")?;
            *t = f64::from_bits(u64::from_be_bytes(b8));
        }
        Ok(r)
    }
}

pub fn run(o: Opts) -> Result<(), String> {
    let e = |e: rocenic_driver::Error| e.to_string();
    let (fabric, ctx) = o.attach.open()?;
    let pump = Pump {
        ctx: &ctx,
        fabric: &fabric,
        deadline: Instant::now() + o.timeout,
    };
    let client = o.server.is_some();
    let s = match &o.server {
        // The first exchange (versions) tells a live server from QEMU's port forward accepting for a
        // guest that is not listening yet.
        Some(host) => {
            let (s, v) = pump.connect(host, o.port, |s| {
                let mut mine = [0u8; VERSION_LEN];
                mine[..VERSION.len()].copy_from_slice(VERSION.as_bytes());
                pump.write_all(s, &mine, "sending our version")?;
                let mut v = [0u8; VERSION_LEN];
                pump.read_exact(s, &mut v, "reading the server's version")?;
                Ok(v)
            })?;
            let mut x = Exchange {
                pump: &pump,
                s,
                client,
                peer_version: 0.0,
            };
            x.peer_version = parse_version(&v)?;
            x
        }
        None => {
            let mut x = Exchange {
                pump: &pump,
                s: pump.accept(o.port)?,
                client,
                peer_version: 0.0,
            };
            let mut v = [0u8; VERSION_LEN];
            let mut mine = [0u8; VERSION_LEN];
            mine[..VERSION.len()].copy_from_slice(VERSION.as_bytes());
            x.xchg(&mine, &mut v, "exchanging versions")?;
            x.peer_version = parse_version(&v)?;
            x
        }
    };
    let mut x = s;
    if x.peer_version < 5.70 {
        return Err(format!(
            "the peer's perftest {} is older than 5.70, the oldest this exchange pairs with",
            x.peer_version
        ));
    }
    let (mut cycle_buffer, mut cache_line) = (CYCLE_BUFFER, CACHE_LINE);
    if x.peer_version >= 5.32 {
        let mut b = [0u8; 4];
        x.xchg(
            &cycle_buffer.to_be_bytes(),
            &mut b,
            "exchanging the page size",
        )?;
        cycle_buffer = cycle_buffer.max(u32::from_be_bytes(b));
        x.xchg(
            &cache_line.to_be_bytes(),
            &mut b,
            "exchanging the cache line size",
        )?;
        cache_line = cache_line.max(u32::from_be_bytes(b)).max(1);
    }
    let mut mtu = o.mtu;
    if x.peer_version >= 5.1 {
        let mine = mtu_enum(mtu).unwrap();
        let mut m = [0u8; 2];
        let n = if x.peer_version >= 5.31 { 2 } else { 4 };
        let mut mine_b = [0u8; 4];
        mine_b[0] = b'0' + mine as u8;
        let mut theirs = [0u8; 4];
        x.xchg(&mine_b[..n], &mut theirs[..n], "exchanging the MTU")?;
        m.copy_from_slice(&theirs[..2]);
        let rem = (m[0] as char).to_digit(10).unwrap_or(0);
        if (1..=5).contains(&rem) && rem < mine {
            mtu = 256 << (rem - 1);
        }
    }

    // Resources, sized as perftest sizes them: the buffer is twice the larger of the message and the
    // cycle buffer, so the peer's address stepping stays inside our MR.
    let inc = (o.size as u64).div_ceil(cache_line as u64) * cache_line as u64;
    // Each half starts on a cache line, as perftest's do; write-lat's peer writes into the second half.
    let half = o
        .size
        .max(cycle_buffer as usize)
        .next_multiple_of((cache_line as usize).max(64));
    let buf_len = 2 * half;
    let pd = ctx.alloc_pd();
    let depth = o.tx_depth.next_power_of_two().clamp(2, 32768);
    // send-bw's server keeps `rx_depth` receives posted (fewer if the test is shorter), as perftest does.
    let rx_posted = if o.verb == Verb::Send && !client {
        o.rx_depth.min(o.iters as usize)
    } else {
        0
    };
    let rq_depth = (rx_posted + 1).next_power_of_two().clamp(2, 32768);
    if rx_posted >= rq_depth {
        return Err(format!(
            "--rx-depth {} is more than the receive queue holds",
            o.rx_depth
        ));
    }
    let cq = ctx.create_cq(depth.max(rq_depth)).map_err(e)?;
    let qp = QueuePair::create(
        &pd,
        &cq,
        &cq,
        QpCaps {
            max_send_wr: depth,
            max_recv_wr: rq_depth,
            max_send_sge: 1,
            max_recv_sge: 1,
        },
    )
    .map_err(e)?;
    let mut access =
        AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_READ;
    if o.verb == Verb::Atomic {
        access = access | AccessFlags::REMOTE_ATOMIC;
    }
    qp.modify(QpAttr::Init(InitAttrs {
        access,
        ..InitAttrs::default()
    }))
    .map_err(e)?;
    let buf = ctx.alloc_dma(buf_len).map_err(e)?;
    // Something recognisable for a peer that reads it (read-bw's server side); zeros for write-lat, whose
    // last byte counts the iterations from 1.
    let fill: Vec<u8> = if o.verb == Verb::WriteLat {
        vec![0; buf_len]
    } else {
        (0..buf_len).map(|i| (i as u8).wrapping_mul(13)).collect()
    };
    buf.write(0, &fill).map_err(e)?;
    let mr = pd.reg_mr(&buf, 0, buf_len, access).map_err(e)?;
    let me = Dest {
        lid: 0,
        out_reads: o.outs as u16,
        qpn: qp.qp_num(),
        psn: (SplitMix64::seed_from_u64(o.seed).next_u64() & 0xFF_FFFF) as u32,
        rkey: mr.rkey(),
        vaddr: mr.addr()
            + if o.verb == Verb::WriteLat {
                half as u64
            } else {
                0
            },
        gid: my_gid(&o.attach),
        srqn: 0,
    };
    println!("{RESULT_LINE}");
    println!("                    {}", o.verb.title());
    println!(
        " Number of qps   : 1\t\tTransport type : IB (rocenic, co-simulated {}-bit core)",
        o.attach.width.bits()
    );
    println!(" Connection type : RC\t\tUsing SRQ      : OFF");
    println!(" TX depth        : {}", o.tx_depth);
    println!(" Mtu             : {mtu}[B]");
    println!(" Link type       : Ethernet");
    println!(" Outstand reads  : {}", o.outs);
    println!("{RESULT_LINE}");
    let peer = x.hand_shake(&me, "exchanging QP addresses")?;
    let (peer_ip, mac) = peer_path(&fabric, &o.attach, &peer.gid, "-x")?;
    qp.modify(QpAttr::Rtr(RtrAttrs {
        path_mtu: mtu,
        dest_qpn: peer.qpn,
        rq_psn: peer.psn,
        dest_mac: mac,
        dest_ip: peer_ip,
        sgid_index: 0,
        udp_sport: 0xC000 | (me.qpn as u16 & 0x3FFF),
        hop_limit: DEFAULT_HOP_LIMIT,
        flow_label: 0,
        vlan: o.attach.vlan,
        min_rnr_timer: 12,
        max_dest_rd_atomic: o.outs,
        traffic_class: 0,
    }))
    .map_err(e)?;
    qp.modify(QpAttr::Rts(RtsAttrs {
        sq_psn: me.psn,
        timeout: 14,
        retry_cnt: 7,
        rnr_retry: 7,
        max_rd_atomic: o.outs,
        ack_timeout_cycles: o.ack_timeout_cycles,
    }))
    .map_err(e)?;
    me.print("local");
    // Two more address exchanges: perftest's "remote side" print, and the one after RTR.
    x.hand_shake(&me, "exchanging QP addresses")?;
    peer.print("remote");
    x.hand_shake(&me, "synchronising after RTR")?;
    println!("{RESULT_LINE}");
    if o.verb == Verb::WriteLat {
        // ib_write_lat (perftest 6.06, Debian 12) exchanges addresses once more before the test.
        x.hand_shake(&me, "synchronising before the test")?;
        println!("{LAT_HEADER}");
        let r = run_write_lat(&o, client, &x, &qp, &cq, &mr, &buf, &peer, half);
        // rocenic closes with one more exchange and "done", as the bandwidth tests do; ib_write_lat 6.06 just
        // exits, which ends the exchange early.
        let closed = x
            .hand_shake(&me, "closing")
            .and_then(|_| pump.write_all(&mut x.s, b"done\0", "closing"));
        r?;
        if let Err(m) = closed {
            println!(" rocenic: the peer ended without the closing exchange ({m})");
        }
        linger(&fabric);
        return finish(&fabric);
    }
    println!("{}", header(o.gbits));

    if o.verb == Verb::Send {
        return run_send(
            &o,
            client,
            &mut x,
            &me,
            &qp,
            &cq,
            &mr,
            cycle_buffer,
            inc,
            rx_posted,
        )
        .and_then(|()| {
            x.hand_shake(&me, "closing")?;
            pump.write_all(&mut x.s, b"done\0", "closing")?;
            linger(&fabric);
            finish(&fabric)
        });
    }

    if !client {
        // The server's buffer is the target; it waits for the client to finish, then prints its report.
        x.hand_shake(&me, "waiting for the client to finish")?;
        let theirs = x.report(&Report::default())?;
        println!("{}", theirs.row());
        println!("{RESULT_LINE}");
        x.hand_shake(&me, "closing")?;
        pump.write_all(&mut x.s, b"done\0", "closing")?;
        linger(&fabric);
        return finish(&fabric);
    }

    // The client: up to tx_depth requests in flight, every one signalled.
    let mut meter = BwMeter::start(&fabric);
    let (mut posted, mut done) = (0u64, 0u64);
    let mut wakeups = 0u64;
    while done < o.iters {
        while posted < o.iters && (posted - done) < depth as u64 - 1 {
            let off = step_offset(posted, o.size, inc, cycle_buffer);
            let op = match o.verb {
                Verb::Write => SendOp::RdmaWrite {
                    remote_addr: peer.vaddr + off,
                    rkey: peer.rkey,
                },
                Verb::Read => SendOp::RdmaRead {
                    remote_addr: peer.vaddr + off,
                    rkey: peer.rkey,
                },
                // perftest's FETCH_AND_ADD adds 1; the original value lands in our buffer.
                Verb::Atomic => SendOp::AtomicFetchAdd {
                    remote_addr: peer.vaddr + off,
                    rkey: peer.rkey,
                    add: 1,
                },
                Verb::Send | Verb::WriteLat => unreachable!("send-bw and write-lat return above"),
            };
            // SAFETY: `buf` and its MR outlive the QP's use of them (both live until after the last
            // completion was polled); concurrent requests into the same bytes are what perftest does
            // too and only the timing is measured.
            unsafe {
                qp.post_send(&WorkRequest {
                    wr_id: posted,
                    op,
                    sge: Sge {
                        addr: mr.addr() + off,
                        length: o.size as u32,
                        lkey: mr.lkey(),
                    },
                    flags: SendFlags::SIGNALED,
                })
            }
            .map_err(e)?;
            posted += 1;
        }
        let wc = pump
            .next_completion(
                &cq,
                o.events,
                &mut wakeups,
                &format!("running ({done} of {} completed)", o.iters),
            )
            .map_err(|m| format!("{m}; {}", nic_state(&ctx)))?;
        check_completion(&wc, true)?;
        done += 1;
        meter.completed(o.size);
    }
    let mine = meter.finish(&o, &fabric, wakeups);
    x.hand_shake(&me, "telling the server we are done")?;
    x.report(&mine)?;
    x.hand_shake(&me, "closing")?;
    pump.write_all(&mut x.s, b"done\0", "closing")?;
    linger(&fabric);
    finish(&fabric)
}

const LAT_HEADER: &str =
    " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    \
     t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]";

/// Latency statistics as perftest computes them: half of each interval between consecutive posts
/// (a write there and one back), sorted; `iters - 1` samples.
#[derive(Debug, PartialEq)]
struct LatStats {
    min: f64,
    max: f64,
    typical: f64,
    avg: f64,
    stdev: f64,
    p99: f64,
    p999: f64,
}

fn lat_stats(posted: &[f64]) -> Option<LatStats> {
    let mut d: Vec<f64> = posted.windows(2).map(|w| (w[1] - w[0]) / 2.0).collect();
    if d.is_empty() {
        return None;
    }
    d.sort_by(|a, b| a.total_cmp(b));
    let n = d.len();
    let avg = d.iter().sum::<f64>() / n as f64;
    let var = d.iter().map(|x| (x - avg) * (x - avg)).sum::<f64>() / n as f64;
    let pct = |p: f64| d[(((n as f64) * p).ceil() as usize).clamp(1, n) - 1];
    Some(LatStats {
        min: d[0],
        max: d[n - 1],
        typical: d[n / 2],
        avg,
        stdev: var.sqrt(),
        p99: pct(0.99),
        p999: pct(0.999),
    })
}

/// The ping-pong of `write-lat`; prints the row (wall-clock microseconds, as perftest's table) and the
/// same statistics in simulated cycles.
#[allow(clippy::too_many_arguments)]
fn run_write_lat(
    o: &Opts,
    client: bool,
    x: &Exchange,
    qp: &QueuePair,
    cq: &rocenic_driver::CompletionQueue,
    mr: &rocenic_driver::MemoryRegion,
    buf: &rocenic_driver::DmaRegion,
    peer: &Dest,
    half: usize,
) -> Result<(), String> {
    let e = |e: rocenic_driver::Error| e.to_string();
    let fabric = x.pump.fabric;
    let poll_at = half + o.size - 1;
    let (mut scnt, mut ccnt, mut rcnt) = (0u64, 0u64, 0u64);
    let mut wall = Vec::with_capacity(o.iters as usize);
    let mut cycles = Vec::with_capacity(o.iters as usize);
    let t0 = Instant::now();
    let mut wakeups = 0u64;
    while scnt < o.iters || ccnt < o.iters || rcnt < o.iters {
        if rcnt < o.iters && (client || scnt >= 1) {
            rcnt += 1;
            let mut b = [0u8];
            loop {
                buf.read(poll_at, &mut b).map_err(e)?;
                if b[0] == rcnt as u8 {
                    break;
                }
                x.pump
                    .step(&format!("waiting for the peer's write {rcnt}"))?;
            }
        }
        if scnt < o.iters {
            wall.push(t0.elapsed().as_secs_f64() * 1e6);
            cycles.push(fabric.lock().unwrap().cycles() as f64);
            scnt += 1;
            buf.write(o.size - 1, &[scnt as u8]).map_err(e)?;
            // SAFETY: `buf` and its MR outlive the QP's use of them; the peer writes only into the second
            // half, we send from the first.
            unsafe {
                qp.post_send(&WorkRequest {
                    wr_id: scnt,
                    op: SendOp::RdmaWrite {
                        remote_addr: peer.vaddr,
                        rkey: peer.rkey,
                    },
                    sge: Sge {
                        addr: mr.addr(),
                        length: o.size as u32,
                        lkey: mr.lkey(),
                    },
                    flags: SendFlags::SIGNALED,
                })
            }
            .map_err(e)?;
        }
        if ccnt < o.iters {
            let wc = x.pump.next_completion(
                cq,
                o.events,
                &mut wakeups,
                &format!("write {} completing", ccnt + 1),
            )?;
            check_completion(&wc, client)?;
            ccnt += 1;
        }
    }
    let w = lat_stats(&wall).ok_or("write-lat needs at least 2 iterations")?;
    println!(
        " {:<7} {:<10}   {:<7.2}        {:<7.2}      {:<7.2}          {:<7.2}        {:<7.2}         {:<7.2}                {:<7.2}",
        o.size, o.iters, w.min, w.max, w.typical, w.avg, w.stdev, w.p99, w.p999
    );
    println!("{RESULT_LINE}");
    let c = lat_stats(&cycles).ok_or("write-lat needs at least 2 iterations")?;
    let mhz = fabric.lock().unwrap().width().clock_mhz();
    println!(
        " rocenic: the table is wall-clock time of the simulation; in simulated time the half round trip took \
         {:.0} cycles typical ({:.2} us at {mhz} MHz), {:.0} min, {:.0} max, including the peer and the link",
        c.typical,
        c.typical / mhz,
        c.min,
        c.max
    );
    if o.events {
        println!(" rocenic: slept on completion events, woken by the interrupt {wakeups} times");
    }
    Ok(())
}

/// perftest's error line for a completion that did not succeed.
fn check_completion(wc: &rocenic_driver::WorkCompletion, client: bool) -> Result<(), String> {
    if wc.status == WcStatus::Success {
        return Ok(());
    }
    let side = if client { "client" } else { "server" };
    Err(format!(
        "Completion with error at {side}: status {:?} ({}), wr_id {}, vendor_err {:#x}",
        wc.status, wc.status as u32, wc.wr_id, wc.vendor_err
    ))
}

/// A bandwidth measurement as perftest reports it: wall-clock peak (per completion) and average, plus the
/// simulated cycles the same messages took.
struct BwMeter {
    start: Instant,
    start_cycles: u64,
    last: Instant,
    peak: f64,
}

impl BwMeter {
    fn start(fabric: &std::sync::Arc<std::sync::Mutex<rocenic_sim::Fabric>>) -> BwMeter {
        let now = Instant::now();
        BwMeter {
            start: now,
            start_cycles: fabric.lock().unwrap().cycles(),
            last: now,
            peak: 0.0,
        }
    }

    /// One message of `size` bytes completed.
    fn completed(&mut self, size: usize) {
        let now = Instant::now();
        let dt = now.duration_since(self.last).as_secs_f64();
        if dt > 0.0 {
            self.peak = self.peak.max(size as f64 / dt);
        }
        self.last = now;
    }

    /// Prints the result row and the simulated time; returns the row's numbers for the report exchange.
    fn finish(
        &self,
        o: &Opts,
        fabric: &std::sync::Arc<std::sync::Mutex<rocenic_sim::Fabric>>,
        wakeups: u64,
    ) -> Report {
        let secs = self.start.elapsed().as_secs_f64();
        let cycles = fabric.lock().unwrap().cycles() - self.start_cycles;
        let bytes = o.size as f64 * o.iters as f64;
        let unit = if o.gbits { 125e6 } else { (1u64 << 20) as f64 };
        let mine = Report {
            size: o.size as u64,
            iters: o.iters,
            bw_peak: self.peak / unit,
            bw_avg: bytes / secs / unit,
            msg_rate: o.iters as f64 / secs / 1e6,
        };
        println!("{}", mine.row());
        println!("{RESULT_LINE}");
        let mhz = fabric.lock().unwrap().width().clock_mhz();
        let sim_us = cycles as f64 / mhz;
        println!(
            " rocenic: the table is wall-clock time of the simulation; on the simulated wire the {} messages \
             took {cycles} cycles = {sim_us:.1} us at {mhz} MHz = {:.2} Gb/s",
            o.iters,
            bytes * 8.0 / (sim_us * 1e3)
        );
        if o.events {
            println!(
                " rocenic: slept on completion events, woken by the interrupt {wakeups} times"
            );
        }
        mine
    }
}

/// perftest's address stepping inside the cycle buffer: the offset of message `n` (messages step only
/// when two fit in the cycle buffer).
fn step_offset(n: u64, size: usize, inc: u64, cycle_buffer: u32) -> u64 {
    if size as u64 > cycle_buffer as u64 / 2 {
        return 0;
    }
    let steps_per_wrap = (cycle_buffer as u64 / inc).max(1);
    (n % steps_per_wrap) * inc
}

/// The traffic of `send-bw`: the server posts its receives, a fourth exchange starts the test, the client
/// sends `iters` SENDs (up to tx_depth in flight) and the server takes as many receive completions,
/// reposting receives while more are due. Each side checks every completion and prints its own row.
#[allow(clippy::too_many_arguments)]
fn run_send(
    o: &Opts,
    client: bool,
    x: &mut Exchange,
    me: &Dest,
    qp: &QueuePair,
    cq: &rocenic_driver::CompletionQueue,
    mr: &rocenic_driver::MemoryRegion,
    cycle_buffer: u32,
    inc: u64,
    rx_posted: usize,
) -> Result<(), String> {
    let e = |e: rocenic_driver::Error| e.to_string();
    let fabric = x.pump.fabric;
    let post_recv = |n: u64| -> Result<(), String> {
        let req = RecvRequest {
            wr_id: n,
            sge: Sge {
                addr: mr.addr() + step_offset(n, o.size, inc, cycle_buffer),
                length: o.size as u32,
                lkey: mr.lkey(),
            },
        };
        // SAFETY: the buffer and its MR outlive the QP's use of them (they are dropped after the last
        // completion was polled and the QP is gone); receives into overlapping bytes are what perftest does
        // too, only the timing and the completions are checked.
        unsafe { qp.post_recv(&req) }.map_err(e)
    };
    let mut posted = 0u64;
    while (posted as usize) < rx_posted {
        post_recv(posted)?;
        posted += 1;
    }
    x.hand_shake(me, "synchronising before the traffic")?;

    let mut meter = BwMeter::start(fabric);
    let depth = o.tx_depth.next_power_of_two().clamp(2, 32768) as u64;
    let (mut done, mut wakeups) = (0u64, 0u64);
    while done < o.iters {
        if client {
            while posted < o.iters && posted - done < depth - 1 {
                // SAFETY: as for the receives above.
                unsafe {
                    qp.post_send(&WorkRequest {
                        wr_id: posted,
                        op: SendOp::Send,
                        sge: Sge {
                            addr: mr.addr() + step_offset(posted, o.size, inc, cycle_buffer),
                            length: o.size as u32,
                            lkey: mr.lkey(),
                        },
                        flags: SendFlags::SIGNALED,
                    })
                }
                .map_err(e)?;
                posted += 1;
            }
        }
        let wc = x.pump.next_completion(
            cq,
            o.events,
            &mut wakeups,
            &format!("running ({done} of {} completed)", o.iters),
        )?;
        check_completion(&wc, client)?;
        if !client {
            if wc.byte_len as usize != o.size {
                return Err(format!(
                    "receive {} completed with {} bytes, the test sends {}",
                    wc.wr_id, wc.byte_len, o.size
                ));
            }
            if posted < o.iters {
                post_recv(posted)?;
                posted += 1;
            }
        }
        done += 1;
        meter.completed(o.size);
    }
    meter.finish(o, fabric, wakeups);
    Ok(())
}

fn parse_version(v: &[u8]) -> Result<f64, String> {
    let text = String::from_utf8_lossy(v.split(|&b| b == 0).next().unwrap_or_default()).to_string();
    text.trim()
        .parse::<f64>()
        .map_err(|_| format!("the peer's perftest version {text:?} is not a number"))
}

/// A real NIC keeps running after the program exits; this one is the program. Keep it running long
/// enough to ACK the peer's last packets.
fn linger(fabric: &std::sync::Arc<std::sync::Mutex<rocenic_sim::Fabric>>) {
    fabric.lock().unwrap().run(150_000);
}

/// What the NIC says about a run that stopped: the requester's state and the counters of loss and
/// recovery (docs/registers.md), read through the verbs context as any tool reads them.
fn nic_state(ctx: &rocenic_driver::Context) -> String {
    let counters = ctx.counters();
    let mut out = format!("NIC: TX_STATUS {:#010x}", ctx.tx_status());
    for name in [
        "rx_drop_overflow",
        "implied_nak_seq_err",
        "retransmits",
        "ack_timeouts",
    ] {
        let v = counters
            .iter()
            .find(|(n, _)| n == name)
            .map_or(0, |(_, v)| *v);
        out += &format!(", {} {v}", name.to_uppercase());
    }
    out
}

fn finish(fabric: &std::sync::Arc<std::sync::Mutex<rocenic_sim::Fabric>>) -> Result<(), String> {
    let mut f = fabric.lock().unwrap();
    if let Some(x) = f.external_stats() {
        println!(
            " rocenic: link frames in {}, out {}; datagrams the host dropped {} (socket buffer {} bytes)",
            x.frames_in, x.frames_out, x.socket_drops, x.receive_buffer
        );
    }
    f.flush_pcap().map_err(|err| format!("pcap: {err}"))
}

#[cfg(test)]
mod tests {
    use super::super::oob::mapped_gid;
    use super::*;

    #[test]
    fn the_address_message_is_perftests() {
        let d = Dest {
            lid: 0,
            out_reads: 1,
            qpn: 0x11,
            psn: 0xabcdef,
            rkey: 0x1234,
            vaddr: 0x5555_0000_1000,
            gid: mapped_gid(std::net::Ipv4Addr::new(10, 0, 0, 2)),
            srqn: 0,
        };
        let w = d.to_wire();
        let text = std::str::from_utf8(&w[..107]).unwrap();
        assert_eq!(
            text,
            "0000:0001:000011:abcdef:00001234:0000555500001000:00:00:00:00:00:00:00:00:00:00:ff:ff:0a:00:00:02:00000000:"
        );
        assert_eq!(w[107], 0, "NUL-terminated, 108 bytes as KEY_MSG_SIZE_GID");
        assert_eq!(Dest::from_wire(&w).unwrap(), d);
        assert!(Dest::from_wire(b"0000:0001:11\0").is_err());
    }

    #[test]
    fn latency_is_half_the_interval_between_posts() {
        // Posts at 0, 10, 30, 36: intervals 10, 20, 6 -> latencies 5, 10, 3.
        let s = lat_stats(&[0.0, 10.0, 30.0, 36.0]).unwrap();
        assert_eq!((s.min, s.max, s.typical), (3.0, 10.0, 5.0));
        assert!((s.avg - 6.0).abs() < 1e-9);
        assert_eq!((s.p99, s.p999), (10.0, 10.0));
        assert!(lat_stats(&[1.0]).is_none());
    }

    #[test]
    fn versions_and_mtus() {
        let mut v = [0u8; 16];
        v[..4].copy_from_slice(b"6.06");
        assert_eq!(parse_version(&v).unwrap(), 6.06);
        assert!(parse_version(b"x\0").is_err());
        assert_eq!(mtu_enum(1024), Some(3));
        assert_eq!(mtu_enum(4096), Some(5));
        assert_eq!(mtu_enum(1500), None);
    }
}
