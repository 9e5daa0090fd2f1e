//! rocenic's test harnesses, on the driver's verbs and the co-simulation: what the tools and the tests
//! share, kept out of the driver crate (which is verbs and backends only).
//!
//! - [`pair`]: two co-simulated NICs with connected RC QPs (the demo's and most tests' set-up);
//! - [`conformance`]: the spec-named cases against a scripted peer, checked on the wire;
//! - [`replay`]: the same cases as files (scenario, input pcap, expected pcap), and imports of captures;
//! - [`stress`]: mixed RC traffic both ways over a faulty link, every byte checked;
//! - [`congestion`]: two flows through an ECN-marking switch, DCQCN's rates and queue over time.
pub mod conformance;
pub mod congestion;
pub mod pair;
pub mod replay;
pub mod stress;
