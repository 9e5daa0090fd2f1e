pub mod ack_verdict;
pub mod comp_check;
pub mod ctx;
pub mod frame_build;
pub mod icrc_insert;
pub mod ip_csum;
pub mod mr_table;
pub mod opcode_decode;
pub mod pf_seg;
pub mod qp_table;
pub mod read_reply;
pub mod recv_check;
pub mod recv_hdr;
pub mod req;
pub mod resp;
pub mod retry_timer;
pub mod tx_arbiter;
pub mod wqe_addr;

#[cfg(test)]
mod tests {
    use regex::Regex;

    /// Protocol facts live once, in `rocenic_proto`: the transport blocks take opcodes, AETH syndromes,
    /// QP states and completion codes from it (as `Constant`s or the opcode table), so no such number is
    /// written in their RTL. Flags a compare or an assignment of a number to a signal named as one (an
    /// `opcode`, `op`, `syn`, `syndrome`, `state` or `status` part in its name), and the AETH type mask.
    #[test]
    fn no_protocol_literals_in_the_transport_rtl() {
        let num = r"(0x[0-9A-Fa-f_]+|[0-9][0-9_]*)\b";
        let compare = Regex::new(&format!(
            r"\bself\.(\w+)(\.q)?\.val\(\)\s*(==|!=|<=|>=|<|>)\s*{num}"
        ))
        .unwrap();
        let assign = Regex::new(&format!(r"\bself\.(\w+)(\.d)?\.next\s*=\s*\(?{num}")).unwrap();
        let type_mask = Regex::new(r"&\s*0x[eE]0\b").unwrap();
        let named = |name: &str| {
            name.split('_')
                .any(|p| matches!(p, "opcode" | "op" | "syn" | "syndrome" | "state" | "status"))
        };
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/roce");
        let mut found = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            // The RTL: what comes before the file's test module; comments left out.
            let rtl = text.split("#[cfg(test)]").next().unwrap();
            for (i, line) in rtl.lines().enumerate() {
                let code = line.split("//").next().unwrap();
                let hit = compare
                    .captures_iter(code)
                    .chain(assign.captures_iter(code))
                    .any(|c| named(&c[1]))
                    || type_mask.is_match(code);
                if hit {
                    found.push(format!("{}:{}: {}", path.display(), i + 1, line.trim()));
                }
            }
        }
        assert!(found.is_empty(), "protocol literals:\n{}", found.join("\n"));
    }
}
