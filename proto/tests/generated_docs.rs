//! Views generated from the protocol tables must match what is committed: `docs/registers.md` and
//! `testbench/rocenic_regs.py` are `regs-doc`'s output (regenerate with
//! `cargo run -p rocenic-proto --bin regs-doc > docs/registers.md` and
//! `cargo run -p rocenic-proto --bin regs-doc -- --python > testbench/rocenic_regs.py`); `docs/contexts.md`
//! is its `--contexts` output.
#[test]
fn registers_md_is_generated_from_the_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/registers.md");
    let committed = std::fs::read_to_string(path).expect("docs/registers.md");
    assert!(
        committed == rocenic_proto::regs::markdown(),
        "docs/registers.md is stale: regenerate it with `cargo run -p rocenic-proto --bin regs-doc > docs/registers.md`"
    );
}

#[test]
fn python_register_constants_are_generated_from_the_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../testbench/rocenic_regs.py");
    let committed = std::fs::read_to_string(path).expect("testbench/rocenic_regs.py");
    assert!(
        committed == rocenic_proto::regs::python(),
        "testbench/rocenic_regs.py is stale: regenerate it with `cargo run -p rocenic-proto --bin regs-doc -- --python > testbench/rocenic_regs.py`"
    );
}

#[test]
fn contexts_md_is_generated_from_the_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/contexts.md");
    let committed = std::fs::read_to_string(path).expect("docs/contexts.md");
    assert!(
        committed == rocenic_proto::ctx::markdown(),
        "docs/contexts.md is stale: regenerate it with `cargo run -p rocenic-proto --bin regs-doc -- --contexts > docs/contexts.md`"
    );
}
