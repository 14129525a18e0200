//! Receiving the API's webhooks: [`verify_webhook`] checks a delivery's signature as the
//! Standard Webhooks specification defines it, then reads the event.
//!
//! A delivery is a `POST` whose headers are `webhook-id` (the event's id, the same at every
//! attempt: de-duplicate on it), `webhook-timestamp` (Unix seconds of this attempt) and
//! `webhook-signature` (`v1,<base64>` signatures separated by spaces: two while a rotated
//! secret's old value is still honoured). Each is the HMAC-SHA256 of
//! `{webhook-id}.{webhook-timestamp}.{body}` keyed with the secret's bytes (the base64 after
//! `whsec_`). Verify the body exactly as received, before parsing it.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use reqwest::header::HeaderMap;
use serde::Deserialize;
use sha2::Sha256;
use subtle::ConstantTimeEq;
use time::OffsetDateTime;

/// How far a delivery's `webhook-timestamp` may be from this machine's clock, either way: a
/// captured delivery replayed later is refused.
pub const WEBHOOK_TOLERANCE: Duration = Duration::from_secs(5 * 60);

/// A verified delivery.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct WebhookEvent {
    /// `evt_…`, also the `webhook-id` header: the same at every attempt.
    pub id: String,
    /// `product.updated`, `stock.updated`, `ping`, ...
    #[serde(rename = "type")]
    pub event_type: String,
    #[serde(with = "time::serde::rfc3339")]
    pub timestamp: OffsetDateTime,
    /// The resource as its `GET` shows it at the change (`stock.updated` adds `cause`).
    pub data: serde_json::Value,
}

/// Why a delivery was refused. Answer it with a 4xx: it was not sent by the API with your
/// secret, or not recently.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WebhookError {
    #[error("the `{0}` header is missing or not text")]
    MissingHeader(&'static str),
    #[error("the `webhook-timestamp` header is not a Unix time in seconds")]
    InvalidTimestamp,
    #[error("the delivery is older or newer than the 5-minute tolerance")]
    OutsideTolerance,
    #[error("a secret is not `whsec_` followed by base64")]
    InvalidSecret,
    #[error("no signature matches any of the secrets")]
    NoMatchingSignature,
    #[error("the signed body is not an event: {0}")]
    Body(#[from] serde_json::Error),
}

/// Checks a delivery against the endpoint's secrets (`whsec_…`; several while you roll one
/// over on your side), with this machine's clock, then reads its event. Signatures are
/// compared in constant time.
pub fn verify_webhook(
    secrets: &[&str],
    headers: &HeaderMap,
    body: &[u8],
) -> Result<WebhookEvent, WebhookError> {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs());
    verify_webhook_at(
        secrets,
        headers,
        body,
        i64::try_from(now).unwrap_or(i64::MAX),
    )
}

/// [`verify_webhook`] at a given instant (Unix seconds): for tests, and for receivers that
/// keep their own clock.
pub fn verify_webhook_at(
    secrets: &[&str],
    headers: &HeaderMap,
    body: &[u8],
    now: i64,
) -> Result<WebhookEvent, WebhookError> {
    let id = header(headers, "webhook-id")?;
    let timestamp_text = header(headers, "webhook-timestamp")?;
    let signatures = header(headers, "webhook-signature")?;
    let timestamp: i64 = timestamp_text
        .parse()
        .map_err(|_| WebhookError::InvalidTimestamp)?;
    let tolerance = WEBHOOK_TOLERANCE.as_secs() as i64;
    if now.abs_diff(timestamp) > tolerance as u64 {
        return Err(WebhookError::OutsideTolerance);
    }
    let keys = secrets
        .iter()
        .map(|secret| decode_secret(secret))
        .collect::<Result<Vec<_>, _>>()?;
    let presented: Vec<Vec<u8>> = signatures
        .split(' ')
        .filter_map(|signature| signature.strip_prefix("v1,"))
        .filter_map(|encoded| STANDARD.decode(encoded).ok())
        .collect();
    let matches = keys.iter().any(|key| {
        let expected = sign(key, id, timestamp_text, body);
        presented
            .iter()
            .any(|signature| bool::from(signature.as_slice().ct_eq(expected.as_slice())))
    });
    if !matches {
        return Err(WebhookError::NoMatchingSignature);
    }
    Ok(serde_json::from_slice(body)?)
}

fn header<'a>(headers: &'a HeaderMap, name: &'static str) -> Result<&'a str, WebhookError> {
    headers
        .get(name)
        .and_then(|value| value.to_str().ok())
        .ok_or(WebhookError::MissingHeader(name))
}

fn decode_secret(secret: &str) -> Result<Vec<u8>, WebhookError> {
    let encoded = secret.strip_prefix("whsec_").unwrap_or(secret);
    match STANDARD.decode(encoded) {
        Ok(key) if !key.is_empty() => Ok(key),
        _ => Err(WebhookError::InvalidSecret),
    }
}

fn sign(key: &[u8], id: &str, timestamp: &str, body: &[u8]) -> Vec<u8> {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key)
        .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
    for part in [id.as_bytes(), b".", timestamp.as_bytes(), b".", body] {
        mac.update(part);
    }
    mac.finalize().into_bytes().to_vec()
}

#[cfg(test)]
mod tests {
    use reqwest::header::HeaderValue;

    use super::*;

    // The Standard Webhooks specification's published test vector. Its body is not one of our
    // events, so the vector checks the signature and the body's reading is checked apart.
    const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const ID: &str = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    const TIMESTAMP: i64 = 1_614_265_330;
    const BODY: &[u8] = br#"{"test": 2432232314}"#;
    const SIGNATURE: &str = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";
    const EVENT: &[u8] =
        br#"{"id":"evt_1","type":"ping","timestamp":"2026-11-27T10:00:00.000Z","data":{}}"#;

    fn headers(id: &str, timestamp: i64, signature: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in [
            ("webhook-id", id.to_owned()),
            ("webhook-timestamp", timestamp.to_string()),
            ("webhook-signature", signature.to_owned()),
        ] {
            headers.insert(name, HeaderValue::from_str(&value).expect("ASCII"));
        }
        headers
    }

    fn signed(secret: &str, body: &[u8], timestamp: i64) -> String {
        let key = decode_secret(secret).expect("a valid secret");
        let signature = sign(&key, "evt_1", &timestamp.to_string(), body);
        format!("v1,{}", STANDARD.encode(signature))
    }

    #[test]
    fn the_specifications_test_vector_is_accepted_up_to_reading_its_body() {
        let result = verify_webhook_at(
            &[SECRET],
            &headers(ID, TIMESTAMP, SIGNATURE),
            BODY,
            TIMESTAMP,
        );
        // The signature matched: only the body, which is not an event, is refused.
        assert!(matches!(result, Err(WebhookError::Body(_))), "{result:?}");
        let wrong = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OF=";
        let result = verify_webhook_at(&[SECRET], &headers(ID, TIMESTAMP, wrong), BODY, TIMESTAMP);
        assert!(
            matches!(result, Err(WebhookError::NoMatchingSignature)),
            "{result:?}"
        );
    }

    #[test]
    fn an_event_signed_with_any_of_the_secrets_among_several_signatures_is_read() {
        let other = "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
        let now = 1_800_000_000;
        let header = format!("v1,bm9wZQ== {}", signed(other, EVENT, now));
        let event = verify_webhook_at(
            &[SECRET, other],
            &headers("evt_1", now, &header),
            EVENT,
            now,
        )
        .expect("signed with the second secret");
        assert_eq!(
            (event.id.as_str(), event.event_type.as_str()),
            ("evt_1", "ping")
        );
        let refused = verify_webhook_at(&[SECRET], &headers("evt_1", now, &header), EVENT, now);
        assert!(matches!(refused, Err(WebhookError::NoMatchingSignature)));
    }

    #[test]
    fn a_changed_body_or_id_is_refused() {
        let now = 1_800_000_000;
        let signature = signed(SECRET, EVENT, now);
        let changed = br#"{"id":"evt_1","type":"ping","timestamp":"2026-11-27T10:00:00.000Z","data":{"x":1}}"#;
        for (id, body) in [("evt_1", &changed[..]), ("evt_2", EVENT)] {
            let result = verify_webhook_at(&[SECRET], &headers(id, now, &signature), body, now);
            assert!(
                matches!(result, Err(WebhookError::NoMatchingSignature)),
                "{id}"
            );
        }
    }

    #[test]
    fn a_delivery_more_than_five_minutes_away_from_the_clock_is_refused() {
        let sent = 1_800_000_000;
        let signature = signed(SECRET, EVENT, sent);
        let at =
            |now| verify_webhook_at(&[SECRET], &headers("evt_1", sent, &signature), EVENT, now);
        assert!(at(sent + 300).is_ok());
        assert!(at(sent - 300).is_ok());
        assert!(matches!(
            at(sent + 301),
            Err(WebhookError::OutsideTolerance)
        ));
        assert!(matches!(
            at(sent - 301),
            Err(WebhookError::OutsideTolerance)
        ));
    }

    #[test]
    fn missing_headers_and_bad_secrets_are_named() {
        let now = 1_800_000_000;
        let mut partial = headers("evt_1", now, "v1,x");
        partial.remove("webhook-timestamp");
        assert!(matches!(
            verify_webhook_at(&[SECRET], &partial, EVENT, now),
            Err(WebhookError::MissingHeader("webhook-timestamp"))
        ));
        assert!(matches!(
            verify_webhook_at(&["whsec_!!"], &headers("evt_1", now, "v1,x"), EVENT, now),
            Err(WebhookError::InvalidSecret)
        ));
    }
}
