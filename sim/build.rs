//! Builds the co-simulation model: emits the NIC core as Verilog for both datapath widths (with
//! `rocenic-hdl` as a build dependency), Verilates each under its own prefix (`Vnic64`, `Vnic512`) so both
//! link into one binary, and compiles the generated C++ with Verilator's runtime and `csrc/shim.cpp`.
//!
//! A change to `hdl/` rebuilds this script (it is a build dependency) and so re-runs it.
use rocenic_proto::Width;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The Verilator executable; `VERILATOR` overrides it (for a non-Debian install).
fn verilator() -> String {
    std::env::var("VERILATOR").unwrap_or_else(|_| "verilator".into())
}

/// `verilator --getenv VERILATOR_ROOT`, or a panic that says how to install Verilator.
fn verilator_root() -> PathBuf {
    let out = match Command::new(verilator())
        .args(["--getenv", "VERILATOR_ROOT"])
        .output()
    {
        Ok(o) if o.status.success() => o,
        Ok(o) => panic!(
            "`verilator --getenv VERILATOR_ROOT` failed: {}",
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(e) => panic!(
            "cannot run `{}` ({e}). rocenic-sim needs Verilator 5: `apt-get install verilator` \
             (scripts/setup.sh installs it)",
            verilator()
        ),
    };
    let root = PathBuf::from(String::from_utf8(out.stdout).unwrap().trim());
    assert!(
        root.join("include/verilated.cpp").exists(),
        "VERILATOR_ROOT {} has no include/verilated.cpp",
        root.display()
    );
    root
}

/// The core's free-running timers: flip-flops that count while it is otherwise at rest, each either read
/// only on events or bounded by the core's `wake` output, and advanced by `1 + warp` cycles at a
/// fast-forward edge (`warp` input). Their changes do not count in the change probe, so a core whose
/// only changing state they are reads as quiet. The `wake_r` registers follow the timers.
const TIMERS: &[&str] = &[
    "top$tx_eng$rt$t",
    "top$tx_eng$wake_r",
    "top$rx_eng$now",
    "top$rx_eng$cnp_age",
    "top$pfc$refresh",
    "top$pfc$wake_r",
    "top$dcqcn$*$t_rate",
    "top$dcqcn$*$t_alpha",
    "top$dcqcn$*$wake_r",
];

/// Verilate the core of one width into `out/v<bits>/` and return the generated C++ files.
fn verilate(out: &Path, width: Width) -> (PathBuf, Vec<PathBuf>) {
    let bits = width.bits();
    let src = out.join(format!("nic{bits}.v"));
    let verilog = rocenic_split::change_probe(&rocenic_hdl::nic_verilog(width), TIMERS)
        .unwrap_or_else(|e| panic!("the change probe of the {bits}-bit core: {e}"));
    std::fs::write(&src, verilog).unwrap();
    // Start from an empty directory: every .cpp in it is compiled, so stale files must not survive.
    let mdir = out.join(format!("v{bits}"));
    let _ = std::fs::remove_dir_all(&mdir);
    let prefix = format!("Vnic{bits}");
    let status = Command::new(verilator())
        .args(["--cc", "--prefix", &prefix, "--top-module", "top"])
        .args([
            "-O3",
            "--x-assign",
            "fast",
            "--x-initial",
            "fast",
            "--noassert",
        ])
        // Lint is gated by hdl/tests/verilator_lint.rs; here warnings only add noise.
        .args(["-Wno-fatal", "-Wno-lint", "-Wno-style"])
        // Tracing code costs ≈ 2 s of C++ compile and nothing at run time unless a VCD is opened.
        .arg("--trace")
        .arg("--Mdir")
        .arg(&mdir)
        .arg(&src)
        .status()
        .expect("running verilator");
    assert!(status.success(), "verilator failed on {}", src.display());
    let mut cpp: Vec<PathBuf> = std::fs::read_dir(&mdir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cpp"))
        .collect();
    cpp.sort(); // deterministic archive order
    if !gate_input_comb(&cpp) {
        println!(
            "cargo:warning=rocenic-sim: no input-combinational trigger of the Verilator 5.006 form in the \
             {bits}-bit model: every eval re-runs the input logic (correct, about 1.5x slower)"
        );
    }
    (mdir, cpp)
}

/// Verilator 5.006 runs the "input combinational" region, every combinational block that reads a top-level
/// input, on the first iteration of every eval, whether or not an input changed. The shim's clock-high eval
/// changes only the clock, which no combinational logic reads (the design is posedge-only), and the model
/// is settled on the other inputs already (the clock-low eval, or the previous cycle's, saw them), so that
/// pass repeats work: with rust-hdl's blocks, where most logic reads some input, it is about half of a
/// cycle's cost. This makes the first-iteration trigger also depend on the shim's `rn_ico_skip`, which the
/// shim sets around that eval only. Other input-region triggers (Verilator's change detection on
/// circular logic) still fire. Returns whether the trigger was found.
fn gate_input_comb(cpp: &[PathBuf]) -> bool {
    const TRIGGER: &str = "vlSelf->__VicoTriggered.at(0U) = (0U == vlSelf->__VicoIterCount);";
    for path in cpp {
        let text = std::fs::read_to_string(path).unwrap();
        if text.contains(TRIGGER) {
            let gated = text.replace(
                TRIGGER,
                "vlSelf->__VicoTriggered.at(0U) = (0U == vlSelf->__VicoIterCount) && !rn_ico_skip;",
            );
            let decl = "// rocenic-sim build.rs: see gate_input_comb.\nextern thread_local bool rn_ico_skip;\n";
            std::fs::write(path, format!("{decl}{gated}")).unwrap();
            return true;
        }
    }
    false
}

/// Whether this build is `cargo clippy`'s: it checks the crates and links nothing, so the model (minutes
/// of Verilator and C++) is not needed. Cargo tells build scripts which rustc wrapper it uses. The test
/// job compiles through clippy's driver too, to build and lint in one pass, and sets
/// `ROCENIC_BUILD_MODEL` to say it links.
fn linting_only() -> bool {
    std::env::var("RUSTC_WORKSPACE_WRAPPER").is_ok_and(|w| w.contains("clippy-driver"))
        && std::env::var_os("ROCENIC_BUILD_MODEL").is_none()
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=csrc");
    println!("cargo:rerun-if-env-changed=VERILATOR");
    println!("cargo:rerun-if-env-changed=RUSTC_WORKSPACE_WRAPPER");
    println!("cargo:rerun-if-env-changed=ROCENIC_BUILD_MODEL");
    if linting_only() {
        return;
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let root = verilator_root();
    let inc = root.join("include");

    let mut build = cc::Build::new();
    build
        .cpp(true)
        .std("c++17")
        // Speed of the model matters more than its compile time, even in debug builds.
        .opt_level(2)
        .debug(false)
        .warnings(false)
        .define("VM_TRACE", "1")
        .define("VM_TRACE_VCD", "1")
        .include(&inc)
        .include(inc.join("vltstd"))
        .file("csrc/shim.cpp");
    // Verilator 5.006 models reference the thread pool even when single-threaded.
    for f in [
        "verilated.cpp",
        "verilated_threads.cpp",
        "verilated_vcd_c.cpp",
    ] {
        build.file(inc.join(f));
    }
    // Verilator's `__Slow` files hold what runs once (construction, initial and settle evaluation, trace
    // set-up): about 40 % of the C++, compiled at -O1 in half the time -O2 takes (what Verilator's own
    // makefiles do with OPT_SLOW). The per-cycle code stays at -O2.
    let mut slow = cc::Build::new();
    slow.cpp(true)
        .std("c++17")
        .opt_level(1)
        .debug(false)
        .warnings(false)
        .define("VM_TRACE", "1")
        .define("VM_TRACE_VCD", "1")
        .include(&inc)
        .include(inc.join("vltstd"));
    for width in [Width::W64, Width::W512] {
        let (mdir, cpp) = verilate(&out, width);
        build.include(&mdir);
        slow.include(&mdir);
        for f in cpp {
            if f.file_stem()
                .is_some_and(|s| s.to_string_lossy().ends_with("__Slow"))
            {
                slow.file(f);
            } else {
                build.file(f);
            }
        }
    }
    build.objects(slow.compile_intermediates());
    build.compile("rocenic_vsim");
    println!("cargo:rustc-link-lib=pthread");
}
