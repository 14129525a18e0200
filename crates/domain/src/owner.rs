//! Shop owners: the people who sign in to the console to manage their shop's API keys.
//!
//! An owner belongs to one shop (a shop may have several), signs in with an e-mail address
//! and a password, and can be disabled. Only the password's argon2id hash is stored, with the
//! same settings as the keys' secrets; hashing is a port, this module knows the rules.

use std::fmt;

use crate::Timestamp;
use crate::id::{OwnerId, ShopId};

/// An owner's e-mail address, the sign-in name: trimmed and lower-cased, so that
/// `Ana@Shop.fr` and `ana@shop.fr` are one account.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OwnerEmail(String);

pub const MAX_EMAIL_LEN: usize = 254;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected an e-mail address such as owner@example.com (at most 254 characters)")]
pub struct InvalidEmail;

impl OwnerEmail {
    /// One `@` with text on both sides, a dot in the domain, no blanks or control characters.
    /// Deliberately loose beyond that: the address is a sign-in name, not a mailbox we write to.
    pub fn parse(text: &str) -> Result<Self, InvalidEmail> {
        let email = text.trim().to_lowercase();
        let Some((local, domain)) = email.split_once('@') else {
            return Err(InvalidEmail);
        };
        let valid = email.chars().count() <= MAX_EMAIL_LEN
            && !local.is_empty()
            && !domain.contains('@')
            && domain.contains('.')
            && !domain.starts_with('.')
            && !domain.ends_with('.')
            && !email.chars().any(|c| c.is_whitespace() || c.is_control());
        if valid {
            Ok(Self(email))
        } else {
            Err(InvalidEmail)
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for OwnerEmail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A password as typed. Its `Debug` is redacted so that it cannot reach a log by accident.
#[derive(Clone, PartialEq, Eq)]
pub struct Password(String);

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum WeakPassword {
    #[error(
        "the password must be at least {} characters long",
        Password::MIN_CHARS
    )]
    TooShort,
    #[error("the password must be at most {} characters long", Password::MAX_CHARS)]
    TooLong,
}

impl Password {
    /// OWASP ASVS 2.1.1: at least 12 characters; no composition rules (2.1.9).
    pub const MIN_CHARS: usize = 12;
    /// ASVS 2.1.2 allows 64 and more; the bound keeps a sign-in's hashing input small.
    pub const MAX_CHARS: usize = 256;

    /// A new password, held to the policy. Spaces are kept: they are part of a passphrase.
    pub fn new(text: &str) -> Result<Self, WeakPassword> {
        let chars = text.chars().count();
        if chars < Self::MIN_CHARS {
            Err(WeakPassword::TooShort)
        } else if chars > Self::MAX_CHARS {
            Err(WeakPassword::TooLong)
        } else {
            Ok(Self(text.to_owned()))
        }
    }

    /// A password typed at sign-in, checked against a stored hash whatever its length; one
    /// over the maximum cannot match and is cut, so that hashing it costs what any other does.
    pub fn attempt(text: &str) -> Self {
        Self(text.chars().take(Self::MAX_CHARS + 1).collect())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(<redacted>)")
    }
}

/// A stored owner account. `password_hash` is an argon2id PHC string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    pub id: OwnerId,
    pub shop_id: ShopId,
    pub email: OwnerEmail,
    pub password_hash: String,
    pub created_at: Timestamp,
    /// A disabled owner cannot sign in, and their sessions end at once.
    pub disabled_at: Option<Timestamp>,
}

impl Owner {
    pub fn is_enabled(&self) -> bool {
        self.disabled_at.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_are_one_account_whatever_their_case() {
        let a = OwnerEmail::parse("  Ana.Martin@Boutique.FR ").unwrap();
        assert_eq!(a.as_str(), "ana.martin@boutique.fr");
        assert_eq!(a, OwnerEmail::parse("ana.martin@boutique.fr").unwrap());
    }

    #[test]
    fn refuses_what_cannot_be_an_address() {
        let long = format!("{}@shop.fr", "a".repeat(250));
        for bad in [
            "",
            "ana",
            "@shop.fr",
            "ana@",
            "ana@shop",
            "ana@@shop.fr",
            "ana@shop.fr@x.fr",
            "ana martin@shop.fr",
            "ana@.fr",
            "ana@shop.",
            "ana\u{7}@shop.fr",
            long.as_str(),
        ] {
            assert_eq!(OwnerEmail::parse(bad), Err(InvalidEmail), "{bad:?}");
        }
    }

    #[test]
    fn passwords_need_twelve_characters_counted_as_characters() {
        assert_eq!(Password::new("elevenchars"), Err(WeakPassword::TooShort));
        assert!(Password::new("twelve chars").is_ok());
        assert!(
            Password::new("éééééééééééé").is_ok(),
            "12 characters, 24 bytes"
        );
        assert_eq!(Password::new(&"x".repeat(257)), Err(WeakPassword::TooLong));
    }

    #[test]
    fn a_sign_in_attempt_is_never_refused_but_is_bounded() {
        assert_eq!(Password::attempt("short").expose(), "short");
        assert_eq!(Password::attempt(&"x".repeat(10_000)).expose().len(), 257);
    }

    #[test]
    fn a_password_never_shows_in_debug_output() {
        let password = Password::new("correct horse battery").unwrap();
        assert!(!format!("{password:?}").contains("horse"));
    }
}
