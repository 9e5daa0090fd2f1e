//! The register block, generated from the one register table (`rocenic_proto::regs`) by `hdl/build.rs`.
//! Port names are the register names in lower case; see `docs/registers.md`.
use rust_hdl::prelude::*;

include!(concat!(env!("OUT_DIR"), "/regs_gen.rs"));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regs_synthesize() {
        let mut uut = Regs::default();
        uut.connect_all();
        let v = generate_verilog(&uut);
        std::fs::write(std::env::temp_dir().join("regs.v"), &v).unwrap();
        assert!(v.contains("32'h104"), "QPN decode missing");
    }
}
