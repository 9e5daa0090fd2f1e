//! The two datapath widths the core is built for, and the clock each is meant to run at.

/// Datapath width of the NIC core.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Width {
    /// 64 bits at 156.25 MHz: 10 Gb/s MACs, small FPGAs.
    W64,
    /// 512 bits at 322.265625 MHz: the UltraScale+ CMAC's 100 Gb/s AXI-Stream clock, Alveo.
    W512,
}

impl Width {
    /// Bits per beat.
    pub fn bits(self) -> usize {
        match self {
            Width::W64 => 64,
            Width::W512 => 512,
        }
    }
    /// Bytes per beat, also the DMA alignment unit.
    pub fn bytes(self) -> usize {
        self.bits() / 8
    }
    /// The core clock this width is designed for, in MHz.
    pub fn clock_mhz(self) -> f64 {
        match self {
            Width::W64 => 156.25,
            Width::W512 => 322.265625,
        }
    }
    /// The Ethernet line rate this width is built for, in Gb/s (10GBASE-R at 64 bits, 100G CMAC at 512).
    pub fn line_gbps(self) -> f64 {
        match self {
            Width::W64 => 10.0,
            Width::W512 => 100.0,
        }
    }
    /// log2 of the QPs the context table holds: 8,192 at 64 bits (block RAM of a mid-size FPGA),
    /// 16,384 at 512 bits (Alveo block/ultra RAM).
    pub const fn qp_log(self) -> usize {
        match self {
            Width::W64 => 13,
            Width::W512 => 14,
        }
    }
    /// Parse "64" or "512".
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "64" => Some(Width::W64),
            "512" => Some(Width::W512),
            _ => None,
        }
    }
}
