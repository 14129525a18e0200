//! Loyalty tiers of a shop. The tier rules (current, next, progress) land with the loyalty
//! endpoint.

use crate::color::HexColor;
use crate::id::TierId;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoyaltyTier {
    pub id: TierId,
    pub name: String,
    pub min_points_lifetime: i64,
    pub color: HexColor,
}
