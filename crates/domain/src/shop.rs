//! A shop, its plan and its subscription.

use std::fmt;
use std::str::FromStr;

use crate::id::ShopId;

/// URL-safe shop handle: 1 to 63 of `a-z 0-9 -`, not starting or ending with `-`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ShopSlug(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected 1 to 63 lower-case letters, digits or '-', not starting or ending with '-'")]
pub struct InvalidSlug;

impl ShopSlug {
    pub fn parse(text: &str) -> Result<Self, InvalidSlug> {
        let valid = (1..=63).contains(&text.len())
            && text
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && !text.starts_with('-')
            && !text.ends_with('-');
        if valid {
            Ok(Self(text.to_owned()))
        } else {
            Err(InvalidSlug)
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ShopSlug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SubscriptionStatus {
    Active,
    Expired,
    Cancelled,
}

impl SubscriptionStatus {
    pub const fn as_str(self) -> &'static str {
        match self {
            SubscriptionStatus::Active => "active",
            SubscriptionStatus::Expired => "expired",
            SubscriptionStatus::Cancelled => "cancelled",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected one of active, expired, cancelled")]
pub struct InvalidSubscriptionStatus;

impl FromStr for SubscriptionStatus {
    type Err = InvalidSubscriptionStatus;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "active" => Ok(Self::Active),
            "expired" => Ok(Self::Expired),
            "cancelled" => Ok(Self::Cancelled),
            _ => Err(InvalidSubscriptionStatus),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shop {
    pub id: ShopId,
    pub slug: ShopSlug,
    pub name: String,
    /// Whether the shop's plan includes the `publicApi` feature.
    pub public_api_in_plan: bool,
    pub subscription: SubscriptionStatus,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_url_safe() {
        assert!(ShopSlug::parse("la-boutique-2").is_ok());
        for bad in ["", "-a", "a-", "A", "a b", "é", &"a".repeat(64)] {
            assert_eq!(ShopSlug::parse(bad), Err(InvalidSlug), "{bad}");
        }
    }

    #[test]
    fn subscription_status_round_trips() {
        for status in [
            SubscriptionStatus::Active,
            SubscriptionStatus::Expired,
            SubscriptionStatus::Cancelled,
        ] {
            assert_eq!(status.as_str().parse(), Ok(status));
        }
        assert!("paused".parse::<SubscriptionStatus>().is_err());
    }
}
