//! What an import changed, collected as it writes, and turned into webhook events once every
//! row is final (after a long import's restamp), read back in the import's transaction: each
//! event's `data` is the resource as the API shows it at the commit. A row the import left
//! alone has no event, so an identical re-import emits none.

use std::collections::BTreeMap;

use shop_domain::Timestamp;
use shop_domain::id::{ClientId, OrderId, ProductId, ShopId, VariantId};
use shop_domain::webhook::{EventData, EventType, NewEvent, StockCause, stock_entry_of};

use super::{IDS_PER_QUERY, ImportConnection};
use crate::catalogue::Selection;
use crate::clients::ClientSelection;
use crate::error::DbError;
use crate::orders::OrderSelection;
use crate::webhooks::outbox::{self, OutboxWrite};

/// Ids written, each with whether the import created it.
#[derive(Debug, Default)]
pub(super) struct ImportChanges {
    products: BTreeMap<ProductId, bool>,
    /// Variants whose stock entry changed, by product.
    stock: BTreeMap<ProductId, Vec<VariantId>>,
    clients: BTreeMap<ClientId, bool>,
    orders: BTreeMap<OrderId, bool>,
}

impl ImportChanges {
    pub fn product(&mut self, id: &ProductId, created: bool) {
        self.products.insert(id.clone(), created);
    }

    pub fn stock_entry(&mut self, product: &ProductId, variant: &VariantId) {
        self.stock
            .entry(product.clone())
            .or_default()
            .push(variant.clone());
    }

    pub fn client(&mut self, id: &ClientId, created: bool) {
        *self.clients.entry(id.clone()).or_insert(created) |= created;
    }

    pub fn order(&mut self, id: &OrderId, created: bool) {
        self.orders.insert(id.clone(), created);
    }

    /// Appends the events: products with their changed stock entries, then clients, then
    /// orders. `stamp` is the rows' final `updatedAt` (the import's time, or its restamp).
    pub async fn append<C: ImportConnection>(
        self,
        conn: &mut C,
        outbox: &OutboxWrite<'_>,
        shop: &ShopId,
        stamp: Timestamp,
    ) -> Result<(), DbError> {
        let mut events: Vec<NewEvent> = Vec::new();
        let ids: Vec<ProductId> = self.products.keys().cloned().collect();
        for chunk in ids.chunks(IDS_PER_QUERY) {
            for product in conn.load_products(shop, Selection::Ids(chunk)).await? {
                for variant in self.stock.get(&product.id).into_iter().flatten() {
                    let Some(variant) = product.variants.iter().find(|v| &v.id == variant) else {
                        continue;
                    };
                    events.push(outbox.event(
                        EventType::StockUpdated,
                        stamp,
                        EventData::Stock {
                            entry: stock_entry_of(&product, variant, stamp),
                            cause: StockCause::Import,
                        },
                    )?);
                }
                let created = self.products.get(&product.id).copied().unwrap_or(false);
                events.push(outbox.product(created, product)?);
            }
        }
        let ids: Vec<ClientId> = self.clients.keys().cloned().collect();
        for chunk in ids.chunks(IDS_PER_QUERY) {
            for client in conn.load_clients(shop, ClientSelection::Ids(chunk)).await? {
                let kind = if self.clients.get(&client.id).copied().unwrap_or(false) {
                    EventType::ClientCreated
                } else {
                    EventType::ClientUpdated
                };
                events.push(outbox.event(kind, client.updated_at, EventData::Client(client))?);
            }
        }
        let ids: Vec<OrderId> = self.orders.keys().cloned().collect();
        for chunk in ids.chunks(IDS_PER_QUERY) {
            for order in conn.load_orders(shop, OrderSelection::Ids(chunk)).await? {
                let kind = if self.orders.get(&order.id).copied().unwrap_or(false) {
                    EventType::OrderCreated
                } else {
                    EventType::OrderUpdated
                };
                events.push(outbox.event(kind, order.updated_at, EventData::Order(order))?);
            }
        }
        outbox::append(conn, outbox, shop, &events).await
    }
}
