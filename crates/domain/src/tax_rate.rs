//! VAT rates, written `"20.00"` (spec §2: a decimal string with two decimals).

use std::fmt;

/// A rate in hundredths of a percent (`20.00` % is 2000), between 0.00 and 100.00.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TaxRate(u16);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected a rate between 0.00 and 100.00 with exactly two decimals, such as \"20.00\"")]
pub struct InvalidTaxRate;

impl TaxRate {
    pub fn from_hundredths(hundredths: i64) -> Result<Self, InvalidTaxRate> {
        u16::try_from(hundredths)
            .ok()
            .filter(|h| *h <= 10_000)
            .map(Self)
            .ok_or(InvalidTaxRate)
    }

    pub const fn hundredths(self) -> i64 {
        self.0 as i64
    }

    /// Accepts 1 to 3 integer digits and exactly two decimals: `"5.50"`, `"20.00"`, `"0.00"`.
    pub fn parse(text: &str) -> Result<Self, InvalidTaxRate> {
        let (units, decimals) = text.split_once('.').ok_or(InvalidTaxRate)?;
        let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if !(1..=3).contains(&units.len())
            || decimals.len() != 2
            || !all_digits(units)
            || !all_digits(decimals)
        {
            return Err(InvalidTaxRate);
        }
        let units: i64 = units.parse().map_err(|_| InvalidTaxRate)?;
        let decimals: i64 = decimals.parse().map_err(|_| InvalidTaxRate)?;
        Self::from_hundredths(units * 100 + decimals)
    }
}

/// `"20.00"`, `"5.50"`: no leading zero padding, always two decimals.
impl fmt::Display for TaxRate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:02}", self.0 / 100, self.0 % 100)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_two_decimals() {
        assert_eq!(TaxRate::parse("20.00").unwrap().to_string(), "20.00");
        assert_eq!(TaxRate::parse("5.50").unwrap().to_string(), "5.50");
        assert_eq!(TaxRate::parse("05.50").unwrap().to_string(), "5.50");
        assert_eq!(TaxRate::from_hundredths(210).unwrap().to_string(), "2.10");
        assert_eq!(TaxRate::from_hundredths(0).unwrap().to_string(), "0.00");
        assert_eq!(
            TaxRate::from_hundredths(10_000).unwrap().to_string(),
            "100.00"
        );
        assert_eq!(
            TaxRate::from_hundredths(1_005).unwrap().to_string(),
            "10.05"
        );
        for hundredths in 0..=10_000 {
            let rate = TaxRate::from_hundredths(hundredths).unwrap();
            assert_eq!(TaxRate::parse(&rate.to_string()), Ok(rate));
        }
    }

    #[test]
    fn refuses_other_shapes_and_out_of_range() {
        for bad in [
            "20", "20.0", "20.000", "-5.50", "20,00", ".50", "abc", "100.01", "1000.00", " 20.00",
        ] {
            assert_eq!(TaxRate::parse(bad), Err(InvalidTaxRate), "{bad}");
        }
        assert!(TaxRate::from_hundredths(-1).is_err());
        assert!(TaxRate::parse("100.00").is_ok());
    }
}
