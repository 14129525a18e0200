//! One change as webhooks carry it: its type, the resource it is about, and that resource as
//! the v1 `GET` shows it at the commit. The JSON is the HTTP adapter's business (its DTOs);
//! these are the values it is rendered from.

use crate::catalogue::{Product, Variant};
use crate::client::Client;
use crate::id::{EventId, MovementId};
use crate::order::Order;
use crate::stock::StockEntry;
use crate::timestamp::Timestamp;

use super::event_type::EventType;

/// What moved a stock entry (`stock.updated`'s `cause`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StockCause {
    Adjustment {
        movement_id: MovementId,
        delta: i64,
        reason: String,
    },
    /// A switch of tracking in the console.
    Tracking,
    Import,
    /// An API write of its product that changed what the entry shows (the product's name,
    /// the variant's label, codes or active flag; a new variant's entry).
    Product,
}

impl StockCause {
    pub const fn kind(&self) -> &'static str {
        match self {
            StockCause::Adjustment { .. } => "adjustment",
            StockCause::Tracking => "tracking",
            StockCause::Import => "import",
            StockCause::Product => "product",
        }
    }
}

/// The resource an event carries, whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventData {
    Product(Product),
    Order(Order),
    Client(Client),
    Stock {
        entry: StockEntry,
        cause: StockCause,
    },
    /// An endpoint's test: no resource.
    Ping,
}

impl EventData {
    /// The key that groups a resource's events: for one endpoint, only the newest pending
    /// one of a key is sent (`delivery::newest_and_superseded`). A ping is its own resource.
    pub fn resource_key(&self, event: &EventId) -> String {
        match self {
            EventData::Product(product) => format!("product:{}", product.id),
            EventData::Order(order) => format!("order:{}", order.id),
            EventData::Client(client) => format!("client:{}", client.id),
            EventData::Stock { entry, .. } => format!("stock:{}", entry.variant_id),
            EventData::Ping => format!("ping:{event}"),
        }
    }
}

/// A change about to be written to the outbox, in the change's transaction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewEvent {
    pub id: EventId,
    pub event_type: EventType,
    /// The commit's instant (the change's `updatedAt`), shown as the body's `timestamp`.
    pub at: Timestamp,
    pub data: EventData,
}

impl NewEvent {
    pub fn resource_key(&self) -> String {
        self.data.resource_key(&self.id)
    }
}

/// A stock entry as `GET /stock` shows it, from its product as just written: what an
/// adjustment's or a switch's `stock.updated` carries without reading the entry again.
pub fn stock_entry_of(product: &Product, variant: &Variant, updated_at: Timestamp) -> StockEntry {
    StockEntry {
        variant_id: variant.id.clone(),
        product_id: product.id.clone(),
        product_name: product.name.clone(),
        variant_label: variant.label.clone(),
        sku: variant.sku.clone(),
        barcode: variant.barcode.clone(),
        tracked: variant.tracked,
        stock: variant.stock,
        low_stock_threshold: variant.low_stock_threshold,
        active: variant.active && product.active,
        updated_at,
    }
}
