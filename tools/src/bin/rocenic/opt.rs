//! Option values checked the same way in every tool: a bad one is refused with one line naming the
//! option, the value and what is allowed, never cast or wrapped silently. The `*_parser` functions are
//! clap value parsers with the same messages (clap names the option: `--x: 17 is out of range (1 to 16)`).
use std::ops::RangeInclusive;

/// A clap value parser: a whole number within `range`.
pub fn int_parser(
    range: RangeInclusive<u64>,
) -> impl Fn(&str) -> Result<u64, String> + Clone + Send + Sync + 'static {
    move |v: &str| {
        let n: u64 = v
            .parse()
            .map_err(|_| format!("{v} is not a whole number"))?;
        if !range.contains(&n) {
            return Err(format!(
                "{n} is out of range ({} to {})",
                range.start(),
                range.end()
            ));
        }
        Ok(n)
    }
}

/// A clap value parser: a probability, a finite number from 0 to 1.
pub fn prob_parser(v: &str) -> Result<f64, String> {
    v.parse::<f64>()
        .ok()
        .filter(|p| (0.0..=1.0).contains(p))
        .ok_or(format!("{v} is not a probability (0 to 1)"))
}

/// A clap value parser: a finite number above 0.
pub fn positive_parser(v: &str) -> Result<f64, String> {
    v.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite() && *x > 0.0)
        .ok_or(format!("{v} is not a positive number"))
}

/// A clap value parser: a datapath width.
pub fn width_parser(v: &str) -> Result<rocenic_sim::Width, String> {
    rocenic_sim::Width::parse(v).ok_or(format!("must be 64 or 512, got {v}"))
}

/// A clap value parser: an IB path MTU.
pub fn mtu_parser(v: &str) -> Result<u32, String> {
    match v.parse::<u32>() {
        Ok(m @ (256 | 512 | 1024 | 2048 | 4096)) => Ok(m),
        _ => Err(format!(
            "{v} is not an IB MTU (256, 512, 1024, 2048 or 4096)"
        )),
    }
}

/// Cycles (a local ACK timeout, say): what the core's 32-bit registers hold.
pub const U32: RangeInclusive<u64> = 0..=u32::MAX as u64;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_name_the_value_and_the_range() {
        assert_eq!(int_parser(1..=8)("7"), Ok(7));
        assert_eq!(
            int_parser(U32)("5000000000").unwrap_err(),
            "5000000000 is out of range (0 to 4294967295)"
        );
        assert_eq!(
            int_parser(U32)("-1").unwrap_err(),
            "-1 is not a whole number"
        );
        for bad in ["1.5", "-0.1", "NaN", "inf", "x"] {
            assert_eq!(
                prob_parser(bad).unwrap_err(),
                format!("{bad} is not a probability (0 to 1)")
            );
        }
        assert_eq!(prob_parser("0.25"), Ok(0.25));
        assert_eq!(
            int_parser(1..=16)("17").unwrap_err(),
            "17 is out of range (1 to 16)"
        );
        assert_eq!(mtu_parser("4096"), Ok(4096));
        assert!(mtu_parser("1000").unwrap_err().contains("not an IB MTU"));
    }
}
