//! rocenic's protocol facts, held once: RoCEv2 opcodes, AETH syndromes and PSNs, header layouts and
//! typed packet views, the ICRC, pcap I/O, the register map, the host-memory structures and the core's
//! context record layouts. The RTL
//! (`hdl`), the driver, the simulator's tools and the docs all read them from here.

pub mod aeth;
pub mod ctx;
pub mod host;
pub mod icrc;
pub mod mutate;
pub mod opcode;
pub mod pcap;
pub mod psn;
pub mod regs;
pub mod width;
pub mod wire;

pub use psn::Psn;
pub use width::Width;
