//! The AETH syndrome (IBA vol 1 §9.3.5; its use in §9.7.5): its top three bits say ACK, RNR NAK or NAK,
//! the low five carry the credit count, the RNR timer or the NAK code.

pub const TYPE_MASK: u8 = 0xE0;
pub const ACK: u8 = 0x00;
pub const RNR_NAK: u8 = 0x20;
pub const NAK: u8 = 0x60;
pub const NAK_PSN_SEQUENCE_ERROR: u8 = 0x60;
pub const NAK_INVALID_REQUEST: u8 = 0x61;
pub const NAK_REMOTE_ACCESS_ERROR: u8 = 0x62;
pub const NAK_REMOTE_OPERATIONAL_ERROR: u8 = 0x63;
pub const NAK_INVALID_RD_REQUEST: u8 = 0x64;

/// The ACK credit code meaning "no credit information" (responders without end-to-end flow control).
pub const CREDITS_INVALID: u8 = 0x1F;
/// Receive WQEs the responder has, for ACK credit codes 0x00..=0x1E.
pub const CREDITS: [u32; 31] = [
    0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536,
    2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768,
];
/// How long a requester waits after an RNR NAK, in microseconds, for timer codes 0..=31 (0 is the longest).
pub const RNR_TIMER_US: [u32; 32] = [
    655_360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920, 2560, 3840,
    5120, 7680, 10_240, 15_360, 20_480, 30_720, 40_960, 61_440, 81_920, 122_880, 163_840, 245_760,
    327_680, 491_520,
];

/// NAK codes, the low five bits of a NAK syndrome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum NakCode {
    PsnSequenceError = 0,
    InvalidRequest = 1,
    RemoteAccessError = 2,
    RemoteOperationalError = 3,
    InvalidRdRequest = 4,
}

/// A decoded syndrome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syndrome {
    /// Positive acknowledgement; `credit_code` indexes [`CREDITS`] or is [`CREDITS_INVALID`].
    Ack {
        credit_code: u8,
    },
    /// Receiver not ready: retry after [`RNR_TIMER_US`]`[timer]`.
    RnrNak {
        timer: u8,
    },
    Nak(NakCode),
    /// A reserved type or NAK code, kept as received.
    Reserved(u8),
}

impl Syndrome {
    pub const fn decode(s: u8) -> Syndrome {
        let low = s & 0x1F;
        match s & TYPE_MASK {
            ACK => Syndrome::Ack { credit_code: low },
            RNR_NAK => Syndrome::RnrNak { timer: low },
            NAK => match low {
                0 => Syndrome::Nak(NakCode::PsnSequenceError),
                1 => Syndrome::Nak(NakCode::InvalidRequest),
                2 => Syndrome::Nak(NakCode::RemoteAccessError),
                3 => Syndrome::Nak(NakCode::RemoteOperationalError),
                4 => Syndrome::Nak(NakCode::InvalidRdRequest),
                _ => Syndrome::Reserved(s),
            },
            _ => Syndrome::Reserved(s),
        }
    }
    pub const fn encode(self) -> u8 {
        match self {
            Syndrome::Ack { credit_code } => ACK | credit_code & 0x1F,
            Syndrome::RnrNak { timer } => RNR_NAK | timer & 0x1F,
            Syndrome::Nak(code) => NAK | code as u8,
            Syndrome::Reserved(s) => s,
        }
    }
}

/// The credit count of an ACK credit code; `None` for [`CREDITS_INVALID`].
pub const fn credits(code: u8) -> Option<u32> {
    if (code as usize) < CREDITS.len() {
        Some(CREDITS[code as usize])
    } else {
        None
    }
}

impl std::fmt::Display for Syndrome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Syndrome::Ack { credit_code } => match credits(credit_code) {
                Some(n) => write!(f, "ACK credits {n}"),
                None => write!(f, "ACK"),
            },
            Syndrome::RnrNak { timer } => {
                write!(f, "RNR NAK {} us", RNR_TIMER_US[timer as usize & 0x1F])
            }
            Syndrome::Nak(code) => write!(f, "NAK {code:?}"),
            Syndrome::Reserved(s) => write!(f, "reserved syndrome {s:#04x}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_syndrome_round_trips() {
        for s in 0..=255u8 {
            assert_eq!(Syndrome::decode(s).encode(), s, "{s:#x}");
        }
        assert_eq!(Syndrome::decode(0x1F), Syndrome::Ack { credit_code: 0x1F });
        assert_eq!(Syndrome::decode(0x2E), Syndrome::RnrNak { timer: 14 });
        assert_eq!(
            Syndrome::decode(NAK_REMOTE_ACCESS_ERROR),
            Syndrome::Nak(NakCode::RemoteAccessError)
        );
        assert_eq!(Syndrome::decode(0x65), Syndrome::Reserved(0x65));
        assert_eq!(Syndrome::decode(0x40), Syndrome::Reserved(0x40));
    }

    #[test]
    fn tables() {
        assert_eq!(credits(0), Some(0));
        assert_eq!(credits(0x0B), Some(48));
        assert_eq!(credits(0x1E), Some(32768));
        assert_eq!(credits(CREDITS_INVALID), None);
        // From code 4 on, both tables double every two codes.
        for w in CREDITS[4..].windows(3) {
            assert_eq!(w[2], 2 * w[0], "{w:?}");
        }
        for w in RNR_TIMER_US[4..].windows(3) {
            assert_eq!(w[2], 2 * w[0], "{w:?}");
        }
        assert_eq!(Syndrome::decode(0x2E).to_string(), "RNR NAK 1280 us");
        assert_eq!(Syndrome::decode(0x1F).to_string(), "ACK");
    }
}
