//! Colours as `#RRGGBB` (variant swatches, loyalty tiers).

use std::fmt;

/// Always stored and rendered in upper case, so that equal colours compare equal.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct HexColor(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected a colour in #RRGGBB form")]
pub struct InvalidColor;

impl HexColor {
    pub fn parse(text: &str) -> Result<Self, InvalidColor> {
        let digits = text.strip_prefix('#').ok_or(InvalidColor)?;
        if digits.len() == 6 && digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            Ok(Self(format!("#{}", digits.to_ascii_uppercase())))
        } else {
            Err(InvalidColor)
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for HexColor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_to_upper_case() {
        assert_eq!(HexColor::parse("#a1b2c3").unwrap().as_str(), "#A1B2C3");
    }

    #[test]
    fn refuses_other_notations() {
        for bad in ["a1b2c3", "#abc", "#a1b2c3d4", "#GGGGGG", "red", ""] {
            assert_eq!(HexColor::parse(bad), Err(InvalidColor), "{bad}");
        }
    }
}
