//! `rocenic rc-pingpong` between two processes, each one co-simulated NIC whose Ethernet port is a UDP
//! socket (QEMU's dgram framing): ARP answered by the core, the ibv_rc_pingpong TCP exchange, SEND/ACK over a real
//! socket and the byte-for-byte echo check, without QEMU. The interop tests pair the same tool with rxe.
use std::net::{TcpListener, UdpSocket};
use std::process::{Command, Stdio};
use std::time::Duration;

fn free_udp_port() -> u16 {
    UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn free_tcp_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn pingpong(size: usize, mtu: u32, iters: usize) {
    pingpong_with(size, mtu, iters, &[]);
}

fn pingpong_with(size: usize, mtu: u32, iters: usize, extra: &[&str]) {
    let bin = env!("CARGO_BIN_EXE_rocenic");
    let (ua, ub, tcp) = (free_udp_port(), free_udp_port(), free_tcp_port());
    let common = |args: &mut Command| {
        args.args([
            "rc-pingpong",
            "-s",
            &size.to_string(),
            "-m",
            &mtu.to_string(),
        ])
        .args([
            "-n",
            &iters.to_string(),
            "-p",
            &tcp.to_string(),
            "--timeout",
            "120",
        ])
        .args(extra);
    };
    let mut server = Command::new(bin);
    common(&mut server);
    server
        .args(["--echo", "--ip", "10.0.0.1", "--mac", "02:52:4f:43:45:01"])
        .args(["--link", &format!("udp:{ua}:{ub}")])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let server = server.spawn().expect("start the server");
    // The client retries its connection until the server listens.
    std::thread::sleep(Duration::from_millis(200));
    let mut client = Command::new(bin);
    common(&mut client);
    let client = client
        .args([
            "--ip",
            "10.0.0.2",
            "--link",
            &format!("udp:{ub}:{ua}"),
            "127.0.0.1",
        ])
        .output()
        .expect("run the client");
    let server = server.wait_with_output().expect("wait for the server");
    let text = |o: &std::process::Output| {
        format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    };
    let (c, s) = (text(&client), text(&server));
    assert!(client.status.success(), "client failed:\n{c}\nserver:\n{s}");
    assert!(server.status.success(), "server failed:\n{s}\nclient:\n{c}");
    assert!(
        c.contains(&format!("{iters} of {iters} received messages checked")),
        "client did not check every echo:\n{c}"
    );
    assert!(c.contains(&format!("{iters} iters in")), "{c}");
    assert!(s.contains(&format!("{iters} iters in")), "{s}");
    if extra.contains(&"-e") {
        for out in [&c, &s] {
            assert!(out.contains("woken by the interrupt"), "{out}");
        }
    }
}

#[test]
fn sleeping_on_completion_events() {
    pingpong_with(512, 1024, 20, &["-e"]);
}

#[test]
fn one_kib_at_mtu_1024() {
    pingpong(1024, 1024, 50);
}

#[test]
fn odd_sizes_at_mtu_4096() {
    pingpong(4093, 4096, 10);
    pingpong(1, 256, 10);
}
