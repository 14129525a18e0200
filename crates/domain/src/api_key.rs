//! API keys: `svc_live_<8-hex prefix>_<64-hex secret>` (spec §5).
//!
//! The prefix identifies the key and is shown in the dashboard; the secret is 32 random bytes,
//! shown once and stored only as an argon2id hash. This module knows the format; generating
//! random bytes and hashing are ports, because they are I/O and CPU-heavy work respectively.

use std::fmt;

use sha2::{Digest, Sha256};

use crate::Timestamp;
use crate::day::{parse_day, start_of};
use crate::hex::{is_lower_hex, to_lower_hex};
use crate::id::ShopId;
use crate::scope::ScopeSet;

pub const KEY_MARKER: &str = "svc_live_";
pub const PREFIX_HEX_LEN: usize = 8;
pub const SECRET_HEX_LEN: usize = 64;
pub const MAX_LABEL_LEN: usize = 100;

/// The public, unique part of a key: 8 lower-case hex digits.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KeyPrefix(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected 8 lower-case hexadecimal characters")]
pub struct InvalidPrefix;

impl KeyPrefix {
    pub fn parse(text: &str) -> Result<Self, InvalidPrefix> {
        if is_lower_hex(text, PREFIX_HEX_LEN) {
            Ok(Self(text.to_owned()))
        } else {
            Err(InvalidPrefix)
        }
    }

    pub fn from_random_bytes(bytes: [u8; 4]) -> Self {
        Self(to_lower_hex(&bytes))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for KeyPrefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The secret part of a key. Its `Debug` is redacted so that it cannot reach a log by accident.
#[derive(Clone, PartialEq, Eq)]
pub struct KeySecret(String);

impl KeySecret {
    pub fn from_random_bytes(bytes: [u8; 32]) -> Self {
        Self(to_lower_hex(&bytes))
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for KeySecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("KeySecret(<redacted>)")
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("malformed API key")]
pub struct MalformedKey;

/// A key as presented by a caller, syntactically valid but not yet verified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PresentedKey {
    prefix: KeyPrefix,
    secret: KeySecret,
}

impl PresentedKey {
    pub fn parse(text: &str) -> Result<Self, MalformedKey> {
        let rest = text.strip_prefix(KEY_MARKER).ok_or(MalformedKey)?;
        let (prefix, secret) = rest.split_once('_').ok_or(MalformedKey)?;
        let prefix = KeyPrefix::parse(prefix).map_err(|_| MalformedKey)?;
        if !is_lower_hex(secret, SECRET_HEX_LEN) {
            return Err(MalformedKey);
        }
        Ok(Self {
            prefix,
            secret: KeySecret(secret.to_owned()),
        })
    }

    pub fn new(prefix: KeyPrefix, secret: KeySecret) -> Self {
        Self { prefix, secret }
    }

    pub fn prefix(&self) -> &KeyPrefix {
        &self.prefix
    }

    pub fn secret(&self) -> &KeySecret {
        &self.secret
    }

    /// The full key, to be shown once to the owner and never logged.
    pub fn reveal(&self) -> String {
        format!("{KEY_MARKER}{}_{}", self.prefix.0, self.secret.0)
    }

    /// SHA-256 of the full key: the identity under which a successful verification may be
    /// remembered without keeping the secret itself in memory.
    /// The full key is hashed in its parts, without being assembled in memory first.
    pub fn digest(&self) -> [u8; 32] {
        Sha256::new()
            .chain_update(KEY_MARKER)
            .chain_update(&self.prefix.0)
            .chain_update("_")
            .chain_update(&self.secret.0)
            .finalize()
            .into()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("expected a date such as 2027-01-31")]
pub struct InvalidExpiryDate;

/// The expiry of a key the owner wants usable through `date` (`YYYY-MM-DD`, UTC): the first
/// instant of the next day, since an expiry is exclusive.
pub fn expiry_after_day(date: &str) -> Result<Timestamp, InvalidExpiryDate> {
    parse_day(date.trim())
        .and_then(|day| day.next_day())
        .map(start_of)
        .ok_or(InvalidExpiryDate)
}

/// A stored key. `secret_hash` is an argon2id PHC string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiKey {
    pub prefix: KeyPrefix,
    pub shop_id: ShopId,
    pub label: String,
    pub scopes: ScopeSet,
    pub secret_hash: String,
    pub created_at: Timestamp,
    pub expires_at: Option<Timestamp>,
    pub revoked_at: Option<Timestamp>,
    /// The last minute the key authenticated a request, as recorded (at most once a minute
    /// per key and instance, off the request's path); `None` if never.
    pub last_used_at: Option<Timestamp>,
}

/// What the owner sees of a key in the console.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyStatus {
    Active,
    Revoked,
    Expired,
}

impl KeyStatus {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Revoked => "revoked",
            Self::Expired => "expired",
        }
    }
}

impl ApiKey {
    /// Revoked keys are never usable; an expiry is exclusive (a key expiring at 10:00 is
    /// refused at 10:00).
    pub fn is_usable_at(&self, now: Timestamp) -> bool {
        self.status_at(now) == KeyStatus::Active
    }

    /// A revocation shows over an expiry: it was the owner's decision.
    pub fn status_at(&self, now: Timestamp) -> KeyStatus {
        if self.revoked_at.is_some() {
            KeyStatus::Revoked
        } else if self.expires_at.is_some_and(|expiry| now >= expiry) {
            KeyStatus::Expired
        } else {
            KeyStatus::Active
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PREFIX: &str = "0a1b2c3d";
    fn secret() -> String {
        "f".repeat(64)
    }

    #[test]
    fn parses_the_spec_format() {
        let key = PresentedKey::parse(&format!("svc_live_{PREFIX}_{}", secret())).unwrap();
        assert_eq!(key.prefix().as_str(), PREFIX);
        assert_eq!(key.secret().expose(), secret());
        assert_eq!(key.reveal(), format!("svc_live_{PREFIX}_{}", secret()));
    }

    #[test]
    fn refuses_every_malformation() {
        let s = secret();
        let cases = [
            String::new(),
            format!("svc_test_{PREFIX}_{s}"),
            format!("svc_live_{PREFIX}{s}"),
            format!("svc_live_0A1B2C3D_{s}"),
            format!("svc_live_0a1b2c3_{s}"),
            format!("svc_live_{PREFIX}_{}", &s[1..]),
            format!("svc_live_{PREFIX}_{s}0"),
            format!("svc_live_{PREFIX}_{}g", &s[1..]),
            format!(" svc_live_{PREFIX}_{s}"),
        ];
        for case in cases {
            assert_eq!(PresentedKey::parse(&case), Err(MalformedKey), "{case}");
        }
    }

    #[test]
    fn generated_parts_have_the_right_shape() {
        let prefix = KeyPrefix::from_random_bytes([0xde, 0xad, 0x00, 0x0f]);
        assert_eq!(prefix.as_str(), "dead000f");
        let secret = KeySecret::from_random_bytes([0xab; 32]);
        let key = PresentedKey::new(prefix, secret);
        assert_eq!(PresentedKey::parse(&key.reveal()), Ok(key));
    }

    #[test]
    fn secret_never_shows_in_debug_output() {
        let key = PresentedKey::parse(&format!("svc_live_{PREFIX}_{}", secret())).unwrap();
        assert!(!format!("{key:?}").contains(&secret()));
    }

    #[test]
    fn digest_distinguishes_secrets() {
        let a = PresentedKey::new(
            KeyPrefix::from_random_bytes([1; 4]),
            KeySecret::from_random_bytes([1; 32]),
        );
        let b = PresentedKey::new(
            KeyPrefix::from_random_bytes([1; 4]),
            KeySecret::from_random_bytes([2; 32]),
        );
        assert_ne!(a.digest(), b.digest());
    }

    #[test]
    fn digest_is_the_sha256_of_the_full_key() {
        let key = PresentedKey::parse(&format!("svc_live_{PREFIX}_{}", secret())).unwrap();
        let whole: [u8; 32] = Sha256::digest(key.reveal().as_bytes()).into();
        assert_eq!(key.digest(), whole);
    }

    #[test]
    fn a_key_expiring_on_a_day_works_through_that_day() {
        let expiry = expiry_after_day("2027-01-31").unwrap();
        assert_eq!(expiry.to_rfc3339(), "2027-02-01T00:00:00.000Z");
        for bad in [
            "",
            "2027-02-30",
            "31/01/2027",
            "2027-01-31T00:00:00Z",
            "2027-1-31",
        ] {
            assert_eq!(expiry_after_day(bad), Err(InvalidExpiryDate), "{bad}");
        }
    }

    #[test]
    fn revoked_and_expired_keys_are_unusable() {
        let mut key = ApiKey {
            prefix: KeyPrefix::parse(PREFIX).unwrap(),
            shop_id: ShopId::parse("shop").unwrap(),
            label: "l".into(),
            scopes: ScopeSet::empty(),
            secret_hash: String::new(),
            created_at: Timestamp::from_millis(0),
            expires_at: Some(Timestamp::from_millis(1_000)),
            revoked_at: None,
            last_used_at: None,
        };
        assert!(key.is_usable_at(Timestamp::from_millis(999)));
        assert!(!key.is_usable_at(Timestamp::from_millis(1_000)));
        assert_eq!(
            key.status_at(Timestamp::from_millis(1_000)),
            KeyStatus::Expired
        );
        key.expires_at = None;
        assert!(key.is_usable_at(Timestamp::from_millis(i64::MAX)));
        key.revoked_at = Some(Timestamp::from_millis(5));
        assert!(!key.is_usable_at(Timestamp::from_millis(1)));
        key.expires_at = Some(Timestamp::from_millis(3));
        assert_eq!(
            key.status_at(Timestamp::from_millis(4)),
            KeyStatus::Revoked,
            "a revocation shows over an expiry"
        );
    }
}
