//! Measures `Fabric::run` speed (fabric cycles per second of wall clock; each fabric cycle ticks two cores)
//! for both widths on whatever core is built in: `simspeed [cycles]` (default 2,000,000 per row).
//!
//! Rows: `idle` (no traffic: the shim's idle-cycle shortcut applies) and `rx busy` (both receive ports fed
//! back-to-back 1024-byte frames injected onto the link, so inputs change every cycle).
use rocenic_sim::{Fabric, FabricConfig, Width};
use std::time::Instant;

fn measure(width: Width, cycles: u64, busy: bool) -> f64 {
    let mut f = Fabric::new(FabricConfig {
        width,
        ..FabricConfig::default()
    })
    .expect("fabric");
    // Frames are injected in steps of one frame time per port; the link queues them at the receive ports.
    let step = if busy {
        (1024 / width.bytes()) as u64
    } else {
        10_000
    };
    let frame = vec![0x5Au8; 1024];
    let t = Instant::now();
    let mut done = 0;
    while done < cycles {
        if busy {
            f.inject_frame(0, frame.clone());
            f.inject_frame(1, frame.clone());
        }
        f.run(step);
        done += step;
    }
    done as f64 / t.elapsed().as_secs_f64()
}

fn main() {
    let cycles: u64 = std::env::args()
        .nth(1)
        .map(|s| s.parse().expect("cycles must be a number"))
        .unwrap_or(2_000_000);
    println!("| width | load | fabric cycles/s | simulated time per wall second |");
    println!("|---|---|---|---|");
    for width in [Width::W64, Width::W512] {
        for busy in [false, true] {
            let rate = measure(width, cycles, busy);
            println!(
                "| {} | {} | {:.2} M | {:.2} ms |",
                width.bits(),
                if busy { "rx busy" } else { "idle" },
                rate / 1e6,
                rate / width.clock_mhz() / 1e3
            );
        }
    }
}
