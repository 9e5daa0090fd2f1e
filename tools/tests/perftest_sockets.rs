//! `rocenic write-bw` / `read-bw` / `send-bw` / `write-lat` / `atomic-bw` between two processes, each one co-simulated NIC whose Ethernet port is a
//! UDP socket: perftest's out-of-band exchange in both directions (versions, page and cache-line sizes, the
//! MTU taken as the smaller, QP addresses three times, the client's report carried to the server), and
//! the RDMA traffic over a real socket. The interop tests pair the same tools with perftest on rxe.
use std::net::{TcpListener, UdpSocket};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

fn free_port(udp: bool) -> u16 {
    if udp {
        UdpSocket::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port()
    } else {
        TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port()
    }
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The result row: the line that starts with the message size.
fn result_row(out: &str, size: usize) -> String {
    out.lines()
        .find(|l| l.trim_start().starts_with(&format!("{size} ")))
        .unwrap_or_else(|| panic!("no result row for size {size} in:\n{out}"))
        .to_string()
}

fn pair(tool: &str, size: usize, iters: u32, server_mtu: u32, client_mtu: u32, extra: &[&str]) {
    let bin = env!("CARGO_BIN_EXE_rocenic");
    let (ua, ub, tcp) = (free_port(true), free_port(true), free_port(false));
    let common = |c: &mut Command, mtu: u32| {
        c.args([tool, "-s", &size.to_string(), "-n", &iters.to_string()])
            .args([
                "-m",
                &mtu.to_string(),
                "-p",
                &tcp.to_string(),
                "--timeout",
                "120",
            ])
            .args(extra);
    };
    let mut server = Command::new(bin);
    common(&mut server, server_mtu);
    let server = server
        .args(["--ip", "10.0.0.1", "--mac", "02:52:4f:43:45:01"])
        .args(["--link", &format!("udp:{ua}:{ub}")])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the server");
    std::thread::sleep(Duration::from_millis(200));
    let mut client = Command::new(bin);
    common(&mut client, client_mtu);
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
    let (c, s) = (text(&client), text(&server));
    assert!(client.status.success(), "client failed:\n{c}\nserver:\n{s}");
    assert!(server.status.success(), "server failed:\n{s}\nclient:\n{c}");
    let mtu = server_mtu.min(client_mtu);
    for out in [&c, &s] {
        assert!(
            out.contains(&format!("Mtu             : {mtu}[B]")),
            "MTU not negotiated to {mtu}:\n{out}"
        );
    }
    let row = result_row(&c, size);
    assert!(
        row.split_whitespace().nth(1) == Some(&iters.to_string()),
        "{row}"
    );
    if tool == "send-bw" || tool == "write-lat" {
        // No report exchange: the server measured its own receives (or round trips), all of them.
        let srow = result_row(&s, size);
        assert!(
            srow.split_whitespace().nth(1) == Some(&iters.to_string()),
            "{srow}"
        );
    } else {
        // The server prints the report the client sent: the same numbers, field for field.
        assert_eq!(result_row(&s, size), row, "report not carried intact");
    }
}

#[test]
fn write_bw_pair() {
    pair("write-bw", 8192, 20, 1024, 4096, &[]);
}

#[test]
fn read_bw_pair() {
    pair("read-bw", 100, 30, 4096, 2048, &[]);
}

/// perftest's `-o`: each side's QP keeps up to 4 READs outstanding (max_rd_atomic 4).
#[test]
fn read_bw_pair_with_four_reads_outstanding() {
    pair("read-bw", 100, 30, 4096, 2048, &["-o", "4"]);
}

/// SENDs of several packets into a server that keeps only 8 receives posted: it reposts as they complete,
/// and a SEND that finds none waits out an RNR NAK.
#[test]
fn send_bw_pair() {
    pair("send-bw", 5000, 40, 1024, 4096, &["-r", "8"]);
}

/// The RDMA WRITE ping-pong: each side's last byte counts the other's writes; both print latencies.
#[test]
fn write_lat_pair() {
    pair("write-lat", 200, 30, 4096, 1024, &[]);
}

/// ib_atomic_bw: FETCH_AND_ADDs on 8-byte words, four outstanding (max_rd_atomic 4 on the client, the
/// server's responder keeping the results of its last four); the report carried to the server.
#[test]
fn atomic_bw_pair_with_four_outstanding() {
    pair("atomic-bw", 8, 40, 1024, 4096, &["-o", "4"]);
}

/// An atomic is one 8-byte word: another size is refused before anything starts.
#[test]
fn atomic_bw_refuses_other_sizes() {
    let out = Command::new(env!("CARGO_BIN_EXE_rocenic"))
        .args(["atomic-bw", "-s", "16"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(text(&out).contains("8-byte word"), "{}", text(&out));
}
