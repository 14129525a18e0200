//! Device cookies of the console (OWASP, "Slow Down Online Guessing Attacks with Device
//! Cookies"): a browser that has signed in as an owner holds a cookie, signed by the server,
//! that names that owner's e-mail. Its failed sign-ins are then counted for that browser
//! alone, so that strangers who spend the e-mail's budget of failures do not lock the owner
//! out of their own browser.
//!
//! The cookie holds OWASP's three fields, `LOGIN.NONCE.SIGNATURE`: the e-mail in base64url
//! (any e-mail is then a valid cookie value; OWASP's `,` is not a cookie character, hence the
//! `.`), 256 random bits in hex that tell one browser from another, and the HMAC-SHA256 of
//! `LOGIN,NONCE` (the e-mail as stored, the nonce in hex) under the server's secret, in hex,
//! compared in constant time. Without the secret nobody can make a cookie for an e-mail
//! whose owner never signed in on their browser; changing any field breaks the signature.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

use crate::hex::{from_lower_hex, is_lower_hex, to_lower_hex};
use crate::owner::{MAX_EMAIL_LEN, OwnerEmail};

const NONCE_HEX_LEN: usize = 64;
const SIGNATURE_HEX_LEN: usize = 64;
/// The longest cookie value: a longest e-mail (4 bytes a character at most) in base64url,
/// then the two hex fields and their dots.
const MAX_COOKIE_LEN: usize =
    (MAX_EMAIL_LEN * 4).div_ceil(3) * 4 + NONCE_HEX_LEN + SIGNATURE_HEX_LEN + 2;

/// The key that signs every device cookie: 256 random bits, shared by every instance of the
/// service (it lives in the database) and kept across restarts, so that a cookie stays valid
/// whichever instance checks it. Redacted in `Debug`.
#[derive(Clone, PartialEq, Eq)]
pub struct DeviceSecret([u8; 32]);

impl DeviceSecret {
    pub fn from_random_bytes(bytes: [u8; 32]) -> Self {
        Self(bytes)
    }

    /// A secret read back from the store: 64 lower-case hex digits, else `None`.
    pub fn from_stored(text: &str) -> Option<Self> {
        from_lower_hex(text).map(Self)
    }

    /// What the store keeps: to be written there only, never logged.
    pub fn to_stored(&self) -> String {
        to_lower_hex(&self.0)
    }

    /// The signature of `login` and `nonce` (hex), as the cookie carries it.
    fn sign(&self, login: &str, nonce: &str) -> [u8; 32] {
        // HMAC accepts a key of any length: this cannot fail.
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.0)
            .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
        mac.update(login.as_bytes());
        mac.update(b",");
        mac.update(nonce.as_bytes());
        mac.finalize().into_bytes().into()
    }
}

impl fmt::Debug for DeviceSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("DeviceSecret(<redacted>)")
    }
}

/// A device cookie's value, as issued or as a browser presented it (then checked by
/// [`DeviceCookie::device_for`] only). Redacted in `Debug`: it is a credential of sorts.
#[derive(Clone, PartialEq, Eq)]
pub struct DeviceCookie(String);

impl DeviceCookie {
    /// A new cookie for `login`'s browser, told apart from the others by `nonce`.
    pub fn issue(secret: &DeviceSecret, login: &OwnerEmail, nonce: [u8; 32]) -> Self {
        let nonce = to_lower_hex(&nonce);
        let signature = to_lower_hex(&secret.sign(login.as_str(), &nonce));
        Self(format!(
            "{}.{nonce}.{signature}",
            URL_SAFE_NO_PAD.encode(login.as_str())
        ))
    }

    /// A presented value, if it has the shape of one (checked further, with the secret, by
    /// [`Self::device_for`]); anything else counts as no device cookie.
    pub fn presented(text: &str) -> Option<Self> {
        let shaped = text.len() <= MAX_COOKIE_LEN && Fields::of(text).is_some();
        shaped.then(|| Self(text.to_owned()))
    }

    /// The cookie's value: to be sent to its browser, never logged.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// The browser this cookie stands for, when it was signed with `secret` for `login`;
    /// `None` for a cookie of another e-mail, signed with another secret, or altered.
    pub fn device_for(&self, secret: &DeviceSecret, login: &OwnerEmail) -> Option<OwnerDevice> {
        let fields = Fields::of(&self.0)?;
        let named = URL_SAFE_NO_PAD.decode(fields.login).ok()?;
        if named != login.as_str().as_bytes() {
            return None;
        }
        let expected = to_lower_hex(&secret.sign(login.as_str(), fields.nonce));
        let signed = bool::from(expected.as_bytes().ct_eq(fields.signature.as_bytes()));
        signed.then(|| OwnerDevice(fields.nonce.to_owned()))
    }
}

impl fmt::Debug for DeviceCookie {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("DeviceCookie(<redacted>)")
    }
}

/// The three fields of a cookie of the right shape.
struct Fields<'a> {
    login: &'a str,
    nonce: &'a str,
    signature: &'a str,
}

impl<'a> Fields<'a> {
    fn of(text: &'a str) -> Option<Self> {
        let mut parts = text.split('.');
        let fields = Self {
            login: parts.next()?,
            nonce: parts.next()?,
            signature: parts.next()?,
        };
        let shaped = parts.next().is_none()
            && !fields.login.is_empty()
            && fields
                .login
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            && is_lower_hex(fields.nonce, NONCE_HEX_LEN)
            && is_lower_hex(fields.signature, SIGNATURE_HEX_LEN);
        shaped.then_some(fields)
    }
}

/// One browser of an owner, as a valid device cookie names it: its failed sign-ins are
/// counted apart (the cookie's nonce, in hex; not secret, the signature is what proves it).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OwnerDevice(String);

impl OwnerDevice {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ana() -> OwnerEmail {
        OwnerEmail::parse("ana@boutique.fr").unwrap()
    }

    fn secret() -> DeviceSecret {
        DeviceSecret::from_random_bytes([7; 32])
    }

    #[test]
    fn a_cookie_names_its_device_for_its_login_and_secret_only() {
        let cookie = DeviceCookie::issue(&secret(), &ana(), [1; 32]);
        let presented = DeviceCookie::presented(cookie.expose()).expect("its own shape");
        let device = presented.device_for(&secret(), &ana()).expect("valid");
        assert_eq!(device.as_str(), "01".repeat(32));
        let bob = OwnerEmail::parse("bob@boutique.fr").unwrap();
        assert_eq!(
            presented.device_for(&secret(), &bob),
            None,
            "another e-mail"
        );
        let other_secret = DeviceSecret::from_random_bytes([8; 32]);
        assert_eq!(presented.device_for(&other_secret, &ana()), None);
        let another = DeviceCookie::issue(&secret(), &ana(), [2; 32]);
        assert_ne!(another.device_for(&secret(), &ana()), Some(device));
    }

    #[test]
    fn any_altered_field_breaks_the_signature() {
        let value = DeviceCookie::issue(&secret(), &ana(), [1; 32])
            .expose()
            .to_owned();
        let fields: Vec<&str> = value.split('.').collect();
        let bob = URL_SAFE_NO_PAD.encode("bob@boutique.fr");
        let flipped = |hex: &str| {
            let last = if hex.ends_with('0') { "1" } else { "0" };
            format!("{}{last}", &hex[..hex.len() - 1])
        };
        for altered in [
            format!("{bob}.{}.{}", fields[1], fields[2]),
            format!("{}.{}.{}", fields[0], flipped(fields[1]), fields[2]),
            format!("{}.{}.{}", fields[0], fields[1], flipped(fields[2])),
            format!("{}.{}.{}", fields[0], "00".repeat(32), "00".repeat(32)),
        ] {
            let presented = DeviceCookie::presented(&altered).expect("well shaped");
            assert_eq!(presented.device_for(&secret(), &ana()), None, "{altered}");
        }
    }

    #[test]
    fn a_value_of_another_shape_is_no_cookie() {
        let valid = DeviceCookie::issue(&secret(), &ana(), [1; 32]);
        let value = valid.expose();
        for wrong in [
            String::new(),
            "abc".into(),
            format!("{value}.x"),
            value.to_uppercase(),
            value.replacen('.', ",", 2),
            format!("a b.{}", &value[value.find('.').unwrap() + 1..]),
            "x".repeat(2_000),
        ] {
            assert_eq!(DeviceCookie::presented(&wrong), None, "{wrong}");
        }
    }

    #[test]
    fn any_email_makes_a_cookie_safe_value() {
        let odd = OwnerEmail::parse("\"o'connor,jr\"+é@exämple.fr").unwrap();
        let cookie = DeviceCookie::issue(&secret(), &odd, [3; 32]);
        assert!(
            cookie
                .expose()
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)),
            "{}",
            cookie.expose()
        );
        let longest = OwnerEmail::parse(&format!("{}@b.fr", "é".repeat(MAX_EMAIL_LEN - 5)))
            .expect("254 characters");
        let long = DeviceCookie::issue(&secret(), &longest, [3; 32]);
        assert!(DeviceCookie::presented(long.expose()).is_some());
        assert!(long.device_for(&secret(), &longest).is_some());
    }

    #[test]
    fn the_secret_round_trips_through_the_store_and_is_never_shown() {
        let secret = DeviceSecret::from_random_bytes([0xab; 32]);
        let stored = secret.to_stored();
        assert_eq!(stored, "ab".repeat(32));
        assert_eq!(DeviceSecret::from_stored(&stored), Some(secret.clone()));
        assert_eq!(DeviceSecret::from_stored("ab"), None);
        assert_eq!(DeviceSecret::from_stored(&stored.to_uppercase()), None);
        assert_eq!(format!("{secret:?}"), "DeviceSecret(<redacted>)");
        let cookie = DeviceCookie::issue(&secret, &ana(), [1; 32]);
        assert_eq!(format!("{cookie:?}"), "DeviceCookie(<redacted>)");
    }
}
