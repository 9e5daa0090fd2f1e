//! What the rdma-core-compatible tools share: GIDs (IPv4-mapped or IPv6) and
//! the out-of-band TCP exchange with the simulated NIC kept running while the tool waits for its peer.
use rocenic_driver::{Context, WorkCompletion};
use std::io::{ErrorKind, Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The options rdma-core's and perftest's tools share: the peer to connect to (none: be the server),
/// the out-of-band TCP port, and the device and port, of which rocenic has one each.
#[derive(clap::Args, Debug)]
pub struct Peer {
    /// Connect to the server at HOST (without: be the server)
    #[arg(value_name = "HOST")]
    pub server: Option<String>,
    /// Listen on/connect to port PORT
    #[arg(short = 'p', long, default_value_t = 18515, value_parser = crate::opt::int_parser(1..=65535))]
    pub port: u64,
    /// Use IB device DEV (only rocenic0 exists)
    #[arg(short = 'd', long = "ib-dev", value_name = "DEV")]
    pub ib_dev: Option<String>,
    /// Use port PORT of the IB device (only 1 exists)
    #[arg(short = 'i', long = "ib-port", value_name = "PORT", value_parser = crate::opt::int_parser(0..=255))]
    pub ib_port: Option<u64>,
}

impl Peer {
    /// The device and port named must be the one each there is.
    pub fn check(&self) -> Result<(), String> {
        if self.ib_port.is_some_and(|p| p != 1) {
            return Err("--ib-port: the device has port 1 only".into());
        }
        if let Some(v) = self.ib_dev.as_deref().filter(|&v| v != "rocenic0") {
            return Err(format!("--ib-dev: no device {v} (only rocenic0)"));
        }
        Ok(())
    }
}

/// The RoCEv2 GID of an IPv4 address (`::ffff:a.b.c.d`).
pub fn mapped_gid(ip: Ipv4Addr) -> [u8; 16] {
    let mut g = [0u8; 16];
    g[10] = 0xFF;
    g[11] = 0xFF;
    g[12..].copy_from_slice(&ip.octets());
    g
}

/// The GID a tool gives its peer: the NIC's IPv6 address (`--ipv6`) or its IPv4-mapped one.
pub fn my_gid(attach: &super::attach::Attach) -> [u8; 16] {
    match attach.ip6 {
        Some(ip6) => ip6.octets(),
        None => mapped_gid(attach.ip),
    }
}

/// The path to a peer whose GID is `gid`: its address (IPv4 if the GID is IPv4-mapped, else IPv6, which
/// needs the NIC to have an IPv6 address too) and its MAC, resolved beyond the external port by ARP or
/// neighbour solicitation. `flag` is the peer tool's option for a GID index, for the error message.
pub fn peer_path(
    fabric: &Mutex<rocenic_sim::Fabric>,
    attach: &super::attach::Attach,
    gid: &[u8; 16],
    flag: &str,
) -> Result<(std::net::IpAddr, [u8; 6]), String> {
    let mut f = fabric.lock().unwrap();
    match (gid_ipv4(gid), attach.ip6) {
        (Some(ip), _) => Ok((
            ip.into(),
            f.resolve(ip, 2_000_000, 40_000_000)
                .ok_or(format!("no ARP reply from {ip}"))?,
        )),
        (None, Some(_)) => {
            let ip6 = std::net::Ipv6Addr::from(*gid);
            Ok((
                ip6.into(),
                f.resolve6(ip6, 2_000_000, 40_000_000)
                    .ok_or(format!("no neighbour advertisement from {ip6}"))?,
            ))
        }
        (None, None) => Err(format!(
            "peer GID {} is IPv6: give the NIC an IPv6 address (--ipv6) or use the peer's IPv4-mapped \
             GID (rxe: {flag} 1)",
            gid_text(gid)
        )),
    }
}

/// The IPv4 address of an IPv4-mapped GID.
pub fn gid_ipv4(g: &[u8; 16]) -> Option<Ipv4Addr> {
    (g[..10] == [0; 10] && g[10..12] == [0xFF, 0xFF])
        .then(|| Ipv4Addr::new(g[12], g[13], g[14], g[15]))
}

pub fn gid_text(g: &[u8; 16]) -> String {
    match gid_ipv4(g) {
        Some(ip) => format!("::ffff:{ip}"),
        None => std::net::Ipv6Addr::from(*g).to_string(),
    }
}

/// How [`Pump::read_exact`] marks a connection that ended before any byte arrived.
pub const NOT_READY: &str = "(not ready) ";

/// A deadline and the device to keep running while the tool waits for anything.
pub struct Pump<'a> {
    pub ctx: &'a Context,
    pub fabric: &'a Arc<Mutex<rocenic_sim::Fabric>>,
    pub deadline: Instant,
}

impl Pump<'_> {
    /// Let the simulated NIC run a little; fails on timeout or a broken wire.
    pub fn step(&self, what: &str) -> Result<(), String> {
        if Instant::now() > self.deadline {
            return Err(format!("timed out while {what}"));
        }
        if let Some(e) = self.fabric.lock().unwrap().external_error() {
            return Err(format!("the NIC's link failed: {e}"));
        }
        self.ctx.wait();
        Ok(())
    }

    pub fn steps(&self, n: usize, what: &str) -> Result<(), String> {
        for _ in 0..n {
            self.step(what)?;
        }
        Ok(())
    }

    /// Reads all of `buf`; an error that starts with [`NOT_READY`] means the connection ended before
    /// any byte arrived.
    pub fn read_exact(&self, s: &mut TcpStream, buf: &mut [u8], what: &str) -> Result<(), String> {
        let mut done = 0;
        while done < buf.len() {
            let closed = match s.read(&mut buf[done..]) {
                Ok(0) => "closed".to_string(),
                Ok(n) => {
                    done += n;
                    continue;
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    self.step(what)?;
                    continue;
                }
                Err(e) if e.kind() == ErrorKind::ConnectionReset => e.to_string(),
                Err(e) => return Err(format!("{what}: {e}")),
            };
            let prefix = if done == 0 { NOT_READY } else { "" };
            return Err(format!(
                "{prefix}the peer {closed} the connection while {what}"
            ));
        }
        Ok(())
    }

    pub fn write_all(&self, s: &mut TcpStream, buf: &[u8], what: &str) -> Result<(), String> {
        let mut done = 0;
        while done < buf.len() {
            match s.write(&buf[done..]) {
                Ok(n) => done += n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => self.step(what)?,
                Err(e) => return Err(format!("{what}: {e}")),
            }
        }
        Ok(())
    }

    pub fn poll(
        &self,
        cq: &rocenic_driver::CompletionQueue,
        what: &str,
    ) -> Result<WorkCompletion, String> {
        let mut wc = [WorkCompletion::default()];
        loop {
            if cq.poll(&mut wc) == 1 {
                return Ok(wc[0]);
            }
            self.step(what)?;
        }
    }

    /// Like [`poll`](Self::poll), but sleeping on completion events when `events` (ibv_*_pingpong's and
    /// perftest's `-e`): arm, poll once more for what landed before the arm, then wait for the
    /// interrupt, in short slices of device time so the deadline and the link are still watched.
    /// Counts the wake-ups in `wakeups`.
    pub fn next_completion(
        &self,
        cq: &rocenic_driver::CompletionQueue,
        events: bool,
        wakeups: &mut u64,
        what: &str,
    ) -> Result<WorkCompletion, String> {
        if !events {
            return self.poll(cq, what);
        }
        let mut wc = [WorkCompletion::default()];
        loop {
            if cq.poll(&mut wc) == 1 {
                return Ok(wc[0]);
            }
            cq.req_notify(false);
            if cq.poll(&mut wc) == 1 {
                return Ok(wc[0]);
            }
            loop {
                if cq
                    .wait_event(Duration::from_micros(100))
                    .map_err(|e| e.to_string())?
                {
                    *wakeups += 1;
                    break;
                }
                if Instant::now() > self.deadline {
                    return Err(format!("timed out while {what}"));
                }
                if let Some(e) = self.fabric.lock().unwrap().external_error() {
                    return Err(format!("the NIC's link failed: {e}"));
                }
            }
        }
    }

    /// Connects to `host:port` and runs `first` (the client's opening exchange) on the connection. A
    /// server that is not listening yet may still accept the TCP connection (QEMU's user-net port
    /// forward does) and then close it: while `first` fails with [`NOT_READY`], try again.
    pub fn connect<T>(
        &self,
        host: &str,
        port: u16,
        mut first: impl FnMut(&mut TcpStream) -> Result<T, String>,
    ) -> Result<(TcpStream, T), String> {
        let addr = (host, port)
            .to_socket_addrs()
            .map_err(|err| format!("cannot resolve {host}: {err}"))?
            .next()
            .ok_or(format!("no address for {host}"))?;
        loop {
            let mut s = match TcpStream::connect_timeout(&addr, Duration::from_millis(200)) {
                Ok(s) => s,
                Err(_) => {
                    self.steps(200, &format!("connecting to {addr}"))?;
                    continue;
                }
            };
            s.set_nonblocking(true).map_err(|err| err.to_string())?;
            match first(&mut s) {
                Ok(t) => return Ok((s, t)),
                Err(err) if err.starts_with(NOT_READY) => {
                    self.steps(2000, &format!("connecting to {addr}"))?
                }
                Err(err) => return Err(err),
            }
        }
    }

    /// Listens on `port` and returns the first connection, non-blocking.
    pub fn accept(&self, port: u16) -> Result<TcpStream, String> {
        let l = TcpListener::bind(("0.0.0.0", port))
            .map_err(|err| format!("cannot listen on port {port}: {err}"))?;
        l.set_nonblocking(true).map_err(|err| err.to_string())?;
        let s = loop {
            match l.accept() {
                Ok((s, _)) => break s,
                Err(err) if err.kind() == ErrorKind::WouldBlock => {
                    self.step("waiting for a client")?
                }
                Err(err) => return Err(format!("accept: {err}")),
            }
        };
        s.set_nonblocking(true).map_err(|err| err.to_string())?;
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gids_of_ipv4() {
        let g = mapped_gid(Ipv4Addr::new(10, 0, 0, 2));
        assert_eq!(gid_ipv4(&g), Some(Ipv4Addr::new(10, 0, 0, 2)));
        assert_eq!(gid_text(&g), "::ffff:10.0.0.2");
        let mut v6 = g;
        v6[0] = 0xfe;
        assert_eq!(gid_ipv4(&v6), None);
    }
}
