//! One registered beat of a stream (data, keep, last, valid): a stage of a stall-all pipeline, which
//! takes its input when `adv` is set and holds otherwise.
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct BeatReg<const W: usize, const B: usize> {
    pub clock: Signal<In, Clock>,
    pub adv: Signal<In, bool>,
    pub in_data: Signal<In, Bits<W>>,
    pub in_keep: Signal<In, Bits<B>>,
    pub in_last: Signal<In, bool>,
    pub in_valid: Signal<In, bool>,
    pub data: Signal<Out, Bits<W>>,
    pub keep: Signal<Out, Bits<B>>,
    pub last: Signal<Out, bool>,
    pub valid: Signal<Out, bool>,
    r_data: DFF<Bits<W>>,
    r_keep: DFF<Bits<B>>,
    r_last: DFF<bool>,
    r_valid: DFF<bool>,
}

impl<const W: usize, const B: usize> Logic for BeatReg<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r_data, r_keep, r_last, r_valid);
        if self.adv.val() {
            self.r_valid.d.next = self.in_valid.val();
            // A bubble leaves the data as it was: fewer toggles, and nothing reads it.
            if self.in_valid.val() {
                self.r_data.d.next = self.in_data.val();
                self.r_keep.d.next = self.in_keep.val();
                self.r_last.d.next = self.in_last.val();
            }
        }
        self.data.next = self.r_data.q.val();
        self.keep.next = self.r_keep.q.val();
        self.last.next = self.r_last.q.val();
        self.valid.next = self.r_valid.q.val();
    }
}
