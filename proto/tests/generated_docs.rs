//! Views generated from the protocol tables must match what is committed: `docs/registers.md` is
//! `regs-doc`'s output (regenerate with `cargo run -p rocenic-proto --bin regs-doc > docs/registers.md`).
#[test]
fn registers_md_is_generated_from_the_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/registers.md");
    let committed = std::fs::read_to_string(path).expect("docs/registers.md");
    assert!(
        committed == rocenic_proto::regs::markdown(),
        "docs/registers.md is stale: regenerate it with `cargo run -p rocenic-proto --bin regs-doc > docs/registers.md`"
    );
}
