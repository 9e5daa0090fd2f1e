//! Splits the combinational update block of each rust-hdl module into independent `always @(*)` blocks.
//!
//! rust-hdl emits a module's whole update kernel as one `always @(*)` block. Every signal written there is
//! then an output of one process that reads all the others, so a path that leaves the block through a
//! sub-module and comes back (`pick$a` → `pick` → `pick$y` → `tx_tdata`) looks like a combinational loop to
//! Verilator (`UNOPTFLAT`): it re-evaluates the whole block until it settles, several times per clock edge.
//! Yosys and synthesis see the same logic either way.
//!
//! This pass rewrites each such block into one block per group of signals that must stay together: the
//! statements assigning a signal keep their order and their enclosing `if`/`case` conditions, and a signal
//! joins the group of a statement that reads it before its last assignment (that read sees an intermediate
//! value). Every other read sees the signal's final value, which is exactly what a separate process
//! provides. Blocks the parser does not recognise, and rust-hdl's `(custom)` Verilog, pass through
//! unchanged and are listed in [`Stats::kept`].
use std::collections::{HashMap, HashSet};

mod probe;
pub use probe::change_probe;

/// Modules that are one flip-flop (rust-hdl's `DFF`): ports `(d,q,clock)` and `q <= d` at the clock edge.
/// Their `d` inputs feed no combinational path, so the logic that computes them can share one process.
fn register_modules(lines: &[&str]) -> HashSet<String> {
    let mut found = HashSet::new();
    let mut current: Option<String> = None;
    for l in lines {
        if let Some(rest) = l.strip_prefix("module ") {
            current = rest
                .trim_end()
                .strip_suffix("(d,q,clock);")
                .map(|n| n.to_string());
        } else if l.trim() == "q <= d;" {
            if let Some(m) = current.take() {
                found.insert(m);
            }
        } else if l.starts_with("endmodule") {
            current = None;
        }
    }
    found
}

/// What [`split`] did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Stats {
    /// Update blocks rewritten.
    pub blocks: usize,
    /// `always @(*)` blocks written in their place.
    pub groups: usize,
    /// Modules whose update block was left as it was, with the parser's reason.
    pub kept: Vec<(String, String)>,
    /// Signals read before any assignment that can precede the read (module, signal): the read sees the
    /// value of an earlier evaluation, a combinational loop in the source.
    pub stale_reads: Vec<(String, String)>,
}

/// Rewrite every rust-hdl update block in `verilog`; see the crate documentation.
pub fn split(verilog: &str) -> (String, Stats) {
    let mut out = String::with_capacity(verilog.len() + verilog.len() / 4);
    let mut stats = Stats::default();
    let lines: Vec<&str> = verilog.split_inclusive('\n').collect();
    let registers = register_modules(&lines);
    let mut module = String::new();
    // The current module's text so far: a signal that becomes a continuous assignment has its `reg`
    // declaration, written before the update block, turned into a `wire`.
    let mut buf: Vec<String> = Vec::new();
    // Names of this module's flip-flop inputs (`<instance>$d` of an instance of a register module).
    let mut reg_inputs: HashSet<String> = HashSet::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(rest) = line.strip_prefix("module ") {
            module = rest.split('(').next().unwrap_or("").trim().to_string();
            reg_inputs.clear();
        }
        // An instance: `    <module> <name>(`.
        if let Some((m, inst)) = line
            .strip_prefix("    ")
            .and_then(|l| l.trim_end().strip_suffix('('))
            .and_then(|l| l.split_once(' '))
        {
            if registers.contains(m) {
                reg_inputs.insert(format!("{inst}$d"));
            }
        }
        let is_update = line.trim_end() == "    // Update code"
            && lines.get(i + 1).map(|l| l.trim_end()) == Some("    always @(*) begin");
        // The block ends at the first `end` at the `always` line's indentation (looked for only after an
        // update block's first lines).
        let len = is_update
            .then(|| {
                lines[i + 2..]
                    .iter()
                    .position(|l| l.trim_end() == "    end")
            })
            .flatten();
        let Some(len) = len else {
            buf.push(line.to_string());
            if line.starts_with("endmodule") {
                out.extend(buf.drain(..));
            }
            i += 1;
            continue;
        };
        let body: String = lines[i + 2..i + 2 + len].concat();
        match split_block(&body, &reg_inputs) {
            Ok((procs, stale)) => {
                stats
                    .stale_reads
                    .extend(stale.into_iter().map(|v| (module.clone(), v)));
                stats.blocks += 1;
                stats.groups += procs.len();
                let wires: HashSet<&str> = procs.iter().filter_map(|p| p.wire.as_deref()).collect();
                for l in buf.iter_mut() {
                    if let Some(w) = as_wire(l, &wires) {
                        *l = w;
                    }
                }
                buf.push("    // Update code (split into independent processes)\n".into());
                for p in &procs {
                    if p.wire.is_some() {
                        buf.push(format!("    assign {}", p.text.trim_start()));
                    } else {
                        buf.push(format!("    always @(*) begin\n{}    end\n", p.text));
                    }
                }
            }
            Err(e) => {
                stats.kept.push((module.clone(), e));
                buf.extend(lines[i..i + 3 + len].iter().map(|l| l.to_string()));
            }
        }
        i += 3 + len;
    }
    out.extend(buf.drain(..));
    (out, stats)
}

/// `reg` declaration line of one of `wires` (`    reg  [7:0] x;`, `    output reg  y;`) as a `wire`.
fn as_wire(line: &str, wires: &HashSet<&str>) -> Option<String> {
    let t = line.trim();
    let name = t.strip_suffix(';')?.split_whitespace().last()?;
    if !wires.contains(name) {
        return None;
    }
    let mut words = t.split_whitespace();
    let first = words.next()?;
    let is_reg = first == "reg" || (first == "output" && words.next() == Some("reg"));
    is_reg.then(|| line.replacen("reg ", "wire ", 1))
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Ident,
    Number,
    System,
    Punct,
}

#[derive(Clone, Copy, Debug)]
struct Tok<'a> {
    text: &'a str,
    kind: Kind,
    start: usize,
    end: usize,
}

const KEYWORDS: &[&str] = &[
    "begin", "end", "if", "else", "case", "casez", "casex", "endcase", "default", "for", "while",
    "repeat", "forever", "assign", "wait", "fork", "join",
];

/// Multi-character operators, longest first, so `==` never lexes as an assignment.
const OPERATORS: &[&str] = &[
    "<<<", ">>>", "===", "!==", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "~&", "~|", "~^",
    "^~", "**", "+:", "-:",
];

fn lex(src: &str) -> Result<Vec<Tok<'_>>, String> {
    let b = src.as_bytes();
    let mut toks = Vec::new();
    let mut i = 0;
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
    while i < b.len() {
        let c = b[i];
        let start = i;
        let kind;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        } else if src[i..].starts_with("//") {
            i += src[i..].find('\n').unwrap_or(src.len() - i);
            continue;
        } else if src[i..].starts_with("/*") {
            i += src[i..].find("*/").ok_or("unterminated comment")? + 2;
            continue;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && word(b[i]) {
                i += 1;
            }
            kind = Kind::Ident;
        } else if c == b'$' {
            i += 1;
            while i < b.len() && word(b[i]) {
                i += 1;
            }
            kind = Kind::System;
        } else if c.is_ascii_digit() || c == b'\'' {
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
                i += 1;
            }
            if i < b.len() && b[i] == b'\'' {
                i += 1;
                if i < b.len() && (b[i] == b's' || b[i] == b'S') {
                    i += 1;
                }
                if i < b.len() && b"bBoOdDhH".contains(&b[i]) {
                    i += 1;
                } else {
                    return Err(format!("unsupported literal at {:?}", &src[start..i]));
                }
                while i < b.len() && (b[i].is_ascii_hexdigit() || b"xXzZ_?".contains(&b[i])) {
                    i += 1;
                }
            }
            kind = Kind::Number;
        } else if c == b'"' || c == b'\\' || c == b'`' {
            return Err(format!("unsupported character {:?}", c as char));
        } else {
            i += OPERATORS
                .iter()
                .find(|op| src[i..].starts_with(**op))
                .map_or(1, |op| op.len());
            kind = Kind::Punct;
        }
        toks.push(Tok {
            text: &src[start..i],
            kind,
            start,
            end: i,
        });
    }
    Ok(toks)
}

/// A statement of an update block. Positions number assignments and conditions in textual order, which is
/// their order of execution (the blocks have no loops).
#[derive(Debug)]
enum Stmt {
    Assign {
        var: String,
        pos: usize,
        reads: Vec<String>,
        text: (usize, usize),
    },
    If {
        pos: usize,
        reads: Vec<String>,
        cond: (usize, usize),
        then: Vec<Stmt>,
        els: Vec<Stmt>,
    },
    Case {
        pos: usize,
        reads: Vec<String>,
        head: (usize, usize),
        arms: Vec<((usize, usize), Vec<Stmt>)>,
    },
}

struct Parser<'a> {
    toks: Vec<Tok<'a>>,
    at: usize,
    pos: usize,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<&'a str> {
        self.toks.get(self.at).map(|t| t.text)
    }

    fn expect(&mut self, text: &str) -> Result<Tok<'a>, String> {
        match self.toks.get(self.at) {
            Some(t) if t.text == text => {
                self.at += 1;
                Ok(*t)
            }
            Some(t) => Err(format!("expected `{text}`, found `{}`", t.text)),
            None => Err(format!("expected `{text}`, found the end of the block")),
        }
    }

    /// Tokens up to (not including) the first of `stops` outside brackets; returns their index range.
    fn until(&mut self, stops: &[&str]) -> Result<(usize, usize), String> {
        let from = self.at;
        let mut depth = 0i32;
        while let Some(t) = self.toks.get(self.at) {
            if depth == 0 && t.kind == Kind::Punct && stops.contains(&t.text) {
                return Ok((from, self.at));
            }
            match t.text {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => depth -= 1,
                _ => {}
            }
            if depth < 0 {
                return Err(format!("unbalanced `{}`", t.text));
            }
            if t.kind == Kind::Ident && KEYWORDS.contains(&t.text) {
                return Err(format!("keyword `{}` inside an expression", t.text));
            }
            self.at += 1;
        }
        Err(format!(
            "expected one of {stops:?} before the end of the block"
        ))
    }

    fn reads(&self, range: (usize, usize)) -> Vec<String> {
        self.toks[range.0..range.1]
            .iter()
            .filter(|t| t.kind == Kind::Ident)
            .map(|t| t.text.to_string())
            .collect()
    }

    /// Source byte range of tokens `range` (inclusive of `extra` following tokens).
    fn span(&self, range: (usize, usize)) -> (usize, usize) {
        (self.toks[range.0].start, self.toks[range.1 - 1].end)
    }

    fn block_until(&mut self, end: &str) -> Result<Vec<Stmt>, String> {
        let mut v = Vec::new();
        while self.peek() != Some(end) {
            if self.peek().is_none() {
                return Err(format!("missing `{end}`"));
            }
            v.extend(self.stmt()?);
        }
        Ok(v)
    }

    fn stmt(&mut self) -> Result<Vec<Stmt>, String> {
        let Some(t) = self.toks.get(self.at).copied() else {
            return Err("statement expected".into());
        };
        match t.text {
            ";" => {
                self.at += 1;
                Ok(vec![])
            }
            "begin" => {
                self.at += 1;
                let v = self.block_until("end")?;
                self.expect("end")?;
                Ok(v)
            }
            "if" => {
                self.at += 1;
                let pos = self.next_pos();
                let open = self.expect("(")?;
                let inner = self.until(&[")"])?;
                let close = self.expect(")")?;
                let then = self.stmt()?;
                let els = if self.peek() == Some("else") {
                    self.at += 1;
                    self.stmt()?
                } else {
                    vec![]
                };
                Ok(vec![Stmt::If {
                    pos,
                    reads: self.reads(inner),
                    cond: (open.start, close.end),
                    then,
                    els,
                }])
            }
            "case" | "casez" | "casex" => {
                self.at += 1;
                let pos = self.next_pos();
                self.expect("(")?;
                let sel = self.until(&[")"])?;
                let close = self.expect(")")?;
                let mut reads = self.reads(sel);
                let mut arms = Vec::new();
                while self.peek() != Some("endcase") {
                    let label = if self.peek() == Some("default") {
                        let d = self.toks[self.at];
                        self.at += 1;
                        if self.peek() == Some(":") {
                            self.at += 1;
                        }
                        (d.start, d.end)
                    } else {
                        let l = self.until(&[":"])?;
                        if l.0 == l.1 {
                            return Err("empty case label".into());
                        }
                        reads.extend(self.reads(l));
                        self.at += 1;
                        self.span(l)
                    };
                    arms.push((label, self.stmt()?));
                }
                self.expect("endcase")?;
                Ok(vec![Stmt::Case {
                    pos,
                    reads,
                    head: (t.start, close.end),
                    arms,
                }])
            }
            _ if t.kind == Kind::Ident && !KEYWORDS.contains(&t.text) => {
                let lhs = self.until(&["="])?;
                self.expect("=")?;
                let rhs = self.until(&[";"])?;
                let semi = self.expect(";")?;
                if rhs.0 == rhs.1 {
                    return Err(format!("assignment to `{}` without a value", t.text));
                }
                let pos = self.next_pos();
                // A part-select on the left reads its index expression (and keeps the other bits).
                let mut reads = self.reads((lhs.0 + 1, lhs.1));
                reads.extend(self.reads(rhs));
                Ok(vec![Stmt::Assign {
                    var: t.text.to_string(),
                    pos,
                    reads,
                    text: (t.start, semi.end),
                }])
            }
            other => Err(format!("unsupported statement starting with `{other}`")),
        }
    }

    fn next_pos(&mut self) -> usize {
        self.pos += 1;
        self.pos
    }
}

fn parse(src: &str) -> Result<Vec<Stmt>, String> {
    let mut p = Parser {
        toks: lex(src)?,
        at: 0,
        pos: 0,
    };
    let mut v = Vec::new();
    while p.peek().is_some() {
        v.extend(p.stmt()?);
    }
    Ok(v)
}

/// Union-find over the signals assigned in one block.
struct Groups {
    parent: Vec<usize>,
}

impl Groups {
    fn find(&mut self, mut a: usize) -> usize {
        while self.parent[a] != a {
            self.parent[a] = self.parent[self.parent[a]];
            a = self.parent[a];
        }
        a
    }
    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.parent[a.max(b)] = a.min(b);
        }
    }
}

/// Where a statement sits: for each enclosing `if`/`case`, its position and the arm taken.
type Path = Vec<(usize, usize)>;

/// Two statements in different arms of one `if` or `case` never both run.
fn exclusive(a: &Path, b: &Path) -> bool {
    a.iter()
        .zip(b)
        .find(|(x, y)| x != y)
        .is_some_and(|(x, y)| x.0 == y.0)
}

/// Every assignment of each signal: its position and path. Signals are numbered in order of first
/// assignment.
#[derive(Default)]
struct Writes {
    ids: HashMap<String, usize>,
    at: Vec<Vec<(usize, Path)>>,
}

impl Writes {
    fn collect(&mut self, stmts: &[Stmt], path: &mut Path) {
        for s in stmts {
            match s {
                Stmt::Assign { var, pos, .. } => {
                    let n = self.ids.len();
                    let id = *self.ids.entry(var.clone()).or_insert(n);
                    if id == self.at.len() {
                        self.at.push(Vec::new());
                    }
                    self.at[id].push((*pos, path.clone()));
                }
                Stmt::If { pos, then, els, .. } => {
                    for (arm, body) in [then, els].into_iter().enumerate() {
                        path.push((*pos, arm));
                        self.collect(body, path);
                        path.pop();
                    }
                }
                Stmt::Case { pos, arms, .. } => {
                    for (arm, (_, body)) in arms.iter().enumerate() {
                        path.push((*pos, arm));
                        self.collect(body, path);
                        path.pop();
                    }
                }
            }
        }
    }

    /// Signals of this block read at `at`/`path` that may still be assigned afterwards (the read does not
    /// see their final value).
    fn early(&self, reads: &[String], at: usize, path: &Path) -> Vec<usize> {
        reads
            .iter()
            .filter_map(|r| self.ids.get(r).copied())
            .filter(|&x| {
                self.at[x]
                    .iter()
                    .any(|(p, wp)| *p > at && !exclusive(wp, path))
            })
            .collect()
    }

    /// Signals of this block read at `at`/`path` before any assignment that can precede it: the read sees
    /// the value of an earlier evaluation, a combinational loop in the source.
    fn stale(&self, reads: &[String], at: usize, path: &Path) -> Vec<String> {
        reads
            .iter()
            .filter(|r| {
                self.ids.get(*r).is_some_and(|&x| {
                    !self.at[x]
                        .iter()
                        .any(|(p, wp)| *p < at && !exclusive(wp, path))
                })
            })
            .cloned()
            .collect()
    }
}

/// Join each assigned signal with every signal it (or a condition around it) reads before that signal's
/// last assignment; note reads that come before any assignment in `stale`.
fn join(
    stmts: &[Stmt],
    w: &Writes,
    path: &mut Path,
    conds: &mut Vec<Vec<usize>>,
    g: &mut Groups,
    stale: &mut Vec<String>,
) {
    for s in stmts {
        match s {
            Stmt::Assign {
                var, pos, reads, ..
            } => {
                let v = w.ids[var];
                stale.extend(w.stale(reads, *pos, path));
                for x in w.early(reads, *pos, path) {
                    g.union(v, x);
                }
                for &x in conds.iter().flatten() {
                    g.union(v, x);
                }
            }
            Stmt::If {
                pos,
                reads,
                then,
                els,
                ..
            } => {
                stale.extend(w.stale(reads, *pos, path));
                conds.push(w.early(reads, *pos, path));
                for (arm, body) in [then, els].into_iter().enumerate() {
                    path.push((*pos, arm));
                    join(body, w, path, conds, g, stale);
                    path.pop();
                }
                conds.pop();
            }
            Stmt::Case {
                pos, reads, arms, ..
            } => {
                stale.extend(w.stale(reads, *pos, path));
                conds.push(w.early(reads, *pos, path));
                for (arm, (_, body)) in arms.iter().enumerate() {
                    path.push((*pos, arm));
                    join(body, w, path, conds, g, stale);
                    path.pop();
                }
                conds.pop();
            }
        }
    }
}

/// Write the statements that assign a signal of `group`, with their conditions; false if there are none.
fn emit(
    src: &str,
    stmts: &[Stmt],
    keep: &dyn Fn(&str) -> bool,
    indent: usize,
    out: &mut String,
) -> bool {
    let pad = " ".repeat(indent);
    let mut any = false;
    for s in stmts {
        match s {
            Stmt::Assign { var, text, .. } => {
                if keep(var) {
                    out.push_str(&pad);
                    out.push_str(&src[text.0..text.1]);
                    out.push('\n');
                    any = true;
                }
            }
            Stmt::If {
                cond, then, els, ..
            } => {
                let mut t = String::new();
                let mut e = String::new();
                let has_t = emit(src, then, keep, indent + 4, &mut t);
                let has_e = emit(src, els, keep, indent + 4, &mut e);
                if !has_t && !has_e {
                    continue;
                }
                any = true;
                out.push_str(&format!(
                    "{pad}if {} begin\n{t}{pad}end",
                    &src[cond.0..cond.1]
                ));
                if has_e {
                    out.push_str(&format!(" else begin\n{e}{pad}end"));
                }
                out.push('\n');
            }
            Stmt::Case { head, arms, .. } => {
                let bodies: Vec<(String, bool)> = arms
                    .iter()
                    .map(|(_, stmts)| {
                        let mut a = String::new();
                        let has = emit(src, stmts, keep, indent + 8, &mut a);
                        (a, has)
                    })
                    .collect();
                let has = bodies.iter().any(|b| b.1);
                // An empty arm may go unless a non-empty `default` would then catch its values.
                let default_used = arms
                    .iter()
                    .zip(&bodies)
                    .any(|((label, _), b)| &src[label.0..label.1] == "default" && b.1);
                let mut body = String::new();
                for ((label, _), (a, used)) in arms.iter().zip(&bodies) {
                    if *used || default_used {
                        body.push_str(&format!(
                            "{pad}    {}: begin\n{a}{pad}    end\n",
                            &src[label.0..label.1]
                        ));
                    }
                }
                if has {
                    any = true;
                    out.push_str(&format!(
                        "{pad}{}\n{body}{pad}endcase\n",
                        &src[head.0..head.1]
                    ));
                }
            }
        }
    }
    any
}

fn all_reads<'s>(stmts: &'s [Stmt], out: &mut HashSet<&'s str>) {
    for s in stmts {
        match s {
            Stmt::Assign { reads, .. } => out.extend(reads.iter().map(|r| r.as_str())),
            Stmt::If {
                reads, then, els, ..
            } => {
                out.extend(reads.iter().map(|r| r.as_str()));
                all_reads(then, out);
                all_reads(els, out);
            }
            Stmt::Case { reads, arms, .. } => {
                out.extend(reads.iter().map(|r| r.as_str()));
                for (_, body) in arms {
                    all_reads(body, out);
                }
            }
        }
    }
}

/// One update block's body → the bodies of its independent blocks, in order of first assignment, and the
/// signals read before they are assigned.
/// One process of a split block: its statements, and the signal it assigns if it is one unconditional
/// assignment of a whole signal (then written as a continuous `assign`, which Verilator can inline).
#[derive(Debug, PartialEq, Eq)]
struct Process {
    text: String,
    wire: Option<String>,
}

fn split_block(
    body: &str,
    reg_inputs: &HashSet<String>,
) -> Result<(Vec<Process>, Vec<String>), String> {
    let stmts = parse(body)?;
    let mut w = Writes::default();
    w.collect(&stmts, &mut Vec::new());
    let n = w.ids.len();
    let mut g = Groups {
        parent: (0..n).collect(),
    };
    let mut stale = Vec::new();
    join(
        &stmts,
        &w,
        &mut Vec::new(),
        &mut Vec::new(),
        &mut g,
        &mut stale,
    );
    stale.sort();
    stale.dedup();
    // Groups that assign only flip-flop inputs become one process: nothing combinational reads what
    // they assign, so joining them cannot close a loop, and a state machine's `case` is then evaluated
    // once for all its registers instead of once per register.
    // (A flip-flop input the block itself reads does not count: its reader would depend on the process.)
    let mut read = HashSet::new();
    all_reads(&stmts, &mut read);
    let mut regs_only = vec![true; n];
    for (name, &id) in &w.ids {
        if !reg_inputs.contains(name) || read.contains(name.as_str()) {
            let r = g.find(id);
            regs_only[r] = false;
        }
    }
    let reg_groups: Vec<usize> = (0..n).filter(|&i| g.find(i) == i && regs_only[i]).collect();
    for pair in reg_groups.windows(2) {
        g.union(pair[0], pair[1]);
    }
    // Group roots are their smallest id, so groups come out in order of first assignment.
    let roots: Vec<usize> = (0..n).map(|i| g.find(i)).collect();
    let mut out = Vec::new();
    for root in 0..n {
        if roots[root] != root {
            continue;
        }
        let keep = |v: &str| roots[w.ids[v]] == root;
        let mut text = String::new();
        emit(body, &stmts, &keep, 8, &mut text);
        let single = stmts.iter().filter_map(|s| match s {
            Stmt::Assign { var, text, .. } if keep(var) => Some((var, text)),
            _ => None,
        });
        let writes: usize = (0..n)
            .filter(|&i| roots[i] == root)
            .map(|i| w.at[i].len())
            .sum();
        let wire = match (single.collect::<Vec<_>>().as_slice(), writes) {
            // The one assignment, at the top level, of the whole signal (`x = ...`, not `x[3] = ...`).
            ([(var, t)], 1) if body[t.0 + var.len()..].trim_start().starts_with('=') => {
                Some(var.to_string())
            }
            _ => None,
        };
        out.push(Process { text, wire });
    }
    Ok((out, stale))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How many processes `body` splits into, with no flip-flop inputs known.
    fn processes(body: &str) -> usize {
        split_block(body, &HashSet::new()).unwrap().0.len()
    }

    const ARP_TX: &str = "module top$t(clock,load,y);
    // Update code
    always @(*) begin
        pend$clock = clock;
        pend$d = pend$q;
        pick$a = rep$q;
        swap$a = pick$y;
        to_f = frame_bytes - pos$q;
        last = to_f <= beat_bytes;
        tx_tkeep = ones_b;
        if (last) begin
            tx_tkeep = ~(ones_b << to_f);
        end
        if (pend$q && tx_tready) begin
            if (last) begin
                pend$d = 1'b0;
            end
        end
        if (reset) begin
            pend$d = 1'b0;
        end
    end
    
endmodule // top$t
";

    #[test]
    fn a_false_loop_through_a_submodule_becomes_separate_processes() {
        let (v, s) = split(ARP_TX);
        assert_eq!(s.kept, vec![]);
        assert_eq!(s.blocks, 1);
        // pend$clock, pend$d, pick$a, swap$a, to_f, last, tx_tkeep
        assert_eq!(s.groups, 7, "{v}");
        assert!(v.contains("    assign swap$a = pick$y;\n"), "{v}");
        assert!(v.contains("    assign pend$clock = clock;\n"), "{v}");
        assert!(
            v.contains(
                "    always @(*) begin
        pend$d = pend$q;
        if (pend$q && tx_tready) begin
            if (last) begin
                pend$d = 1'b0;
            end
        end
        if (reset) begin
            pend$d = 1'b0;
        end
    end
"
            ),
            "{v}"
        );
        assert!(v.ends_with("    end\n    \nendmodule // top$t\n"));
    }

    #[test]
    fn a_read_of_an_intermediate_value_keeps_both_signals_together() {
        // `a` is read between its two assignments: `b` must see the first value, so one process.
        let body = "        a = x;\n        b = a;\n        a = y;\n        c = a;\n";
        let (blocks, stale) = split_block(body, &HashSet::new()).unwrap();
        assert!(stale.is_empty());
        let texts: Vec<&str> = blocks.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(
            texts,
            vec![
                "        a = x;\n        b = a;\n        a = y;\n",
                "        c = a;\n"
            ]
        );
        assert_eq!(blocks[0].wire, None);
        assert_eq!(blocks[1].wire.as_deref(), Some("c"));
    }

    #[test]
    fn a_condition_read_before_the_last_assignment_joins_its_signal() {
        let body = "        s = 1'b0;\n        if (s) begin\n            t = 1'b1;\n        end\n        s = u;\n";
        assert_eq!(processes(body), 1);
        let body = "        s = u;\n        if (s) begin\n            t = 1'b1;\n        end\n";
        assert_eq!(processes(body), 2);
    }

    #[test]
    fn empty_case_arms_stay_only_where_a_default_would_catch_them() {
        let body = "        a = 1'b0;\n        b = 1'b0;\n        case (st$q)\n            8'h0: begin\n                a = 1'b1;\n            end\n            8'h1: begin\n                b = 1'b1;\n            end\n            default: begin\n                a = c;\n            end\n        endcase\n";
        let blocks = split_block(body, &HashSet::new()).unwrap().0;
        assert_eq!(blocks.len(), 2);
        assert_eq!(
            blocks[0].text,
            "        a = 1'b0;\n        case (st$q)\n            8'h0: begin\n                a = 1'b1;\n            end\n            8'h1: begin\n            end\n            default: begin\n                a = c;\n            end\n        endcase\n"
        );
        assert_eq!(
            blocks[1].text,
            "        b = 1'b0;\n        case (st$q)\n            8'h1: begin\n                b = 1'b1;\n            end\n        endcase\n"
        );
    }

    #[test]
    fn a_signal_assigned_once_becomes_a_wire() {
        let src = "module top$m(a,b,c);\n    output reg  [7:0] a;\n    reg  b;\n    reg  [3:0] c;\n    // Update code\n    always @(*) begin\n        a = 8'h1;\n        b = 1'b0;\n        if (x) begin\n            b = 1'b1;\n        end\n        c[0] = x;\n    end\n\nendmodule // top$m\n";
        let (v, s) = split(src);
        assert_eq!(s.groups, 3);
        assert!(
            v.contains("    output wire  [7:0] a;\n    reg  b;\n    reg  [3:0] c;\n"),
            "{v}"
        );
        assert!(
            v.contains("    assign a = 8'h1;\n    always @(*) begin\n        b = 1'b0;"),
            "{v}"
        );
        assert!(
            v.contains("    always @(*) begin\n        c[0] = x;\n    end\n"),
            "{v}"
        );
    }

    #[test]
    fn comparisons_and_literals_are_not_assignments() {
        let body = "        a = (b <= 8'hff) == c;\n        d = a >= 32'h1;\n";
        assert_eq!(processes(body), 2);
    }

    #[test]
    fn an_assignment_in_another_arm_does_not_make_a_read_early() {
        // `w` is assigned again in the second arm; the first arm's read of it still sees its final value.
        let body = "        w = a;\n        c = 1'b0;\n        case (s)\n            1'h0: begin\n                if (w) begin\n                    c = 1'b1;\n                end\n            end\n            default: begin\n                w = b;\n            end\n        endcase\n";
        assert_eq!(processes(body), 2);
        // Without the arms the same read is early.
        let body = "        w = a;\n        c = 1'b0;\n        if (w) begin\n            c = 1'b1;\n        end\n        w = b;\n";
        assert_eq!(processes(body), 1);
    }

    #[test]
    fn flip_flop_inputs_share_one_process_unless_something_reads_them() {
        let regs: HashSet<String> = ["a$d", "b$d", "c$d"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let body = "        a$d = a$q;\n        y = s;\n        b$d = b$q;\n        case (s)\n            1'h0: begin\n                a$d = y;\n                b$d = 1'b1;\n            end\n        endcase\n";
        let blocks = split_block(body, &regs).unwrap().0;
        assert_eq!(blocks.len(), 2, "{blocks:?}");
        assert!(
            blocks[0]
                .text
                .contains("a$d = y;\n                b$d = 1'b1;"),
            "{}",
            blocks[0].text
        );
        // c$d is read by `z`: it keeps a process of its own.
        let body = "        a$d = a$q;\n        c$d = c$q;\n        z = c$d;\n";
        assert_eq!(split_block(body, &regs).unwrap().0.len(), 3);
    }

    #[test]
    fn register_modules_are_found_by_their_shape() {
        let src = "module top$r(d,q,clock);\n    always @(posedge clock) begin\n       q <= d;\n    end\nendmodule\nmodule top$c(d,q,clock);\n    assign q = d;\nendmodule\n";
        let lines: Vec<&str> = src.split_inclusive('\n').collect();
        assert_eq!(
            register_modules(&lines),
            HashSet::from(["top$r".to_string()])
        );
    }

    #[test]
    fn a_read_before_any_assignment_is_reported() {
        let src = "module top$m(a);\n    // Update code\n    always @(*) begin\n        a = f;\n        if (x) begin\n            f = 1'b1;\n        end else begin\n            g = f;\n        end\n        f = 1'b0;\n    end\n";
        let (_, s) = split(src);
        assert_eq!(s.stale_reads, vec![("top$m".to_string(), "f".to_string())]);
    }

    #[test]
    fn unknown_statements_leave_the_block_as_it_was() {
        let src = "module top$m(a);\n    // Update code\n    always @(*) begin\n        for (i = 0; i < 2; i = i + 1) a = i;\n    end\n";
        let (v, s) = split(src);
        assert_eq!(v, src);
        assert_eq!(s.blocks, 0);
        assert_eq!(s.kept.len(), 1);
        assert_eq!(s.kept[0].0, "top$m");
    }
}
