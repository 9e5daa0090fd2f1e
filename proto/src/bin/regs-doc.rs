//! Prints the register map as Markdown: `cargo run -p rocenic-proto --bin regs-doc > docs/registers.md`.
fn main() {
    print!("{}", rocenic_proto::regs::markdown());
}
