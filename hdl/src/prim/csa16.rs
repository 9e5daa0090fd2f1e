//! The one's-complement sum of the N / 16 16-bit words of an N-bit register (RFC 1071), in carry-save
//! form: two words `s` and `c` whose one's-complement sum is that of the inputs. No carry runs along a
//! word: each step takes three words to two (`x ^ y ^ z` and the majority rotated left by one bit, its
//! carry out of bit 15 wrapping to bit 0, as one's-complement addition carries), one LUT level per step,
//! so a checksum over tens of words is a few levels deep and can be cut into pipeline stages between
//! trees (an adder tree over the same words is a carry chain per add).
//!
//! Checking a received checksum needs no carry at all: the words sum to zero (0xFFFF, or 0 when every
//! word is 0) exactly when `s + c` is 0, 0xFFFF or 0x1FFFE, that is when `c == !s` or both are 0 or both
//! 0xFFFF ([`sums_to_zero`]). A checksum to send is `!(s + c + carry)`, one 16-bit add and an
//! increment ([`fold`]).
//!
//! `update` (the model rust-hdl's simulator runs) and the emitted Verilog are built from the same tree
//! ([`tree`]), step for step.
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct Csa16<const N: usize> {
    pub a: Signal<In, Bits<N>>,
    pub s: Signal<Out, Bits<16>>,
    pub c: Signal<Out, Bits<16>>,
}

/// The three-to-two steps over `words`, a layer at a time, three words per step in order and the ones
/// left over passed on, until two are left (fewer inputs: `zero` stands in).
pub fn tree<T: Clone>(
    mut words: Vec<T>,
    zero: T,
    mut step: impl FnMut(T, T, T) -> (T, T),
) -> (T, T) {
    while words.len() > 2 {
        let mut next = Vec::with_capacity(words.len());
        for g in words.chunks(3) {
            if let [x, y, z] = g {
                let (s, c) = step(x.clone(), y.clone(), z.clone());
                next.push(s);
                next.push(c);
            } else {
                next.extend(g.iter().cloned());
            }
        }
        words = next;
    }
    words.resize(2, zero);
    (words[0].clone(), words[1].clone())
}

/// One step on plain words: the model.
pub fn step16(x: u16, y: u16, z: u16) -> (u16, u16) {
    (x ^ y ^ z, ((x & y) | (x & z) | (y & z)).rotate_left(1))
}

/// Whether a carry-save pair sums to one's-complement zero (either form).
pub fn sums_to_zero(s: u16, c: u16) -> bool {
    c == !s || (s == 0 && c == 0) || (s == 0xFFFF && c == 0xFFFF)
}

/// The one's-complement sum of a carry-save pair as one word.
pub fn fold(s: u16, c: u16) -> u16 {
    let t = s as u32 + c as u32;
    ((t & 0xFFFF) + (t >> 16)) as u16
}

impl<const N: usize> Logic for Csa16<N> {
    fn update(&mut self) {
        let a = self.a.val();
        let words = (0..N / 16)
            .map(|i| a.get_bits::<16>(i * 16).to_u64() as u16)
            .collect();
        let (s, c) = tree(words, 0, step16);
        self.s.next = (s as u64).into();
        self.c.next = (c as u64).into();
    }

    fn connect(&mut self) {
        assert!(N.is_multiple_of(16));
        self.s.connect();
        self.c.connect();
    }

    fn hdl(&self) -> Verilog {
        let mut decl = Vec::new();
        let mut body = Vec::new();
        let words = (0..N / 16)
            .map(|i| format!("a[{}:{}]", i * 16 + 15, i * 16))
            .collect();
        let (s, c) = tree(words, "16'd0".to_string(), |x, y, z| {
            let k = decl.len() / 2;
            let (ws, wm, wc) = (format!("t{k}_s"), format!("t{k}_m"), format!("t{k}_c"));
            decl.push(format!("wire [15:0] {ws};"));
            decl.push(format!("wire [15:0] {wm};"));
            body.push(format!("assign {ws} = {x} ^ {y} ^ {z};"));
            body.push(format!(
                "assign {wm} = ({x} & {y}) | ({x} & {z}) | ({y} & {z});"
            ));
            body.push(format!("wire [15:0] {wc} = {{{wm}[14:0], {wm}[15]}};"));
            (ws, wc)
        });
        Verilog::Custom(format!(
            "{}\n{}\nalways @(*) begin s = {s}; c = {c}; end",
            decl.join("\n"),
            body.join("\n")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prim::test_rng;

    /// The one's-complement sum as RFC 1071 computes it: a 32-bit sum folded twice.
    fn rfc1071(words: &[u16]) -> u16 {
        let mut t: u32 = words.iter().map(|&w| w as u32).sum();
        t = (t & 0xFFFF) + (t >> 16);
        t = (t & 0xFFFF) + (t >> 16);
        t as u16
    }

    #[test]
    fn the_pair_sums_to_the_words_sum() {
        let mut rng = test_rng(0x5EED_C5A0);
        for n in 1..40 {
            for round in 0..200 {
                let words: Vec<u16> = (0..n)
                    .map(|_| match round % 4 {
                        0 => 0xFFFF,
                        1 => (rng() & 1) as u16 * 0xFFFF,
                        _ => rng() as u16,
                    })
                    .collect();
                let (s, c) = tree(words.clone(), 0, step16);
                assert_eq!(fold(s, c), rfc1071(&words), "{words:x?}");
                // With the words' checksum appended, the whole sums to zero.
                let mut whole = words.clone();
                whole.push(!rfc1071(&words));
                let (s, c) = tree(whole.clone(), 0, step16);
                assert!(sums_to_zero(s, c), "{whole:x?}");
                // One bit off anywhere, it does not (one's complement detects every one-bit error).
                let i = (rng() as usize) % whole.len();
                whole[i] ^= 1 << (rng() % 16);
                let (s, c) = tree(whole.clone(), 0, step16);
                assert!(!sums_to_zero(s, c), "{whole:x?}");
            }
        }
    }

    #[test]
    fn block_and_verilog_follow_the_tree() {
        let mut uut = Csa16::<144>::default();
        uut.connect_all();
        let words: [u16; 9] = [0xFFFF, 1, 0x8000, 0x7FFF, 0x1234, 0xFEDC, 0, 0xAAAA, 0x5555];
        let mut a: Bits<144> = 0.into();
        for (i, &w) in words.iter().enumerate() {
            a = a | (bit_cast::<144, 16>((w as u64).into()) << (16 * i) as u64);
        }
        uut.a.next = a;
        uut.update_all();
        uut.update();
        let (s, c) = tree(words.to_vec(), 0, step16);
        assert_eq!(
            (uut.s.next, uut.c.next),
            ((s as u64).into(), (c as u64).into())
        );
        assert_eq!(fold(s, c), rfc1071(&words));
        let v = generate_verilog(&uut);
        // Nine words: three steps, then two, then one, then one (9 -> 6 -> 4 -> 3 -> 2).
        assert!(v.contains("assign t6_s ="), "{v}");
        assert!(!v.contains("t7_s"), "{v}");
    }
}
