//! Option values checked the same way in every tool: a bad one is refused with one line naming the
//! option, the value and what is allowed, never cast or wrapped silently.
use std::ops::RangeInclusive;

/// A whole number for option `name` within `range`.
pub fn int(name: &str, v: &str, range: RangeInclusive<u64>) -> Result<u64, String> {
    let n: u64 = v
        .parse()
        .map_err(|_| format!("{name}: {v} is not a whole number"))?;
    if !range.contains(&n) {
        return Err(format!(
            "{name}: {n} is out of range ({} to {})",
            range.start(),
            range.end()
        ));
    }
    Ok(n)
}

/// A probability for option `name`: a finite number from 0 to 1.
pub fn prob(name: &str, v: &str) -> Result<f64, String> {
    v.parse::<f64>()
        .ok()
        .filter(|p| (0.0..=1.0).contains(p))
        .ok_or(format!("{name}: {v} is not a probability (0 to 1)"))
}

/// The value after option `name`.
pub fn value<'a>(name: &str, v: Option<&'a String>) -> Result<&'a str, String> {
    v.map(String::as_str).ok_or(format!("{name} needs a value"))
}

/// Cycles (a local ACK timeout, say): what the core's 32-bit registers hold.
pub const U32: RangeInclusive<u64> = 0..=u32::MAX as u64;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_name_the_value_and_the_range() {
        assert_eq!(int("--x", "7", 1..=8), Ok(7));
        assert_eq!(
            int("--ack-timeout", "5000000000", U32).unwrap_err(),
            "--ack-timeout: 5000000000 is out of range (0 to 4294967295)"
        );
        assert_eq!(
            int("--x", "-1", U32).unwrap_err(),
            "--x: -1 is not a whole number"
        );
        for bad in ["1.5", "-0.1", "NaN", "inf", "x"] {
            assert_eq!(
                prob("--corrupt", bad).unwrap_err(),
                format!("--corrupt: {bad} is not a probability (0 to 1)")
            );
        }
        assert_eq!(prob("--corrupt", "0.25"), Ok(0.25));
    }
}
