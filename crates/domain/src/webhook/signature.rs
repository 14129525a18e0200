//! Signatures of a delivery, as the Standard Webhooks specification writes them:
//! `webhook-signature` holds `v1,` and the base64 of HMAC-SHA256 over
//! `{webhook-id}.{webhook-timestamp}.{body}` keyed with the secret's bytes, one per secret,
//! separated by spaces (two while a rotated secret's old value is still honoured).

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::secret::WebhookSecret;

/// The `v1,…` signature of one delivery attempt under one secret. `timestamp` is the attempt's
/// Unix seconds, the value of its `webhook-timestamp`.
pub fn sign(secret: &WebhookSecret, message_id: &str, timestamp: i64, body: &[u8]) -> String {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(secret.key())
        .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
    mac.update(message_id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
}

/// The value of `webhook-signature` for one attempt: the current secret's signature first,
/// then, during a rotation's grace period, the previous secret's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignatureHeader(String);

impl SignatureHeader {
    pub fn new<'a>(
        secrets: impl IntoIterator<Item = &'a WebhookSecret>,
        message_id: &str,
        timestamp: i64,
        body: &[u8],
    ) -> Self {
        let signatures: Vec<String> = secrets
            .into_iter()
            .map(|secret| sign(secret, message_id, timestamp, body))
            .collect();
        Self(signatures.join(" "))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const VECTOR_SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const VECTOR_ID: &str = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    const VECTOR_TIMESTAMP: i64 = 1_614_265_330;
    const VECTOR_BODY: &[u8] = br#"{"test": 2432232314}"#;
    const VECTOR_SIGNATURE: &str = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

    fn vector_secret() -> WebhookSecret {
        WebhookSecret::parse(VECTOR_SECRET).expect("the vector's secret")
    }

    #[test]
    fn the_standard_webhooks_test_vector_reproduces_exactly() {
        let signed = sign(&vector_secret(), VECTOR_ID, VECTOR_TIMESTAMP, VECTOR_BODY);
        assert_eq!(signed, VECTOR_SIGNATURE);
    }

    #[test]
    fn every_signed_part_changes_the_signature() {
        let secret = vector_secret();
        let other_secret = WebhookSecret::from_random_bytes([9; 32]);
        for changed in [
            sign(&other_secret, VECTOR_ID, VECTOR_TIMESTAMP, VECTOR_BODY),
            sign(&secret, "msg_other", VECTOR_TIMESTAMP, VECTOR_BODY),
            sign(&secret, VECTOR_ID, VECTOR_TIMESTAMP + 1, VECTOR_BODY),
            sign(
                &secret,
                VECTOR_ID,
                VECTOR_TIMESTAMP,
                br#"{"test": 2432232315}"#,
            ),
        ] {
            assert_ne!(changed, VECTOR_SIGNATURE);
        }
    }

    #[test]
    fn a_rotation_signs_with_both_secrets_newest_first_separated_by_a_space() {
        let old = vector_secret();
        let new = WebhookSecret::from_random_bytes([3; 32]);
        let header = SignatureHeader::new([&new, &old], VECTOR_ID, VECTOR_TIMESTAMP, VECTOR_BODY);
        let parts: Vec<&str> = header.as_str().split(' ').collect();
        assert_eq!(
            parts,
            [
                sign(&new, VECTOR_ID, VECTOR_TIMESTAMP, VECTOR_BODY).as_str(),
                VECTOR_SIGNATURE
            ]
        );
    }
}
