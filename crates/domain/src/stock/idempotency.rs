//! `Idempotency-Key` (IETF httpapi draft, Stripe's semantics): a client-chosen key that makes
//! a retried write return the first response instead of applying twice.

/// Records are kept at least this long (24 h); an older key may be used again.
pub const IDEMPOTENCY_RETENTION_MILLIS: i64 = 24 * 3_600 * 1_000;

/// 1 to 255 visible ASCII characters (0x21 to 0x7E).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IdempotencyKey(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("must be 1 to 255 visible ASCII characters")]
pub struct InvalidIdempotencyKey;

impl IdempotencyKey {
    pub fn parse(text: &str) -> Result<Self, InvalidIdempotencyKey> {
        let valid =
            (1..=255).contains(&text.len()) && text.bytes().all(|b| (0x21..=0x7e).contains(&b));
        if valid {
            Ok(Self(text.to_owned()))
        } else {
            Err(InvalidIdempotencyKey)
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visible_ascii_up_to_255() {
        assert!(IdempotencyKey::parse("0190a3c4-7b1e-7cc2-9a4e-1f2d3c4b5a69").is_ok());
        assert!(IdempotencyKey::parse(&"k".repeat(255)).is_ok());
        for bad in ["", "with space", "tab\t", "é", &"k".repeat(256)] {
            assert_eq!(
                IdempotencyKey::parse(bad),
                Err(InvalidIdempotencyKey),
                "{bad:?}"
            );
        }
    }
}
