//! Prints the register map: as Markdown (`cargo run -p rocenic-proto --bin regs-doc > docs/registers.md`)
//! or, with `--python`, as the Python module the test benches import (`> testbench/rocenic_regs.py`);
//! with `--contexts`, the context record layouts (`> docs/contexts.md`).
fn main() {
    match std::env::args().nth(1).as_deref() {
        None => print!("{}", rocenic_proto::regs::markdown()),
        Some("--python") => print!("{}", rocenic_proto::regs::python()),
        Some("--contexts") => print!("{}", rocenic_proto::ctx::markdown()),
        Some(other) => {
            eprintln!("usage: regs-doc [--python | --contexts]   (unknown argument {other})");
            std::process::exit(2);
        }
    }
}
