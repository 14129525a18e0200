//! Console sessions: who is signed in, for how long, and the token that proves a form came
//! from the console itself (OWASP ASVS 3: session management, level 2).
//!
//! A session is identified by 256 random bits, sent to the browser once in a cookie and
//! stored only as their SHA-256 digest, so that a copy of the database holds no usable
//! session. A session ends after 30 minutes without a request or 12 hours after sign-in,
//! whichever comes first, at sign-out, or when its owner is disabled. Each session has its
//! own anti-CSRF token, put in every form and compared in constant time.

use std::fmt;

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::Timestamp;
use crate::hex::{is_lower_hex, to_lower_hex};
use crate::id::OwnerId;

/// ASVS 3.3.2: re-authentication after 30 minutes of inactivity.
pub const IDLE_TIMEOUT_MILLIS: i64 = 30 * 60 * 1_000;
/// ASVS 3.3.2: and after 12 hours whatever the activity.
pub const ABSOLUTE_TIMEOUT_MILLIS: i64 = 12 * 60 * 60 * 1_000;
/// A session's last activity is written at most once a minute, not at every page: the idle
/// timeout is therefore exact to the minute.
pub const ACTIVITY_WRITE_INTERVAL_MILLIS: i64 = 60 * 1_000;

const TOKEN_HEX_LEN: usize = 64;

/// The session id the browser holds (the cookie's value). Redacted in `Debug`.
#[derive(Clone, PartialEq, Eq)]
pub struct SessionToken(String);

impl SessionToken {
    pub fn from_random_bytes(bytes: [u8; 32]) -> Self {
        Self(to_lower_hex(&bytes))
    }

    /// A cookie value that is not 64 lower-case hex digits is no session.
    pub fn parse(text: &str) -> Option<Self> {
        is_lower_hex(text, TOKEN_HEX_LEN).then(|| Self(text.to_owned()))
    }

    /// The cookie's value: to be sent once, never logged.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// What the store keeps and looks sessions up by.
    pub fn digest(&self) -> SessionDigest {
        SessionDigest(to_lower_hex(&Sha256::digest(self.0.as_bytes())))
    }
}

impl fmt::Debug for SessionToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SessionToken(<redacted>)")
    }
}

/// The SHA-256 of a session token, in hex: the session's key in the store.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SessionDigest(String);

impl SessionDigest {
    /// A digest read back from the store.
    pub fn from_stored(text: impl Into<String>) -> Self {
        Self(text.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The per-session anti-CSRF token, in every form of the console as `csrf_token`.
#[derive(Clone, PartialEq, Eq)]
pub struct CsrfToken(String);

impl CsrfToken {
    pub fn from_random_bytes(bytes: [u8; 32]) -> Self {
        Self(to_lower_hex(&bytes))
    }

    /// A token read back from the store.
    pub fn from_stored(text: impl Into<String>) -> Self {
        Self(text.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether a submitted form carries this token, in time that does not depend on where
    /// the two first differ.
    pub fn matches(&self, submitted: &str) -> bool {
        self.0.len() == submitted.len() && bool::from(self.0.as_bytes().ct_eq(submitted.as_bytes()))
    }
}

impl fmt::Debug for CsrfToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CsrfToken(<redacted>)")
    }
}

/// A stored session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnerSession {
    pub digest: SessionDigest,
    pub owner_id: OwnerId,
    pub csrf: CsrfToken,
    pub created_at: Timestamp,
    /// The last request seen, to the minute (see [`ACTIVITY_WRITE_INTERVAL_MILLIS`]).
    pub last_seen_at: Timestamp,
}

impl OwnerSession {
    /// Live strictly before its idle and its absolute deadline.
    pub fn is_live_at(&self, now: Timestamp) -> bool {
        now < self.last_seen_at.plus_millis(IDLE_TIMEOUT_MILLIS)
            && now < self.created_at.plus_millis(ABSOLUTE_TIMEOUT_MILLIS)
    }

    /// Whether a request at `now` should record itself as the session's last activity.
    pub fn activity_is_due(&self, now: Timestamp) -> bool {
        now.millis_since(self.last_seen_at) >= ACTIVITY_WRITE_INTERVAL_MILLIS
    }

    /// When the session ends if nothing else happens: for the cookie's `Max-Age`.
    pub fn ends_at(&self) -> Timestamp {
        self.last_seen_at
            .plus_millis(IDLE_TIMEOUT_MILLIS)
            .min(self.created_at.plus_millis(ABSOLUTE_TIMEOUT_MILLIS))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(created: i64, seen: i64) -> OwnerSession {
        OwnerSession {
            digest: SessionToken::from_random_bytes([1; 32]).digest(),
            owner_id: OwnerId::parse("owner_1").unwrap(),
            csrf: CsrfToken::from_random_bytes([2; 32]),
            created_at: Timestamp::from_millis(created),
            last_seen_at: Timestamp::from_millis(seen),
        }
    }

    #[test]
    fn a_session_ends_after_thirty_idle_minutes() {
        let s = session(0, 0);
        assert!(s.is_live_at(Timestamp::from_millis(IDLE_TIMEOUT_MILLIS - 1)));
        assert!(!s.is_live_at(Timestamp::from_millis(IDLE_TIMEOUT_MILLIS)));
    }

    #[test]
    fn a_session_ends_twelve_hours_after_sign_in_however_active() {
        let created = 0;
        let seen = ABSOLUTE_TIMEOUT_MILLIS - 60_000;
        let s = session(created, seen);
        assert!(s.is_live_at(Timestamp::from_millis(ABSOLUTE_TIMEOUT_MILLIS - 1)));
        assert!(!s.is_live_at(Timestamp::from_millis(ABSOLUTE_TIMEOUT_MILLIS)));
        assert_eq!(s.ends_at().millis(), ABSOLUTE_TIMEOUT_MILLIS);
    }

    #[test]
    fn activity_is_written_at_most_once_a_minute() {
        let s = session(0, 1_000);
        assert!(!s.activity_is_due(Timestamp::from_millis(60_999)));
        assert!(s.activity_is_due(Timestamp::from_millis(61_000)));
    }

    #[test]
    fn tokens_are_64_hex_digits_and_only_their_digest_is_stored() {
        let token = SessionToken::from_random_bytes([0xab; 32]);
        assert_eq!(token.expose().len(), 64);
        assert_eq!(SessionToken::parse(token.expose()), Some(token.clone()));
        let digest = token.digest();
        assert_eq!(digest.as_str().len(), 64);
        assert_ne!(digest.as_str(), token.expose());
        for bad in ["", "abc", &"A".repeat(64), &"g".repeat(64), &"a".repeat(65)] {
            assert_eq!(SessionToken::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn csrf_tokens_match_only_themselves() {
        let token = CsrfToken::from_random_bytes([7; 32]);
        assert!(token.matches(&"07".repeat(32)));
        assert!(!token.matches(&"07".repeat(31)));
        assert!(!token.matches(&format!("{}08", "07".repeat(31))));
        assert!(!token.matches(""));
    }

    #[test]
    fn secrets_never_show_in_debug_output() {
        let token = SessionToken::from_random_bytes([0xcd; 32]);
        let csrf = CsrfToken::from_random_bytes([0xef; 32]);
        let shown = format!("{token:?} {csrf:?}");
        assert!(
            !shown.contains("cdcd") && !shown.contains("efef"),
            "{shown}"
        );
    }
}
