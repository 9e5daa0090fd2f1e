//! Base Transport Header (IBA vol 1 §9.2): opcode, flags, partition key, destination QP and PSN.
use super::Error;

view! {
    /// A BTH and what follows it.
    Bth, "BTH", len 12, fixed;
    /// [`crate::opcode`]: transport in the top three bits, operation in the low five.
    OPCODE @ 0: u8 => opcode, set_opcode;
    /// SE, MigReq, PadCnt and TVer as one byte.
    FLAGS @ 1: u8 => flags, set_flags;
    /// Solicited event: the responder raises a completion event.
    SOLICITED @ 1: flag(0x80) => solicited, set_solicited;
    /// Path-migration state; rxe sends 1, other peers 0.
    MIG_REQ @ 1: flag(0x40) => mig_req, set_mig_req;
    /// Bytes added after the payload to reach a multiple of four.
    PAD_COUNT @ 1: bits8(0x30) => pad_count, set_pad_count;
    /// Transport header version, 0.
    TVER @ 1: bits8(0x0F) => tver, set_tver;
    PKEY @ 2: u16 => pkey, set_pkey;
    /// FECN, BECN and resv6a: the byte the ICRC treats as all ones.
    RESV8A @ 4: u8 => resv8a, set_resv8a;
    /// Forward congestion notification (unused by RoCEv2, which marks ECN in IP).
    FECN @ 4: flag(0x80) => fecn, set_fecn;
    /// Backward congestion notification: set in CNPs (annex A17.9.3).
    BECN @ 4: flag(0x40) => becn, set_becn;
    RESV6A @ 4: bits8(0x3F) => resv6a, set_resv6a;
    DEST_QP @ 5: u24 => dest_qp, set_dest_qp;
    /// AckReq and seven reserved bits.
    ACK_REQ @ 8: flag(0x80) => ack_req, set_ack_req;
    RESV7 @ 8: bits8(0x7F) => resv7, set_resv7;
    PSN @ 9: u24 => psn, set_psn;
}

impl<T: AsRef<[u8]>> Bth<T> {
    /// What follows the BTH: extension headers, payload, pad, ICRC.
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[LEN..]
    }
}

/// Every BTH field, reserved bits included, for byte-exact re-emission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BthRepr {
    pub opcode: u8,
    pub solicited: bool,
    pub mig_req: bool,
    pub pad_count: u8,
    pub tver: u8,
    pub pkey: u16,
    pub fecn: bool,
    pub becn: bool,
    pub resv6a: u8,
    pub dest_qp: u32,
    pub ack_req: bool,
    pub resv7: u8,
    pub psn: u32,
}

impl BthRepr {
    pub fn parse<T: AsRef<[u8]>>(v: &Bth<T>) -> Result<Self, Error> {
        v.check_len()?;
        Ok(BthRepr {
            opcode: v.opcode(),
            solicited: v.solicited(),
            mig_req: v.mig_req(),
            pad_count: v.pad_count(),
            tver: v.tver(),
            pkey: v.pkey(),
            fecn: v.fecn(),
            becn: v.becn(),
            resv6a: v.resv6a(),
            dest_qp: v.dest_qp(),
            ack_req: v.ack_req(),
            resv7: v.resv7(),
            psn: v.psn(),
        })
    }
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, v: &mut Bth<T>) {
        v.set_opcode(self.opcode);
        v.set_solicited(self.solicited);
        v.set_mig_req(self.mig_req);
        v.set_pad_count(self.pad_count);
        v.set_tver(self.tver);
        v.set_pkey(self.pkey);
        v.set_fecn(self.fecn);
        v.set_becn(self.becn);
        v.set_resv6a(self.resv6a);
        v.set_dest_qp(self.dest_qp);
        v.set_ack_req(self.ack_req);
        v.set_resv7(self.resv7);
        v.set_psn(self.psn);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn golden_bytes() {
        // RC SEND ONLY WITH IMMEDIATE, SE, MigReq, pad 2, P_Key 0xFFFF, BECN, QP 0x000123, AckReq, PSN 0xABCDEF.
        let golden = [
            0x05, 0xE0, 0xFF, 0xFF, 0x40, 0x00, 0x01, 0x23, 0x80, 0xAB, 0xCD, 0xEF,
        ];
        let v = Bth::new_checked(&golden[..]).unwrap();
        let r = BthRepr::parse(&v).unwrap();
        assert_eq!(
            r,
            BthRepr {
                opcode: 0x05,
                solicited: true,
                mig_req: true,
                pad_count: 2,
                tver: 0,
                pkey: 0xFFFF,
                fecn: false,
                becn: true,
                resv6a: 0,
                dest_qp: 0x123,
                ack_req: true,
                resv7: 0,
                psn: 0xAB_CDEF,
            }
        );
        assert_eq!(v.flags(), 0xE0);
        let mut out = [0u8; 12];
        r.emit(&mut Bth::new_unchecked(&mut out[..]));
        assert_eq!(out, golden);
    }

    #[test]
    fn reserved_bits_survive() {
        let golden = [0x11, 0x0F, 0, 0, 0x3F, 0, 0, 1, 0x7F, 0, 0, 1];
        let r = BthRepr::parse(&Bth::new_unchecked(&golden[..])).unwrap();
        assert_eq!((r.tver, r.resv6a, r.resv7), (15, 0x3F, 0x7F));
        let mut out = [0u8; 12];
        r.emit(&mut Bth::new_unchecked(&mut out[..]));
        assert_eq!(out, golden);
        assert_eq!(
            Bth::new_checked(&golden[..11]),
            Err(Error::Truncated("BTH"))
        );
    }
}
