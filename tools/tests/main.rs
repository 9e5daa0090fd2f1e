//! The driver's co-simulation tests, one module per subject, in one test binary: one build and one link
//! of the Verilated cores instead of one per file, and libtest spreads every test over the cores.
mod common;

mod cli;
mod cosim;
mod dcqcn;
mod fast_forward;
mod fcs;
mod gather;
mod generated_docs;
mod import;
mod ipv6;
mod large_mr;
mod many_mrs;
mod many_qps;
mod matrix;
mod perftest_sockets;
mod pfc;
mod rc_pingpong_sockets;
mod rd_atomic;
mod read_burst_loss;
mod replay;
mod scatter;
mod storm;
mod stress;
mod teardown;
mod turns;
mod udp_port;
mod unaligned;
mod vlan;
