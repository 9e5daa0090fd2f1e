//! rocenic's protocol facts, held once: RoCEv2 opcodes and header layouts, typed packet views, the ICRC,
//! pcap I/O, the register map and the host-memory structures. The RTL (`hdl`), the driver, the simulator's
//! tools and the docs all read them from here.

pub mod host;
pub mod icrc;
pub mod opcode;
pub mod pcap;
pub mod regs;
pub mod width;
pub mod wire;

pub use width::Width;
