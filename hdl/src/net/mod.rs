//! Network layer: MAC frames in, verified RoCEv2 packets out.
pub mod arp;
pub mod dcqcn;
pub mod ndp;
pub mod pause_timer;
pub mod pfc;
pub mod rate_limiters;
pub mod rx_admit;
pub mod rx_buffer;
pub mod rx_checks;
pub mod short_frame;
pub mod tx_port;
pub mod vlan;
