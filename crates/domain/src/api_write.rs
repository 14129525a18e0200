//! The console's "API writes" page (issue 35): what the shop's integrations wrote through the
//! API, each line with the key that wrote it, newest first.
//!
//! Two kinds of lines share one list: a create or a patch of a resource (a client, a product)
//! with the members it changed, and an adjustment of a client's points, which is no patch of
//! the client and is recorded apart, with its delta and reason: a timeline
//! (`crate::timeline`) as the stock activity is, its ids `wrt_…` and `lpa_…`.

use crate::Timestamp;
use crate::api_key::KeyPrefix;
use crate::id::ApiWriteId;
use crate::loyalty::PointsAdjustment;
use crate::pagination::CursorKind;
use crate::timeline::{TimelineLine, TimelinePosition, TimelineQuery};

/// The kind of resource a write created or changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WrittenResource {
    Client,
    Product,
}

/// Whether the write made the resource or changed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteAction {
    Created,
    Updated,
}

/// One create or patch of a resource made through the API, as recorded with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceWrite {
    pub id: ApiWriteId,
    pub resource: WrittenResource,
    /// The resource's id, as the API names it.
    pub resource_id: String,
    pub action: WriteAction,
    /// The members' paths whose values the write changed, in the representation's order
    /// (`["email", "billing.city"]`); for a create, those it gave a value.
    pub changed: Vec<String>,
    pub at: Timestamp,
}

/// What a key wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WrittenChange {
    Resource(ResourceWrite),
    /// An adjustment of a client's points (`POST /clients/{id}/loyalty/adjustments`).
    Points(PointsAdjustment),
}

/// One line of the page: a write and the key that made it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiWrite {
    pub key_prefix: KeyPrefix,
    /// The label of the key, as it is now: the name the owner gave the integration.
    pub key_label: String,
    pub change: WrittenChange,
}

impl TimelineLine for ApiWrite {
    const CURSOR: CursorKind = CursorKind::ApiWrites;

    fn at(&self) -> Timestamp {
        match &self.change {
            WrittenChange::Resource(write) => write.at,
            WrittenChange::Points(adjustment) => adjustment.applied_at,
        }
    }

    fn id(&self) -> &str {
        match &self.change {
            WrittenChange::Resource(write) => write.id.as_str(),
            WrittenChange::Points(adjustment) => adjustment.id.as_str(),
        }
    }
}

/// Where a page of the list ends: the next page holds what is strictly older.
pub type ApiWritePosition = TimelinePosition<ApiWrite>;

/// A page request of the list.
pub type ApiWriteQuery = TimelineQuery<ApiWrite>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::{ClientId, LoyaltyAdjustmentId};
    use crate::pagination::{Cursor, InvalidCursor};
    use crate::timeline::merge_newest_first;

    fn key() -> KeyPrefix {
        KeyPrefix::parse("0a1b2c3d").unwrap()
    }

    fn write(id: &str, at: i64) -> ApiWrite {
        ApiWrite {
            key_prefix: key(),
            key_label: "ERP".into(),
            change: WrittenChange::Resource(ResourceWrite {
                id: ApiWriteId::parse(id).unwrap(),
                resource: WrittenResource::Client,
                resource_id: "cli_1".into(),
                action: WriteAction::Updated,
                changed: vec!["email".into()],
                at: Timestamp::from_millis(at),
            }),
        }
    }

    fn points(id: &str, at: i64) -> ApiWrite {
        ApiWrite {
            key_prefix: key(),
            key_label: "Caisse".into(),
            change: WrittenChange::Points(PointsAdjustment {
                id: LoyaltyAdjustmentId::parse(id).unwrap(),
                client_id: ClientId::parse("cli_1").unwrap(),
                previous_points: 0,
                new_points: 120,
                delta: 120,
                reason: "web order 42".into(),
                applied_at: Timestamp::from_millis(at),
            }),
        }
    }

    #[test]
    fn both_kinds_interleave_newest_first_with_ids_breaking_ties() {
        let merged = merge_newest_first(
            vec![write("wrt_3", 30), write("wrt_1", 10)],
            vec![points("lpa_2", 20), points("lpa_0", 10)],
            3,
        );
        let ids: Vec<_> = merged.iter().map(TimelineLine::id).collect();
        assert_eq!(ids, ["wrt_3", "lpa_2", "wrt_1"]);
    }

    #[test]
    fn cursor_round_trips_and_refuses_the_stock_activitys() {
        let position = points("lpa_1", 1_732_181_400_000).position();
        let text = position.cursor().encode();
        assert_eq!(ApiWritePosition::from_cursor(&text), Ok(position.clone()));
        let activity = Cursor::new(
            CursorKind::Activity,
            vec![position.at.millis().to_string(), position.id],
        );
        assert_eq!(
            ApiWritePosition::from_cursor(&activity.encode()),
            Err(InvalidCursor)
        );
        assert_eq!(ApiWritePosition::from_cursor("garbled"), Err(InvalidCursor));
    }
}
