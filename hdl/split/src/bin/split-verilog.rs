//! `split-verilog <in.v> <out.v>`: the pass of `rocenic_split::split` on a file, with what it did on stderr.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: {} <in.v> <out.v>", args[0]);
        std::process::exit(2);
    }
    let src = match std::fs::read_to_string(&args[1]) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", args[1]);
            std::process::exit(1);
        }
    };
    let (out, stats) = rocenic_split::split(&src);
    eprintln!(
        "{} update blocks split into {} processes; {} left as they were",
        stats.blocks,
        stats.groups,
        stats.kept.len()
    );
    for (module, why) in &stats.kept {
        eprintln!("  kept {module}: {why}");
    }
    for (module, signal) in &stats.stale_reads {
        eprintln!("  {module}: `{signal}` is read before it is assigned (a combinational loop)");
    }
    if let Err(e) = std::fs::write(&args[2], out) {
        eprintln!("error: cannot write {}: {e}", args[2]);
        std::process::exit(1);
    }
}
