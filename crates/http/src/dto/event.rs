//! A webhook event's body (API v2): `{id, type, timestamp, data}`, `data` the resource as the
//! v1 `GET` of it shows it, through the very DTOs of those answers, so that the push and the
//! pull can never differ. Rendered in the change's transaction (`EventRenderer`), and sent
//! and listed byte for byte as stored.

use serde::Serialize;
use shop_domain::Timestamp;
use shop_domain::webhook::{EventData, NewEvent, StockCause};
use shop_ports::port::EventRenderer;
use utoipa::ToSchema;

use crate::dto::as_text;
use crate::dto::client::ClientDto;
use crate::dto::order::OrderDto;
use crate::dto::product::ProductDto;
use crate::dto::stock::StockEntryDto;

/// The renderer the application gives the store's outbox.
#[derive(Clone, Copy, Debug, Default)]
pub struct EventBodies;

impl EventRenderer for EventBodies {
    fn render(&self, event: &NewEvent) -> String {
        match &event.data {
            // As `GET /products/{id}` shows it: every variant, active or not.
            EventData::Product(product) => {
                let listing = product.clone().into_listing(true);
                body(event, ProductDto::from(&listing))
            }
            EventData::Order(order) => body(event, OrderDto::from(order)),
            EventData::Client(client) => body(event, ClientDto::from(client)),
            EventData::Stock { entry, cause } => body(
                event,
                StockEventDto {
                    entry: StockEntryDto::from(entry),
                    cause: CauseDto::from(cause),
                },
            ),
            EventData::Ping => body(event, PingDto {}),
        }
    }
}

fn body<T: Serialize>(event: &NewEvent, data: T) -> String {
    let body = EventDto {
        id: event.id.as_str(),
        event_type: event.event_type.as_str(),
        timestamp: event.at,
        data,
    };
    // Strings, numbers and booleans only: serialising cannot fail.
    serde_json::to_string(&body).unwrap_or_default()
}

#[derive(Serialize)]
struct EventDto<'a, T> {
    id: &'a str,
    #[serde(rename = "type")]
    event_type: &'a str,
    #[serde(serialize_with = "as_text::serialize")]
    timestamp: Timestamp,
    data: T,
}

/// `stock.updated`'s data: the stock entry as `GET /stock` lists it, and what moved it.
#[derive(Serialize)]
struct StockEventDto {
    #[serde(flatten)]
    entry: StockEntryDto,
    cause: CauseDto,
}

/// What moved a stock entry; only the fields that apply to its kind.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = StockCause)]
pub struct CauseDto {
    /// `adjustment`, `tracking`, `import`, or `product` (an API write of its product changed
    /// what the entry shows: the product's name, the variant's label, codes or active flag, a
    /// new variant).
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    movement_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    delta: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

impl From<&StockCause> for CauseDto {
    fn from(cause: &StockCause) -> Self {
        let mut dto = CauseDto {
            kind: cause.kind(),
            movement_id: None,
            delta: None,
            reason: None,
        };
        if let StockCause::Adjustment {
            movement_id,
            delta,
            reason,
        } = cause
        {
            dto.movement_id = Some(movement_id.as_str().to_owned());
            dto.delta = Some(*delta);
            dto.reason = Some(reason.clone());
        }
        dto
    }
}

/// A test's data: nothing but the event itself.
#[derive(Serialize)]
struct PingDto {}

#[cfg(test)]
mod tests {
    use shop_domain::id::{EventId, MovementId, ProductId, VariantId};
    use shop_domain::stock::StockEntry;
    use shop_domain::webhook::EventType;

    use super::*;

    fn event(event_type: EventType, data: EventData) -> NewEvent {
        NewEvent {
            id: EventId::parse("evt_1").unwrap(),
            event_type,
            at: Timestamp::from_millis(1_795_000_000_123),
            data,
        }
    }

    #[test]
    fn a_stock_event_carries_the_entry_as_listed_and_its_cause() {
        let entry = StockEntry {
            variant_id: VariantId::parse("v1").unwrap(),
            product_id: ProductId::parse("p1").unwrap(),
            product_name: "Tee".into(),
            variant_label: "M".into(),
            sku: None,
            barcode: Some("123".into()),
            tracked: true,
            stock: 3,
            low_stock_threshold: 5,
            active: true,
            updated_at: Timestamp::from_millis(1_795_000_000_123),
        };
        let cause = StockCause::Adjustment {
            movement_id: MovementId::parse("mv_1").unwrap(),
            delta: -2,
            reason: "sale".into(),
        };
        let body = EventBodies.render(&event(
            EventType::StockUpdated,
            EventData::Stock {
                entry: entry.clone(),
                cause,
            },
        ));
        let value: serde_json::Value = serde_json::from_str(&body).unwrap();
        let mut listed = serde_json::to_value(StockEntryDto::from(&entry)).unwrap();
        listed["cause"] = serde_json::json!({
            "kind": "adjustment", "movementId": "mv_1", "delta": -2, "reason": "sale"
        });
        assert_eq!(
            value,
            serde_json::json!({
                "id": "evt_1",
                "type": "stock.updated",
                "timestamp": "2026-11-18T11:06:40.123Z",
                "data": listed,
            })
        );
        let tracking = EventBodies.render(&event(
            EventType::StockUpdated,
            EventData::Stock {
                entry,
                cause: StockCause::Tracking,
            },
        ));
        let value: serde_json::Value = serde_json::from_str(&tracking).unwrap();
        assert_eq!(
            value["data"]["cause"],
            serde_json::json!({"kind": "tracking"})
        );
    }

    #[test]
    fn a_ping_has_empty_data() {
        let body = EventBodies.render(&event(EventType::Ping, EventData::Ping));
        let value: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(value["type"], "ping");
        assert_eq!(value["data"], serde_json::json!({}));
    }
}
