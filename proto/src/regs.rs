//! The register map, defined once. The RTL decoder (`hdl`), the driver's accessors and `docs/registers.md`
//! are all derived from [`REGISTERS`].

/// Who may write a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Read-only: the core drives it.
    Ro,
    /// Read-write: the host writes it, the core reads it.
    Rw,
    /// Read-write, and the core updates it too (a PSN it advances, a state it moves to ERR).
    RwCore,
    /// A counter the core increments by one; a host write sets it (write 0 to clear).
    Counter,
    /// A constant of the design: reads return the reset value, writes are ignored.
    Const,
}

/// One 32-bit register.
#[derive(Clone, Copy, Debug)]
pub struct Register {
    pub name: &'static str,
    pub offset: u16,
    pub access: Access,
    pub reset: u32,
    pub doc: &'static str,
}

macro_rules! registers {
    ($( $const:ident = $off:literal, $acc:ident, $reset:expr, $doc:literal; )*) => {
        $( #[doc = $doc] pub const $const: u16 = $off; )*
        /// Every register, in offset order.
        pub const REGISTERS: &[Register] = &[
            $( Register { name: stringify!($const), offset: $off, access: Access::$acc, reset: $reset, doc: $doc }, )*
        ];
    };
}

/// Value of the `ID` register: "ROCE" in ASCII.
pub const ID_VALUE: u32 = 0x524F_4345;
/// Value of the `VERSION` register: major << 16 | minor.
pub const VERSION_VALUE: u32 = 0x0001_0000;

registers! {
    ID = 0x0000, Ro, ID_VALUE, "Identification: 0x524F4345 (\"ROCE\").";
    VERSION = 0x0004, Ro, VERSION_VALUE, "Register-map version, major << 16 | minor.";
    DATAPATH_BYTES = 0x0008, Ro, 0, "Datapath width in bytes (8 or 64); also the DMA alignment unit.";
    CONTROL = 0x000C, Rw, 0, "bit 0: enable the transmit and receive engines.";
    MAC_LO = 0x0010, Rw, 0, "Port MAC address, low 32 bits of the 48-bit big-endian value.";
    MAC_HI = 0x0014, Rw, 0, "Port MAC address, high 16 bits.";
    IPV4 = 0x0018, Rw, 0, "Port IPv4 address (a.b.c.d = a << 24 | b << 16 | c << 8 | d).";
    BLOCK_DIR = 0x001C, Const, BLOCK_DIR_FIRST as u32, "Offset of the first register-block header (see Register blocks below; 0 = none).";
    DMA_MAX_READ = 0x0020, Rw, 512, "Largest DMA read request in bytes, as PCIe's Max_Read_Request_Size (128..4096, a power of two, at least DATAPATH_BYTES): engine reads are split into requests of at most this size that never cross a 4 KiB boundary.";
    UDP_DPORT = 0x0024, Rw, 4791, "UDP destination port of RoCEv2: RoCE frames are taken only on it (others count in RX_DROP_UDP_PORT) and sent to it. 4791 (IANA's, annex A17) after reset; change it while the port is idle, and only to meet a peer that uses another port.";
    QP_STATE = 0x0100, RwCore, 0, "QP window: state, ibv_qp_state numbering: RESET 0, INIT 1, RTR 2, RTS 3, SQD 4, SQE 5, ERR 6. Written to the QP by QP_CMD MODIFY; QP_CMD QUERY loads it (the core moves a QP to ERR on a fatal error).";
    QPN = 0x0104, Rw, 0, "QP number the QP window, QP_CMD and the SQ_PI/RQ_PI doorbells address (below 2^QP_TABLE_LOG).";
    DEST_QPN = 0x0108, Rw, 0, "Remote QP number (24 bits).";
    SQ_PSN = 0x010C, RwCore, 0, "Next PSN the requester sends (written at RTR->RTS, advanced by the core).";
    RQ_PSN = 0x0110, RwCore, 0, "Next PSN the responder expects (written at INIT->RTR, advanced by the core).";
    PMTU = 0x0114, Rw, 10, "Path MTU as log2 of bytes: 8 (256) .. 12 (4096).";
    DEST_MAC_LO = 0x0118, Rw, 0, "Destination MAC, low 32 bits.";
    DEST_MAC_HI = 0x011C, Rw, 0, "Destination MAC, high 16 bits.";
    DEST_IPV4 = 0x0120, Rw, 0, "Destination IPv4 address.";
    UDP_SPORT = 0x0124, Rw, 0xC000, "UDP source port of this QP (flow entropy).";
    ACK_TIMEOUT = 0x0128, Rw, 100_000, "Local ACK timeout in core clock cycles (0 disables).";
    RETRY_CNT = 0x012C, Rw, 7, "Retransmission attempts after an ACK timeout or NAK before RETRY_EXC_ERR.";
    ACK_REQ_EVERY = 0x0130, Rw, 16, "The requester sets AckReq every N packets of a message (and always on the last).";
    QP_PD = 0x0134, Rw, 0, "Protection domain of the QP; an MR is usable only with the same PD.";
    LAST_SYNDROME = 0x0138, Ro, 0, "AETH syndrome of the last NAK received, or 0xFF after a local timeout.";
    RNR_RETRY = 0x013C, Rw, 7, "RNR NAKs the requester waits out per WQE before RNR_RETRY_EXC_ERR; 7 = retry forever (IBA).";
    MIN_RNR_TIMER = 0x0140, Rw, 1, "RNR NAK timer code (0..31, IBA Table 45) the responder sends: how long the requester waits.";
    QP_DSCP = 0x0144, Rw, 0, "DSCP (0..63) of the QP's packets, requests and responses (the GRH traffic class >> 2): what a DSCP-trusting switch maps to the lossless class, and, through DSCP_PRIO_MAP_n, the 802.1Qbb priority the NIC gives them (what PFC pauses, their PCP when tagged).";
    QP_CMD = 0x0148, RwCore, 0, "QP command on QPN, from the window registers (0x0100..0x0144, QP_ACCESS, DEST_GID_0..2, QP_IPV6, QP_HOP_LIMIT, QP_FLOW_LABEL, QP_VLAN, 0x0300..0x0330): bit 0 MODIFY (attributes and QP_STATE), bit 1 INIT_RQ (RQ_PSN, RQ_PI, RQ_CI; responder context cleared), bit 2 INIT_SQ (SQ_PSN, SQ_PI, SQ_CI), bit 3 QUERY (loads QP_STATE, SQ_PSN, RQ_PSN, SQ_CI, RQ_CI and the per-QP counters); bit 4 CLEAR alone: every QP of the table to RESET with zero contexts (2^QP_TABLE_LOG cycles). Reads non-zero until the core has done it.";
    QP_TABLE_LOG = 0x014C, Ro, 0, "log2 of the number of QPs the context table holds (QPNs 0 .. 2^n - 1).";
    QP_ACCESS = 0x0150, Rw, 0, "QP window: remote operations the QP's responder allows (qp_access_flags: REMOTE_WRITE 2, REMOTE_READ 4, REMOTE_ATOMIC 8); a request needs this and its MR's flag. A request the QP does not allow gets an invalid request NAK and the QP goes to ERR (as rdma_rxe).";
    QP_OUT_OF_SEQUENCE = 0x0154, Ro, 0, "Per-QP counter out_of_sequence (loaded by QP_CMD QUERY): request packets with a PSN ahead of the expected one.";
    QP_DUPLICATE_REQUEST = 0x0158, Ro, 0, "Per-QP counter duplicate_request (loaded by QP_CMD QUERY): duplicate request packets.";
    QP_PACKET_SEQ_ERR = 0x015C, Ro, 0, "Per-QP counter packet_seq_err (loaded by QP_CMD QUERY): PSN sequence error NAKs received.";
    QP_LOCAL_ACK_TIMEOUT_ERR = 0x0160, Ro, 0, "Per-QP counter local_ack_timeout_err (loaded by QP_CMD QUERY): local ACK timeouts of the QP's requester.";
    QP_RETRANSMITS = 0x0164, Ro, 0, "Per-QP counter of go-back-N restarts (after a NAK or a timeout) of the QP's requester (loaded by QP_CMD QUERY).";
    DEST_GID_0 = 0x0168, Rw, 0, "QP window: destination GID bytes 0..3 (big-endian word: byte 0 in bits 31..24). An IPv6 QP (QP_IPV6 bit 0) sends to the IPv6 address DEST_GID_0..2 : DEST_IPV4; an IPv4 QP uses DEST_IPV4 alone (its GID is ::ffff:DEST_IPV4).";
    DEST_GID_1 = 0x016C, Rw, 0, "QP window: destination GID bytes 4..7.";
    DEST_GID_2 = 0x0170, Rw, 0, "QP window: destination GID bytes 8..11 (bytes 12..15 are DEST_IPV4).";
    QP_IPV6 = 0x0174, Rw, 0, "QP window: bit 0, the QP's packets and its responses and CNPs travel in IPv6 (RoCEv2 over IPv6), from the port GID SGID_INDEX (bits 2..1: entry of the GID table, GID_n_0..3) to DEST_GID_0..2 : DEST_IPV4; 0 = IPv4, from IPV4 to DEST_IPV4.";
    QP_HOP_LIMIT = 0x0178, Rw, 64, "QP window: the hop limit (IPv6) or TTL (IPv4) of the QP's packets, its responses and CNPs, bits 7..0 (ibv_ah_attr.grh.hop_limit).";
    QP_FLOW_LABEL = 0x017C, Rw, 0, "QP window: the IPv6 flow label of the QP's packets, responses and CNPs, bits 19..0 (ibv_ah_attr.grh.flow_label; 0 = unlabelled, RFC 6437). Not in the ICRC, so a switch may rewrite it.";
    PFC_ENABLE = 0x0180, Rw, 0x08, "The lossless 802.1Qbb priorities, bit p = priority p (dcb pfc_en; 0x08 = priority 3). A received PFC frame pauses, each for its own time, the enabled priorities it names: the RoCE frames whose DSCP maps to one of them (DSCP_PRIO_MAP_n); PFC for other priorities is ignored (802.3x PAUSE holds every priority). Each has its own room in the receive buffer: its stored frames are counted apart, and its XOFF and XON (PFC_XOFF_WORDS, PFC_XON_WORDS) follow its own count. ARP and NDP replies on a VLAN carry the lowest of them as PCP (0 if none).";
    PFC_QUANTUM_Q4 = 0x0184, Rw, 128, "Core cycles per pause quantum (512 bit times) x 16: 128 = 8 cycles (10 Gb/s at 156.25 MHz); 26 is 100 Gb/s at 322 MHz.";
    PFC_WATCHDOG_CYCLES = 0x0188, Rw, 0, "Pause storm watchdog: paused this many cycles without a break stops honouring pause (0 = off).";
    PFC_WATCHDOG_RECOVERY = 0x018C, Rw, 1_000_000, "Cycles the watchdog ignores pause after it fired.";
    PFC_XOFF_WORDS = 0x0190, Rw, 0, "Receive-buffer words of one PFC_ENABLE priority's stored frames at which XOFF is sent for that priority (0 = PFC generation off). Each lossless priority is counted apart against this mark.";
    PFC_XON_WORDS = 0x0194, Rw, 0, "Receive-buffer words of a priority's stored frames at or below which XON (time 0) is sent for it after its XOFF.";
    PFC_PAUSE_QUANTA = 0x0198, Rw, 0xFFFF, "Pause time in quanta that an XOFF asks for.";
    PFC_REFRESH_CYCLES = 0x019C, Rw, 0x8000, "Cycles between XOFF refreshes while a priority stays above PFC_XON_WORDS (one refresh frame names every priority still in XOFF).";
    CNP_INTERVAL = 0x01A0, Rw, 7813, "Notification point: core cycles between two CNPs of this QP (7813 = 50 us at 156.25 MHz).";
    DCQCN_ENABLE = 0x01A4, Rw, 0, "bit 0: DCQCN on: a QP that receives CNPs takes a rate limiter of the pool (the RateLimiters block) whose reaction point paces that QP's frames; 0 = every QP at line rate, the limiters let go.";
    DCQCN_LINE_RATE = 0x01A8, Rw, 2048, "Line rate, bytes per cycle x 256 (2048 = 8 B/cycle, the 64-bit datapath; 16384 for 512 bits).";
    DCQCN_MIN_RATE = 0x01AC, Rw, 16, "Lowest rate a CNP can cut to, bytes per cycle x 256.";
    DCQCN_RATE_AI = 0x01B0, Rw, 20, "Additive increase R_AI, bytes per cycle x 256.";
    DCQCN_RATE_HAI = 0x01B4, Rw, 200, "Hyper increase R_HAI, bytes per cycle x 256.";
    DCQCN_RATE_TIMER = 0x01B8, Rw, 8594, "Rate increase timer in cycles (8594 = 55 us at 156.25 MHz).";
    DCQCN_ALPHA_TIMER = 0x01BC, Rw, 8594, "Alpha decay timer in cycles.";
    DCQCN_BYTE_COUNTER = 0x01C0, Rw, 10_000_000, "Bytes sent that end a rate increase stage.";
    DCQCN_F = 0x01C4, Rw, 5, "Fast recovery stages before additive increase.";
    DCQCN_RATE = 0x01C8, Ro, 2048, "The lowest current rate RC among the rate limiters in use, bytes per cycle x 256: the port's most throttled QP; the line rate (DCQCN_LINE_RATE, 2048 by default) when no QP holds a limiter. Per limiter: DCQCN_LIMITER_RATE_n.";
    CNP_DSCP = 0x01CC, Rw, 48, "DSCP (0..63) of the CNPs the notification point sends (48 by default, ConnectX's, for a high-priority class).";
    TX_ECN = 0x01D0, Rw, 1, "bit 0: RoCE packets and CNPs leave ECN-capable, ECT(0) (RoCEv2 annex A17.9); 0: Not-ECT, and no switch can mark them.";
    VLAN = 0x01D4, Rw, 0, "802.1Q: bit 16 VLAN mode, bits 0..11 the port's VID; entry 0 of the port VLAN table (VLAN_1..3 are the others). In VLAN mode RoCE frames of QPs without QP_VLAN leave tagged with this VID and PCP = their priority (their DSCP through DSCP_PRIO_MAP_n), and untagged frames are not taken. A frame tagged with the VID of an entry that is on (this one in VLAN mode, VLAN_n with its bit 16) is taken with its tag removed; other tags, and untagged frames in VLAN mode, count in RX_DROP_VLAN. ARP and neighbour discovery replies leave on the VLAN their request came on (untagged for an untagged request), PCP = the lowest PFC_ENABLE priority. PFC and PAUSE frames are never tagged. Change it while the port is idle.";
    PRIO_TRUST = 0x01D8, Rw, 1, "Which field gives a received RoCE frame its 802.1Qbb priority: bit 0 set, DSCP trust (the IPv4 DSCP through DSCP_PRIO_MAP_n); clear, PCP trust (the 802.1Q tag's PCP; untagged frames are priority 0). Transmitted RoCE frames take the priority DSCP_PRIO_MAP_n gives their DSCP in both modes, which is also their PCP in VLAN mode.";
    RX_LOSSY_WORDS = 0x01DC, Rw, 0, "Receive-buffer words of earlier frames at or above which a RoCE frame whose priority is not in PFC_ENABLE (a lossy priority) is dropped and counted in RX_DROP_LOSSY, keeping the rest of the buffer for the lossless priorities (0 = off: every priority shares the whole buffer).";
    DSCP_PRIO_MAP_0 = 0x01E0, Rw, 0x0000_0000, "DSCP -> priority map, DSCPs 0..7: bits 4k..4k+2 the priority of DSCP k (bit 4k+3 unused). The default of every DSCP_PRIO_MAP_n maps DSCP d to d >> 3, Linux's default.";
    DSCP_PRIO_MAP_1 = 0x01E4, Rw, 0x1111_1111, "DSCP -> priority map, DSCPs 8..15 (DSCP_PRIO_MAP_0's layout).";
    DSCP_PRIO_MAP_2 = 0x01E8, Rw, 0x2222_2222, "DSCP -> priority map, DSCPs 16..23.";
    DSCP_PRIO_MAP_3 = 0x01EC, Rw, 0x3333_3333, "DSCP -> priority map, DSCPs 24..31.";
    DSCP_PRIO_MAP_4 = 0x01F0, Rw, 0x4444_4444, "DSCP -> priority map, DSCPs 32..39.";
    DSCP_PRIO_MAP_5 = 0x01F4, Rw, 0x5555_5555, "DSCP -> priority map, DSCPs 40..47.";
    DSCP_PRIO_MAP_6 = 0x01F8, Rw, 0x6666_6666, "DSCP -> priority map, DSCPs 48..55.";
    DSCP_PRIO_MAP_7 = 0x01FC, Rw, 0x7777_7777, "DSCP -> priority map, DSCPs 56..63.";
    MR_BASE_LO = 0x0200, Rw, 0, "MR window: IOVA of the region's first byte, low 32 bits. MR_CMD WRITE stores the window (0x0200..0x0214 and MR_LEN_HI) in entry MR_INDEX of the MR table.";
    MR_BASE_HI = 0x0204, Rw, 0, "MR window: IOVA, high 32 bits.";
    MR_LEN = 0x0208, Rw, 0, "MR window: length in bytes, low 32 bits (with MR_LEN_HI a 64-bit length; an entry of length 0 is invalid).";
    MR_KEY = 0x020C, Rw, 0, "MR window: key, lkey = rkey = MR_INDEX << 8 | an 8-bit variant the driver changes on every registration of the index (the core looks a key up at bits 8 .. 8 + MR_TABLE_LOG and compares all 32 bits).";
    MR_ACCESS = 0x0210, Rw, 0, "MR window: ibv_access_flags (LOCAL_WRITE 1, REMOTE_WRITE 2, REMOTE_READ 4, REMOTE_ATOMIC 8), and bit 7: a SEND with invalidate may invalidate it (a fast-registration MR in kernel verbs; no ibv flag).";
    MR_PD = 0x0214, Rw, 0, "MR window: protection domain (24 bits); a remote access needs the QP's QP_PD.";
    MR_INDEX = 0x0218, Rw, 0, "MR table entry MR_CMD acts on (below 2^MR_TABLE_LOG).";
    MR_CMD = 0x021C, RwCore, 0, "MR command on entry MR_INDEX: bit 0 WRITE (the window into the entry), bit 1 INVALIDATE (the entry to length 0: deregistration); bit 4 CLEAR alone: every entry invalid (2^MR_TABLE_LOG cycles). Reads non-zero until the core has done it.";
    MR_TABLE_LOG = 0x0220, Ro, 0, "log2 of the number of entries of the MR table.";
    MR_LEN_HI = 0x0224, Rw, 0, "MR window: length in bytes, high 32 bits (an MR of 4 GiB or more).";
    SQ_BASE_LO = 0x0300, Rw, 0, "Send queue ring IOVA, low 32 bits (B-aligned).";
    SQ_BASE_HI = 0x0304, Rw, 0, "Send queue ring IOVA, high 32 bits.";
    SQ_LOG_SIZE = 0x0308, Rw, 0, "Bits 4:0: log2 of the number of send WQEs. Bit 5 (SQ_WQE_128): each send WQE takes 128 bytes, its header and a gather list of up to 4 entries (a QP with max_send_sge > 1); clear: 64 bytes, one buffer per WQE.";
    SQ_PI = 0x030C, Rw, 0, "Send queue producer index, free-running; a write is the doorbell of QP QPN.";
    SQ_CI = 0x0310, RwCore, 0, "Send queue consumer index (WQEs completed or failed): INIT_SQ sets it, QUERY reads it.";
    RQ_BASE_LO = 0x0320, Rw, 0, "Receive queue ring IOVA, low 32 bits.";
    RQ_BASE_HI = 0x0324, Rw, 0, "Receive queue ring IOVA, high 32 bits.";
    RQ_LOG_SIZE = 0x0328, Rw, 0, "Bits 4:0: log2 of the number of receive WQEs. Bit 5 (RQ_WQE_128): each receive WQE takes 128 bytes, its header and a scatter list of up to 4 entries (a QP with max_recv_sge > 1); clear: 64 bytes, one buffer per WQE.";
    RQ_PI = 0x032C, Rw, 0, "Receive queue producer index; a write is the doorbell of QP QPN.";
    RQ_CI = 0x0330, RwCore, 0, "Receive queue consumer index: INIT_RQ sets it, QUERY reads it.";
    CQ_BASE_LO = 0x0340, Rw, 0, "Completion queue ring IOVA, low 32 bits (32-byte aligned: a CQE never straddles a 64-byte beat).";
    CQ_BASE_HI = 0x0344, Rw, 0, "Completion queue ring IOVA, high 32 bits.";
    CQ_LOG_SIZE = 0x0348, Rw, 0, "log2 of the number of 32-byte CQEs.";
    CQ_PI = 0x034C, Counter, 0, "CQEs written by the core (free-running).";
    CQ_CI = 0x0350, Rw, 0, "CQEs consumed by the driver (free-running).";
    CQ_ARM = 0x0354, RwCore, 0, "Request completion notification (IBA 11.4.2.2, ibv_req_notify_cq): 1 = interrupt on the next CQE, 2 = on the next solicited or unsuccessful CQE, 0 = disarmed. One-shot: the core clears it when it raises the interrupt.";
    CQ_INTERRUPTS = 0x0358, Counter, 0, "Completion interrupts raised (pulses of the irq output, MSI vector 0).";
    RX_FRAMES = 0x0400, Counter, 0, "Counter: frames received from the MAC.";
    RX_ROCE_PACKETS = 0x0404, Counter, 0, "Counter: RoCEv2 packets accepted (ICRC good, addressed to this port).";
    RX_ICRC_ERRORS = 0x0408, Counter, 0, "Counter: RoCEv2 frames dropped for a bad ICRC.";
    RX_DROP_NOT_ROCE = 0x040C, Counter, 0, "Counter: frames dropped that are not IPv4/UDP/4791 to this port (the sum of RX_DROP_DST_MAC .. RX_DROP_VLAN).";
    RX_DROP_OVERFLOW = 0x0410, Counter, 0, "Counter: frames dropped because the receive buffer was full.";
    RX_DROP_QP = 0x0414, Counter, 0, "Counter: RoCE packets dropped for an unknown QP, a QP state that cannot receive, or an unsupported opcode.";
    TX_FRAMES = 0x0418, Counter, 0, "Counter: frames sent to the MAC.";
    TX_ACKS = 0x041C, Counter, 0, "Counter: ACKs and NAKs sent.";
    RX_ACKS = 0x0420, Counter, 0, "Counter: ACKs received.";
    RX_NAKS = 0x0424, Counter, 0, "Counter: NAKs received.";
    RETRANSMITS = 0x0428, Counter, 0, "Counter: go-back-N restarts (after a NAK or a timeout).";
    ACK_TIMEOUTS = 0x042C, Counter, 0, "Counter: local ACK timeouts.";
    RX_DUP_REQUESTS = 0x0430, Counter, 0, "Counter: duplicate request packets (re-ACKed, not re-executed).";
    RX_SEQ_ERRORS = 0x0434, Counter, 0, "Counter: request packets with a PSN ahead of the expected one (PSN sequence error).";
    RX_REMOTE_ACCESS_ERRORS = 0x0438, Counter, 0, "Counter: requests NAKed with a remote access error (bad rkey, PD, access or bounds).";
    CQES_WRITTEN = 0x043C, Counter, 0, "Counter: CQEs written.";
    RX_IP_CHECKSUM_ERRORS = 0x0440, Counter, 0, "Counter: RoCE frames dropped for a bad IPv4 header checksum (the ICRC does not cover it).";
    RX_RNR_NAKS = 0x0444, Counter, 0, "Counter: RNR NAKs received (rdma-core rnr_nak_retry_err counts the retries exhausted).";
    RNR_RETRY_EXC = 0x0448, Counter, 0, "Counter: WQEs completed with RNR_RETRY_EXC_ERR.";
    RX_SEQ_NAKS = 0x044C, Counter, 0, "Counter: PSN sequence error NAKs received (rdma-core packet_seq_err).";
    RX_REMOTE_ACCESS_NAKS = 0x0450, Counter, 0, "Counter: remote access error NAKs received (req_remote_access_errors).";
    RX_INVALID_REQUEST_NAKS = 0x0454, Counter, 0, "Counter: invalid request NAKs received (req_remote_invalid_request).";
    TX_RNR_NAKS = 0x0458, Counter, 0, "Counter: RNR NAKs sent (no receive WQE posted).";
    RX_ARP_REQUESTS = 0x045C, Counter, 0, "Counter: ARP requests for the port's IPv4 address received (rx_arp_requests).";
    TX_ARP_REPLIES = 0x0460, Counter, 0, "Counter: ARP replies sent.";
    RX_PAUSE_FRAMES = 0x0464, Counter, 0, "Counter: PFC frames naming a PFC_ENABLE priority, and PAUSE frames, received (rx_prioN_pause, summed over the priorities).";
    RX_PAUSE_DURATION = 0x0468, Counter, 0, "Counter: core cycles spent paused (rx_pause_duration).";
    PFC_WATCHDOG_EVENTS = 0x046C, Counter, 0, "Counter: pause storm watchdog events (pfc_watchdog_events).";
    TX_PFC_XOFF = 0x0470, Counter, 0, "Counter: PFC frames sent that pause at least one priority (XOFF), refreshes included (TX_PRIOn_PAUSE per priority).";
    TX_PFC_XON = 0x0474, Counter, 0, "Counter: PFC frames sent that resume at least one priority (XON, time 0); a frame can be XOFF for one priority and XON for another and then counts in both.";
    ECN_MARKED_ROCE_PACKETS = 0x0478, Counter, 0, "Counter: RoCE packets for our QP received with ECN CE (ecn_marked_roce_packets).";
    NP_CNP_SENT = 0x047C, Counter, 0, "Counter: CNPs sent by the notification point (np_cnp_sent).";
    RP_CNP_HANDLED = 0x0480, Counter, 0, "Counter: CNPs received for our QP (rp_cnp_handled).";
    DCQCN_RATE_DECREASES = 0x0484, Counter, 0, "Counter: rate cuts by the reaction points (all rate limiters).";
    WQE_PUSHES = 0x0488, Counter, 0, "Counter: send WQEs taken from the push window instead of fetched by DMA.";
    QP_CONTEXT_SWITCHES = 0x048C, Counter, 0, "Counter: QP context loads by either engine (another QP's packet or the send scheduler's next QP).";
    DOORBELL_OVERFLOWS = 0x0490, Counter, 0, "Counter: send doorbells that found the scheduler's FIFO full (the scheduler then sweeps every QP once; none is lost).";
    QP_ERR_EVENTS = 0x0494, Counter, 0, "Counter: QPs the core moved to ERR by itself (a responder error, a fatal NAK, retries exhausted, a CQ overrun); the driver QUERYs its QPs when it changes.";
    RX_REMOTE_INVALIDATIONS = 0x0498, Counter, 0, "Counter: MR table entries invalidated by a SEND with invalidate.";
    RX_INVALIDATE_ERRORS = 0x049C, Counter, 0, "Counter: SENDs with invalidate whose R_Key may not be invalidated (invalid request NAK, the QP to ERR).";
    RX_DROP_DST_MAC = 0x04A0, Counter, 0, "Counter: frames not taken because the destination MAC is not MAC_LO/MAC_HI (broadcast and multicast included: ARP requests and PFC/PAUSE frames, which their own blocks act on, count here too).";
    RX_DROP_ETHERTYPE = 0x04A4, Counter, 0, "Counter: frames to the port's MAC whose EtherType is not IPv4 (802.1Q-tagged, IPv6, other), not taken.";
    RX_DROP_IP_HEADER = 0x04A8, Counter, 0, "Counter: IPv4 packets to the port's MAC whose first byte is not 0x45 (IP options, IHL > 5, are rejected), not taken.";
    RX_DROP_DST_IP = 0x04AC, Counter, 0, "Counter: IPv4 packets whose destination address is not IPV4, not taken.";
    RX_DROP_UDP_PORT = 0x04B0, Counter, 0, "Counter: IPv4 packets to this port that are not UDP to port 4791 (RoCEv2), not taken.";
    RX_DROP_LENGTH = 0x04B4, Counter, 0, "Counter: RoCEv2 frames whose IPv4 total length is under 44 bytes or runs past the frame (truncated, runts), not taken.";
    RX_DROP_DISABLED = 0x04B8, Counter, 0, "Counter: RoCEv2 frames for this port received while CONTROL bit 0 (enable) is clear, not taken.";
    RX_DROP_VLAN = 0x04BC, Counter, 0, "Counter: frames to the port's MAC not taken because of their 802.1Q tag: untagged in VLAN mode, or tagged with a VID no entry of the port VLAN table (VLAN, VLAN_1..3) that is on has, while one is on.";
    RX_DROP_LOSSY = 0x04C0, Counter, 0, "Counter: RoCE frames of a lossy priority (not in PFC_ENABLE) dropped because the receive buffer held RX_LOSSY_WORDS or more (rx_prioN_discards, summed over the lossy priorities).";
    IMPLIED_NAK_SEQ_ERR = 0x04C4, Counter, 0, "Counter: implied NAKs (implied_nak_seq_err): READ responses (or ATOMIC ACKNOWLEDGEs) that arrived ahead of the one expected, within the READ or from a later READ or atomic, so the ones between were lost; the requester re-issued the READ (or atomic) from the missing PSN at once instead of after its ACK timeout.";
    RX_NDP_SOLICITATIONS = 0x04C8, Counter, 0, "Counter: IPv6 Neighbor Solicitations (RFC 4861) for one of the port's GID table addresses received, answered or not: duplicate address detection probes (source ::), NS with more options than one link-layer address (their checksum is not checked) and NS that arrive while an advertisement is being sent count here but get no answer.";
    TX_NDP_ADVERTISEMENTS = 0x04CC, Counter, 0, "Counter: IPv6 Neighbor Advertisements sent (solicited, override, with the port's MAC as target link-layer address).";
    RX_FCS_ERRORS = 0x04D0, Counter, 0, "Counter: frames the MAC delivered marked bad (rx_tuser with the last beat: a bad FCS, as the CMAC's rx_axis_tuser), dropped and not seen by the ARP, neighbour discovery or PFC units (ethtool rx_crc_errors_phy; part of port_rcv_errors).";
    RX_DROP_SRC_ADDR = 0x04D4, Counter, 0, "Counter: RoCE packets for a QP that receives (RTR, RTS, SQD) from an IP source address that is not the QP's peer: over IPv4 not DEST_IPV4, over IPv6 not ending in DEST_IPV4 (the peer GID's bytes 12..15). Dropped without an answer and without consuming a PSN, as rdma_rxe's check_addr: a packet misdirected or left over from an earlier connection on the QPN. Not an authentication (a source address is easily forged).";
    RP_CNP_IGNORED = 0x04D8, Counter, 0, "Counter: CNPs for a QP that holds no rate limiter while every limiter of the pool is in use by other QPs: no rate changed (rp_cnp_ignored).";
    RX_PRIO0_PAUSE = 0x04DC, Counter, 0, "Counter: PFC frames received whose class-enable vector names priority 0, whether 0 is lossless here or not (rx_prio0_pause); counts for a priority not in PFC_ENABLE show a PFC mismatch with the peer.";
    RX_PRIO1_PAUSE = 0x04E0, Counter, 0, "Counter: PFC frames received whose class-enable vector names priority 1, whether 1 is lossless here or not (rx_prio1_pause); counts for a priority not in PFC_ENABLE show a PFC mismatch with the peer.";
    RX_PRIO2_PAUSE = 0x04E4, Counter, 0, "Counter: PFC frames received whose class-enable vector names priority 2, whether 2 is lossless here or not (rx_prio2_pause); counts for a priority not in PFC_ENABLE show a PFC mismatch with the peer.";
    RX_PRIO3_PAUSE = 0x04E8, Counter, 0, "Counter: PFC frames received whose class-enable vector names priority 3, whether 3 is lossless here or not (rx_prio3_pause); counts for a priority not in PFC_ENABLE show a PFC mismatch with the peer.";
    RX_PRIO4_PAUSE = 0x04EC, Counter, 0, "Counter: PFC frames received whose class-enable vector names priority 4, whether 4 is lossless here or not (rx_prio4_pause); counts for a priority not in PFC_ENABLE show a PFC mismatch with the peer.";
    RX_PRIO5_PAUSE = 0x04F0, Counter, 0, "Counter: PFC frames received whose class-enable vector names priority 5, whether 5 is lossless here or not (rx_prio5_pause); counts for a priority not in PFC_ENABLE show a PFC mismatch with the peer.";
    RX_PRIO6_PAUSE = 0x04F4, Counter, 0, "Counter: PFC frames received whose class-enable vector names priority 6, whether 6 is lossless here or not (rx_prio6_pause); counts for a priority not in PFC_ENABLE show a PFC mismatch with the peer.";
    RX_PRIO7_PAUSE = 0x04F8, Counter, 0, "Counter: PFC frames received whose class-enable vector names priority 7, whether 7 is lossless here or not (rx_prio7_pause); counts for a priority not in PFC_ENABLE show a PFC mismatch with the peer.";
    TX_PRIO0_PAUSE = 0x0500, Counter, 0, "Counter: PFC frames sent that pause priority 0 (a non-zero time for class 0: its XOFF and refreshes; tx_prio0_pause).";
    TX_PRIO1_PAUSE = 0x0504, Counter, 0, "Counter: PFC frames sent that pause priority 1 (a non-zero time for class 1: its XOFF and refreshes; tx_prio1_pause).";
    TX_PRIO2_PAUSE = 0x0508, Counter, 0, "Counter: PFC frames sent that pause priority 2 (a non-zero time for class 2: its XOFF and refreshes; tx_prio2_pause).";
    TX_PRIO3_PAUSE = 0x050C, Counter, 0, "Counter: PFC frames sent that pause priority 3 (a non-zero time for class 3: its XOFF and refreshes; tx_prio3_pause).";
    TX_PRIO4_PAUSE = 0x0510, Counter, 0, "Counter: PFC frames sent that pause priority 4 (a non-zero time for class 4: its XOFF and refreshes; tx_prio4_pause).";
    TX_PRIO5_PAUSE = 0x0514, Counter, 0, "Counter: PFC frames sent that pause priority 5 (a non-zero time for class 5: its XOFF and refreshes; tx_prio5_pause).";
    TX_PRIO6_PAUSE = 0x0518, Counter, 0, "Counter: PFC frames sent that pause priority 6 (a non-zero time for class 6: its XOFF and refreshes; tx_prio6_pause).";
    TX_PRIO7_PAUSE = 0x051C, Counter, 0, "Counter: PFC frames sent that pause priority 7 (a non-zero time for class 7: its XOFF and refreshes; tx_prio7_pause).";
    WQE_PUSH_0 = 0x0600, Rw, 0, "WQE push window: bytes 0..3 of a send WQE (little-endian), written before WQE_PUSH_DB.";
    WQE_PUSH_1 = 0x0604, Rw, 0, "WQE push window: bytes 4..7 of a send WQE (little-endian), written before WQE_PUSH_DB.";
    WQE_PUSH_2 = 0x0608, Rw, 0, "WQE push window: bytes 8..11 of a send WQE (little-endian), written before WQE_PUSH_DB.";
    WQE_PUSH_3 = 0x060C, Rw, 0, "WQE push window: bytes 12..15 of a send WQE (little-endian), written before WQE_PUSH_DB.";
    WQE_PUSH_4 = 0x0610, Rw, 0, "WQE push window: bytes 16..19 of a send WQE (little-endian), written before WQE_PUSH_DB.";
    WQE_PUSH_5 = 0x0614, Rw, 0, "WQE push window: bytes 20..23 of a send WQE (little-endian), written before WQE_PUSH_DB.";
    WQE_PUSH_6 = 0x0618, Rw, 0, "WQE push window: bytes 24..27 of a send WQE (little-endian), written before WQE_PUSH_DB.";
    WQE_PUSH_7 = 0x061C, Rw, 0, "WQE push window: bytes 28..31 of a send WQE (little-endian), written before WQE_PUSH_DB.";
    WQE_PUSH_8 = 0x0620, Rw, 0, "WQE push window: bytes 32..35 of a send WQE (little-endian), written before WQE_PUSH_DB.";
    WQE_PUSH_9 = 0x0624, Rw, 0, "WQE push window: bytes 36..39 of a send WQE (little-endian), written before WQE_PUSH_DB.";
    WQE_PUSH_10 = 0x0628, Rw, 0, "WQE push window: bytes 40..43 of a send WQE (little-endian), written before WQE_PUSH_DB.";
    WQE_PUSH_11 = 0x062C, Rw, 0, "WQE push window: bytes 44..47 of a send WQE (little-endian), written before WQE_PUSH_DB.";
    WQE_PUSH_12 = 0x0630, Rw, 0, "WQE push window: bytes 48..51 of a send WQE (little-endian), written before WQE_PUSH_DB.";
    WQE_PUSH_13 = 0x0634, Rw, 0, "WQE push window: bytes 52..55 of a send WQE (little-endian), written before WQE_PUSH_DB.";
    WQE_PUSH_14 = 0x0638, Rw, 0, "WQE push window: bytes 56..59 of a send WQE (little-endian), written before WQE_PUSH_DB.";
    WQE_PUSH_15 = 0x063C, Rw, 0, "WQE push window: bytes 60..63 of a send WQE (little-endian), written before WQE_PUSH_DB.";
    WQE_PUSH_DB = 0x0640, RwCore, 0, "WQE push doorbell: bit 31 valid, bits 29:16 the QPN, bits 15:0 the send-queue index the pushed WQE is for; the core clears it when it takes the WQE.";
    GID_0_0 = 0x0680, Rw, 0, "Port GID table entry 0, bytes 0..3 as a big-endian word (byte 0 in bits 31..24). Entries 0..3 are the port's IPv6 addresses (RoCEv2 GIDs); all zero = empty. An IPv6 RoCE frame is taken only when its destination address is a non-empty entry (else RX_DROP_DST_IP); an IPv6 QP sends from the entry its QP_IPV6 bits 2..1 name. The port's IPv4 address is IPV4 (its GID ::ffff:IPV4 is the driver's, not an entry here).";
    GID_0_1 = 0x0684, Rw, 0, "GID table entry 0, bytes 4..7.";
    GID_0_2 = 0x0688, Rw, 0, "GID table entry 0, bytes 8..11.";
    GID_0_3 = 0x068C, Rw, 0, "GID table entry 0, bytes 12..15.";
    GID_1_0 = 0x0690, Rw, 0, "Port GID table entry 1 (an IPv6 address of the port; all zero = empty): bytes 0..3, big-endian word.";
    GID_1_1 = 0x0694, Rw, 0, "GID table entry 1, bytes 4..7.";
    GID_1_2 = 0x0698, Rw, 0, "GID table entry 1, bytes 8..11.";
    GID_1_3 = 0x069C, Rw, 0, "GID table entry 1, bytes 12..15.";
    GID_2_0 = 0x06A0, Rw, 0, "Port GID table entry 2 (an IPv6 address of the port; all zero = empty): bytes 0..3, big-endian word.";
    GID_2_1 = 0x06A4, Rw, 0, "GID table entry 2, bytes 4..7.";
    GID_2_2 = 0x06A8, Rw, 0, "GID table entry 2, bytes 8..11.";
    GID_2_3 = 0x06AC, Rw, 0, "GID table entry 2, bytes 12..15.";
    GID_3_0 = 0x06B0, Rw, 0, "Port GID table entry 3 (an IPv6 address of the port; all zero = empty): bytes 0..3, big-endian word.";
    GID_3_1 = 0x06B4, Rw, 0, "GID table entry 3, bytes 4..7.";
    GID_3_2 = 0x06B8, Rw, 0, "GID table entry 3, bytes 8..11.";
    GID_3_3 = 0x06BC, Rw, 0, "GID table entry 3, bytes 12..15.";
    VLAN_1 = 0x06C0, Rw, 0, "Port VLAN table entry 1: bit 16 on, bits 0..11 a VID (1..4094). While on, frames tagged with the VID are taken (tag removed), as for VLAN in VLAN mode, and a QP whose QP_VLAN names this entry sends tagged with it. Unlike VLAN mode it does not stop untagged frames: the port stays on its own VLAN (or none) too.";
    VLAN_2 = 0x06C4, Rw, 0, "Port VLAN table entry 2 (VLAN_1's layout).";
    VLAN_3 = 0x06C8, Rw, 0, "Port VLAN table entry 3 (VLAN_1's layout).";
    QP_VLAN = 0x06CC, Rw, 0, "QP window (QP_CMD MODIFY stores it with the rest): bit 16, the QP's packets, its responses and CNPs leave tagged with the VID of port VLAN table entry bits 1..0 (0 = VLAN, 1..3 = VLAN_n) and PCP = the frame's priority (its DSCP through DSCP_PRIO_MAP_n), whether or not the entry is on (the driver names only entries that are); clear, as VLAN says (its VID in VLAN mode, else untagged). Linux's model: the VLAN of the netdev of the QP's source GID.";
    QP_MAX_RD_ATOMIC = 0x06D0, Rw, 1, "QP window (QP_CMD MODIFY stores it with the rest): max_rd_atomic, the RDMA READ and atomic requests the QP's requester keeps outstanding at once (1..RD_ATOMIC_DEPTH, the RdAtomic block's param; 0 acts as 1). READs and atomics beyond it wait for the oldest to complete. A READ with a scatter list (NUM_SGE > 1) always waits until none is outstanding.";
    TX_STATUS = 0x06D4, Ro, 0x1000_6200, "The transmit engine's requester state, for finding out why a QP's send queue stands still (live, of the QP in its turn; after reset 0x10006200: idle between turns, nothing outstanding, READs may go): bit 0 a WQE in progress, 1 it is done (completing), 2 going back (refetch pending), 3 RNR wait, 4 next WQE claimed, 5 next WQE fetched, 6 a payload prefetch claimed, 7 the WQE's READ/atomic context is queued, 8 reserved (0), 9 the WQE may send (READ/atomic room), 10 an ACK/NAK latched, 11 it waits for a READ to land, 12 a READ response job, 13 between turns, 14 the ring head is valid, 15 the head is a READ/atomic, 16..19 outstanding ring entries, 20..22 READ/atomic contexts queued, 24..26 of them not landed, 28 Idle, 29 payload reads in flight, 30 paused (hold), 31 enabled.";
    DCQCN_LIMITER_QPN_0 = 0x06D8, Ro, 0, "Rate limiter 0 of the DCQCN pool: bit 31 in use, bits 15..0 the QP it paces (the QP whose CNP took it; let go when the QP is back at the line rate with nothing owed).";
    DCQCN_LIMITER_QPN_1 = 0x06DC, Ro, 0, "Rate limiter 1 (DCQCN_LIMITER_QPN_0's layout).";
    DCQCN_LIMITER_QPN_2 = 0x06E0, Ro, 0, "Rate limiter 2 (DCQCN_LIMITER_QPN_0's layout).";
    DCQCN_LIMITER_QPN_3 = 0x06E4, Ro, 0, "Rate limiter 3 (DCQCN_LIMITER_QPN_0's layout).";
    DCQCN_LIMITER_RATE_0 = 0x06E8, Ro, 2048, "Rate limiter 0's current rate RC, bytes per cycle x 256 (meaningful while in use).";
    DCQCN_LIMITER_RATE_1 = 0x06EC, Ro, 2048, "Rate limiter 1's rate (DCQCN_LIMITER_RATE_0's layout).";
    DCQCN_LIMITER_RATE_2 = 0x06F0, Ro, 2048, "Rate limiter 2's rate (DCQCN_LIMITER_RATE_0's layout).";
    DCQCN_LIMITER_RATE_3 = 0x06F4, Ro, 2048, "Rate limiter 3's rate (DCQCN_LIMITER_RATE_0's layout).";
}

/// What a register block is, as its header names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u16)]
pub enum BlockKind {
    /// Identification, control, port address and this directory.
    Core = 1,
    /// QP context; param: number of QPs.
    Qp = 2,
    /// PFC, PAUSE, CNP and DCQCN settings; param: features (bit 0 ARP, bit 1 PFC/PAUSE, bit 2 DCQCN,
    /// bit 3 802.1Q VLAN, bit 4 priority classification: PRIO_TRUST, DSCP_PRIO_MAP_n, RX_LOSSY_WORDS,
    /// bit 5 RoCEv2 over IPv6 (QP_IPV6, the GidTable block), bit 6 IPv6 neighbour discovery).
    Ethernet = 3,
    /// Memory-region table (the MR window and MR_CMD; MR_TABLE_LOG gives its size); param: 0.
    MrTable = 4,
    /// Send, receive and completion rings; param: largest ring as log2 of entries.
    Queues = 5,
    /// Counters; param: number of counters.
    Counters = 6,
    /// WQE push window (BlueFlame-style); param: window bytes.
    WqePush = 7,
    /// Port GID table (IPv6 addresses, `GID_n_w`); param: number of entries.
    GidTable = 8,
    /// Port VLAN table (`VLAN` is entry 0, `VLAN_1..3`) and the QP window's `QP_VLAN`; param: number of
    /// entries.
    VlanTable = 9,
    /// The requester: outstanding READ/atomic requests per QP (the QP window's `QP_MAX_RD_ATOMIC`) and
    /// the transmit engine's state (`TX_STATUS`); param bits 7..0: the READs/atomics a QP may keep
    /// outstanding (max_qp_init_rd_atom); from version 2, bits 15..8: the atomic results a QP's
    /// responder keeps for duplicates (max_qp_rd_atom). Without this block a QP keeps one of each.
    RdAtomic = 10,
    /// DCQCN rate limiters lent to QPs (`DCQCN_LIMITER_QPN_n`, `DCQCN_LIMITER_RATE_n`); param: number
    /// of limiters. Without this block the reaction point paces the whole port.
    RateLimiters = 11,
}

impl BlockKind {
    pub fn from_u16(v: u16) -> Option<BlockKind> {
        use BlockKind::*;
        [
            Core,
            Qp,
            Ethernet,
            MrTable,
            Queues,
            Counters,
            WqePush,
            GidTable,
            VlanTable,
            RdAtomic,
            RateLimiters,
        ]
        .into_iter()
        .find(|k| *k as u16 == v)
    }
}

/// One register block: where it is, its layout version and one kind-specific parameter.
#[derive(Clone, Copy, Debug)]
pub struct Block {
    pub kind: BlockKind,
    pub version: u16,
    pub base: u16,
    pub size: u16,
    pub param: u32,
}

/// Offset of the first block header; headers follow each other every [`BLOCK_HEADER_BYTES`].
pub const BLOCK_DIR_FIRST: u16 = 0x0040;
/// A header is four words: `kind << 16 | version`, offset of the next header (0 ends the chain),
/// `base << 16 | size`, and the parameter.
pub const BLOCK_HEADER_BYTES: u16 = 0x10;

/// The device's blocks, in directory order. Drivers walk the chain from `BLOCK_DIR` and size themselves
/// from it (number of QPs, MR table entries, ring sizes) instead of assuming this generation's values.
pub const BLOCKS: &[Block] = &[
    Block {
        kind: BlockKind::Core,
        version: 1,
        base: 0x0000,
        size: 0x0100,
        param: 0,
    },
    Block {
        kind: BlockKind::Qp,
        // 2: IPv6 address vectors (DEST_GID_0..2, QP_IPV6); 3: QP_HOP_LIMIT, QP_FLOW_LABEL.
        version: 3,
        base: 0x0100,
        size: 0x0080,
        param: 1,
    },
    Block {
        kind: BlockKind::Ethernet,
        version: 1,
        base: 0x0180,
        size: 0x0080,
        param: 0b111_1111,
    },
    Block {
        kind: BlockKind::MrTable,
        // 3: MR_LEN_HI (64-bit MR lengths).
        version: 3,
        base: MR_BASE_LO,
        size: 0x0028,
        param: 0,
    },
    Block {
        kind: BlockKind::Queues,
        version: 1,
        base: 0x0300,
        size: 0x0060,
        param: 15,
    },
    Block {
        kind: BlockKind::Counters,
        version: 1,
        base: 0x0400,
        size: 0x0200,
        param: COUNTERS as u32,
    },
    Block {
        kind: BlockKind::WqePush,
        version: 1,
        base: WQE_PUSH_0,
        size: 0x0044,
        param: 64,
    },
    Block {
        kind: BlockKind::GidTable,
        version: 1,
        base: GID_0_0,
        size: 0x0040,
        param: GID_TABLE_LEN as u32,
    },
    Block {
        kind: BlockKind::VlanTable,
        version: 1,
        base: VLAN_1,
        size: 0x0010,
        param: VLAN_TABLE_LEN as u32,
    },
    Block {
        kind: BlockKind::RdAtomic,
        version: 2,
        base: QP_MAX_RD_ATOMIC,
        size: 0x0008,
        param: (ATOMIC_RESULTS as u32) << 8 | RD_ATOMIC_DEPTH as u32,
    },
    Block {
        kind: BlockKind::RateLimiters,
        version: 1,
        base: DCQCN_LIMITER_QPN_0,
        size: 0x0020,
        param: DCQCN_LIMITERS as u32,
    },
];

/// Number of counter registers.
pub const COUNTERS: usize = {
    let mut n = 0;
    let mut i = 0;
    while i < REGISTERS.len() {
        if matches!(REGISTERS[i].access, Access::Counter)
            && REGISTERS[i].offset >= 0x0400
            && REGISTERS[i].offset < 0x0600
        {
            n += 1;
        }
        i += 1;
    }
    n
};

/// The directory as (offset, value) words, for the RTL's constant reads and for test doubles.
pub fn block_header_words() -> Vec<(u16, u32)> {
    let mut v = Vec::new();
    for (i, b) in BLOCKS.iter().enumerate() {
        let at = BLOCK_DIR_FIRST + i as u16 * BLOCK_HEADER_BYTES;
        let next = if i + 1 < BLOCKS.len() {
            at + BLOCK_HEADER_BYTES
        } else {
            0
        };
        v.push((at, (b.kind as u32) << 16 | b.version as u32));
        v.push((at + 4, next as u32));
        v.push((at + 8, (b.base as u32) << 16 | b.size as u32));
        v.push((at + 12, b.param));
    }
    v
}

/// SQ_LOG_SIZE bit 5: 128-byte send WQEs with gather lists (`host::WQE_128_BYTES`).
pub const SQ_WQE_128: u32 = 1 << 5;
/// RQ_LOG_SIZE bit 5: 128-byte receive WQEs with scatter lists (`host::WQE_128_BYTES`).
pub const RQ_WQE_128: u32 = 1 << 5;
/// `QP_CMD` bits (any of the first four together; CLEAR alone).
pub const QP_CMD_MODIFY: u32 = 1;
pub const QP_CMD_INIT_RQ: u32 = 2;
pub const QP_CMD_INIT_SQ: u32 = 4;
pub const QP_CMD_QUERY: u32 = 8;
pub const QP_CMD_CLEAR: u32 = 16;
/// `MR_CMD` bits.
pub const MR_CMD_WRITE: u32 = 1;
pub const MR_CMD_INVALIDATE: u32 = 2;
pub const MR_CMD_CLEAR: u32 = 16;
/// Bits of a key below the MR table index: the variant.
pub const MR_KEY_VARIANT_BITS: u32 = 8;
/// `TX_STATUS` bit 6: a payload read claimed ahead, not yet taken by the host.
pub const TX_STATUS_PREFETCH_CLAIMED: u32 = 1 << 6;
/// `TX_STATUS` bit 12: a READ response job (the responder reading host memory).
pub const TX_STATUS_READ_RESPONSE: u32 = 1 << 12;
/// `TX_STATUS` bit 29: payload reads in flight.
pub const TX_STATUS_PAYLOAD_READS: u32 = 1 << 29;

/// Entries of the port GID table (`GID_n_w`).
pub const GID_TABLE_LEN: usize = 4;
/// `QP_IPV6` bit 0: IPv6; bits 2..1: the source GID's entry.
pub const QP_IPV6_ON: u32 = 1;
pub const QP_IPV6_SGID_SHIFT: u32 = 1;

/// `CONTROL` bit 0.
pub const CONTROL_ENABLE: u32 = 1;
/// `VLAN` bit 16: VLAN mode (bits 0..11 are the VID).
pub const VLAN_MODE: u32 = 1 << 16;
/// READ/atomic requests a QP's requester may keep outstanding (`QP_MAX_RD_ATOMIC`; the transmit
/// engine's READ context queue).
pub const RD_ATOMIC_DEPTH: usize = 4;
/// Atomic results a QP's responder keeps to answer duplicates (max_qp_rd_atom, the limit of
/// max_dest_rd_atomic): the receive engine's atomic result cache, held in the QP context.
pub const ATOMIC_RESULTS: usize = 4;
/// DCQCN rate limiters (reaction points) the port lends to the QPs that receive CNPs
/// (`net::rate_limiters`; the RateLimiters block).
pub const DCQCN_LIMITERS: usize = 4;
/// Entries of the port VLAN table: `VLAN` (entry 0) and `VLAN_1..3`.
pub const VLAN_TABLE_LEN: usize = 4;
/// `VLAN_n` bit 16: the entry is on.
pub const VLAN_ON: u32 = 1 << 16;
/// `QP_VLAN` bit 16: the QP sends on the VLAN of entry bits 1..0.
pub const QP_VLAN_ON: u32 = 1 << 16;

/// Look a register up by offset.
pub fn by_offset(offset: u16) -> Option<&'static Register> {
    REGISTERS.iter().find(|r| r.offset == offset)
}

/// The register map as a Markdown table (`docs/registers.md` is this text).
pub fn markdown() -> String {
    let mut s = String::from(
        "# Register map\n\nGenerated from `proto/src/regs.rs` by `cargo run -p rocenic-proto --bin regs-doc`; do not edit.\n\n\
         All registers are 32 bits wide.\n\n\
         | offset | name | access | reset | meaning |\n|---|---|---|---|---|\n",
    );
    for r in REGISTERS {
        let acc = match r.access {
            Access::Ro => "RO",
            Access::Rw => "RW",
            Access::RwCore => "RW (core updates)",
            Access::Counter => "counter",
            Access::Const => "RO (constant)",
        };
        s += &format!(
            "| 0x{:04X} | `{}` | {} | 0x{:X} | {} |\n",
            r.offset, r.name, acc, r.reset, r.doc
        );
    }
    s += "\n## Register blocks\n\n\
          A chain of block headers starts at `BLOCK_DIR`; each header is four read-only words: \
          `kind << 16 | version`, the offset of the next header (0 ends the chain), `base << 16 | size`, and a \
          parameter. A driver discovers the device's features and sizes from it.\n\n\
          | header | kind | version | base | size | parameter |\n|---|---|---|---|---|---|\n";
    for (i, b) in BLOCKS.iter().enumerate() {
        s += &format!(
            "| 0x{:04X} | {:?} ({}) | {} | 0x{:04X} | 0x{:X} | {} |\n",
            BLOCK_DIR_FIRST + i as u16 * BLOCK_HEADER_BYTES,
            b.kind,
            b.kind as u16,
            b.version,
            b.base,
            b.size,
            b.param
        );
    }
    s
}

/// The register map as a Python module (`testbench/rocenic_regs.py`) for cocotb benches and scripts:
/// one constant per offset, `RESET` and `ACCESS` by name, `ID_VALUE` and the MR_CMD and key constants.
pub fn python() -> String {
    let mut s = String::from(
        "\"\"\"rocenic register map, generated from proto/src/regs.rs by\n\
         `cargo run -p rocenic-proto --bin regs-doc -- --python`; do not edit.\"\"\"\n\n",
    );
    s += &format!("ID_VALUE = 0x{ID_VALUE:08X}\nVERSION_VALUE = 0x{VERSION_VALUE:08X}\n");
    s += &format!(
        "QP_CMD_MODIFY = {QP_CMD_MODIFY}\nQP_CMD_INIT_RQ = {QP_CMD_INIT_RQ}\nQP_CMD_INIT_SQ = {QP_CMD_INIT_SQ}\nQP_CMD_QUERY = {QP_CMD_QUERY}\nQP_CMD_CLEAR = {QP_CMD_CLEAR}\nMR_CMD_WRITE = {MR_CMD_WRITE}\nMR_CMD_INVALIDATE = {MR_CMD_INVALIDATE}\nMR_CMD_CLEAR = {MR_CMD_CLEAR}\nMR_KEY_VARIANT_BITS = {MR_KEY_VARIANT_BITS}\n\n"
    );
    for r in REGISTERS {
        s += &format!("{} = 0x{:04X}\n", r.name, r.offset);
    }
    s += "\n# Reset value and access of each register, by name.\nRESET = {\n";
    for r in REGISTERS {
        s += &format!("    \"{}\": 0x{:X},\n", r.name, r.reset);
    }
    s += "}\nACCESS = {\n";
    for r in REGISTERS {
        let acc = match r.access {
            Access::Ro => "ro",
            Access::Rw => "rw",
            Access::RwCore => "rw_core",
            Access::Counter => "counter",
            Access::Const => "const",
        };
        s += &format!("    \"{}\": \"{acc}\",\n", r.name);
    }
    s += "}\n\n# The register-block directory: (header offset, value) of every header word.\nBLOCK_HEADER_WORDS = [\n";
    for (off, v) in block_header_words() {
        s += &format!("    (0x{off:04X}, 0x{v:08X}),\n");
    }
    s += "]\n";
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_directory_describes_the_map() {
        let words = block_header_words();
        // Headers sit inside the core block and collide with no register.
        for (off, _) in &words {
            assert!(
                REGISTERS.iter().all(|r| r.offset != *off),
                "header word {off:#x} is a register"
            );
            assert!(*off < BLOCKS[0].size);
        }
        // Every register belongs to exactly one block, and blocks do not overlap.
        for r in REGISTERS {
            let owners: Vec<_> = BLOCKS
                .iter()
                .filter(|b| (b.base..b.base + b.size).contains(&r.offset))
                .collect();
            assert_eq!(owners.len(), 1, "{} at {:#x}", r.name, r.offset);
        }
        // The chain ends, and BLOCK_DIR points at its start.
        assert_eq!(by_offset(BLOCK_DIR).unwrap().reset, words[0].0 as u32);
        assert_eq!(words[words.len() - 3].1, 0, "last header's next is 0");
        assert_eq!(
            COUNTERS,
            REGISTERS
                .iter()
                .filter(|r| r.access == Access::Counter && r.offset >= 0x400 && r.offset < 0x600)
                .count()
        );
        const { assert!(COUNTERS > 30) };
    }

    #[test]
    fn offsets_are_unique_aligned_and_sorted() {
        for w in REGISTERS.windows(2) {
            assert!(w[0].offset < w[1].offset, "{} and {}", w[0].name, w[1].name);
        }
        assert!(REGISTERS.iter().all(|r| r.offset % 4 == 0));
    }

    #[test]
    fn lookup_by_offset() {
        assert_eq!(by_offset(MR_KEY).unwrap().name, "MR_KEY");
        assert_eq!(by_offset(SQ_PI).unwrap().name, "SQ_PI");
        assert!(by_offset(0x0FFC).is_none());
    }
}
