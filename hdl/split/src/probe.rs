//! A change probe for simulation: every module gains an output `rn_changed`, high when the coming clock
//! edge will change any of its state (its flip-flops and block RAMs, and those of the modules it
//! instantiates) other than the timers named. It is computed only while the input `rn_probe` is high
//! (else it is low): a comparison per register costs a simulation a good part of its cycle, and the
//! answer matters only while the inputs stand still. The co-simulation's fast-forward reads it at the top: while
//! it is low and the inputs stay still, the core's next cycle equals this one but for its timers, so
//! the simulator may jump ahead to the cycle before the first timer expires.
//!
//! State is what rust-hdl emits it as: `DFF` modules (`q <= d` at the clock edge) and `RAM` modules
//! (a registered read `read_data <= mem[read_address]` and a write port). A module with any other
//! clocked block is refused: the probe would miss its state.
use std::collections::HashMap;

/// Whether module `name` matches `pattern`, both `$`-separated instance paths (`top$tx_eng$timer`); a
/// pattern component `*` matches any one component.
fn matches(pattern: &str, name: &str) -> bool {
    let p: Vec<&str> = pattern.split('$').collect();
    let n: Vec<&str> = name.split('$').collect();
    p.len() == n.len() && p.iter().zip(&n).all(|(a, b)| *a == "*" || a == b)
}

/// What a module holds.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    /// One flip-flop: `d`, `q`.
    Register,
    /// A block RAM with `read_data`, `read_address`, `write_enable`, `write_address`, `write_data`.
    Ram,
    /// Only combinational logic and instances.
    Plain,
}

/// One module's text: its header line, its other lines, and its kind.
struct Module<'a> {
    name: String,
    header: &'a str,
    body: Vec<&'a str>,
    kind: Kind,
}

fn modules(verilog: &str) -> Result<(Vec<&str>, Vec<Module<'_>>), String> {
    let mut outside = Vec::new();
    let mut mods: Vec<Module> = Vec::new();
    let mut cur: Option<Module> = None;
    // Inside a clocked block: only the two forms rust-hdl emits are known.
    let mut clocked = false;
    for line in verilog.split_inclusive('\n') {
        if let Some(rest) = line.strip_prefix("module ") {
            let name = rest
                .split('(')
                .next()
                .unwrap_or_default()
                .trim()
                .to_string();
            cur = Some(Module {
                name,
                header: line,
                body: Vec::new(),
                kind: Kind::Plain,
            });
            continue;
        }
        let Some(m) = &mut cur else {
            outside.push(line);
            continue;
        };
        let t = line.trim();
        if t.starts_with("always @(posedge") {
            clocked = true;
        } else if clocked && line.trim_end() == "    end" {
            clocked = false;
        } else if clocked {
            match t {
                "q <= d;" => m.kind = Kind::Register,
                "read_data <= mem[read_address];" => m.kind = Kind::Ram,
                "if (write_enable) begin" | "mem[write_address] <= write_data;" | "end" => {}
                _ => {
                    return Err(format!(
                        "module {}: a clocked statement the probe does not know: `{t}`",
                        m.name
                    ))
                }
            }
        }
        m.body.push(line);
        if line.starts_with("endmodule") {
            mods.push(cur.take().unwrap());
        }
    }
    Ok((outside, mods))
}

/// `verilog` with the probe added; `timers` are the module names (patterns, see [`matches`]) of the
/// flip-flops whose changes do not count. Returns an error for a clocked block the probe does not know,
/// or for a timer pattern that names no flip-flop (the list would be stale).
pub fn change_probe(verilog: &str, timers: &[&str]) -> Result<String, String> {
    let (outside, mods) = modules(verilog)?;
    for t in timers {
        if !mods
            .iter()
            .any(|m| m.kind == Kind::Register && matches(t, &m.name))
        {
            return Err(format!("timer {t} names no flip-flop"));
        }
    }
    let kinds: HashMap<&str, Kind> = mods.iter().map(|m| (m.name.as_str(), m.kind)).collect();
    let mut out = String::with_capacity(verilog.len() + verilog.len() / 8);
    for l in outside.iter().take_while(|l| !l.starts_with("module")) {
        out.push_str(l);
    }
    for m in &mods {
        let header = m.header.trim_end();
        let Some(ports) = header.strip_suffix(");") else {
            return Err(format!(
                "module {}: header `{header}` not understood",
                m.name
            ));
        };
        out.push_str(ports);
        out.push_str(",rn_probe,rn_changed);\n");
        out.push_str("    input wire rn_probe;\n    output reg rn_changed;\n");
        let mut changed: Vec<String> = Vec::new();
        match m.kind {
            Kind::Register if timers.iter().any(|t| matches(t, &m.name)) => {}
            Kind::Register => changed.push("(q != d)".into()),
            Kind::Ram => changed.push(
                "(write_enable && (mem[write_address] != write_data)) || (read_data != mem[read_address])"
                    .into(),
            ),
            Kind::Plain => {}
        }
        // Instances: `    <module> <name>(` … `    );` — each gets its probe connected.
        let mut inst: Option<String> = None;
        let mut body = String::new();
        for line in &m.body {
            let t = line.trim_end();
            if inst.is_none() {
                if let Some((module, rest)) = t.trim_start().split_once(' ') {
                    if kinds.contains_key(module) && line.starts_with("    ") && rest.ends_with('(')
                    {
                        inst = Some(rest.trim_end_matches('(').to_string());
                    }
                }
            } else if t == "    );" {
                let name = inst.take().unwrap();
                // The previous port line gains a comma.
                let trimmed = body.trim_end_matches('\n').len();
                body.truncate(trimmed);
                body.push_str(&format!(
                    ",\n        .rn_probe(rn_probe),\n        .rn_changed({name}$rn_changed)\n"
                ));
                changed.push(format!("{name}$rn_changed"));
            }
            if line.starts_with("endmodule") {
                for c in changed.iter().filter(|c| c.ends_with("$rn_changed")) {
                    body.push_str(&format!("    wire {c};\n"));
                }
                // An `if`, not a conditional expression: Verilator keeps it a branch, so nothing of it
                // is evaluated while the probe is off.
                body.push_str("    always @(*) begin\n        rn_changed = 1'b0;\n");
                if !changed.is_empty() {
                    body.push_str(&format!(
                        "        if (rn_probe) rn_changed = {};\n",
                        changed.join(" || ")
                    ));
                }
                body.push_str("    end\n");
            }
            body.push_str(line);
        }
        out.push_str(&body);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "\
module top(clock,a,y);
    input wire clock;
    input wire [3:0] a;
    output reg [3:0] y;
    // Sub module instances
    top$t t(
        .d(t$d),
        .q(t$q),
        .clock(t$clock)
    );
    top$s s(
        .d(s$d),
        .q(s$q),
        .clock(s$clock)
    );
endmodule // top

module top$t(d,q,clock);
    always @(posedge clock) begin
       q <= d;
    end
endmodule // top$t

module top$s(d,q,clock);
    always @(posedge clock) begin
       q <= d;
    end
endmodule // top$s
";

    #[test]
    fn flip_flops_report_a_change_and_timers_do_not() {
        let v = change_probe(SRC, &["top$t"]).unwrap();
        assert!(
            v.contains("module top(clock,a,y,rn_probe,rn_changed);"),
            "{v}"
        );
        assert!(
            v.contains("module top$s(d,q,clock,rn_probe,rn_changed);"),
            "{v}"
        );
        assert!(v.contains(
            "        .clock(s$clock),\n        .rn_probe(rn_probe),\n        .rn_changed(s$rn_changed)\n    );"
        ));
        assert!(
            v.contains("if (rn_probe) rn_changed = t$rn_changed || s$rn_changed;"),
            "{v}"
        );
        let s = v.split("module top$s(").nth(1).unwrap();
        assert!(s.contains("if (rn_probe) rn_changed = (q != d);"), "{v}");
        let t = v.split("module top$t(").nth(1).unwrap();
        let t = t.split("endmodule").next().unwrap();
        assert!(
            t.contains("rn_changed = 1'b0;") && !t.contains("if (rn_probe)"),
            "{v}"
        );
    }

    #[test]
    fn a_stale_timer_name_or_an_unknown_register_is_refused() {
        assert!(change_probe(SRC, &["top$gone"]).is_err());
        let odd = SRC.replace(
            "       q <= d;\n    end\nendmodule // top$s",
            "       q <= ~d;\n    end\nendmodule // top$s",
        );
        assert!(change_probe(&odd, &[]).is_err());
    }

    #[test]
    fn patterns_match_one_component_per_star() {
        assert!(matches("top$dcqcn$*$t_rate", "top$dcqcn$rp2$t_rate"));
        assert!(!matches("top$dcqcn$*$t_rate", "top$dcqcn$t_rate"));
        assert!(!matches("top$x", "top$y"));
    }
}
