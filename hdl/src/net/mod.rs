//! Network layer: MAC frames in, verified RoCEv2 packets out.
pub mod rx_buffer;
