//! docs/conformance.md is generated from the case table: it must match what the tool prints now.
#[test]
fn conformance_md_is_generated_from_the_cases() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rocenic"))
        .args(["conformance", "--markdown"])
        .output()
        .expect("run rocenic");
    assert!(out.status.success());
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/conformance.md");
    let committed = std::fs::read_to_string(path).expect("docs/conformance.md");
    assert!(
        committed.as_bytes() == out.stdout.as_slice(),
        "docs/conformance.md is stale: regenerate it with `cargo run --release -p rocenic-tools --bin rocenic -- conformance --markdown > docs/conformance.md`"
    );
}
