//! The extension headers that follow the BTH (IBA vol 1 §9.3; FETH from IBA 1.5; the CNP's reserved bytes
//! from RoCEv2 annex A17.9.3), each with its view and `Repr`, and [`ExtHeaders`], the set a packet carries.
//! Which headers an opcode carries, in which order, is [`crate::opcode`]'s business.
use super::{need, Error};
use crate::opcode::{self, hdr};

/// Datagram extended transport header (§9.3.2): on UD packets.
pub mod deth {
    use super::Error;

    /// Q_Key of the general services QP (QP1).
    pub const GSI_QKEY: u32 = 0x8001_0000;

    view! {
        Deth, "DETH", len 8, fixed;
        QKEY @ 0: u32 => qkey, set_qkey;
        RESV8 @ 4: u8 => resv8, set_resv8;
        SRC_QP @ 5: u24 => src_qp, set_src_qp;
    }

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct DethRepr {
        pub qkey: u32,
        pub resv8: u8,
        pub src_qp: u32,
    }

    impl DethRepr {
        pub fn parse<T: AsRef<[u8]>>(v: &Deth<T>) -> Result<Self, Error> {
            v.check_len()?;
            Ok(DethRepr {
                qkey: v.qkey(),
                resv8: v.resv8(),
                src_qp: v.src_qp(),
            })
        }
        pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, v: &mut Deth<T>) {
            v.set_qkey(self.qkey);
            v.set_resv8(self.resv8);
            v.set_src_qp(self.src_qp);
        }
    }
}

/// FLUSH extended transport header (IBA 1.5), before the RETH of an RC FLUSH; laid out as Linux rxe does.
pub mod feth {
    use super::Error;

    view! {
        Feth, "FETH", len 4, fixed;
        RESERVED @ 0: bits32(0xFFFF_FFC0) => reserved, set_reserved;
        /// Selectivity level: 0 the memory region, 1 the range.
        SELECTIVITY_LEVEL @ 3: bits8(0x30) => selectivity_level, set_selectivity_level;
        /// Placement type: bit 0 global visibility, bit 1 persistence.
        PLACEMENT_TYPE @ 3: bits8(0x0F) => placement_type, set_placement_type;
    }

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct FethRepr {
        pub reserved: u32,
        pub selectivity_level: u8,
        pub placement_type: u8,
    }

    impl FethRepr {
        pub fn parse<T: AsRef<[u8]>>(v: &Feth<T>) -> Result<Self, Error> {
            v.check_len()?;
            Ok(FethRepr {
                reserved: v.reserved(),
                selectivity_level: v.selectivity_level(),
                placement_type: v.placement_type(),
            })
        }
        pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, v: &mut Feth<T>) {
            v.set_reserved(self.reserved);
            v.set_selectivity_level(self.selectivity_level);
            v.set_placement_type(self.placement_type);
        }
    }
}

/// RDMA extended transport header (§9.3.3): where an RDMA WRITE or READ goes.
pub mod reth {
    use super::Error;

    view! {
        Reth, "RETH", len 16, fixed;
        VA @ 0: u64 => va, set_va;
        RKEY @ 8: u32 => rkey, set_rkey;
        /// Length of the whole message, not of this packet.
        DMA_LEN @ 12: u32 => dma_len, set_dma_len;
    }

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct RethRepr {
        pub va: u64,
        pub rkey: u32,
        pub dma_len: u32,
    }

    impl RethRepr {
        pub fn parse<T: AsRef<[u8]>>(v: &Reth<T>) -> Result<Self, Error> {
            v.check_len()?;
            Ok(RethRepr {
                va: v.va(),
                rkey: v.rkey(),
                dma_len: v.dma_len(),
            })
        }
        pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, v: &mut Reth<T>) {
            v.set_va(self.va);
            v.set_rkey(self.rkey);
            v.set_dma_len(self.dma_len);
        }
    }
}

/// Atomic extended transport header (§9.3.4): on COMPARE_SWAP and FETCH_ADD.
pub mod atomic_eth {
    use super::Error;

    view! {
        AtomicEth, "AtomicETH", len 28, fixed;
        VA @ 0: u64 => va, set_va;
        RKEY @ 8: u32 => rkey, set_rkey;
        /// The swap value (COMPARE_SWAP) or the addend (FETCH_ADD).
        SWAP_ADD @ 12: u64 => swap_add, set_swap_add;
        COMPARE @ 20: u64 => compare, set_compare;
    }

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct AtomicEthRepr {
        pub va: u64,
        pub rkey: u32,
        pub swap_add: u64,
        pub compare: u64,
    }

    impl AtomicEthRepr {
        pub fn parse<T: AsRef<[u8]>>(v: &AtomicEth<T>) -> Result<Self, Error> {
            v.check_len()?;
            Ok(AtomicEthRepr {
                va: v.va(),
                rkey: v.rkey(),
                swap_add: v.swap_add(),
                compare: v.compare(),
            })
        }
        pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, v: &mut AtomicEth<T>) {
            v.set_va(self.va);
            v.set_rkey(self.rkey);
            v.set_swap_add(self.swap_add);
            v.set_compare(self.compare);
        }
    }
}

/// ACK extended transport header (§9.3.5): syndrome ([`crate::aeth`]) and message sequence number.
pub mod aeth {
    use super::Error;

    view! {
        Aeth, "AETH", len 4, fixed;
        SYNDROME @ 0: u8 => syndrome, set_syndrome;
        MSN @ 1: u24 => msn, set_msn;
    }

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct AethRepr {
        pub syndrome: u8,
        pub msn: u32,
    }

    impl AethRepr {
        pub fn parse<T: AsRef<[u8]>>(v: &Aeth<T>) -> Result<Self, Error> {
            v.check_len()?;
            Ok(AethRepr {
                syndrome: v.syndrome(),
                msn: v.msn(),
            })
        }
        pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, v: &mut Aeth<T>) {
            v.set_syndrome(self.syndrome);
            v.set_msn(self.msn);
        }
    }
}

/// Atomic ACK extended transport header (§9.3.6): the value found before the atomic operation.
pub mod atomic_ack_eth {
    use super::Error;

    view! {
        AtomicAckEth, "AtomicAckETH", len 8, fixed;
        ORIG_DATA @ 0: u64 => orig_data, set_orig_data;
    }

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct AtomicAckEthRepr {
        pub orig_data: u64,
    }

    impl AtomicAckEthRepr {
        pub fn parse<T: AsRef<[u8]>>(v: &AtomicAckEth<T>) -> Result<Self, Error> {
            v.check_len()?;
            Ok(AtomicAckEthRepr {
                orig_data: v.orig_data(),
            })
        }
        pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, v: &mut AtomicAckEth<T>) {
            v.set_orig_data(self.orig_data);
        }
    }
}

/// Immediate data (§9.3.7): four bytes handed to the receiver's completion, big-endian on the wire.
pub mod imm_dt {
    use super::Error;

    view! {
        ImmDt, "ImmDt", len 4, fixed;
        IMM @ 0: u32 => imm, set_imm;
    }

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct ImmDtRepr {
        pub imm: u32,
    }

    impl ImmDtRepr {
        pub fn parse<T: AsRef<[u8]>>(v: &ImmDt<T>) -> Result<Self, Error> {
            v.check_len()?;
            Ok(ImmDtRepr { imm: v.imm() })
        }
        pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, v: &mut ImmDt<T>) {
            v.set_imm(self.imm);
        }
    }
}

/// Invalidate extended transport header (§9.3.8): the R_Key a SEND WITH INVALIDATE revokes.
pub mod ieth {
    use super::Error;

    view! {
        Ieth, "IETH", len 4, fixed;
        RKEY @ 0: u32 => rkey, set_rkey;
    }

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct IethRepr {
        pub rkey: u32,
    }

    impl IethRepr {
        pub fn parse<T: AsRef<[u8]>>(v: &Ieth<T>) -> Result<Self, Error> {
            v.check_len()?;
            Ok(IethRepr { rkey: v.rkey() })
        }
        pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, v: &mut Ieth<T>) {
            v.set_rkey(self.rkey);
        }
    }
}

/// The sixteen reserved bytes after a CNP's BTH (RoCEv2 annex A17.9.3).
pub mod cnp_pad {
    use super::Error;

    view! {
        CnpPad, "CNP", len 16, fixed;
        RESERVED @ 0: bytes(16) => reserved, set_reserved;
    }

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct CnpPadRepr {
        pub reserved: [u8; 16],
    }

    impl CnpPadRepr {
        pub fn parse<T: AsRef<[u8]>>(v: &CnpPad<T>) -> Result<Self, Error> {
            v.check_len()?;
            Ok(CnpPadRepr {
                reserved: v.reserved(),
            })
        }
        pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, v: &mut CnpPad<T>) {
            v.set_reserved(self.reserved);
        }
    }
}

pub use aeth::AethRepr;
pub use atomic_ack_eth::AtomicAckEthRepr;
pub use atomic_eth::AtomicEthRepr;
pub use cnp_pad::CnpPadRepr;
pub use deth::DethRepr;
pub use feth::FethRepr;
pub use ieth::IethRepr;
pub use imm_dt::ImmDtRepr;
pub use reth::RethRepr;

/// The extension headers of one packet; each is present when its opcode carries it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExtHeaders {
    pub deth: Option<DethRepr>,
    pub feth: Option<FethRepr>,
    pub reth: Option<RethRepr>,
    pub atomic_eth: Option<AtomicEthRepr>,
    pub aeth: Option<AethRepr>,
    pub atomic_ack_eth: Option<AtomicAckEthRepr>,
    pub imm_dt: Option<ImmDtRepr>,
    pub ieth: Option<IethRepr>,
    pub cnp_pad: Option<CnpPadRepr>,
}

/// Invokes macro `$m` once per field of `ExtHeaders` with the field (also its module's name), its `hdr`
/// bit, its view and its `Repr`.
macro_rules! each_ext {
    ($m:ident) => {
        $m!(deth, DETH, Deth, DethRepr);
        $m!(feth, FETH, Feth, FethRepr);
        $m!(reth, RETH, Reth, RethRepr);
        $m!(atomic_eth, ATOMIC_ETH, AtomicEth, AtomicEthRepr);
        $m!(aeth, AETH, Aeth, AethRepr);
        $m!(
            atomic_ack_eth,
            ATOMIC_ACK_ETH,
            AtomicAckEth,
            AtomicAckEthRepr
        );
        $m!(imm_dt, IMM_DT, ImmDt, ImmDtRepr);
        $m!(ieth, IETH, Ieth, IethRepr);
        $m!(cnp_pad, CNP_PAD, CnpPad, CnpPadRepr);
    };
}

impl ExtHeaders {
    /// Parses the headers named by `mask` (an opcode's [`hdr`] bits) from `b`, which starts right after
    /// the BTH.
    pub fn parse(mask: u16, b: &[u8]) -> Result<Self, Error> {
        need(b, opcode::ext_len(mask), "extension")?;
        let mut e = ExtHeaders::default();
        macro_rules! parse_one {
            ($slot:ident, $bit:ident, $view:ident, $repr:ident) => {
                if let Some(at) = opcode::ext_offset(mask, hdr::$bit) {
                    e.$slot = Some($repr::parse(&$slot::$view::new_checked(&b[at..])?)?);
                }
            };
        }
        each_ext!(parse_one);
        Ok(e)
    }

    /// The [`hdr`] bits of the headers present.
    pub fn mask(&self) -> u16 {
        let mut m = 0;
        macro_rules! bit {
            ($slot:ident, $bit:ident, $view:ident, $repr:ident) => {
                if self.$slot.is_some() {
                    m |= hdr::$bit;
                }
            };
        }
        each_ext!(bit);
        m
    }

    /// Their length on the wire.
    pub fn len(&self) -> usize {
        opcode::ext_len(self.mask())
    }

    pub fn is_empty(&self) -> bool {
        self.mask() == 0
    }

    /// Writes the headers present, in wire order, to `b` (at least [`Self::len`] bytes).
    pub fn emit(&self, b: &mut [u8]) {
        let mask = self.mask();
        macro_rules! emit_one {
            ($slot:ident, $bit:ident, $view:ident, $repr:ident) => {
                if let (Some(r), Some(at)) = (&self.$slot, opcode::ext_offset(mask, hdr::$bit)) {
                    r.emit(&mut $slot::$view::new_unchecked(&mut b[at..]));
                }
            };
        }
        each_ext!(emit_one);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses `golden` with `mask`, checks the result, emits it back and compares.
    fn round_trip(mask: u16, golden: &[u8], expect: ExtHeaders) {
        let e = ExtHeaders::parse(mask, golden).unwrap();
        assert_eq!(e, expect);
        assert_eq!(e.mask(), mask);
        assert_eq!(e.len(), golden.len());
        let mut out = vec![0u8; golden.len()];
        e.emit(&mut out);
        assert_eq!(out, golden);
    }

    #[test]
    fn reth_and_imm_dt() {
        // RC RDMA WRITE ONLY WITH IMMEDIATE: RETH then ImmDt.
        let golden = [
            0x00, 0x00, 0x7F, 0x12, 0x34, 0x56, 0x78, 0x9A, // VA
            0xCA, 0xFE, 0x00, 0x01, // R_Key
            0x00, 0x00, 0x10, 0x00, // DMA length 4096
            0xDE, 0xAD, 0xBE, 0xEF, // immediate
        ];
        round_trip(
            hdr::RETH | hdr::IMM_DT,
            &golden,
            ExtHeaders {
                reth: Some(RethRepr {
                    va: 0x7F12_3456_789A,
                    rkey: 0xCAFE_0001,
                    dma_len: 4096,
                }),
                imm_dt: Some(ImmDtRepr { imm: 0xDEAD_BEEF }),
                ..Default::default()
            },
        );
    }

    #[test]
    fn aeth_and_atomic_ack_eth() {
        let golden = [
            0x60, 0x00, 0x00, 0x2A, // NAK PSN sequence error, MSN 42
            0, 0, 0, 0, 0, 0, 0x01, 0x00, // original data 256
        ];
        round_trip(
            hdr::AETH | hdr::ATOMIC_ACK_ETH,
            &golden,
            ExtHeaders {
                aeth: Some(AethRepr {
                    syndrome: 0x60,
                    msn: 42,
                }),
                atomic_ack_eth: Some(AtomicAckEthRepr { orig_data: 256 }),
                ..Default::default()
            },
        );
    }

    #[test]
    fn atomic_eth() {
        let mut golden = vec![0, 0, 0, 0, 0, 0, 0x10, 0x00, 0, 0, 0, 7];
        golden.extend(5u64.to_be_bytes());
        golden.extend(9u64.to_be_bytes());
        round_trip(
            hdr::ATOMIC_ETH,
            &golden,
            ExtHeaders {
                atomic_eth: Some(AtomicEthRepr {
                    va: 0x1000,
                    rkey: 7,
                    swap_add: 5,
                    compare: 9,
                }),
                ..Default::default()
            },
        );
    }

    #[test]
    fn deth_and_imm_dt() {
        // UD SEND ONLY WITH IMMEDIATE to the GSI: DETH then ImmDt.
        let golden = [0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0, 0, 0, 3];
        round_trip(
            hdr::DETH | hdr::IMM_DT,
            &golden,
            ExtHeaders {
                deth: Some(DethRepr {
                    qkey: deth::GSI_QKEY,
                    resv8: 0,
                    src_qp: 1,
                }),
                imm_dt: Some(ImmDtRepr { imm: 3 }),
                ..Default::default()
            },
        );
    }

    #[test]
    fn feth_before_reth_and_ieth() {
        let mut golden = vec![0x00, 0x00, 0x00, 0x12]; // range, persistence
        golden.extend([0; 16]);
        round_trip(
            hdr::FETH | hdr::RETH,
            &golden,
            ExtHeaders {
                feth: Some(FethRepr {
                    reserved: 0,
                    selectivity_level: 1,
                    placement_type: 2,
                }),
                reth: Some(RethRepr {
                    va: 0,
                    rkey: 0,
                    dma_len: 0,
                }),
                ..Default::default()
            },
        );
        round_trip(
            hdr::IETH,
            &[0, 0, 0x12, 0x34],
            ExtHeaders {
                ieth: Some(IethRepr { rkey: 0x1234 }),
                ..Default::default()
            },
        );
    }

    #[test]
    fn cnp_pad_and_truncation() {
        let golden = [0xA5; 16];
        round_trip(
            hdr::CNP_PAD,
            &golden,
            ExtHeaders {
                cnp_pad: Some(CnpPadRepr { reserved: golden }),
                ..Default::default()
            },
        );
        assert_eq!(
            ExtHeaders::parse(hdr::RETH, &[0; 15]),
            Err(Error::Truncated("extension"))
        );
    }
}
