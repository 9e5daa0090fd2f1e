//! Lint gate: `verilator --lint-only -Wall` on the emitted core, both widths.
//!
//! Waived classes (see docs/lint.md for the reasons): DECLFILENAME, UNUSEDPARAM, UNUSEDSIGNAL. UNOPTFLAT
//! is fatal: the emitted core has each update block split into independent processes (`rocenic_split`),
//! so a combinational loop Verilator still finds is a real one, or a split that costs simulation speed.
//! WIDTH stays fatal, because width mismatches are where rust-hdl's simulator and the Verilog disagree
//! (an 8-bit `count + 1` wraps in rust-hdl but is a 32-bit sum in a Verilog compare). rust-hdl's emitter
//! itself forces some WIDTH warnings that cannot change a value (it writes every integer literal as 32 or
//! 64 bits, `get_bits` as a shift and a mask, casts as masks); [`benign`] recognises exactly those shapes,
//! each documented in docs/lint.md. Every other WIDTH warning fails the test, with its source line.
use rocenic_hdl::{nic_verilog, Width};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const WAIVED: &[&str] = &["-Wno-DECLFILENAME", "-Wno-UNUSEDPARAM", "-Wno-UNUSEDSIGNAL"];

/// One parsed `%Warning-WIDTH` message: "Operator OP expects E bits on the SIDE, but SIDE's KIND ['NAME']
/// generates G bits."
#[derive(Debug)]
struct WidthWarning {
    line: usize,
    op: String,
    expects: u32,
    kind: String,
    name: Option<String>,
    generates: u32,
}

fn parse_width(msg: &str) -> Option<(usize, WidthWarning)> {
    let rest = msg.strip_prefix("%Warning-WIDTH: ")?;
    let (loc, text) = rest.split_once(": ")?;
    let mut parts = loc.rsplitn(3, ':');
    let _col = parts.next()?;
    let line: usize = parts.next()?.parse().ok()?;
    let text = text.strip_prefix("Operator ")?;
    let (op, text) = text.split_once(" expects ")?;
    let (expects, text) = text.split_once(" bits on the ")?;
    let (_, text) = text.split_once("'s ")?;
    let (operand, text) = text.split_once(" generates ")?;
    let generates = text.strip_suffix(" bits.")?.parse().ok()?;
    let (kind, name) = match operand.split_once(' ') {
        Some((k, n)) => (k, Some(n.trim_matches('\'').to_string())),
        None => (operand, None),
    };
    Some((
        line,
        WidthWarning {
            line,
            op: op.to_string(),
            expects: expects.parse().ok()?,
            kind: kind.to_string(),
            name,
            generates,
        },
    ))
}

/// Number of significant bits of a Verilog literal such as `32'h80`, `1'b1`, `8'd12` or a 512-bit mask.
fn literal_bits(lit: &str) -> Option<u32> {
    let (_, v) = lit.split_once('\'')?;
    let v = v.trim_start_matches('s');
    let (radix, digits) = v.split_at(1);
    let digits = digits.replace('_', "");
    let digits = digits.trim_start_matches('0');
    let Some(first) = digits.chars().next() else {
        return Some(0);
    };
    let per_digit = match radix {
        "h" => 4,
        "o" => 3,
        "b" => 1,
        "d" => return digits.parse::<u128>().ok().map(|v| 128 - v.leading_zeros()),
        _ => return None,
    };
    let lead = first.to_digit(1 << per_digit)?;
    Some(per_digit * (digits.len() as u32 - 1) + (32 - lead.leading_zeros()))
}

/// Declared widths of every signal in the module that contains `line` (1-based).
fn module_widths(src: &[&str], line: usize) -> HashMap<String, u32> {
    let start = (0..line)
        .rev()
        .find(|&i| src[i].starts_with("module "))
        .unwrap_or(0);
    let mut widths = HashMap::new();
    for l in &src[start..] {
        let t = l.trim();
        if t.starts_with("endmodule") {
            break;
        }
        let decl = ["reg ", "wire ", "input ", "output "]
            .iter()
            .any(|p| t.starts_with(p));
        if !decl || !t.ends_with(';') {
            continue;
        }
        let name = t
            .trim_end_matches(';')
            .split_whitespace()
            .last()
            .unwrap()
            .to_string();
        let w = match (t.find('['), t.find(']')) {
            (Some(a), Some(b)) => {
                let (hi, lo) = t[a + 1..b].split_once(':').unwrap();
                hi.trim().parse::<u32>().unwrap() - lo.trim().parse::<u32>().unwrap() + 1
            }
            _ => 1,
        };
        widths.insert(name, w);
    }
    widths
}

/// Operand kinds whose zero-extension cannot change the value of what they feed (leaves and bitwise
/// combinations of leaves; not `~`, `-` or arithmetic, whose high bits change when evaluated wider).
const LEAF_LIKE: &[&str] = &[
    "VARREF", "SEL", "ARRAYSEL", "CONST", "AND", "OR", "XOR", "COND",
];
/// Operators that give the same result on zero-extended operands.
const EXTENSION_SAFE: &[&str] = &[
    "EQ", "NEQ", "LT", "LTE", "GT", "GTE", "AND", "OR", "XOR", "SHIFTR", "COND",
];
/// Operators whose low result bits depend only on low operand bits (so truncating the result afterwards
/// gives modular arithmetic, as rust-hdl's `Bits` have).
const MODULAR: &[&str] = &["ADD", "SUB", "MUL", "SHIFTL", "NOT", "NEGATE"];

/// Whether a WIDTH warning is one of the value-preserving shapes rust-hdl's emitter produces.
fn benign(w: &WidthWarning, src: &[&str]) -> bool {
    let widening = w.generates < w.expects;
    // B1: a literal whose value fits the expected width (rust-hdl writes literals at 32 or 64 bits).
    if w.kind == "CONST" {
        let bits = w.name.as_deref().and_then(literal_bits);
        return bits.is_some_and(|b| b <= w.expects);
    }
    // B2: truncation on assignment: rust-hdl's types already match, the extra Verilog bits are dropped.
    if w.op.starts_with("ASSIGN") {
        return !widening || LEAF_LIKE.contains(&w.kind.as_str());
    }
    // B3: zero-extension of a leaf feeding a compare or a bitwise operator.
    if widening && LEAF_LIKE.contains(&w.kind.as_str()) && EXTENSION_SAFE.contains(&w.op.as_str()) {
        return true;
    }
    // B4: a leaf widened into modular arithmetic whose whole statement is `lhs = expr;` with `lhs` no wider
    // than the leaf, and nothing in `expr` that looks at high bits (compare, right shift, mux condition).
    if widening && LEAF_LIKE.contains(&w.kind.as_str()) && MODULAR.contains(&w.op.as_str()) {
        let stmt = src[w.line - 1].trim();
        let stmt = stmt.strip_prefix("assign ").unwrap_or(stmt);
        let Some((lhs, rhs)) = stmt.split_once(" = ") else {
            return false;
        };
        let rhs_clean = rhs.replace("<<", "");
        let looks_high = ["==", "!=", "<", ">", "?"]
            .iter()
            .any(|t| rhs_clean.contains(t));
        let lhs_w = module_widths(src, w.line).get(lhs.trim()).copied();
        return !looks_high && rhs.ends_with(';') && lhs_w.is_some_and(|l| l <= w.generates);
    }
    false
}

fn lint(width: Width, dir: &Path) -> (bool, Vec<String>, usize) {
    let file = dir.join(format!("nic{}.v", width.bits()));
    std::fs::write(&file, nic_verilog(width)).unwrap();
    let src_text = std::fs::read_to_string(&file).unwrap();
    let src: Vec<&str> = src_text.lines().collect();
    let out = Command::new("verilator")
        .args(["--lint-only", "-Wall", "--top-module", "top"])
        .args(WAIVED)
        .arg(&file)
        .output()
        .expect("cannot run verilator: `apt-get install verilator` (scripts/setup.sh does it)");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut fatal = Vec::new();
    let mut waived = 0;
    // Verilator's closing "%Error: Exiting due to N warning(s)" only restates the count.
    for l in stderr
        .lines()
        .filter(|l| l.starts_with('%') && !l.starts_with("%Error: Exiting due to"))
    {
        match parse_width(l) {
            Some((_, w)) if benign(&w, &src) => waived += 1,
            Some((line, _)) => fatal.push(format!("{l}\n      {}", src[line - 1].trim())),
            // Any other warning or error (the waived classes are not printed at all).
            None if l.starts_with("%Warning") || l.starts_with("%Error") => {
                fatal.push(l.to_string())
            }
            None => {}
        }
    }
    // Verilator fails on warnings it was not told to waive; success then means only benign WIDTH ones.
    let clean = fatal.is_empty() && (out.status.success() || waived > 0);
    (clean, fatal, waived)
}

#[test]
fn emitted_verilog_is_lint_clean() {
    let dir: PathBuf = std::env::temp_dir().join(format!("rocenic-lint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut failed = false;
    for width in [Width::W64, Width::W512] {
        let (clean, fatal, waived) = lint(width, &dir);
        println!(
            "W{}: {} emitter-forced WIDTH warnings waived, {} fatal",
            width.bits(),
            waived,
            fatal.len()
        );
        for f in &fatal {
            println!("  {f}");
        }
        failed |= !clean;
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        !failed,
        "Verilator lint found fatal warnings (listed above)"
    );
}

#[test]
fn benign_shapes_are_recognised() {
    let src = [
        "module top(a);",
        "    reg  [10:0] h$d;",
        "    reg  [10:0] h$q;",
        "    reg  [31:0] v;",
        "    reg  [23:0] p$q;",
        "        h$d = h$q + 32'h1;",
        "        v = ((p$q + 32'h1) & 32'hffffffff);",
        "        if (h$q + 32'h1 == h$d) begin",
        "endmodule",
    ];
    let w = |line: usize, msg: &str| {
        parse_width(&format!("%Warning-WIDTH: x.v:{line}:3: {msg}"))
            .unwrap()
            .1
    };
    // A counter increment truncated back to its own width: benign.
    assert!(benign(
        &w(
            6,
            "Operator ADD expects 32 bits on the LHS, but LHS's VARREF 'h$q' generates 11 bits."
        ),
        &src
    ));
    // A 24-bit PSN incremented into a 32-bit result does not wrap at 2^24: fatal.
    assert!(!benign(
        &w(
            7,
            "Operator ADD expects 32 bits on the LHS, but LHS's VARREF 'p$q' generates 24 bits."
        ),
        &src
    ));
    // The rust-hdl simulator/Verilog disagreement from docs: an increment inside a compare: fatal.
    assert!(!benign(
        &w(
            8,
            "Operator ADD expects 32 bits on the LHS, but LHS's VARREF 'h$q' generates 11 bits."
        ),
        &src
    ));
    // Literals: fitting ones are benign, truncated ones are not.
    assert!(benign(&w(6, "Operator ASSIGN expects 8 bits on the Assign RHS, but Assign RHS's CONST '32'h80' generates 32 bits."), &src));
    assert!(!benign(
        &w(
            6,
            "Operator EQ expects 8 bits on the RHS, but RHS's CONST '32'h100' generates 32 bits."
        ),
        &src
    ));
    assert_eq!(literal_bits("512'hffff"), Some(16));
    assert_eq!(literal_bits("8'b0101"), Some(3));
    assert_eq!(literal_bits("32'd256"), Some(9));
    assert_eq!(literal_bits("64'h0"), Some(0));
    // Zero-extension into a compare is benign, of a complement it is not.
    assert!(benign(
        &w(
            6,
            "Operator EQ expects 32 bits on the LHS, but LHS's VARREF 'rd_addr' generates 16 bits."
        ),
        &src
    ));
    assert!(!benign(
        &w(
            6,
            "Operator EQ expects 32 bits on the LHS, but LHS's NOT generates 16 bits."
        ),
        &src
    ));
}
