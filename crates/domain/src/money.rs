//! Money: integer cents (spec §2: "Money amounts are integers in cents").

/// An amount in cents of the shop's currency. Signed, because discounts and refunds are
/// amounts too.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cents(pub i64);

impl Cents {
    pub const fn get(self) -> i64 {
        self.0
    }
}
