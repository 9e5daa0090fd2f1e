//! Measures `Fabric::run` speed: fabric cycles per second of CPU time (each fabric cycle ticks two cores
//! and the link) for both widths on whatever core is built in.
//!
//! `simspeed [cycles]` prints the table (default 1,000,000 fabric cycles per row); `simspeed --doc FILE
//! [cycles]` also writes it into FILE between the lines `<!-- simspeed -->` and `<!-- /simspeed -->`
//! (docs/performance.md), so the page shows the current figures only.
//!
//! Rows: `idle` (no traffic) with fast-forward (`FastForward::On`, over 100 times the cycles, in runs of
//! 10,000) and without, and `rx busy` (both receive ports fed back-to-back 1024-byte frames injected
//! onto the link, so inputs change every cycle). CPU time, not wall time, so a busy machine does not
//! change the figure much.
use rocenic_sim::{Fabric, FabricConfig, FastForward, Width};
use std::fmt::Write;

/// CPU time of this process, in seconds.
fn cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec into the pointer we pass, which is valid and ours.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_PROCESS_CPUTIME_ID) failed");
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// What a row runs.
#[derive(Clone, Copy, PartialEq)]
enum Load {
    Idle,
    IdleEveryCycle,
    RxBusy,
}

impl Load {
    fn name(self) -> &'static str {
        match self {
            Load::Idle => "idle, fast-forward",
            Load::IdleEveryCycle => "idle, every cycle",
            Load::RxBusy => "rx busy",
        }
    }
}

fn measure(width: Width, cycles: u64, load: Load) -> f64 {
    let busy = load == Load::RxBusy;
    let mut f = Fabric::new(FabricConfig {
        width,
        fast_forward: if load == Load::IdleEveryCycle {
            FastForward::Off
        } else {
            FastForward::On
        },
        ..FabricConfig::default()
    })
    .expect("fabric");
    let cycles = if load == Load::Idle {
        100 * cycles
    } else {
        cycles
    };
    // Frames are injected in steps of one frame time per port; the link queues them at the receive ports.
    let step = if busy {
        (1024 / width.bytes()) as u64
    } else {
        10_000
    };
    let frame = vec![0x5Au8; 1024];
    let t = cpu_seconds();
    let mut done = 0;
    while done < cycles {
        if busy {
            f.inject_frame(0, frame.clone());
            f.inject_frame(1, frame.clone());
        }
        f.run(step);
        done += step;
    }
    done as f64 / (cpu_seconds() - t)
}

fn table(cycles: u64) -> String {
    let mut t = String::new();
    t.push_str("| width | load | fabric cycles per CPU second | simulated time per CPU second |\n");
    t.push_str("|---|---|---|---|\n");
    for width in [Width::W64, Width::W512] {
        for load in [Load::Idle, Load::IdleEveryCycle, Load::RxBusy] {
            let rate = measure(width, cycles, load);
            let (sim, unit) = match rate / width.clock_mhz() / 1e3 {
                ms if ms >= 1000.0 => (ms / 1000.0, "s"),
                ms => (ms, "ms"),
            };
            writeln!(
                t,
                "| {} | {} | {:.3} M | {sim:.2} {unit} |",
                width.bits(),
                load.name(),
                rate / 1e6,
            )
            .unwrap();
        }
    }
    t
}

/// `doc` with the text between the marker lines replaced by `table`.
fn replace_table(doc: &str, table: &str) -> Result<String, String> {
    const OPEN: &str = "<!-- simspeed -->\n";
    const CLOSE: &str = "<!-- /simspeed -->\n";
    let a = doc
        .find(OPEN)
        .ok_or_else(|| format!("no line {:?}", OPEN.trim()))?
        + OPEN.len();
    let b = doc[a..]
        .find(CLOSE)
        .ok_or_else(|| format!("no line {:?} after the opening one", CLOSE.trim()))?
        + a;
    Ok(format!("{}{table}{}", &doc[..a], &doc[b..]))
}

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    let doc = if args.peek().map(String::as_str) == Some("--doc") {
        args.next();
        Some(args.next().unwrap_or_else(|| {
            eprintln!("usage: simspeed [--doc FILE] [cycles]");
            std::process::exit(2)
        }))
    } else {
        None
    };
    let cycles: u64 = match args.next().map(|s| s.parse()) {
        None => 1_000_000,
        Some(Ok(c)) if c > 0 => c,
        _ => {
            eprintln!("usage: simspeed [--doc FILE] [cycles]: cycles must be a positive number");
            std::process::exit(2)
        }
    };
    let t = table(cycles);
    print!("{t}");
    if let Some(path) = doc {
        let result = std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|d| replace_table(&d, &t))
            .and_then(|d| std::fs::write(&path, d).map_err(|e| e.to_string()));
        if let Err(e) = result {
            eprintln!("error: cannot update {path}: {e}");
            std::process::exit(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::replace_table;

    #[test]
    fn the_table_between_the_markers_is_replaced_and_nothing_else() {
        let doc = "a\n<!-- simspeed -->\nold\nrows\n<!-- /simspeed -->\nb\n";
        assert_eq!(
            replace_table(doc, "new\n").unwrap(),
            "a\n<!-- simspeed -->\nnew\n<!-- /simspeed -->\nb\n"
        );
        assert!(replace_table("a\n", "new\n").is_err());
        assert!(replace_table("<!-- simspeed -->\nx\n", "new\n").is_err());
    }
}
