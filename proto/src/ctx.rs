//! Context record layouts: every record the core keeps per QP, per outstanding request or per memory
//! region in its RAMs,
//! as one table of named fields. Fields are packed in the order listed, the first at bit 0, with no gaps.
//! `hdl/build.rs` generates, for each record, a pack block (fields in, word out) and an unpack block
//! (word in, fields out), so the RTL reads and writes a context field by name; `regs-doc --contexts`
//! prints the tables (`docs/contexts.md`).

/// One field: its name (as in the IBA or the register it comes from), width in bits and meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: &'static str,
    pub bits: usize,
    pub doc: &'static str,
}

/// One record: its name, where it lives, and its fields from bit 0 up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    pub name: &'static str,
    pub doc: &'static str,
    pub fields: &'static [Field],
}

const fn f(name: &'static str, bits: usize, doc: &'static str) -> Field {
    Field { name, bits, doc }
}

impl Record {
    /// The record's width: its fields' widths summed.
    pub const fn bits(&self) -> usize {
        let mut n = 0;
        let mut i = 0;
        while i < self.fields.len() {
            n += self.fields[i].bits;
            i += 1;
        }
        n
    }

    /// Each field with its lowest bit.
    pub fn layout(&self) -> Vec<(usize, Field)> {
        let mut lo = 0;
        self.fields
            .iter()
            .map(|f| {
                let at = lo;
                lo += f.bits;
                (at, *f)
            })
            .collect()
    }

    /// A field's lowest bit and width.
    pub fn field(&self, name: &str) -> Option<(usize, usize)> {
        self.layout()
            .into_iter()
            .find(|(_, f)| f.name == name)
            .map(|(lo, f)| (lo, f.bits))
    }
}

/// The responder's attributes of a QP (`rxa`), written by host commands, read when the receive engine
/// switches to the QP.
pub const QP_RESP_ATTR: Record = Record {
    name: "QP_RESP_ATTR",
    doc: "Responder attributes (RAM `rxa`): written by QP_CMD MODIFY, read on a receive-engine switch.",
    fields: &[
        f("dest_qpn", 24, "DEST_QPN: the peer's QP number."),
        f("pmtu", 8, "PMTU: log2 of the path MTU in bytes."),
        f("min_rnr_timer", 8, "MIN_RNR_TIMER: the RNR NAK's timer field (IBA table 45)."),
        f("qp_access", 8, "QP_ACCESS: remote access flags."),
        f("pd", 32, "PD: protection domain, checked against the MR's."),
        f("rq_log_size", 32, "RQ_LOG_SIZE: log2 of the receive ring's entries; bit 5 RQ_WQE_128."),
        f("rq_base", 64, "RQ_BASE: the receive ring's host address."),
        f("dest_ipv4", 32, "DEST_IPV4 (of an IPv6 peer, its GID's last 32 bits): packets from another source are dropped."),
    ],
};

/// The requester's attributes of a QP (`txa`).
pub const QP_REQ_ATTR: Record = Record {
    name: "QP_REQ_ATTR",
    doc: "Requester attributes (RAM `txa`): written by QP_CMD MODIFY, read when the scheduler switches the transmit engine to the QP.",
    fields: &[
        f("pmtu", 8, "PMTU: log2 of the path MTU in bytes."),
        f("retry_cnt", 3, "RETRY_CNT: retries after a timeout or sequence NAK (IBA 3 bits)."),
        f("max_rd_atomic", 3, "QP_MAX_RD_ATOMIC: READs and atomics outstanding at once."),
        f("rnr_retry", 8, "RNR_RETRY: retries after an RNR NAK (7: without limit)."),
        f("sq_log_size", 8, "SQ_LOG_SIZE: log2 of the send ring's entries; bit 5 SQ_WQE_128."),
        f("ack_timeout", 32, "ACK_TIMEOUT: the local ACK timeout, in cycles."),
        f("dest_qpn", 24, "DEST_QPN: the peer's QP number."),
        f("sq_base", 64, "SQ_BASE: the send ring's host address."),
    ],
};

/// The address vector of a QP's frames (`av`), read by the transmit engine for each frame's QP.
pub const QP_AV: Record = Record {
    name: "QP_AV",
    doc: "Address vector (RAM `av`): written by QP_CMD MODIFY, read for the QP of each frame the transmit engine builds.",
    fields: &[
        f("dest_mac", 48, "DEST_MAC: the next hop's MAC address."),
        f("flow_label", 20, "QP_FLOW_LABEL: the IPv6 flow label."),
        f("dest_ipv4", 32, "DEST_IPV4: the peer's IPv4 address (of an IPv6 peer, its GID's last 32 bits)."),
        f("udp_sport", 16, "UDP_SPORT: the UDP source port of the QP's frames."),
        f("dest_qpn", 24, "DEST_QPN: the peer's QP number, the BTH's destination QP."),
        f("dscp", 8, "QP_DSCP: the DSCP of the QP's frames."),
        f("vlan_on", 1, "QP_VLAN bit 16: the QP's frames are tagged."),
        f("vlan_entry", 2, "QP_VLAN bits 1..0: the port VLAN table entry whose VID they carry."),
        f("hop_limit", 8, "QP_HOP_LIMIT: IPv4 TTL or IPv6 hop limit."),
        f("dest_gid_hi", 96, "DEST_GID_0..2: the peer's GID but its last 32 bits (DEST_GID_0 highest)."),
        f("ipv6", 1, "QP_IPV6 bit 0: the QP's frames are IPv6."),
        f("sgid_index", 2, "QP_IPV6 bits 2..1: the GID table entry of the source address."),
    ],
};

/// The receive engine's own per-QP registers (`RxEngine::ctx_out`), kept in `rxc` behind the responder
/// context's first words.
pub const RESP_ENGINE_CTX: Record = Record {
    name: "RESP_ENGINE_CTX",
    doc: "The receive engine's per-QP registers: saved into `rxc` when it switches away from the QP, loaded when it switches back.",
    fields: &[
        f("msn", 24, "The responder's MSN (IBA 9.7.6.1.1)."),
        f("nak_sent", 1, "A sequence-error NAK was sent and the expected PSN has not come since: no second NAK (IBA 9.7.5.2.2)."),
        f("in_write", 1, "A multi-packet RDMA WRITE is in progress."),
        f("in_send", 1, "A multi-packet SEND is in progress."),
        f("ac_valid", 1, "The newest atomic result entry is valid."),
        f("cnp_seen", 1, "A CNP was asked for since the QP left RESET (the first CE-marked packet gets one at once)."),
        f("ac_next", 2, "The atomic result entry the next atomic overwrites."),
        f("ac_psn", 24, "The newest atomic's PSN."),
        f("write_va", 64, "The message in progress (WRITE or SEND): its next host address."),
        f("write_left", 32, "The WRITE in progress: bytes of its DMA length not yet received."),
        f("write_total", 32, "The WRITE in progress: its DMA length (a WRITE with immediate reports it as byte_len)."),
        f("write_rkey", 32, "The WRITE in progress: its R_Key, MIDDLE and LAST packets checked against it."),
        f("recv_len", 32, "The SEND in progress: receive buffer bytes still free."),
        f("recv_wr_id", 64, "The SEND in progress: its receive WQE's work request ID."),
        f("send_total", 32, "The SEND in progress: bytes received (the completion's byte_len)."),
        f("cnp_last", 32, "The cycle of the QP's last CNP request (one CNP per interval)."),
        f("ac_orig", 64, "The newest atomic's original value, replayed to a duplicate."),
        f("out_of_sequence", 32, "out_of_sequence: PSN sequence errors seen as responder."),
        f("duplicate_request", 32, "duplicate_request: duplicates answered."),
        f("packet_seq_err", 32, "packet_seq_err: sequence-error NAKs received as requester."),
        f("ac_psn1", 24, "Atomic result entry 1: PSN."),
        f("ac_valid1", 1, "Atomic result entry 1: valid."),
        f("ac_orig1", 64, "Atomic result entry 1: original value."),
        f("ac_psn2", 24, "Atomic result entry 2: PSN."),
        f("ac_valid2", 1, "Atomic result entry 2: valid."),
        f("ac_orig2", 64, "Atomic result entry 2: original value."),
        f("ac_psn3", 24, "Atomic result entry 3: PSN."),
        f("ac_valid3", 1, "Atomic result entry 3: valid."),
        f("ac_orig3", 64, "Atomic result entry 3: original value."),
    ],
};

/// The responder context of a QP (`rxc`).
pub const QP_RESP_CTX: Record = Record {
    name: "QP_RESP_CTX",
    doc: "Responder context (RAM `rxc`): written back when the receive engine switches away, by host commands and by the ERR hand-over.",
    fields: &[
        f("state", 8, "QP_STATE as the responder holds it (`host::QpState`)."),
        f("rq_psn", 24, "RQ_PSN: the next PSN expected."),
        f("rq_ci", 32, "RQ_CI: the receive ring's consumer index."),
        f("engine", RESP_ENGINE_CTX.bits(), "The receive engine's registers (RESP_ENGINE_CTX)."),
    ],
};

/// The requester context of a QP (`txc`).
pub const QP_REQ_CTX: Record = Record {
    name: "QP_REQ_CTX",
    doc: "Requester context (RAM `txc`): written back when the transmit engine switches away, by host commands and by the ERR hand-over.",
    fields: &[
        f("state", 8, "QP_STATE as the requester holds it (`host::QpState`)."),
        f("sq_psn", 24, "SQ_PSN: the next PSN to send."),
        f("sq_ci", 32, "SQ_CI: the send ring's consumer index."),
        f("local_ack_timeout_err", 32, "local_ack_timeout_err: ACK timeouts."),
        f("retransmits", 32, "Packets sent again (go-back-N)."),
    ],
};

/// An entry of the transmit engine's outstanding ring (`rg`): a WQE sent and not yet acknowledged.
pub const SQ_OUTSTANDING: Record = Record {
    name: "SQ_OUTSTANDING",
    doc: "Outstanding ring entry (RAM `rg` in the transmit engine): a WQE whose packets are sent and not all acknowledged.",
    fields: &[
        f("first_psn", 24, "The WQE's first PSN."),
        f("npk", 24, "Its packets."),
        f("wr_id", 64, "Its work request ID, for the completion."),
        f("len", 32, "Its message length, for the completion."),
        f("opcode", 4, "Its work request opcode (`host::WrOpcode`)."),
        f("signaled", 1, "Its completion is written (IBV_SEND_SIGNALED)."),
    ],
};

/// An entry of the transmit engine's READ queue (`rdq`): a READ or atomic whose responses are awaited.
pub const READ_OUTSTANDING: Record = Record {
    name: "READ_OUTSTANDING",
    doc: "READ queue entry (RAM `rdq` in the transmit engine): a READ or atomic request sent, its responses awaited.",
    fields: &[
        f("laddr", 64, "Where its data lands in host memory."),
        f("len", 32, "Its length."),
        f("first_psn", 24, "Its first PSN."),
        f("atomic", 1, "An atomic (one ATOMIC ACKNOWLEDGE) rather than a READ."),
    ],
};

/// A memory region (`ram` in the MR table), looked up by R_Key for every remote access.
pub const MR_ENTRY: Record = Record {
    name: "MR_ENTRY",
    doc: "Memory region (RAM in `roce/mr_table.rs`): written by MR_CMD WRITE (the end worked out from IOVA + length), cleared by INVALIDATE, CLEAR and a SEND with invalidate.",
    fields: &[
        f("iova", 64, "The region's first I/O virtual address."),
        f("iova_end", 64, "IOVA + length: the bounds check compares and never adds. An entry whose end equals its IOVA (length 0, or cleared) is invalid."),
        f("key", 32, "The whole key (index << 8 | variant): a key must equal it, so a stale variant stops matching."),
        f("access", 8, "ibv_access_flags; bit 7 remote invalidation allowed."),
        f("pd", 24, "The protection domain, checked against the QP's."),
    ],
};

/// Every record, in the order the docs list them.
pub const RECORDS: &[Record] = &[
    QP_RESP_ATTR,
    QP_REQ_ATTR,
    QP_AV,
    QP_RESP_CTX,
    RESP_ENGINE_CTX,
    QP_REQ_CTX,
    SQ_OUTSTANDING,
    READ_OUTSTANDING,
    MR_ENTRY,
];

/// The tables as Markdown (`docs/contexts.md`).
pub fn markdown() -> String {
    let mut s = String::from(
        "# Context records\n\nGenerated from `proto/src/ctx.rs` by `cargo run -p rocenic-proto --bin regs-doc -- --contexts`; \
         do not edit.\n\nThe core's per-QP and per-request records, as stored in its RAMs. Fields are packed from bit 0 \
         in the order listed; the RTL reads and writes them by name through blocks generated from this table \
         (`hdl/build.rs`).\n",
    );
    for r in RECORDS {
        s += &format!(
            "\n## {} ({} bits)\n\n{}\n\n| bits | field | meaning |\n|---|---|---|\n",
            r.name,
            r.bits(),
            r.doc
        );
        for (lo, f) in r.layout() {
            let bits = if f.bits == 1 {
                format!("{lo}")
            } else {
                format!("{}..{lo}", lo + f.bits - 1)
            };
            s += &format!("| {bits} | `{}` | {} |\n", f.name, f.doc);
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Verilog-2005 keywords a field could be named.
    const VERILOG_KEYWORDS: &[&str] = &[
        "always",
        "assign",
        "begin",
        "case",
        "default",
        "end",
        "event",
        "for",
        "force",
        "function",
        "generate",
        "if",
        "initial",
        "inout",
        "input",
        "integer",
        "module",
        "output",
        "parameter",
        "real",
        "reg",
        "release",
        "signed",
        "task",
        "time",
        "wait",
        "while",
        "wire",
    ];

    #[test]
    fn names_are_unique_and_records_fit_their_rams() {
        for r in RECORDS {
            let mut names: Vec<_> = r.fields.iter().map(|f| f.name).collect();
            names.sort();
            names.dedup();
            assert_eq!(
                names.len(),
                r.fields.len(),
                "{}: a field name twice",
                r.name
            );
            assert!(r.fields.iter().all(|f| f.bits > 0), "{}", r.name);
            // Field names become Verilog port names.
            for f in r.fields {
                assert!(
                    !VERILOG_KEYWORDS.contains(&f.name),
                    "{}.{} is a Verilog keyword",
                    r.name,
                    f.name
                );
            }
            // rust-hdl's Bits<N> holds up to 1,024 bits in the widths the RTL uses.
            assert!(r.bits() <= 1024, "{} is {} bits", r.name, r.bits());
        }
        // The path MTU is held once per engine, and never in the address vector.
        assert!(QP_AV.field("pmtu").is_none());
        assert_eq!(
            QP_RESP_CTX.field("engine"),
            Some((64, RESP_ENGINE_CTX.bits()))
        );
    }
}
