//! The console's activity page: what changed a variant's stock or its tracking, newest first.
//!
//! Two kinds of lines share one list: the stock movements made through the API (with the key
//! that made each) and the switches of a variant's tracking made in the console (with the
//! owner who made each): a timeline (`crate::timeline`), newest first.

use crate::Timestamp;
use crate::id::{OwnerId, ProductId, TrackingSwitchId, VariantId};
use crate::owner::OwnerEmail;
use crate::pagination::CursorKind;
use crate::stock::StockMovement;
use crate::timeline::{TimelineLine, TimelinePosition, TimelineQuery};

/// How a variant is named on a page: its product's name, its own label and SKU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariantName {
    pub product_name: String,
    pub variant_label: String,
    pub sku: Option<String>,
}

/// A switch of a variant's stock tracking, as recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrackingSwitch {
    pub id: TrackingSwitchId,
    pub variant_id: VariantId,
    pub product_id: ProductId,
    /// The tracking after the switch.
    pub tracked: bool,
    pub owner_id: OwnerId,
    pub at: Timestamp,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StockActivity {
    /// A stock adjustment made through the API; `key_label` is the label of the key that made
    /// it, as it is now.
    Adjustment {
        movement: StockMovement,
        key_label: String,
        variant: VariantName,
    },
    /// Tracking switched on or off in the console by `owner`.
    TrackingSwitch {
        switch: TrackingSwitch,
        owner: OwnerEmail,
        variant: VariantName,
    },
}

impl StockActivity {
    /// The variant the line is about.
    pub fn variant(&self) -> &VariantName {
        match self {
            Self::Adjustment { variant, .. } | Self::TrackingSwitch { variant, .. } => variant,
        }
    }
}

impl TimelineLine for StockActivity {
    const CURSOR: CursorKind = CursorKind::Activity;

    fn at(&self) -> Timestamp {
        match self {
            Self::Adjustment { movement, .. } => movement.created_at,
            Self::TrackingSwitch { switch, .. } => switch.at,
        }
    }

    fn id(&self) -> &str {
        match self {
            Self::Adjustment { movement, .. } => movement.id.as_str(),
            Self::TrackingSwitch { switch, .. } => switch.id.as_str(),
        }
    }
}

/// Where a page of activity ends: the next page holds what is strictly older.
pub type ActivityPosition = TimelinePosition<StockActivity>;

/// A page request of the activity list.
pub type ActivityQuery = TimelineQuery<StockActivity>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api_key::KeyPrefix;
    use crate::id::MovementId;
    use crate::pagination::InvalidCursor;
    use crate::timeline::merge_newest_first;

    fn name() -> VariantName {
        VariantName {
            product_name: "Mug".into(),
            variant_label: "Bleu".into(),
            sku: None,
        }
    }

    fn movement(id: &str, at: i64) -> StockActivity {
        StockActivity::Adjustment {
            movement: StockMovement {
                id: MovementId::parse(id).unwrap(),
                variant_id: VariantId::parse("v").unwrap(),
                product_id: ProductId::parse("p").unwrap(),
                delta: -1,
                previous_stock: 3,
                new_stock: 2,
                reason: "casse".into(),
                api_key_prefix: KeyPrefix::parse("0a1b2c3d").unwrap(),
                created_at: Timestamp::from_millis(at),
            },
            key_label: "ERP".into(),
            variant: name(),
        }
    }

    fn switch(id: &str, at: i64) -> StockActivity {
        StockActivity::TrackingSwitch {
            switch: TrackingSwitch {
                id: TrackingSwitchId::parse(id).unwrap(),
                variant_id: VariantId::parse("v").unwrap(),
                product_id: ProductId::parse("p").unwrap(),
                tracked: false,
                owner_id: OwnerId::parse("o").unwrap(),
                at: Timestamp::from_millis(at),
            },
            owner: OwnerEmail::parse("ana@shop.fr").unwrap(),
            variant: name(),
        }
    }

    #[test]
    fn both_kinds_interleave_newest_first_with_ids_breaking_ties() {
        let merged = merge_newest_first(
            vec![movement("m3", 30), movement("m1", 10)],
            vec![switch("s2", 20), switch("s0", 10)],
            3,
        );
        let ids: Vec<_> = merged.iter().map(TimelineLine::id).collect();
        assert_eq!(ids, ["m3", "s2", "s0"]);
    }

    #[test]
    fn a_position_keeps_only_what_is_older() {
        let position = movement("m2", 20).position();
        assert!(position.is_before(Timestamp::from_millis(19), "z"));
        assert!(position.is_before(Timestamp::from_millis(20), "m1"));
        assert!(!position.is_before(Timestamp::from_millis(20), "m2"));
        assert!(!position.is_before(Timestamp::from_millis(21), "a"));
    }

    #[test]
    fn cursor_round_trips_and_refuses_other_lists() {
        let position = switch("s1", 1_732_181_400_000).position();
        let text = position.cursor().encode();
        assert_eq!(ActivityPosition::from_cursor(&text), Ok(position));
        let stock = crate::stock::stock_cursor(&VariantId::parse("v").unwrap()).encode();
        assert_eq!(ActivityPosition::from_cursor(&stock), Err(InvalidCursor));
    }
}
