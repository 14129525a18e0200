//! The state fields of an order and their allowed values (spec §3).

use std::fmt;
use std::str::FromStr;

/// A value outside a state's allowed set; its message lists the allowed values.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("must be one of {allowed}")]
pub struct InvalidState {
    pub allowed: &'static str,
}

macro_rules! state_enum {
    ($name:ident, $allowed:literal, { $($variant:ident => $text:literal),+ $(,)? }) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name { $($variant),+ }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            pub const fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
        }

        impl FromStr for $name {
            type Err = InvalidState;

            fn from_str(text: &str) -> Result<Self, Self::Err> {
                match text {
                    $($text => Ok($name::$variant),)+
                    _ => Err(InvalidState { allowed: $allowed }),
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

state_enum!(OrderSource, "pos, click-collect, online", {
    Pos => "pos",
    ClickCollect => "click-collect",
    Online => "online",
});

state_enum!(OrderStatus, "pending, preparing, ready, completed, cancelled", {
    Pending => "pending",
    Preparing => "preparing",
    Ready => "ready",
    Completed => "completed",
    Cancelled => "cancelled",
});

state_enum!(PaymentStatus, "pending, paid, refunded", {
    Pending => "pending",
    Paid => "paid",
    Refunded => "refunded",
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_round_trips() {
        for source in OrderSource::ALL {
            assert_eq!(source.as_str().parse(), Ok(*source));
        }
        for status in OrderStatus::ALL {
            assert_eq!(status.as_str().parse(), Ok(*status));
        }
        for status in PaymentStatus::ALL {
            assert_eq!(status.as_str().parse(), Ok(*status));
        }
    }

    #[test]
    fn other_values_list_the_allowed_ones() {
        let error = "shipped".parse::<OrderStatus>().unwrap_err();
        assert_eq!(
            error.to_string(),
            "must be one of pending, preparing, ready, completed, cancelled"
        );
        assert!("POS".parse::<OrderSource>().is_err());
        assert!("click_collect".parse::<OrderSource>().is_err());
    }
}
