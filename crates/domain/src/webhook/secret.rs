//! An endpoint's signing secret, in the Standard Webhooks form: `whsec_` and the base64 of the
//! key's bytes. The service makes 32 random bytes; the test vector's secret (24 bytes) shows
//! that any length reads back.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

const PREFIX: &str = "whsec_";
/// The bytes of a secret the service makes: HMAC-SHA256's block is 64, its output 32.
pub const SECRET_BYTES: usize = 32;

/// Redacted in `Debug`: it signs every delivery to its endpoint.
#[derive(Clone, PartialEq, Eq)]
pub struct WebhookSecret(Vec<u8>);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected a secret `whsec_` followed by base64")]
pub struct InvalidWebhookSecret;

impl WebhookSecret {
    pub fn from_random_bytes(bytes: [u8; SECRET_BYTES]) -> Self {
        Self(bytes.to_vec())
    }

    /// Reads the text form back (as stored, or as a receiver is given it). Like the reference
    /// libraries, the `whsec_` prefix may be left out.
    pub fn parse(text: &str) -> Result<Self, InvalidWebhookSecret> {
        let encoded = text.strip_prefix(PREFIX).unwrap_or(text);
        match STANDARD.decode(encoded) {
            Ok(bytes) if !bytes.is_empty() => Ok(Self(bytes)),
            _ => Err(InvalidWebhookSecret),
        }
    }

    /// `whsec_…`: shown to the shop once, at creation or rotation, and kept by the store.
    pub fn expose(&self) -> String {
        format!("{PREFIX}{}", STANDARD.encode(&self.0))
    }

    pub(crate) fn key(&self) -> &[u8] {
        &self.0
    }
}

impl fmt::Debug for WebhookSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("WebhookSecret(<redacted>)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_made_secret_is_whsec_and_the_base64_of_32_bytes_and_reads_back() {
        let secret = WebhookSecret::from_random_bytes([7; SECRET_BYTES]);
        let text = secret.expose();
        assert!(text.starts_with("whsec_"));
        assert_eq!(STANDARD.decode(&text[6..]).map(|b| b.len()), Ok(32));
        assert_eq!(WebhookSecret::parse(&text), Ok(secret));
    }

    #[test]
    fn the_prefix_is_optional_and_anything_but_base64_is_refused() {
        let with = WebhookSecret::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
        assert_eq!(
            with,
            WebhookSecret::parse("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        );
        assert!(with.is_ok());
        for bad in ["", "whsec_", "whsec_not base64!", "whsec_===="] {
            assert_eq!(
                WebhookSecret::parse(bad),
                Err(InvalidWebhookSecret),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn debug_never_shows_the_secret() {
        let secret = WebhookSecret::from_random_bytes([1; SECRET_BYTES]);
        assert_eq!(format!("{secret:?}"), "WebhookSecret(<redacted>)");
    }
}
