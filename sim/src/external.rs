//! A real wire for the simulated NIC: frames to and from another process over a socket, in QEMU's
//! `-netdev dgram` framing (one UDP datagram per Ethernet frame, no FCS, no padding) or `-netdev stream`
//! framing (a TCP stream, each frame after a 4-byte big-endian length). This is how the co-simulated core
//! meets Linux Soft-RoCE in a QEMU guest.
//!
//! The core answers ARP requests for its own address in hardware (`hdl/src/net/arp.rs`). What a host's
//! IP stack would do for the NIC's driver, the port does here: it learns the peers' addresses from every
//! ARP frame it sees, and can ask for a peer's MAC (an ARP request sent as the NIC's, so the pcap shows
//! it on the NIC's side of the wire).
use rocenic_proto::wire::arp_frame as arp;
use std::collections::HashMap;
use std::fmt;
use std::io::{self, ErrorKind, Read, Write};
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream, UdpSocket};
use std::os::fd::AsRawFd;

/// Kernel receive and send buffer asked for a UDP link. The co-simulation drains the socket every
/// `fabric::EXTERNAL_POLL_CYCLES` cycles, milliseconds of wall time, while a peer such as rxe sends a
/// whole window at host speed (a 1 MiB WRITE is a thousand datagrams): Linux's default of about 200 KiB
/// holds a hundred of them and drops the rest.
pub const UDP_BUFFER_BYTES: usize = 64 << 20;

/// Where the other end of the wire is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExternalSpec {
    /// QEMU `-netdev dgram`: bind `local`, send to `remote`.
    Udp {
        local: SocketAddr,
        remote: SocketAddr,
    },
    /// QEMU `-netdev stream,server=on`: connect to it.
    Tcp { remote: SocketAddr },
}

impl ExternalSpec {
    /// `udp:LOCAL_PORT:REMOTE_PORT` (both on 127.0.0.1), `udp:HOST:PORT:HOST:PORT`, or `tcp:HOST:PORT`.
    pub fn parse(s: &str) -> Result<ExternalSpec, String> {
        let loopback = |port: &str| -> Result<SocketAddr, String> {
            let p: u16 = port
                .parse()
                .map_err(|_| format!("not a port number: {port}"))?;
            Ok(SocketAddr::from(([127, 0, 0, 1], p)))
        };
        let addr = |a: &str| -> Result<SocketAddr, String> {
            a.parse()
                .map_err(|_| format!("not an address HOST:PORT: {a}"))
        };
        let (kind, rest) = s
            .split_once(':')
            .ok_or(format!("link spec {s}: expected udp:… or tcp:…"))?;
        let parts: Vec<&str> = rest.split(':').collect();
        match (kind, parts.as_slice()) {
            ("udp", [l, r]) => Ok(ExternalSpec::Udp {
                local: loopback(l)?,
                remote: loopback(r)?,
            }),
            ("udp", [lh, lp, rh, rp]) => Ok(ExternalSpec::Udp {
                local: addr(&format!("{lh}:{lp}"))?,
                remote: addr(&format!("{rh}:{rp}"))?,
            }),
            ("tcp", [h, p]) => Ok(ExternalSpec::Tcp {
                remote: addr(&format!("{h}:{p}"))?,
            }),
            _ => Err(format!(
                "link spec {s}: expected udp:LOCAL_PORT:REMOTE_PORT, udp:HOST:PORT:HOST:PORT or tcp:HOST:PORT"
            )),
        }
    }
}

impl fmt::Display for ExternalSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExternalSpec::Udp { local, remote } => write!(f, "udp {local} -> {remote}"),
            ExternalSpec::Tcp { remote } => write!(f, "tcp {remote}"),
        }
    }
}

enum Socket {
    Udp(UdpSocket, SocketAddr),
    Tcp {
        stream: TcpStream,
        /// Bytes received and not yet a whole frame.
        partial: Vec<u8>,
    },
}

/// Counters of the external port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExternalStats {
    pub frames_in: u64,
    pub frames_out: u64,
    /// ARP requests sent on the NIC's behalf to resolve a peer.
    pub arp_requests_sent: u64,
    /// IPv6 neighbour solicitations sent on the NIC's behalf to resolve a peer.
    pub ns_sent: u64,
    /// UDP link: the socket's receive buffer as the kernel granted it (bytes; 0 on a TCP link).
    pub receive_buffer: usize,
    /// UDP link: datagrams from the peer the kernel dropped because that buffer was full
    /// (`/proc/net/udp` "drops"; 0 when it cannot be read).
    pub socket_drops: u64,
}

/// The socket end of the wire plus address resolution on the NIC's behalf.
pub struct ExternalPort {
    socket: Socket,
    spec: ExternalSpec,
    /// The NIC's address, once [`ExternalPort::set_address`] gave it.
    me: Option<([u8; 6], Ipv4Addr)>,
    neighbours: HashMap<Ipv4Addr, [u8; 6]>,
    /// The NIC's IPv6 address (its GID) and the IPv6 neighbours seen (RFC 4861 advertisements and
    /// solicitations that name their link-layer address).
    me6: Option<Ipv6Addr>,
    neighbours6: HashMap<Ipv6Addr, [u8; 6]>,
    /// The 802.1Q VLAN the NIC resolves its peers on: requests leave tagged with it, and only answers
    /// tagged with it are learned (None: untagged).
    vlan: Option<u16>,
    stats: ExternalStats,
}

const ARP_REQUEST: u16 = arp::OPER_REQUEST;

impl ExternalPort {
    pub fn open(spec: &ExternalSpec) -> io::Result<ExternalPort> {
        let socket = match spec {
            ExternalSpec::Udp { local, remote } => {
                let s = UdpSocket::bind(local).map_err(|e| {
                    io::Error::new(e.kind(), format!("cannot bind UDP {local}: {e}"))
                })?;
                s.set_nonblocking(true)?;
                grow_buffers(&s, UDP_BUFFER_BYTES)?;
                Socket::Udp(s, *remote)
            }
            ExternalSpec::Tcp { remote } => {
                let s = TcpStream::connect(remote).map_err(|e| {
                    io::Error::new(e.kind(), format!("cannot connect to TCP {remote}: {e}"))
                })?;
                s.set_nonblocking(true)?;
                s.set_nodelay(true)?;
                Socket::Tcp {
                    stream: s,
                    partial: Vec::new(),
                }
            }
        };
        Ok(ExternalPort {
            socket,
            spec: spec.clone(),
            me: None,
            neighbours: HashMap::new(),
            me6: None,
            neighbours6: HashMap::new(),
            vlan: None,
            stats: ExternalStats::default(),
        })
    }

    pub fn spec(&self) -> &ExternalSpec {
        &self.spec
    }

    pub fn stats(&self) -> ExternalStats {
        let mut st = self.stats;
        if let Socket::Udp(s, _) = &self.socket {
            st.receive_buffer = sockopt(s, libc::SO_RCVBUF).unwrap_or(0);
            st.socket_drops = udp_drops(s).unwrap_or(0);
        }
        st
    }

    /// The NIC's MAC and IPv4 address, the sender of resolution requests.
    pub fn set_address(&mut self, mac: [u8; 6], ip: Ipv4Addr) {
        self.me = Some((mac, ip));
    }

    /// The NIC's IPv6 address, the sender of neighbour solicitations.
    pub fn set_address6(&mut self, ip: Ipv6Addr) {
        self.me6 = Some(ip);
    }

    /// Resolve peers on 802.1Q VLAN `vid` (None: untagged): requests leave tagged (PCP 0, as Linux sends
    /// ARP from a VLAN netdev), and answers count only with that tag.
    pub fn set_vlan(&mut self, vid: Option<u16>) {
        self.vlan = vid;
    }

    /// `f` tagged with the resolution VLAN, if there is one.
    fn on_vlan(&self, f: Vec<u8>) -> Vec<u8> {
        match self.vlan {
            Some(vid) => {
                let mut t = f[..12].to_vec();
                t.extend_from_slice(&[0x81, 0x00, (vid >> 8) as u8 & 0x0F, vid as u8]);
                t.extend_from_slice(&f[12..]);
                t
            }
            None => f,
        }
    }

    /// The MAC of `ip` if a neighbour advertisement (or a solicitation naming its link-layer address) from
    /// it was seen.
    pub fn neighbour6(&self, ip: Ipv6Addr) -> Option<[u8; 6]> {
        self.neighbours6.get(&ip).copied()
    }

    /// A neighbour solicitation for `target` (RFC 4861 §4.3, §7.2.2) from the NIC's MAC and IPv6 address
    /// to the target's solicited-node multicast address, with a source link-layer address option (None
    /// until [`ExternalPort::set_address`] and [`ExternalPort::set_address6`]).
    pub fn ns_request(&mut self, target: Ipv6Addr) -> Option<Vec<u8>> {
        let (mac, _) = self.me?;
        let src = self.me6?;
        self.stats.ns_sent += 1;
        Some(self.on_vlan(ndp::solicitation(mac, src, target)))
    }

    /// The MAC of `ip` if an ARP frame from it was seen.
    pub fn neighbour(&self, ip: Ipv4Addr) -> Option<[u8; 6]> {
        self.neighbours.get(&ip).copied()
    }

    /// An ARP request for `ip` from the NIC's address (None until [`ExternalPort::set_address`]).
    pub fn arp_request(&mut self, ip: Ipv4Addr) -> Option<Vec<u8>> {
        let (mac, my_ip) = self.me?;
        self.stats.arp_requests_sent += 1;
        Some(self.on_vlan(arp_frame(ARP_REQUEST, mac, my_ip, [0xFF; 6], [0; 6], ip)))
    }

    /// Send one frame to the other end. A send that fails is reported: nothing is dropped silently.
    pub fn send(&mut self, frame: &[u8]) -> io::Result<()> {
        match &mut self.socket {
            Socket::Udp(s, to) => {
                s.send_to(frame, *to)?;
            }
            Socket::Tcp { stream, .. } => {
                // The stream is non-blocking for receive; write the whole frame, waiting if the peer is slow.
                let mut buf = Vec::with_capacity(4 + frame.len());
                buf.extend_from_slice(&(frame.len() as u32).to_be_bytes());
                buf.extend_from_slice(frame);
                let mut done = 0;
                while done < buf.len() {
                    match stream.write(&buf[done..]) {
                        Ok(0) => return Err(ErrorKind::WriteZero.into()),
                        Ok(n) => done += n,
                        Err(e) if e.kind() == ErrorKind::WouldBlock => std::thread::yield_now(),
                        Err(e) => return Err(e),
                    }
                }
            }
        }
        self.stats.frames_out += 1;
        Ok(())
    }

    /// Frames that arrived since the last call, in order, into `to_nic` (ARP frames too: the core answers
    /// requests for its address). `to_wire` is for frames to send back on the NIC's behalf (none today).
    pub fn receive(
        &mut self,
        to_nic: &mut Vec<Vec<u8>>,
        to_wire: &mut Vec<Vec<u8>>,
    ) -> io::Result<()> {
        let mut frames = Vec::new();
        match &mut self.socket {
            Socket::Udp(s, _) => {
                let mut buf = [0u8; 65536];
                loop {
                    match s.recv_from(&mut buf) {
                        Ok((n, _)) => frames.push(buf[..n].to_vec()),
                        Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                        // A previous send_to to a port nobody listens on yet comes back as this; the
                        // peer (a booting guest) is simply not there yet.
                        Err(e) if e.kind() == ErrorKind::ConnectionRefused => continue,
                        Err(e) => return Err(e),
                    }
                }
            }
            Socket::Tcp { stream, partial } => {
                let mut buf = [0u8; 65536];
                loop {
                    match stream.read(&mut buf) {
                        Ok(0) => {
                            return Err(io::Error::new(
                                ErrorKind::UnexpectedEof,
                                "the stream peer closed the connection",
                            ))
                        }
                        Ok(n) => partial.extend_from_slice(&buf[..n]),
                        Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                        Err(e) => return Err(e),
                    }
                }
                while partial.len() >= 4 {
                    let len = u32::from_be_bytes(partial[..4].try_into().unwrap()) as usize;
                    if partial.len() < 4 + len {
                        break;
                    }
                    frames.push(partial[4..4 + len].to_vec());
                    partial.drain(..4 + len);
                }
            }
        }
        let _ = to_wire;
        for f in frames {
            self.stats.frames_in += 1;
            self.learn(&f);
            to_nic.push(f);
        }
        Ok(())
    }

    /// If `f` is an ARP frame (RFC 826, Ethernet/IPv4), remember its sender's addresses.
    fn learn(&mut self, f: &[u8]) {
        // On the resolution VLAN only: the tag comes off; untagged or other tags teach nothing.
        let tagged = f.len() >= 18 && f[12..14] == [0x81, 0x00];
        let untagged;
        let f = match (self.vlan, tagged) {
            (None, false) => f,
            (Some(vid), true) if u16::from_be_bytes([f[14], f[15]]) & 0xFFF == vid => {
                untagged = [&f[..12], &f[16..]].concat();
                &untagged[..]
            }
            _ => return,
        };
        if let Some((ip, mac)) = ndp::sender(f) {
            self.neighbours6.insert(ip, mac);
        }
        if let Some((_, sha, spa)) = arp::sender(f) {
            let spa = Ipv4Addr::from(spa);
            if spa != Ipv4Addr::UNSPECIFIED {
                self.neighbours.insert(spa, sha);
            }
        }
    }
}

/// IPv6 neighbour discovery (RFC 4861) as the NIC's host software sees it: the solicitations it sends to
/// resolve a peer, and the link-layer addresses peers announce (offsets and checksum: `ndp_frame`).
pub mod ndp {
    use rocenic_proto::wire::ndp_frame as N;
    use std::net::Ipv6Addr;

    /// A neighbour solicitation for `target` from `mac`/`src`, to the target's solicited-node multicast
    /// address and its MAC, with a source link-layer address option.
    pub fn solicitation(mac: [u8; 6], src: Ipv6Addr, target: Ipv6Addr) -> Vec<u8> {
        let t = target.octets();
        let group = N::solicited_node(t);
        N::solicitation(N::multicast_mac(group), mac, src.octets(), group, t, true)
    }

    /// The (IPv6 address, MAC) a neighbour discovery frame announces: an advertisement's target and its
    /// target link-layer address (or the frame's source MAC), or a solicitation's source and its source
    /// link-layer address option. Frames with a bad checksum or a hop limit other than 255 announce nothing.
    pub fn sender(f: &[u8]) -> Option<(Ipv6Addr, [u8; 6])> {
        if f.len() < N::LEN
            || f[12..14] != N::ETHERTYPE.to_be_bytes()
            || f[N::IP_VERSION_TC] >> 4 != 6
            || f[N::IP_NEXT_HEADER] != N::NEXT_HEADER_ICMPV6
            || f[N::IP_HOP_LIMIT] != N::HOP_LIMIT
        {
            return None;
        }
        let plen = u16::from_be_bytes([f[N::IP_PAYLOAD_LEN], f[N::IP_PAYLOAD_LEN + 1]]) as usize;
        let msg = f.get(N::ICMP..N::ICMP + plen)?;
        let src: [u8; 16] = f[N::IP_SRC..N::IP_SRC + 16].try_into().ok()?;
        let dst: [u8; 16] = f[N::IP_DST..N::IP_DST + 16].try_into().ok()?;
        if plen < N::MSG_LEN || N::checksum(src, dst, msg) != 0 {
            return None;
        }
        let target: [u8; 16] = f[N::TARGET..N::TARGET + 16].try_into().ok()?;
        let (ip, want) = match msg[0] {
            N::TYPE_NA => (target, N::OPT_TARGET_LLA),
            N::TYPE_NS if src != [0; 16] => (src, N::OPT_SOURCE_LLA),
            _ => return None,
        };
        let mut mac: [u8; 6] = f[6..12].try_into().ok()?;
        let mut opts = &msg[N::MSG_LEN..];
        while opts.len() >= 8 && opts[1] != 0 {
            let n = opts[1] as usize * 8;
            if opts[0] == want {
                mac.copy_from_slice(&opts[2..8]);
            }
            opts = opts.get(n..).unwrap_or(&[]);
        }
        Some((Ipv6Addr::from(ip), mac))
    }
}

/// Ask for `bytes` of kernel buffer each way: SO_RCVBUFFORCE/SO_SNDBUFFORCE first (they pass
/// `net.core.rmem_max`/`wmem_max` but need CAP_NET_ADMIN), else the plain options (capped there).
fn grow_buffers(s: &UdpSocket, bytes: usize) -> io::Result<()> {
    for (force, plain) in [
        (libc::SO_RCVBUFFORCE, libc::SO_RCVBUF),
        (libc::SO_SNDBUFFORCE, libc::SO_SNDBUF),
    ] {
        if set_sockopt(s, force, bytes).is_err() {
            set_sockopt(s, plain, bytes)?;
        }
    }
    Ok(())
}

fn set_sockopt(s: &UdpSocket, opt: libc::c_int, value: usize) -> io::Result<()> {
    let v = value.min(libc::c_int::MAX as usize) as libc::c_int;
    // SAFETY: the descriptor is the open socket `s`; the option value points at a live c_int of the
    // length given.
    let r = unsafe {
        libc::setsockopt(
            s.as_raw_fd(),
            libc::SOL_SOCKET,
            opt,
            (&v as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

fn sockopt(s: &UdpSocket, opt: libc::c_int) -> io::Result<usize> {
    let mut v: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: the descriptor is the open socket `s`; value and length point at live locals of the sizes
    // the kernel is told.
    let r = unsafe {
        libc::getsockopt(
            s.as_raw_fd(),
            libc::SOL_SOCKET,
            opt,
            (&mut v as *mut libc::c_int).cast(),
            &mut len,
        )
    };
    if r == 0 {
        Ok(v.max(0) as usize)
    } else {
        Err(io::Error::last_os_error())
    }
}

/// The kernel's count of datagrams dropped at `s` (the "drops" column of `/proc/net/udp` or `udp6`, on
/// the line of the socket's inode).
fn udp_drops(s: &UdpSocket) -> Option<u64> {
    let inode = std::fs::metadata(format!("/proc/self/fd/{}", s.as_raw_fd()))
        .ok()
        .map(|m| std::os::unix::fs::MetadataExt::ino(&m))?;
    for table in ["/proc/net/udp", "/proc/net/udp6"] {
        let Ok(text) = std::fs::read_to_string(table) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.len() >= 13 && f[9].parse() == Ok(inode) {
                return f[12].parse().ok();
            }
        }
    }
    None
}

/// An ARP frame (RFC 826) for IPv4 over Ethernet, unpadded.
fn arp_frame(
    op: u16,
    sha: [u8; 6],
    spa: Ipv4Addr,
    eth_dst: [u8; 6],
    tha: [u8; 6],
    tpa: Ipv4Addr,
) -> Vec<u8> {
    arp::emit(op, sha, spa.octets(), eth_dst, tha, tpa.octets())
}

#[cfg(test)]
mod tests {
    use super::*;

    const NIC_MAC: [u8; 6] = [2, 0x52, 0x4F, 0x43, 0x45, 0];

    #[test]
    fn neighbour_solicitation_and_what_advertisements_teach() {
        let me: Ipv6Addr = "fd52:4f43:45::2".parse().unwrap();
        let peer: Ipv6Addr = "fd52:4f43:45::1".parse().unwrap();
        let ns = ndp::solicitation(NIC_MAC, me, peer);
        assert_eq!(ns.len(), 86);
        assert_eq!(
            ns[..6],
            [0x33, 0x33, 0xFF, 0, 0, 1],
            "solicited-node multicast MAC"
        );
        assert_eq!(
            ns[38..54],
            "ff02::1:ff00:1".parse::<Ipv6Addr>().unwrap().octets()
        );
        // The solicitation itself names our link-layer address; its checksum verifies (sum 0).
        assert_eq!(ndp::sender(&ns), Some((me, NIC_MAC)));
        let mut bad = ns.clone();
        bad[60] ^= 1;
        assert_eq!(ndp::sender(&bad), None, "a bad checksum teaches nothing");
        // An advertisement from the peer, built by hand: type 136, S and O, target, TLLA option.
        let mut msg = vec![136, 0, 0, 0, 0x60, 0, 0, 0];
        msg.extend_from_slice(&peer.octets());
        msg.extend_from_slice(&[2, 1, 0x52, 0x54, 0, 0, 0, 9]);
        let c = rocenic_proto::wire::ndp_frame::checksum(peer.octets(), me.octets(), &msg);
        msg[2..4].copy_from_slice(&c.to_be_bytes());
        let mut na = NIC_MAC.to_vec();
        na.extend_from_slice(&[
            0x52, 0x54, 0, 0, 0, 7, 0x86, 0xDD, 0x60, 0, 0, 0, 0, 32, 58, 255,
        ]);
        na.extend_from_slice(&peer.octets());
        na.extend_from_slice(&me.octets());
        na.extend_from_slice(&msg);
        assert_eq!(ndp::sender(&na), Some((peer, [0x52, 0x54, 0, 0, 0, 9])));
        na[21] = 64;
        assert_eq!(ndp::sender(&na), None, "hop limit must be 255");
    }
    const PEER_MAC: [u8; 6] = [0x52, 0x54, 0, 0, 0, 1];

    fn pair() -> (ExternalPort, UdpSocket) {
        let peer = UdpSocket::bind("127.0.0.1:0").unwrap();
        let probe = UdpSocket::bind("127.0.0.1:0").unwrap();
        let local = probe.local_addr().unwrap();
        drop(probe);
        let port = ExternalPort::open(&ExternalSpec::Udp {
            local,
            remote: peer.local_addr().unwrap(),
        })
        .unwrap();
        (port, peer)
    }

    fn recv_all(p: &mut ExternalPort) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
        let (mut n, mut w) = (Vec::new(), Vec::new());
        // Loopback delivery is immediate but not synchronous with send_to: poll briefly.
        for _ in 0..200 {
            p.receive(&mut n, &mut w).unwrap();
            if !n.is_empty() || !w.is_empty() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        (n, w)
    }

    #[test]
    fn a_burst_from_the_peer_waits_in_the_socket() {
        // A peer's window of 4,000 1 KiB datagrams sent before the co-simulation polls once (rxe's
        // `ib_write_bw -s 1048576` sends that many at host speed): all arrive, none dropped.
        let (mut p, peer) = pair();
        let me = match p.spec() {
            ExternalSpec::Udp { local, .. } => *local,
            ExternalSpec::Tcp { .. } => unreachable!(),
        };
        let frame = vec![0x5A_u8; 1024];
        for _ in 0..4000 {
            peer.send_to(&frame, me).unwrap();
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
        let (mut n, mut w) = (Vec::new(), Vec::new());
        p.receive(&mut n, &mut w).unwrap();
        let st = p.stats();
        assert!(
            st.receive_buffer >= 8 << 20,
            "receive buffer {} bytes",
            st.receive_buffer
        );
        assert_eq!((n.len(), st.socket_drops), (4000, 0), "{st:?}");
    }

    #[test]
    fn parses_link_specs() {
        assert_eq!(
            ExternalSpec::parse("udp:5000:5001").unwrap(),
            ExternalSpec::Udp {
                local: "127.0.0.1:5000".parse().unwrap(),
                remote: "127.0.0.1:5001".parse().unwrap()
            }
        );
        assert_eq!(
            ExternalSpec::parse("tcp:127.0.0.1:7000").unwrap(),
            ExternalSpec::Tcp {
                remote: "127.0.0.1:7000".parse().unwrap()
            }
        );
        assert!(ExternalSpec::parse("udp:5000").is_err());
        assert!(ExternalSpec::parse("sctp:1:2").is_err());
    }

    #[test]
    fn passes_arp_to_the_core_and_learns_the_asker() {
        let (mut p, peer) = pair();
        p.set_address(NIC_MAC, Ipv4Addr::new(10, 0, 0, 2));
        let who_has = arp_frame(
            ARP_REQUEST,
            PEER_MAC,
            Ipv4Addr::new(10, 0, 0, 1),
            [0xFF; 6],
            [0; 6],
            Ipv4Addr::new(10, 0, 0, 2),
        );
        peer.send_to(&who_has, p.spec_remote_local()).unwrap();
        let (to_nic, to_wire) = recv_all(&mut p);
        assert_eq!(to_nic, vec![who_has], "the core answers ARP itself");
        assert!(to_wire.is_empty());
        assert_eq!(p.neighbour(Ipv4Addr::new(10, 0, 0, 1)), Some(PEER_MAC));
        // A resolution request goes out from the NIC's addresses.
        let req = p.arp_request(Ipv4Addr::new(10, 0, 0, 7)).unwrap();
        assert_eq!(&req[0..6], &[0xFF; 6]);
        assert_eq!(u16::from_be_bytes([req[20], req[21]]), ARP_REQUEST);
        assert_eq!(&req[22..28], &NIC_MAC);
        assert_eq!(&req[38..42], &[10, 0, 0, 7]);
    }

    #[test]
    fn passes_other_frames() {
        let (mut p, peer) = pair();
        p.set_address(NIC_MAC, Ipv4Addr::new(10, 0, 0, 2));
        let mut ipv4 = vec![0u8; 60];
        ipv4[12] = 0x08;
        peer.send_to(&ipv4, p.spec_remote_local()).unwrap();
        let (to_nic, to_wire) = recv_all(&mut p);
        assert_eq!(to_nic, vec![ipv4]);
        assert!(to_wire.is_empty());
    }

    #[test]
    fn sends_frames_to_the_remote() {
        let (mut p, peer) = pair();
        p.send(&[1, 2, 3]).unwrap();
        let mut buf = [0u8; 16];
        let (n, _) = peer.recv_from(&mut buf).unwrap();
        assert_eq!(&buf[..n], &[1, 2, 3]);
        assert_eq!(p.stats().frames_out, 1);
    }

    impl ExternalPort {
        fn spec_remote_local(&self) -> SocketAddr {
            match &self.spec {
                ExternalSpec::Udp { local, .. } => *local,
                ExternalSpec::Tcp { remote } => *remote,
            }
        }
    }
}
