//! A tax rate's API text (`"20.00"`) made in a fixed buffer (at most `100.00`), without `fmt`:
//! every order item and product carries one. It writes what `TaxRate`'s `Display` writes; a
//! test holds it to it.

use shop_domain::tax_rate::TaxRate;

#[derive(Clone, Copy, Debug)]
pub(crate) struct TaxRateText {
    bytes: [u8; 6],
    len: usize,
}

impl TaxRateText {
    /// `"20.00"`: the units without leading zeros, then two decimals.
    pub(crate) fn of(rate: TaxRate) -> Self {
        // At most 10,000 hundredths (`TaxRate`'s bound).
        let hundredths = rate.hundredths();
        let mut bytes = [0; 6];
        let mut len = 0;
        let units = hundredths / 100;
        for divisor in [100, 10, 1] {
            if units >= divisor || divisor == 1 {
                bytes[len] = b'0' + (units / divisor % 10) as u8;
                len += 1;
            }
        }
        bytes[len] = b'.';
        bytes[len + 1] = b'0' + (hundredths % 100 / 10) as u8;
        bytes[len + 2] = b'0' + (hundredths % 10) as u8;
        Self {
            bytes,
            len: len + 3,
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        // Only ASCII digits and a dot were written.
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or("0.00")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_what_display_writes_for_every_rate() {
        for hundredths in 0..=10_000 {
            let rate = TaxRate::from_hundredths(hundredths).unwrap();
            assert_eq!(TaxRateText::of(rate).as_str(), rate.to_string());
        }
        let rate = TaxRate::parse("5.50").unwrap();
        assert_eq!(TaxRateText::of(rate).as_str(), "5.50");
    }
}
