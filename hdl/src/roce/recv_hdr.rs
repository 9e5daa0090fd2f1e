//! Header capture of a received RoCEv2 packet (the first half of rxe's `recv`): the frame's first words
//! into a 1,024-bit register, and the header fields and the opcode's class read from it in two
//! registered stages, so what the receive checks and the roles read comes from flip-flops.
//!
//! The caller clears the register at a frame's start (`clear`) and writes frame word `slot` with
//! `fill` (little-endian lanes, as the receive buffer holds them), with `v6` set from the metadata
//! before the first word. Timing, with T the first cycle after the last word is written:
//! - **Stage 1** (valid from T): every field of `ipv4_frame`'s layout (an IPv6 packet's transport
//!   headers read 20 bytes later, so one set of offsets serves both), the opcode's class from the
//!   opcode table (`roce::opcode_decode`), and `need_words`, the words the header takes (how the caller
//!   knows when to stop reading: a table of opcode and IP version, so no add follows the decode). Stage 1
//!   is taken from the register's next value, so it costs no cycle after the last word.
//! - **Stage 2** (valid from T + 1): what is computed from stage 1: the payload length (IP length less
//!   the headers, the pad and the ICRC), the immediate (after a RETH or the BTH), the combined classes
//!   (a WRITE with immediate, a message's last packet, ...), the AETH syndrome's kind, the header's
//!   length in words and bytes, and the opcode's class again (`is_*`): the receive checks load from
//!   stage 1 at T, the roles decide from T + 1 on, so their decisions start at a flip-flop.
//!
//! Both stages follow the register every cycle: while it holds, they hold.
use super::opcode_decode::{handled, OpcodeDecode};
use crate::prim::byteswap::{be_shift, ByteSwap};
use crate::prim::slot_fill::SlotFill;
use rocenic_proto::aeth;
use rocenic_proto::opcode::{hdr, OpcodeInfo, Operation, Position, OPCODES};
use rocenic_proto::wire::ipv4_frame as F;
use rocenic_proto::wire::ipv6_frame as G;
use rocenic_proto::wire::len;
use rust_hdl::prelude::*;

/// Bytes of the header register: Ethernet through an AtomicETH over IPv6 (102) fits.
pub const HDR_BYTES: usize = 128;
const HDR_BITS: usize = HDR_BYTES * 8;

/// Bytes a payload length leaves out of the IP length: IPv4's header (IPv6's payload length has
/// none), UDP, BTH and ICRC.
const IP4_OVERHEAD: usize = len::IPV4 + len::UDP + len::BTH + len::ICRC;
const IP6_OVERHEAD: usize = len::UDP + len::BTH + len::ICRC;

#[derive(LogicBlock)]
pub struct RecvHdr<const W: usize> {
    pub clock: Signal<In, Clock>,
    /// Empty the register (a new frame).
    pub clear: Signal<In, bool>,
    /// Write `data` as word `slot` of the frame.
    pub fill: Signal<In, bool>,
    pub slot: Signal<In, Bits<8>>,
    pub data: Signal<In, Bits<W>>,
    /// The frame is IPv6: set before the first word and held while its fields are read.
    pub v6: Signal<In, bool>,
    // Stage 1.
    pub psn: Signal<Out, Bits<24>>,
    pub dqpn: Signal<Out, Bits<24>>,
    /// BTH AckReq and SolicitedEvent.
    pub ack_req: Signal<Out, bool>,
    pub se: Signal<Out, bool>,
    /// RETH (an AtomicETH has its VA and R_Key at the same offsets).
    pub va: Signal<Out, Bits<64>>,
    pub rkey: Signal<Out, Bits<32>>,
    pub dmalen: Signal<Out, Bits<32>>,
    pub syndrome: Signal<Out, Bits<8>>,
    /// AtomicETH swap (or add) and compare data; AtomicAckETH original data.
    pub swap: Signal<Out, Bits<64>>,
    pub cmp: Signal<Out, Bits<64>>,
    pub orig: Signal<Out, Bits<64>>,
    /// The IP source address (IPv6: its last 32 bits); the ECN field is CE.
    pub sip: Signal<Out, Bits<32>>,
    pub ce: Signal<Out, bool>,
    /// The opcode's class (IBA Table 35, `roce::opcode_decode`).
    pub send: Signal<Out, bool>,
    pub write: Signal<Out, bool>,
    pub read_request: Signal<Out, bool>,
    pub read_response: Signal<Out, bool>,
    pub acknowledge: Signal<Out, bool>,
    pub atomic_acknowledge: Signal<Out, bool>,
    /// CompareSwap or FetchAdd.
    pub atomic: Signal<Out, bool>,
    pub fetch_add: Signal<Out, bool>,
    pub cnp: Signal<Out, bool>,
    pub first: Signal<Out, bool>,
    pub middle: Signal<Out, bool>,
    pub last: Signal<Out, bool>,
    pub only: Signal<Out, bool>,
    pub reth: Signal<Out, bool>,
    pub imm: Signal<Out, bool>,
    pub ieth: Signal<Out, bool>,
    /// Frame words (of W bits) the headers take, up to the end of the extension headers.
    pub need_words: Signal<Out, Bits<16>>,
    /// Which R_Key the packet has the MR table check (stage 1, from a table of its own so no decode
    /// precedes it): always (an AtomicETH's, an IETH's); a RETH's when its DMA length is not 0; the
    /// WRITE in progress's (a WRITE MIDDLE or LAST) when that WRITE's length is not 0.
    pub key_always: Signal<Out, bool>,
    pub key_reth: Signal<Out, bool>,
    pub key_cont: Signal<Out, bool>,
    /// The IETH's R_Key (first stage; the IETH sits where ImmDt does after the BTH): the key a SEND
    /// with invalidate looks up, known with the other keys.
    pub ieth_key: Signal<Out, Bits<32>>,
    // Stage 2.
    /// Payload bytes: the IP length less IP, UDP, BTH, extension headers, pad and ICRC.
    pub pay_len: Signal<Out, Bits<16>>,
    /// ImmDt (after a RETH or after the BTH) or the IETH's R_Key, which sits in its place.
    pub imm_data: Signal<Out, Bits<32>>,
    /// A WRITE with immediate (LAST or ONLY): it consumes a receive WQE.
    pub write_imm: Signal<Out, bool>,
    /// MIDDLE or LAST (inside a message); FIRST or MIDDLE (a message continues after it).
    pub cont: Signal<Out, bool>,
    pub not_last: Signal<Out, bool>,
    /// SEND or WRITE MIDDLE/LAST: continue a message of that kind.
    pub send_cont: Signal<Out, bool>,
    pub write_cont: Signal<Out, bool>,
    /// The last packet of a SEND or WRITE message.
    pub msg_last: Signal<Out, bool>,
    /// The AETH syndrome is an ACK, an RNR NAK, or one of the NAK codes.
    pub syn_ack: Signal<Out, bool>,
    pub syn_rnr: Signal<Out, bool>,
    pub syn_seq: Signal<Out, bool>,
    pub syn_inv: Signal<Out, bool>,
    pub syn_acc: Signal<Out, bool>,
    /// The RETH's DMA length is zero; within a READ's limit of 2^31 bytes (IBA §9.4.3).
    pub dmalen_zero: Signal<Out, bool>,
    pub dmalen_max: Signal<Out, bool>,
    /// The VA is not 8-byte aligned (an atomic's must be, §9.4.5).
    pub va_odd: Signal<Out, bool>,
    /// The header's length in bytes; whole words of it (the payload's first word), and the payload's
    /// byte offset in that word.
    pub hdr_len: Signal<Out, Bits<16>>,
    pub hdr_words: Signal<Out, Bits<16>>,
    pub pay_shift: Signal<Out, Bits<16>>,
    /// The opcode's class again, a stage later: what the roles decide on from the cycle after the
    /// receive checks load, with no table decode in front of their decisions.
    pub is_send: Signal<Out, bool>,
    pub is_write: Signal<Out, bool>,
    pub is_read_request: Signal<Out, bool>,
    pub is_read_response: Signal<Out, bool>,
    pub is_acknowledge: Signal<Out, bool>,
    pub is_atomic_acknowledge: Signal<Out, bool>,
    pub is_atomic: Signal<Out, bool>,
    pub is_fetch_add: Signal<Out, bool>,
    pub is_cnp: Signal<Out, bool>,
    pub is_reth: Signal<Out, bool>,
    pub is_imm: Signal<Out, bool>,
    pub is_ieth: Signal<Out, bool>,
    hdr: DFF<Bits<HDR_BITS>>,
    put: SlotFill<HDR_BITS, W>,
    swap_b: ByteSwap<HDR_BITS>,
    dec: OpcodeDecode,
    /// Frame words the headers take, by IP version (address bit 8) and opcode.
    need_rom: ROM<Bits<8>, 9>,
    s_need: DFF<Bits<8>>,
    /// What the IP length counts beyond the payload but the pad (the IPv4 header, UDP, BTH, the
    /// opcode's extension headers, ICRC), looked up with the opcode as the first stage takes it, so
    /// the second stage's payload length is one subtract from registers.
    over_rom: ROM<Bits<8>, 9>,
    s_over: DFF<Bits<8>>,
    key_rom: ROM<Bits<8>, 9>,
    s_key: DFF<Bits<8>>,
    /// The register's next value, big-endian; with the transport headers at IPv4 offsets.
    nx: Signal<Local, Bits<HDR_BITS>>,
    hv: Signal<Local, Bits<HDR_BITS>>,
    /// Stage 1 registers.
    s_v6: DFF<bool>,
    s_opcode: DFF<Bits<8>>,
    s_pad: DFF<Bits<2>>,
    s_psn: DFF<Bits<24>>,
    s_dqpn: DFF<Bits<24>>,
    s_ack_req: DFF<bool>,
    s_se: DFF<bool>,
    s_va: DFF<Bits<64>>,
    s_rkey: DFF<Bits<32>>,
    s_dmalen: DFF<Bits<32>>,
    s_syn: DFF<Bits<8>>,
    s_imm: DFF<Bits<32>>,
    s_imm_reth: DFF<Bits<32>>,
    s_swap: DFF<Bits<64>>,
    s_cmp: DFF<Bits<64>>,
    s_orig: DFF<Bits<64>>,
    s_sip: DFF<Bits<32>>,
    s_ce: DFF<bool>,
    /// IPv4 total length or IPv6 payload length.
    s_ip_len: DFF<Bits<16>>,
    /// The header's length in bytes, from the opcode's extension headers.
    h_len: Signal<Local, Bits<16>>,
    /// Bytes of the IP length that are not payload.
    over: Signal<Local, Bits<16>>,
    /// Stage 2 registers.
    t_pay_len: DFF<Bits<16>>,
    t_imm: DFF<Bits<32>>,
    t_write_imm: DFF<bool>,
    c_send: DFF<bool>,
    c_write: DFF<bool>,
    c_read_request: DFF<bool>,
    c_read_response: DFF<bool>,
    c_acknowledge: DFF<bool>,
    c_atomic_acknowledge: DFF<bool>,
    c_atomic: DFF<bool>,
    c_fetch_add: DFF<bool>,
    c_cnp: DFF<bool>,
    c_reth: DFF<bool>,
    c_imm: DFF<bool>,
    c_ieth: DFF<bool>,
    t_cont: DFF<bool>,
    t_not_last: DFF<bool>,
    t_send_cont: DFF<bool>,
    t_write_cont: DFF<bool>,
    t_msg_last: DFF<bool>,
    t_syn_ack: DFF<bool>,
    t_syn_rnr: DFF<bool>,
    t_syn_seq: DFF<bool>,
    t_syn_inv: DFF<bool>,
    t_syn_acc: DFF<bool>,
    t_dmalen_zero: DFF<bool>,
    t_dmalen_max: DFF<bool>,
    t_va_odd: DFF<bool>,
    t_hdr_len: DFF<Bits<16>>,
    t_hdr_words: DFF<Bits<16>>,
    t_pay_shift: DFF<Bits<16>>,
    bth_end: Constant<Bits<16>>,
    bth_end6: Constant<Bits<16>>,
    v6_shift: Constant<Bits<16>>,
    beat_m1: Constant<Bits<16>>,
    log_b: Constant<Bits<16>>,
    syn_type: Constant<Bits<8>>,
    syn_ack_k: Constant<Bits<8>>,
    syn_rnr_k: Constant<Bits<8>>,
    syn_seq_k: Constant<Bits<8>>,
    syn_inv_k: Constant<Bits<8>>,
    syn_acc_k: Constant<Bits<8>>,
    read_max: Constant<Bits<32>>,
    sh_ip_len: Constant<Bits<16>>,
    sh_ip6_plen: Constant<Bits<16>>,
    sh_tos: Constant<Bits<16>>,
    sh_ip6_tc: Constant<Bits<16>>,
    sh_sip: Constant<Bits<16>>,
    sh_sip6: Constant<Bits<16>>,
    sh_opcode: Constant<Bits<16>>,
    sh_pad: Constant<Bits<16>>,
    sh_se: Constant<Bits<16>>,
    sh_ackreq: Constant<Bits<16>>,
    sh_dqpn: Constant<Bits<16>>,
    sh_psn: Constant<Bits<16>>,
    sh_va: Constant<Bits<16>>,
    sh_rkey: Constant<Bits<16>>,
    sh_dmalen: Constant<Bits<16>>,
    sh_syn: Constant<Bits<16>>,
    sh_imm: Constant<Bits<16>>,
    sh_imm_reth: Constant<Bits<16>>,
    sh_swap: Constant<Bits<16>>,
    sh_cmp: Constant<Bits<16>>,
    sh_orig: Constant<Bits<16>>,
}

/// A table over (IPv6, opcode) of `f(v6, the opcode)`, `None` for an opcode the RC roles do not execute.
fn opcode_rom(f: impl Fn(usize, Option<&OpcodeInfo>) -> usize) -> ROM<Bits<8>, 9> {
    let mut t = std::collections::BTreeMap::new();
    for v6 in 0..2usize {
        for code in 0..256usize {
            let o = OPCODES
                .iter()
                .find(|o| o.code as usize == code && handled(o));
            t.insert(
                Bits::<9>::from(((v6 << 8) | code) as u64),
                Bits::<8>::from(f(v6, o) as u64),
            );
        }
    }
    ROM::new(t)
}

/// Extension header bytes (none for an opcode not executed).
fn ext(o: Option<&OpcodeInfo>) -> usize {
    o.map_or(0, |o| o.ext_len())
}

/// `key_rom`'s bits: `key_always`, `key_reth`, `key_cont`.
fn key_class(o: Option<&OpcodeInfo>) -> usize {
    let Some(o) = o else { return 0 };
    let atomic = matches!(o.operation, Operation::CompareSwap | Operation::FetchAdd);
    let write_cont = o.operation == Operation::RdmaWrite
        && matches!(o.position, Position::Middle | Position::Last);
    usize::from(atomic || o.has(hdr::IETH))
        | usize::from(o.has(hdr::RETH)) << 1
        | usize::from(write_cont) << 2
}

impl<const W: usize> Default for RecvHdr<W> {
    fn default() -> Self {
        let k16 = |v: usize| Constant::new((v as u64).into());
        let k8 = |v: u8| Constant::new((v as u64).into());
        let sh = |off: usize, n: usize| Constant::new(be_shift(HDR_BYTES, off, n).into());
        Self {
            clock: Default::default(),
            clear: Default::default(),
            fill: Default::default(),
            slot: Default::default(),
            data: Default::default(),
            v6: Default::default(),
            psn: Default::default(),
            dqpn: Default::default(),
            ack_req: Default::default(),
            se: Default::default(),
            va: Default::default(),
            rkey: Default::default(),
            dmalen: Default::default(),
            syndrome: Default::default(),
            swap: Default::default(),
            cmp: Default::default(),
            orig: Default::default(),
            sip: Default::default(),
            ce: Default::default(),
            send: Default::default(),
            write: Default::default(),
            read_request: Default::default(),
            read_response: Default::default(),
            acknowledge: Default::default(),
            atomic_acknowledge: Default::default(),
            atomic: Default::default(),
            fetch_add: Default::default(),
            cnp: Default::default(),
            first: Default::default(),
            middle: Default::default(),
            last: Default::default(),
            only: Default::default(),
            reth: Default::default(),
            imm: Default::default(),
            ieth: Default::default(),
            need_words: Default::default(),
            key_always: Default::default(),
            key_reth: Default::default(),
            key_cont: Default::default(),
            pay_len: Default::default(),
            imm_data: Default::default(),
            ieth_key: Default::default(),
            write_imm: Default::default(),
            cont: Default::default(),
            not_last: Default::default(),
            send_cont: Default::default(),
            write_cont: Default::default(),
            msg_last: Default::default(),
            syn_ack: Default::default(),
            syn_rnr: Default::default(),
            syn_seq: Default::default(),
            syn_inv: Default::default(),
            syn_acc: Default::default(),
            dmalen_zero: Default::default(),
            dmalen_max: Default::default(),
            va_odd: Default::default(),
            hdr_len: Default::default(),
            hdr_words: Default::default(),
            pay_shift: Default::default(),
            is_send: Default::default(),
            is_write: Default::default(),
            is_read_request: Default::default(),
            is_read_response: Default::default(),
            is_acknowledge: Default::default(),
            is_atomic_acknowledge: Default::default(),
            is_atomic: Default::default(),
            is_fetch_add: Default::default(),
            is_cnp: Default::default(),
            is_reth: Default::default(),
            is_imm: Default::default(),
            is_ieth: Default::default(),
            hdr: Default::default(),
            put: Default::default(),
            swap_b: Default::default(),
            dec: Default::default(),
            need_rom: opcode_rom(|v6, o| (F::EXT + v6 * G::SHIFT + ext(o)).div_ceil(W / 8)),
            s_need: Default::default(),
            over_rom: opcode_rom(|v6, o| [IP4_OVERHEAD, IP6_OVERHEAD][v6] + ext(o)),
            s_over: Default::default(),
            key_rom: opcode_rom(|_, o| key_class(o)),
            s_key: Default::default(),
            nx: Default::default(),
            hv: Default::default(),
            s_v6: Default::default(),
            s_opcode: Default::default(),
            s_pad: Default::default(),
            s_psn: Default::default(),
            s_dqpn: Default::default(),
            s_ack_req: Default::default(),
            s_se: Default::default(),
            s_va: Default::default(),
            s_rkey: Default::default(),
            s_dmalen: Default::default(),
            s_syn: Default::default(),
            s_imm: Default::default(),
            s_imm_reth: Default::default(),
            s_swap: Default::default(),
            s_cmp: Default::default(),
            s_orig: Default::default(),
            s_sip: Default::default(),
            s_ce: Default::default(),
            s_ip_len: Default::default(),
            h_len: Default::default(),
            over: Default::default(),
            t_pay_len: Default::default(),
            t_imm: Default::default(),
            t_write_imm: Default::default(),
            c_send: Default::default(),
            c_write: Default::default(),
            c_read_request: Default::default(),
            c_read_response: Default::default(),
            c_acknowledge: Default::default(),
            c_atomic_acknowledge: Default::default(),
            c_atomic: Default::default(),
            c_fetch_add: Default::default(),
            c_cnp: Default::default(),
            c_reth: Default::default(),
            c_imm: Default::default(),
            c_ieth: Default::default(),
            t_cont: Default::default(),
            t_not_last: Default::default(),
            t_send_cont: Default::default(),
            t_write_cont: Default::default(),
            t_msg_last: Default::default(),
            t_syn_ack: Default::default(),
            t_syn_rnr: Default::default(),
            t_syn_seq: Default::default(),
            t_syn_inv: Default::default(),
            t_syn_acc: Default::default(),
            t_dmalen_zero: Default::default(),
            t_dmalen_max: Default::default(),
            t_va_odd: Default::default(),
            t_hdr_len: Default::default(),
            t_hdr_words: Default::default(),
            t_pay_shift: Default::default(),
            bth_end: k16(F::EXT),
            bth_end6: k16(F::EXT + G::SHIFT),
            v6_shift: k16(G::SHIFT * 8),
            beat_m1: k16(W / 8 - 1),
            log_b: k16((W / 8).trailing_zeros() as usize),
            syn_type: k8(aeth::TYPE_MASK),
            syn_ack_k: k8(aeth::ACK),
            syn_rnr_k: k8(aeth::RNR_NAK),
            syn_seq_k: k8(aeth::NAK_PSN_SEQUENCE_ERROR),
            syn_inv_k: k8(aeth::NAK_INVALID_REQUEST),
            syn_acc_k: k8(aeth::NAK_REMOTE_ACCESS_ERROR),
            read_max: Constant::new(0x8000_0000_u64.into()),
            sh_ip_len: sh(F::IP_TOTAL_LEN, 2),
            sh_ip6_plen: sh(G::IP_PAYLOAD_LEN, 2),
            sh_tos: sh(F::IP_TOS, 1),
            // The traffic class: bits 11..4 of the first 16-bit word.
            sh_ip6_tc: Constant::new((be_shift(HDR_BYTES, G::IP_VERSION_TC, 2) + 4).into()),
            sh_sip: sh(F::IP_SRC, 4),
            sh_sip6: sh(G::IP_SRC + 12, 4),
            sh_opcode: sh(F::BTH_OPCODE, 1),
            // PadCnt: bits 5..4 of BTH byte 1; SE its bit 7; AckReq bit 7 of its byte.
            sh_pad: Constant::new((be_shift(HDR_BYTES, F::BTH_FLAGS, 1) + 4).into()),
            sh_se: Constant::new((be_shift(HDR_BYTES, F::BTH_FLAGS, 1) + 7).into()),
            sh_ackreq: Constant::new((be_shift(HDR_BYTES, F::BTH_ACK_REQ, 1) + 7).into()),
            sh_dqpn: sh(F::BTH_DEST_QP, 3),
            sh_psn: sh(F::BTH_PSN, 3),
            sh_va: sh(F::RETH_VA, 8),
            sh_rkey: sh(F::RETH_RKEY, 4),
            sh_dmalen: sh(F::RETH_DMA_LEN, 4),
            sh_syn: sh(F::AETH_SYNDROME, 1),
            sh_imm: sh(F::IMM_DT, 4),
            sh_imm_reth: sh(F::IMM_DT_AFTER_RETH, 4),
            sh_swap: sh(F::ATOMIC_SWAP_ADD, 8),
            sh_cmp: sh(F::ATOMIC_COMPARE, 8),
            sh_orig: sh(F::ATOMIC_ORIG, 8),
        }
    }
}

impl<const W: usize> Logic for RecvHdr<W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            hdr,
            s_need,
            s_over,
            s_key,
            s_v6,
            s_opcode,
            s_pad,
            s_psn,
            s_dqpn,
            s_ack_req,
            s_se,
            s_va,
            s_rkey,
            s_dmalen,
            s_syn,
            s_imm,
            s_imm_reth,
            s_swap,
            s_cmp,
            s_orig,
            s_sip,
            s_ce,
            s_ip_len,
            t_pay_len,
            t_imm,
            t_write_imm,
            c_send,
            c_write,
            c_read_request,
            c_read_response,
            c_acknowledge,
            c_atomic_acknowledge,
            c_atomic,
            c_fetch_add,
            c_cnp,
            c_reth,
            c_imm,
            c_ieth,
            t_cont,
            t_not_last,
            t_send_cont,
            t_write_cont,
            t_msg_last,
            t_syn_ack,
            t_syn_rnr,
            t_syn_seq,
            t_syn_inv,
            t_syn_acc,
            t_dmalen_zero,
            t_dmalen_max,
            t_va_odd,
            t_hdr_len,
            t_hdr_words,
            t_pay_shift
        );
        // The register, and stage 1 from its next value.
        self.put.base.next = self.hdr.q.val();
        self.put.data.next = self.data.val();
        self.put.slot.next = self.slot.val();
        self.put.en.next = self.fill.val();
        self.hdr.d.next = self.put.y.val();
        if self.clear.val() {
            self.hdr.d.next = 0.into();
        }
        self.swap_b.a.next = self.hdr.d.val();
        self.nx.next = self.swap_b.y.val();
        self.hv.next = self.nx.val();
        self.s_v6.d.next = self.v6.val();
        self.s_ip_len.d.next = bit_cast::<16, HDR_BITS>(self.nx.val() >> self.sh_ip_len.val());
        self.s_sip.d.next = bit_cast::<32, HDR_BITS>(self.nx.val() >> self.sh_sip.val());
        self.s_ce.d.next = (bit_cast::<8, HDR_BITS>(self.nx.val() >> self.sh_tos.val()) & 3) == 3;
        if self.v6.val() {
            self.hv.next = self.nx.val() << self.v6_shift.val();
            self.s_ip_len.d.next =
                bit_cast::<16, HDR_BITS>(self.nx.val() >> self.sh_ip6_plen.val());
            self.s_sip.d.next = bit_cast::<32, HDR_BITS>(self.nx.val() >> self.sh_sip6.val());
            self.s_ce.d.next =
                (bit_cast::<8, HDR_BITS>(self.nx.val() >> self.sh_ip6_tc.val()) & 3) == 3;
        }
        self.s_opcode.d.next = bit_cast::<8, HDR_BITS>(self.hv.val() >> self.sh_opcode.val());
        self.need_rom.address.next = (bit_cast::<9, 1>(self.v6.val().into()) << 8)
            | bit_cast::<9, 8>(bit_cast::<8, HDR_BITS>(
                self.hv.val() >> self.sh_opcode.val(),
            ));
        self.s_need.d.next = self.need_rom.data.val();
        self.over_rom.address.next = self.need_rom.address.val();
        self.s_over.d.next = self.over_rom.data.val();
        self.key_rom.address.next = self.need_rom.address.val();
        self.s_key.d.next = self.key_rom.data.val();
        self.s_pad.d.next = bit_cast::<2, HDR_BITS>(self.hv.val() >> self.sh_pad.val());
        self.s_se.d.next = bit_cast::<1, HDR_BITS>(self.hv.val() >> self.sh_se.val()) != 0;
        self.s_ack_req.d.next = bit_cast::<1, HDR_BITS>(self.hv.val() >> self.sh_ackreq.val()) != 0;
        self.s_dqpn.d.next = bit_cast::<24, HDR_BITS>(self.hv.val() >> self.sh_dqpn.val());
        self.s_psn.d.next = bit_cast::<24, HDR_BITS>(self.hv.val() >> self.sh_psn.val());
        self.s_va.d.next = bit_cast::<64, HDR_BITS>(self.hv.val() >> self.sh_va.val());
        self.s_rkey.d.next = bit_cast::<32, HDR_BITS>(self.hv.val() >> self.sh_rkey.val());
        self.s_dmalen.d.next = bit_cast::<32, HDR_BITS>(self.hv.val() >> self.sh_dmalen.val());
        self.s_syn.d.next = bit_cast::<8, HDR_BITS>(self.hv.val() >> self.sh_syn.val());
        self.s_imm.d.next = bit_cast::<32, HDR_BITS>(self.hv.val() >> self.sh_imm.val());
        self.s_imm_reth.d.next = bit_cast::<32, HDR_BITS>(self.hv.val() >> self.sh_imm_reth.val());
        self.s_swap.d.next = bit_cast::<64, HDR_BITS>(self.hv.val() >> self.sh_swap.val());
        self.s_cmp.d.next = bit_cast::<64, HDR_BITS>(self.hv.val() >> self.sh_cmp.val());
        self.s_orig.d.next = bit_cast::<64, HDR_BITS>(self.hv.val() >> self.sh_orig.val());

        // Stage 1 out; the opcode's class decoded from its register (two LUT levels).
        self.dec.opcode.next = self.s_opcode.q.val();
        self.psn.next = self.s_psn.q.val();
        self.dqpn.next = self.s_dqpn.q.val();
        self.ack_req.next = self.s_ack_req.q.val();
        self.se.next = self.s_se.q.val();
        self.va.next = self.s_va.q.val();
        self.rkey.next = self.s_rkey.q.val();
        self.dmalen.next = self.s_dmalen.q.val();
        self.syndrome.next = self.s_syn.q.val();
        self.swap.next = self.s_swap.q.val();
        self.cmp.next = self.s_cmp.q.val();
        self.orig.next = self.s_orig.q.val();
        self.sip.next = self.s_sip.q.val();
        self.ce.next = self.s_ce.q.val();
        self.send.next = self.dec.send.val();
        self.write.next = self.dec.write.val();
        self.read_request.next = self.dec.read_request.val();
        self.read_response.next = self.dec.read_response.val();
        self.acknowledge.next = self.dec.acknowledge.val();
        self.atomic_acknowledge.next = self.dec.atomic_acknowledge.val();
        self.atomic.next = self.dec.atomic.val();
        self.fetch_add.next = self.dec.fetch_add.val();
        self.cnp.next = self.dec.cnp.val();
        self.first.next = self.dec.first.val();
        self.middle.next = self.dec.middle.val();
        self.last.next = self.dec.last.val();
        self.only.next = self.dec.only.val();
        self.reth.next = self.dec.reth.val();
        self.imm.next = self.dec.imm.val();
        self.ieth.next = self.dec.ieth.val();
        self.h_len.next = self.bth_end.val() + bit_cast::<16, 8>(self.dec.ext_len.val());
        self.over.next =
            bit_cast::<16, 8>(self.s_over.q.val()) + bit_cast::<16, 2>(self.s_pad.q.val());
        if self.s_v6.q.val() {
            self.h_len.next = self.bth_end6.val() + bit_cast::<16, 8>(self.dec.ext_len.val());
        }
        self.need_words.next = bit_cast::<16, 8>(self.s_need.q.val());
        self.key_always.next = (self.s_key.q.val() & 1) != 0;
        self.key_reth.next = (self.s_key.q.val() & 2) != 0;
        self.key_cont.next = (self.s_key.q.val() & 4) != 0;

        // Stage 2.
        self.t_pay_len.d.next = self.s_ip_len.q.val() - self.over.val();
        self.t_imm.d.next = self.s_imm.q.val();
        if self.dec.reth.val() {
            self.t_imm.d.next = self.s_imm_reth.q.val();
        }
        self.t_write_imm.d.next = self.dec.write.val() && self.dec.imm.val();
        self.c_send.d.next = self.dec.send.val();
        self.c_write.d.next = self.dec.write.val();
        self.c_read_request.d.next = self.dec.read_request.val();
        self.c_read_response.d.next = self.dec.read_response.val();
        self.c_acknowledge.d.next = self.dec.acknowledge.val();
        self.c_atomic_acknowledge.d.next = self.dec.atomic_acknowledge.val();
        self.c_atomic.d.next = self.dec.atomic.val();
        self.c_fetch_add.d.next = self.dec.fetch_add.val();
        self.c_cnp.d.next = self.dec.cnp.val();
        self.c_reth.d.next = self.dec.reth.val();
        self.c_imm.d.next = self.dec.imm.val();
        self.c_ieth.d.next = self.dec.ieth.val();
        self.t_cont.d.next = self.dec.middle.val() || self.dec.last.val();
        self.t_not_last.d.next = self.dec.first.val() || self.dec.middle.val();
        self.t_send_cont.d.next =
            self.dec.send.val() && (self.dec.middle.val() || self.dec.last.val());
        self.t_write_cont.d.next =
            self.dec.write.val() && (self.dec.middle.val() || self.dec.last.val());
        self.t_msg_last.d.next = (self.dec.send.val() || self.dec.write.val())
            && (self.dec.last.val() || self.dec.only.val());
        self.t_syn_ack.d.next = (self.s_syn.q.val() & self.syn_type.val()) == self.syn_ack_k.val();
        self.t_syn_rnr.d.next = (self.s_syn.q.val() & self.syn_type.val()) == self.syn_rnr_k.val();
        self.t_syn_seq.d.next = self.s_syn.q.val() == self.syn_seq_k.val();
        self.t_syn_inv.d.next = self.s_syn.q.val() == self.syn_inv_k.val();
        self.t_syn_acc.d.next = self.s_syn.q.val() == self.syn_acc_k.val();
        self.t_dmalen_zero.d.next = self.s_dmalen.q.val() == 0;
        self.t_dmalen_max.d.next = self.s_dmalen.q.val() <= self.read_max.val();
        self.t_va_odd.d.next = (self.s_va.q.val() & 7) != 0;
        self.t_hdr_len.d.next = self.h_len.val();
        self.t_hdr_words.d.next = self.h_len.val() >> self.log_b.val();
        self.t_pay_shift.d.next = self.h_len.val() & self.beat_m1.val();

        self.pay_len.next = self.t_pay_len.q.val();
        self.imm_data.next = self.t_imm.q.val();
        self.ieth_key.next = self.s_imm.q.val();
        self.write_imm.next = self.t_write_imm.q.val();
        self.is_send.next = self.c_send.q.val();
        self.is_write.next = self.c_write.q.val();
        self.is_read_request.next = self.c_read_request.q.val();
        self.is_read_response.next = self.c_read_response.q.val();
        self.is_acknowledge.next = self.c_acknowledge.q.val();
        self.is_atomic_acknowledge.next = self.c_atomic_acknowledge.q.val();
        self.is_atomic.next = self.c_atomic.q.val();
        self.is_fetch_add.next = self.c_fetch_add.q.val();
        self.is_cnp.next = self.c_cnp.q.val();
        self.is_reth.next = self.c_reth.q.val();
        self.is_imm.next = self.c_imm.q.val();
        self.is_ieth.next = self.c_ieth.q.val();
        self.cont.next = self.t_cont.q.val();
        self.not_last.next = self.t_not_last.q.val();
        self.send_cont.next = self.t_send_cont.q.val();
        self.write_cont.next = self.t_write_cont.q.val();
        self.msg_last.next = self.t_msg_last.q.val();
        self.syn_ack.next = self.t_syn_ack.q.val();
        self.syn_rnr.next = self.t_syn_rnr.q.val();
        self.syn_seq.next = self.t_syn_seq.q.val();
        self.syn_inv.next = self.t_syn_inv.q.val();
        self.syn_acc.next = self.t_syn_acc.q.val();
        self.dmalen_zero.next = self.t_dmalen_zero.q.val();
        self.dmalen_max.next = self.t_dmalen_max.q.val();
        self.va_odd.next = self.t_va_odd.q.val();
        self.hdr_len.next = self.t_hdr_len.q.val();
        self.hdr_words.next = self.t_hdr_words.q.val();
        self.pay_shift.next = self.t_pay_shift.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::rx_checks::frames::frame;
    use rocenic_proto::opcode as op;
    use rocenic_proto::wire::{
        AethRepr, AtomicAckEthRepr, AtomicEthRepr, ExtHeaders, IethRepr, ImmDtRepr, RethRepr,
    };

    /// What the block gives for one frame: stage 1 read at T, stage 2 at T + 1.
    #[derive(Debug, Clone, PartialEq, Eq, Default)]
    struct Got {
        psn: u64,
        dqpn: u64,
        ack_req: bool,
        se: bool,
        va: u64,
        rkey: u64,
        dmalen: u64,
        syndrome: u64,
        swap: u64,
        cmp: u64,
        orig: u64,
        sip: u64,
        ce: bool,
        class: Vec<bool>,
        need_words: u64,
        pay_len: u64,
        imm_data: u64,
        derived: Vec<bool>,
        hdr_len: u64,
        hdr_words: u64,
        pay_shift: u64,
    }

    /// Feeds each frame's first HDR_BYTES bytes, one W-bit word a cycle after a clear, and reads what
    /// the block gives; the register is filled from a previous frame's leftovers each time (no gap).
    fn run<const W: usize>(frames: Vec<(bool, Vec<u8>)>) -> Vec<Got> {
        let out = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let out2 = out.clone();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<RecvHdr<W>>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut ep: Sim<RecvHdr<W>>| {
            let mut x = ep.init()?;
            wait_clock_true!(ep, clock, x);
            let b = W / 8;
            for (v6, f) in &frames {
                x.clear.next = true;
                x.fill.next = false;
                x.v6.next = *v6;
                wait_clock_cycle!(ep, clock, x);
                x.clear.next = false;
                for (i, chunk) in f[..f.len().min(HDR_BYTES)].chunks(b).enumerate() {
                    let mut w: Bits<W> = 0.into();
                    for (j, &byte) in chunk.iter().enumerate() {
                        w = w | (bit_cast::<W, 8>((byte as u64).into()) << (8 * j) as u64);
                    }
                    x.fill.next = true;
                    x.slot.next = (i as u64).into();
                    x.data.next = w;
                    wait_clock_cycle!(ep, clock, x);
                }
                x.fill.next = false;
                let mut g = Got {
                    psn: x.psn.val().to_u64(),
                    dqpn: x.dqpn.val().to_u64(),
                    ack_req: x.ack_req.val(),
                    se: x.se.val(),
                    va: x.va.val().to_u64(),
                    rkey: x.rkey.val().to_u64(),
                    dmalen: x.dmalen.val().to_u64(),
                    syndrome: x.syndrome.val().to_u64(),
                    swap: x.swap.val().to_u64(),
                    cmp: x.cmp.val().to_u64(),
                    orig: x.orig.val().to_u64(),
                    sip: x.sip.val().to_u64(),
                    ce: x.ce.val(),
                    class: vec![
                        x.send.val(),
                        x.write.val(),
                        x.read_request.val(),
                        x.read_response.val(),
                        x.acknowledge.val(),
                        x.atomic_acknowledge.val(),
                        x.atomic.val(),
                        x.fetch_add.val(),
                        x.cnp.val(),
                        x.first.val(),
                        x.middle.val(),
                        x.last.val(),
                        x.only.val(),
                        x.reth.val(),
                        x.imm.val(),
                        x.ieth.val(),
                    ],
                    need_words: x.need_words.val().to_u64(),
                    ..Default::default()
                };
                wait_clock_cycle!(ep, clock, x);
                g.pay_len = x.pay_len.val().to_u64();
                g.imm_data = x.imm_data.val().to_u64();
                g.derived = vec![
                    x.write_imm.val(),
                    x.cont.val(),
                    x.not_last.val(),
                    x.send_cont.val(),
                    x.write_cont.val(),
                    x.msg_last.val(),
                    x.syn_ack.val(),
                    x.syn_rnr.val(),
                    x.syn_seq.val(),
                    x.syn_inv.val(),
                    x.syn_acc.val(),
                    x.dmalen_zero.val(),
                    x.dmalen_max.val(),
                    x.va_odd.val(),
                ];
                // The class again (is_*): the same flags as stage 1 gave, a cycle later.
                let again = vec![
                    x.is_send.val(),
                    x.is_write.val(),
                    x.is_read_request.val(),
                    x.is_read_response.val(),
                    x.is_acknowledge.val(),
                    x.is_atomic_acknowledge.val(),
                    x.is_atomic.val(),
                    x.is_fetch_add.val(),
                    x.is_cnp.val(),
                    x.is_reth.val(),
                    x.is_imm.val(),
                    x.is_ieth.val(),
                ];
                let stage1: Vec<bool> = [0, 1, 2, 3, 4, 5, 6, 7, 8, 13, 14, 15]
                    .iter()
                    .map(|&i| g.class[i])
                    .collect();
                sim_assert_eq!(ep, again, stage1, x);
                g.hdr_len = x.hdr_len.val().to_u64();
                g.hdr_words = x.hdr_words.val().to_u64();
                g.pay_shift = x.pay_shift.val().to_u64();
                out2.lock().unwrap().push(g);
            }
            ep.done(x)
        });
        let mut uut = RecvHdr::<W>::default();
        uut.connect_all();
        sim.run(Box::new(uut), 1_000_000).unwrap();
        let v = out.lock().unwrap().clone();
        v
    }

    /// The cases: (IPv6, frame bytes, what the block must give).
    fn cases(b: usize) -> Vec<(bool, Vec<u8>, Got, ExtHeaders)> {
        let reth = |va, rkey, dma_len| RethRepr { va, rkey, dma_len };
        let mut v = Vec::new();
        // (v6, tos, opcode, ext, payload, solicited)
        let specs: Vec<(bool, u8, u8, ExtHeaders, usize, bool)> = vec![
            (
                false,
                0x0B,
                op::RC_SEND_ONLY,
                ExtHeaders::default(),
                40,
                true,
            ),
            (
                true,
                0x02,
                op::RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE,
                ExtHeaders {
                    reth: Some(reth(0x1122_3344_5566_7788, 0xA1B2_C3D4, 37)),
                    imm_dt: Some(ImmDtRepr { imm: 0xFEED_F00D }),
                    ..Default::default()
                },
                37,
                false,
            ),
            (
                false,
                0x03,
                op::RC_RDMA_READ_REQUEST,
                ExtHeaders {
                    reth: Some(reth(0x0000_7000_0000_0103, 0x0102_0304, 0)),
                    ..Default::default()
                },
                0,
                false,
            ),
            (
                true,
                0,
                op::RC_RDMA_READ_REQUEST,
                ExtHeaders {
                    reth: Some(reth(0x40, 0x77, 0x8000_0001)),
                    ..Default::default()
                },
                0,
                false,
            ),
            (
                false,
                0,
                op::RC_ACKNOWLEDGE,
                ExtHeaders {
                    aeth: Some(AethRepr {
                        syndrome: aeth::NAK_PSN_SEQUENCE_ERROR,
                        msn: 9,
                    }),
                    ..Default::default()
                },
                0,
                false,
            ),
            (
                true,
                0,
                op::RC_ACKNOWLEDGE,
                ExtHeaders {
                    aeth: Some(AethRepr {
                        syndrome: aeth::RNR_NAK | 0x0E,
                        msn: 9,
                    }),
                    ..Default::default()
                },
                0,
                false,
            ),
            (
                false,
                0,
                op::RC_ACKNOWLEDGE,
                ExtHeaders {
                    aeth: Some(AethRepr {
                        syndrome: aeth::NAK_REMOTE_ACCESS_ERROR,
                        msn: 1,
                    }),
                    ..Default::default()
                },
                0,
                false,
            ),
            (
                true,
                0x03,
                op::RC_COMPARE_SWAP,
                ExtHeaders {
                    atomic_eth: Some(AtomicEthRepr {
                        va: 0x0000_1234_5678_9AB8,
                        rkey: 0x5151_5151,
                        swap_add: 0x0102_0304_0506_0708,
                        compare: 0xF0E0_D0C0_B0A0_9080,
                    }),
                    ..Default::default()
                },
                0,
                false,
            ),
            (
                false,
                0,
                op::RC_ATOMIC_ACKNOWLEDGE,
                ExtHeaders {
                    aeth: Some(AethRepr {
                        syndrome: aeth::ACK,
                        msn: 3,
                    }),
                    atomic_ack_eth: Some(AtomicAckEthRepr {
                        orig_data: 0x0A0B_0C0D_0E0F_1011,
                    }),
                    ..Default::default()
                },
                0,
                false,
            ),
            (
                false,
                0,
                op::RC_SEND_LAST_WITH_INVALIDATE,
                ExtHeaders {
                    ieth: Some(IethRepr { rkey: 0x0BAD_CAFE }),
                    ..Default::default()
                },
                13,
                false,
            ),
            (
                true,
                0,
                op::RC_SEND_MIDDLE,
                ExtHeaders::default(),
                256,
                false,
            ),
            (
                true,
                0,
                op::RC_RDMA_WRITE_LAST_WITH_IMMEDIATE,
                ExtHeaders {
                    imm_dt: Some(ImmDtRepr { imm: 0x600D_1DEA }),
                    ..Default::default()
                },
                2,
                true,
            ),
            (
                false,
                0,
                op::RC_RDMA_WRITE_FIRST,
                ExtHeaders {
                    reth: Some(reth(0x9000, 0x42, 4096)),
                    ..Default::default()
                },
                256,
                false,
            ),
        ];
        for (v6, tos, code, ext, payload, se) in specs {
            let mut f = frame(v6, tos, code, ext, payload);
            f.bth.solicited = se;
            f.bth.ack_req = payload != 37;
            f.bth.psn = 0x10_0000 + payload as u32;
            f.bth.dest_qp = 0x42_0000 + code as u32;
            f.seal().unwrap();
            let bytes = f.emit();
            let o = op::info(code).unwrap();
            use op::{hdr, Operation as Op, Position as Pos};
            let ip_hdr = if v6 { 40 } else { 20 };
            let hdr_len = (14 + ip_hdr + 8 + 12 + o.ext_len()) as u64;
            let r = ext.reth.or(ext.atomic_eth.map(|a| reth(a.va, a.rkey, 0)));
            let atomic = ext.atomic_eth.unwrap_or(AtomicEthRepr {
                va: 0,
                rkey: 0,
                swap_add: 0,
                compare: 0,
            });
            let syn = ext.aeth.map(|a| a.syndrome).unwrap_or(0);
            let imm = ext
                .imm_dt
                .map(|i| i.imm)
                .or(ext.ieth.map(|i| i.rkey))
                .unwrap_or(0);
            let dmalen = ext.reth.map(|r| r.dma_len).unwrap_or(0) as u64;
            let va = r.map(|r| r.va).unwrap_or(0);
            let is = |x: Op| o.operation == x;
            let at = |x: Pos| o.position == x;
            let msg = is(Op::Send) || is(Op::RdmaWrite);
            let want = Got {
                psn: 0x10_0000 + payload as u64,
                dqpn: 0x42_0000 + code as u64,
                ack_req: payload != 37,
                se,
                va,
                rkey: r.map(|r| r.rkey).unwrap_or(0) as u64,
                dmalen,
                syndrome: syn as u64,
                swap: atomic.swap_add,
                cmp: atomic.compare,
                orig: ext.atomic_ack_eth.map(|a| a.orig_data).unwrap_or(0),
                sip: if v6 { 0x0000_0106 } else { 0x0A00_0106 },
                ce: tos & 3 == 3,
                class: vec![
                    is(Op::Send),
                    is(Op::RdmaWrite),
                    is(Op::RdmaReadRequest),
                    is(Op::RdmaReadResponse),
                    is(Op::Acknowledge),
                    is(Op::AtomicAcknowledge),
                    is(Op::CompareSwap) || is(Op::FetchAdd),
                    is(Op::FetchAdd),
                    false,
                    at(Pos::First),
                    at(Pos::Middle),
                    at(Pos::Last),
                    at(Pos::Only),
                    o.has(hdr::RETH),
                    o.has(hdr::IMM_DT),
                    o.has(hdr::IETH),
                ],
                need_words: hdr_len.div_ceil(b as u64),
                pay_len: payload as u64,
                imm_data: imm as u64,
                derived: vec![
                    is(Op::RdmaWrite) && o.has(hdr::IMM_DT),
                    at(Pos::Middle) || at(Pos::Last),
                    at(Pos::First) || at(Pos::Middle),
                    is(Op::Send) && (at(Pos::Middle) || at(Pos::Last)),
                    is(Op::RdmaWrite) && (at(Pos::Middle) || at(Pos::Last)),
                    msg && (at(Pos::Last) || at(Pos::Only)),
                    syn & aeth::TYPE_MASK == aeth::ACK,
                    syn & aeth::TYPE_MASK == aeth::RNR_NAK,
                    syn == aeth::NAK_PSN_SEQUENCE_ERROR,
                    syn == aeth::NAK_INVALID_REQUEST,
                    syn == aeth::NAK_REMOTE_ACCESS_ERROR,
                    dmalen == 0,
                    dmalen <= 0x8000_0000,
                    va & 7 != 0,
                ],
                hdr_len,
                hdr_words: hdr_len / b as u64,
                pay_shift: hdr_len % b as u64,
            };
            v.push((v6, bytes, want, ext));
        }
        v
    }

    fn check<const W: usize>() {
        let cases = cases(W / 8);
        let got = run::<W>(cases.iter().map(|(v6, f, _, _)| (*v6, f.clone())).collect());
        assert_eq!(got.len(), cases.len());
        for (k, (g, (v6, _, want, ext))) in got.iter().zip(&cases).enumerate() {
            // A field the packet does not carry reads whatever bytes sit in its place: not compared.
            let mut g = g.clone();
            if ext.reth.is_none() && ext.atomic_eth.is_none() {
                (g.va, g.rkey, g.derived[13]) = (0, 0, false);
            }
            if ext.reth.is_none() {
                (g.dmalen, g.derived[11], g.derived[12]) = (0, true, true);
            }
            if ext.aeth.is_none() {
                g.syndrome = 0;
                g.derived[6..11].copy_from_slice(&[true, false, false, false, false]);
            }
            if ext.atomic_eth.is_none() {
                (g.swap, g.cmp) = (0, 0);
            }
            if ext.atomic_ack_eth.is_none() {
                g.orig = 0;
            }
            if ext.imm_dt.is_none() && ext.ieth.is_none() {
                g.imm_data = 0;
            }
            assert_eq!(&g, want, "case {k} (IPv6 {v6}) at {W} bits");
        }
    }

    /// Every field, class and length of RC requests and responses over IPv4 and IPv6 (SEND,
    /// WRITE with RETH and immediate, READ requests with odd and aligned VAs and DMA lengths around
    /// 2^31, ACKs and NAKs of each kind, CompareSwap, ATOMIC ACKNOWLEDGE, SEND with invalidate, pad
    /// counts 0 to 3, CE and not), one frame after another without a gap, at both widths.
    #[test]
    fn reads_every_field_of_each_packet_kind() {
        check::<64>();
        check::<512>();
    }

    #[test]
    fn recv_hdr_synthesizes() {
        let mut uut = RecvHdr::<512>::default();
        uut.connect_all();
        yosys_validate("recv_hdr", &generate_verilog(&uut)).unwrap();
    }
}
