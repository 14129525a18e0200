//! Opaque identifiers.
//!
//! Ids are kept verbatim from imports, so they are restricted to a URL- and cursor-safe
//! alphabet: 1 to 64 of `A-Z a-z 0-9 _ - . :`. That covers UUIDs, ULIDs, cuids and
//! `prod_123`-style ids while keeping path segments and cursors unambiguous.
//!
//! `.` and `..` are refused although their characters are allowed: as a path segment they
//! mean "this folder" and "the parent", so a browser (and any URL library) rewrites a URL
//! holding them before sending it, even percent-encoded, and the resource would be
//! unreachable from the console's pages. An id that can never exist is the resource's 404.

use std::fmt;
use std::str::FromStr;

pub const MAX_ID_LEN: usize = 64;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "expected an id of 1 to 64 characters among A-Z, a-z, 0-9, '_', '-', '.', ':', other than \
     '.' and '..'"
)]
pub struct InvalidId;

pub(crate) fn is_valid_id(text: &str) -> bool {
    (1..=MAX_ID_LEN).contains(&text.len())
        && !matches!(text, "." | "..")
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
}

macro_rules! opaque_id {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(String);

        impl $name {
            pub fn parse(text: impl Into<String>) -> Result<Self, InvalidId> {
                let text = text.into();
                if is_valid_id(&text) { Ok(Self(text)) } else { Err(InvalidId) }
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }

            pub fn into_string(self) -> String {
                self.0
            }
        }

        // Lets a store bind a slice of ids as text.
        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        // Lets an adapter parse any id generically (a path segment, a parameter).
        impl FromStr for $name {
            type Err = InvalidId;

            fn from_str(text: &str) -> Result<Self, InvalidId> {
                Self::parse(text)
            }
        }
    };
}

opaque_id!(ShopId);
opaque_id!(ProductId);
opaque_id!(VariantId);
opaque_id!(CategoryId);
opaque_id!(BrandId);
opaque_id!(TierId);
opaque_id!(OrderId);
opaque_id!(OrderItemId);
opaque_id!(ClientId);
opaque_id!(TicketId);
opaque_id!(SpinId);
opaque_id!(MovementId);
opaque_id!(
    /// One adjustment of a client's points made through the API (`lpa_…`).
    LoyaltyAdjustmentId
);
opaque_id!(
    /// One write of a product or a client made through the API (`wrt_…`), as the console's
    /// activity lists it.
    ApiWriteId
);
opaque_id!(
    /// A shop owner's account (the console's sign-in).
    OwnerId
);
opaque_id!(
    /// A switch of a variant's stock tracking, made in the console.
    TrackingSwitchId
);
opaque_id!(
    /// A shop's webhook endpoint (`we_…`).
    WebhookEndpointId
);
opaque_id!(
    /// One change pushed to webhooks (`evt_…`): the `webhook-id` of its every attempt.
    EventId
);
opaque_id!(
    /// One event for one endpoint (`dlv_…`), retried as a whole.
    DeliveryId
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_common_id_shapes() {
        for ok in [
            "prod_123",
            "0190a3c4-7b1e-7cc2-9a4e-1f2d3c4b5a69",
            "01HZX3",
            "a",
            "sku:1.2",
            "...",
            ".a",
            "a..",
        ] {
            assert!(ProductId::parse(ok).is_ok(), "{ok}");
        }
    }

    #[test]
    fn from_str_is_parse() {
        assert_eq!("prod_1".parse::<ProductId>(), ProductId::parse("prod_1"));
        assert_eq!("a/b".parse::<ClientId>(), Err(InvalidId));
    }

    #[test]
    fn refuses_empty_long_and_unsafe_ids() {
        let long = "x".repeat(65);
        for bad in [
            "",
            long.as_str(),
            "a b",
            "a/b",
            "a%2F",
            "é",
            "a\u{1f}b",
            ".",
            "..",
        ] {
            assert_eq!(ProductId::parse(bad), Err(InvalidId), "{bad:?}");
        }
    }
}
