//! Progress of a long co-simulation on the terminal: a bar with the count done, the cycles simulated and
//! the rate. indicatif draws nothing when standard error is not a terminal (a log, CI), so tools print
//! the same results either way.
use indicatif::{ProgressBar, ProgressStyle};

/// A bar over `total` `what` (messages, rounds); its message is set by the caller (the cycles so far).
pub fn bar(total: u64, what: &str) -> ProgressBar {
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{bar:30}} {{pos}}/{{len}} {what}, {{msg}}, {{per_sec}}, {{elapsed}} (eta {{eta}})"
        ))
        .expect("a valid template"),
    );
    bar
}
