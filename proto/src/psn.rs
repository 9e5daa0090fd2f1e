//! 24-bit packet sequence numbers (IBA vol 1 §9.7.1): arithmetic wraps, and order is only defined within
//! half the space, so there is no `Ord`: compare with [`Psn::diff`] or [`psn_cmp`].

pub const PSN_MASK: u32 = 0xFF_FFFF;

/// Signed distance `a − b` of two PSNs, in −2²³..2²³: negative when `a` comes before `b`.
pub const fn psn_cmp(a: u32, b: u32) -> i32 {
    (a.wrapping_sub(b) << 8) as i32 >> 8
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Psn(u32);

impl Psn {
    /// The PSN of the low 24 bits of `v`.
    pub const fn new(v: u32) -> Psn {
        Psn(v & PSN_MASK)
    }
    pub const fn value(self) -> u32 {
        self.0
    }
    pub const fn add(self, n: u32) -> Psn {
        Psn::new(self.0.wrapping_add(n))
    }
    pub const fn next(self) -> Psn {
        self.add(1)
    }
    /// `self − other`; see [`psn_cmp`].
    pub const fn diff(self, other: Psn) -> i32 {
        psn_cmp(self.0, other.0)
    }
    pub const fn is_before(self, other: Psn) -> bool {
        self.diff(other) < 0
    }
}

impl From<Psn> for u32 {
    fn from(p: Psn) -> u32 {
        p.0
    }
}

impl std::fmt::Display for Psn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps() {
        let top = Psn::new(0xFF_FFFF);
        assert_eq!(top.next(), Psn::new(0));
        assert_eq!(Psn::new(0x100_0005).value(), 5);
        assert_eq!(Psn::new(0).diff(top), 1);
        assert_eq!(top.diff(Psn::new(0)), -1);
        assert!(top.is_before(Psn::new(3)));
        assert_eq!(psn_cmp(5, 3), 2);
    }

    #[test]
    fn window_is_half_the_space() {
        assert_eq!(psn_cmp(0x7F_FFFF, 0), 0x7F_FFFF);
        assert_eq!(psn_cmp(0x80_0000, 0), -0x80_0000);
        assert_eq!(psn_cmp(100, 100 + 0x7F_FFFF), -0x7F_FFFF);
    }
}
