//! BTH opcode decode: what a received packet is, read from a table built from `rocenic_proto::opcode`
//! (IBA vol 1 §9.2, Table 35) instead of compares against opcode numbers, as rdma_rxe's `rxe_opcode[]`
//! drives its receive path. One 256-entry lookup: two LUT levels (a LUT6 and a wide-LUT mux) per output.
//!
//! Only the opcodes the RC roles execute decode to anything: RC SEND, RDMA WRITE, RDMA READ request and
//! response, ACKNOWLEDGE, ATOMIC ACKNOWLEDGE, CompareSwap, FetchAdd, and the RoCEv2 CNP. Every other
//! opcode (UC, UD, FLUSH, ATOMIC WRITE, reserved) decodes to all zeros, so the receive path drops it as an
//! operation it does not know.
use rocenic_proto::opcode::{hdr, OpcodeInfo, Operation, Position, Transport, OPCODES};
use rust_hdl::prelude::*;

/// Bits of a table word: the extension-header length in bytes, then one bit per flag, in the order
/// `update` reads them.
const EXT_LEN_BITS: usize = 8;
const FLAGS: usize = 16;

/// The flag bits of one opcode's table word, in the order `update` reads them.
fn flags(o: &OpcodeInfo) -> [bool; FLAGS] {
    let op = |x: Operation| o.operation == x;
    let pos = |x: Position| o.position == x;
    [
        op(Operation::Send),
        op(Operation::RdmaWrite),
        op(Operation::RdmaReadRequest),
        op(Operation::RdmaReadResponse),
        op(Operation::Acknowledge),
        op(Operation::AtomicAcknowledge),
        op(Operation::CompareSwap) || op(Operation::FetchAdd),
        op(Operation::FetchAdd),
        op(Operation::Cnp),
        pos(Position::First),
        pos(Position::Middle),
        pos(Position::Last),
        pos(Position::Only),
        o.has(hdr::RETH),
        o.has(hdr::IMM_DT),
        o.has(hdr::IETH),
    ]
}

/// Whether the RC roles execute this opcode (see the module comment).
pub fn handled(o: &OpcodeInfo) -> bool {
    let rc_op = matches!(
        o.operation,
        Operation::Send
            | Operation::RdmaWrite
            | Operation::RdmaReadRequest
            | Operation::RdmaReadResponse
            | Operation::Acknowledge
            | Operation::AtomicAcknowledge
            | Operation::CompareSwap
            | Operation::FetchAdd
    );
    (o.transport == Transport::Rc && rc_op) || o.operation == Operation::Cnp
}

/// The table word of one opcode.
fn word(o: &OpcodeInfo) -> Bits<24> {
    let mut w = o.ext_len() as u64;
    for (k, f) in flags(o).iter().enumerate() {
        if *f {
            w |= 1 << (EXT_LEN_BITS + k);
        }
    }
    w.into()
}

#[derive(LogicBlock)]
pub struct OpcodeDecode {
    pub opcode: Signal<In, Bits<8>>,
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
    /// The extension headers present.
    pub reth: Signal<Out, bool>,
    pub imm: Signal<Out, bool>,
    pub ieth: Signal<Out, bool>,
    /// Bytes of extension headers between the BTH and the payload.
    pub ext_len: Signal<Out, Bits<8>>,
    rom: ROM<Bits<24>, 8>,
}

impl Default for OpcodeDecode {
    fn default() -> Self {
        let mut t = std::collections::BTreeMap::new();
        for o in OPCODES.iter().filter(|o| handled(o)) {
            t.insert(Bits::<8>::from(o.code as u64), word(o));
        }
        Self {
            opcode: Default::default(),
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
            ext_len: Default::default(),
            rom: ROM::new(t),
        }
    }
}

impl Logic for OpcodeDecode {
    #[hdl_gen]
    fn update(&mut self) {
        self.rom.address.next = self.opcode.val();
        self.ext_len.next = self.rom.data.val().get_bits::<8>(0);
        self.send.next = self.rom.data.val().get_bit(8);
        self.write.next = self.rom.data.val().get_bit(9);
        self.read_request.next = self.rom.data.val().get_bit(10);
        self.read_response.next = self.rom.data.val().get_bit(11);
        self.acknowledge.next = self.rom.data.val().get_bit(12);
        self.atomic_acknowledge.next = self.rom.data.val().get_bit(13);
        self.atomic.next = self.rom.data.val().get_bit(14);
        self.fetch_add.next = self.rom.data.val().get_bit(15);
        self.cnp.next = self.rom.data.val().get_bit(16);
        self.first.next = self.rom.data.val().get_bit(17);
        self.middle.next = self.rom.data.val().get_bit(18);
        self.last.next = self.rom.data.val().get_bit(19);
        self.only.next = self.rom.data.val().get_bit(20);
        self.reth.next = self.rom.data.val().get_bit(21);
        self.imm.next = self.rom.data.val().get_bit(22);
        self.ieth.next = self.rom.data.val().get_bit(23);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rocenic_proto::opcode::{info, Role};

    /// Every one of the 256 opcodes decodes to what the proto table says (each output read on its own,
    /// so a swapped or misplaced bit fails), and what the RC roles do not execute decodes to nothing.
    #[test]
    fn decodes_every_opcode_as_the_proto_table_says() {
        let mut uut = OpcodeDecode::default();
        uut.connect_all();
        let mut handled_seen = 0;
        for code in 0..=255u8 {
            uut.opcode.next = (code as u64).into();
            // Settle: each pass moves a value one signal on (the opcode, the table's address, its word,
            // the outputs).
            for _ in 0..5 {
                uut.update_all();
            }
            let got = [
                uut.send.val(),
                uut.write.val(),
                uut.read_request.val(),
                uut.read_response.val(),
                uut.acknowledge.val(),
                uut.atomic_acknowledge.val(),
                uut.atomic.val(),
                uut.fetch_add.val(),
                uut.cnp.val(),
                uut.first.val(),
                uut.middle.val(),
                uut.last.val(),
                uut.only.val(),
                uut.reth.val(),
                uut.imm.val(),
                uut.ieth.val(),
            ];
            let ext_len = uut.ext_len.val().to_u64() as usize;
            match info(code).filter(|o| handled(o)) {
                Some(o) => {
                    handled_seen += 1;
                    use Operation as Op;
                    let want = [
                        o.operation == Op::Send,
                        o.operation == Op::RdmaWrite,
                        o.operation == Op::RdmaReadRequest,
                        o.operation == Op::RdmaReadResponse,
                        o.operation == Op::Acknowledge,
                        o.operation == Op::AtomicAcknowledge,
                        matches!(o.operation, Op::CompareSwap | Op::FetchAdd),
                        o.operation == Op::FetchAdd,
                        o.role == Role::Notification,
                        o.position == Position::First,
                        o.position == Position::Middle,
                        o.position == Position::Last,
                        o.position == Position::Only,
                        o.has(hdr::RETH),
                        o.has(hdr::IMM_DT),
                        o.has(hdr::IETH),
                    ];
                    assert_eq!(got, want, "{}", o.name);
                    assert_eq!(ext_len, o.ext_len(), "{}", o.name);
                }
                None => {
                    assert_eq!(got, [false; FLAGS], "{code:#04x}");
                    assert_eq!(ext_len, 0, "{code:#04x}");
                }
            }
        }
        // The 23 RC opcodes of SEND, WRITE, READ, ACKNOWLEDGE and the atomics, and the CNP.
        assert_eq!(handled_seen, 24);
    }

    #[test]
    fn opcode_decode_synthesizes() {
        let mut uut = OpcodeDecode::default();
        uut.connect_all();
        yosys_validate("opcode_decode", &generate_verilog(&uut)).unwrap();
    }
}
