//! Importing clients and orders, with their confidential fields.
//!
//! This is the only place that reads the confidential columns back: the domain's decisions
//! compare them too, so that a changed note or signature is written and an unchanged file
//! stays unchanged.

use std::collections::HashMap;

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::Timestamp;
use shop_domain::client::{Client, ClientConfidential};
use shop_domain::id::{ClientId, OrderId, ShopId};
use shop_domain::import::{
    ImportDecision, ImportedClient, ImportedOrder, decide_client_import, decide_order_import,
};
use shop_domain::order::{Order, OrderConfidential};
use shop_ports::port::ImportCounts;

use super::changes::ImportChanges;
use super::{IDS_PER_QUERY, ImportConnection};
use crate::clients::ClientSelection;
use crate::database::impl_for_each_backend;
use crate::error::DbError;
use crate::orders::OrderSelection;
use crate::rows::{
    ClientConfidentialRow, ClientRow, ClientSearchRow, OrderConfidentialRow, OrderItemRow, OrderRow,
};
use crate::schema::{clients, order_items, orders};
use crate::sql::one_of::one_of;
use crate::sql::shop_upsert::{check_written, only_in_shop};

/// Every column one client write sets.
pub(super) struct ClientWrite {
    client: ClientRow,
    confidential: ClientConfidentialRow,
    search: ClientSearchRow,
}

impl ClientWrite {
    fn new(
        shop: &ShopId,
        client: &Client,
        confidential: &ClientConfidential,
    ) -> Result<Self, DbError> {
        Ok(Self {
            client: ClientRow::from_domain(shop, client)?,
            confidential: ClientConfidentialRow::from_domain(confidential),
            search: ClientSearchRow::from_domain(client),
        })
    }
}

/// Every row one order write touches: its items replace the stored ones.
pub(super) struct OrderWrite {
    order: OrderRow,
    confidential: OrderConfidentialRow,
    items: Vec<OrderItemRow>,
}

impl OrderWrite {
    fn new(
        shop: &ShopId,
        order: &Order,
        confidential: &OrderConfidential,
    ) -> Result<Self, DbError> {
        Ok(Self {
            order: OrderRow::from_domain(shop, order),
            confidential: OrderConfidentialRow::from_domain(confidential),
            items: order
                .items
                .iter()
                .enumerate()
                .map(|(position, item)| OrderItemRow::from_domain(shop, &order.id, position, item))
                .collect::<Result<_, _>>()?,
        })
    }
}

/// The sales import's own queries, implemented for both backends' connections.
pub(super) trait SalesWrites {
    /// `(id, confidential columns)` of the shop's clients among `ids`.
    fn client_confidential(
        &mut self,
        shop: &ShopId,
        ids: &[ClientId],
    ) -> impl Future<Output = Result<Vec<(String, ClientConfidentialRow)>, DbError>> + Send;

    /// `(id, confidential columns)` of the shop's orders among `ids`.
    fn order_confidential(
        &mut self,
        shop: &ShopId,
        ids: &[OrderId],
    ) -> impl Future<Output = Result<Vec<(String, OrderConfidentialRow)>, DbError>> + Send;

    fn write_client(
        &mut self,
        shop: &ShopId,
        rows: &ClientWrite,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    /// Upserts the order, then replaces its items.
    fn write_order(
        &mut self,
        shop: &ShopId,
        rows: &OrderWrite,
    ) -> impl Future<Output = Result<(), DbError>> + Send;
}

impl_for_each_backend! {
    impl SalesWrites {
        async fn client_confidential(
            &mut self,
            shop: &ShopId,
            ids: &[ClientId],
        ) -> Result<Vec<(String, ClientConfidentialRow)>, DbError> {
            Ok(clients::table
                .filter(clients::shop_id.eq(shop.as_str()))
                .filter(one_of(clients::id, ids))
                .select((clients::id, ClientConfidentialRow::as_select()))
                .load(self)
                .await?)
        }

        async fn order_confidential(
            &mut self,
            shop: &ShopId,
            ids: &[OrderId],
        ) -> Result<Vec<(String, OrderConfidentialRow)>, DbError> {
            Ok(orders::table
                .filter(orders::shop_id.eq(shop.as_str()))
                .filter(one_of(orders::id, ids))
                .select((orders::id, OrderConfidentialRow::as_select()))
                .load(self)
                .await?)
        }

        async fn write_client(
            &mut self,
            shop: &ShopId,
            rows: &ClientWrite,
        ) -> Result<(), DbError> {
            let columns = (&rows.client, &rows.confidential, &rows.search);
            let upsert = diesel::insert_into(clients::table)
                .values(columns)
                .on_conflict(clients::id)
                .do_update()
                .set(columns);
            let written = only_in_shop(upsert, clients::shop_id.eq(shop.as_str()))
                .execute(self)
                .await?;
            check_written(written, "client", &rows.client.id)
        }

        async fn write_order(
            &mut self,
            shop: &ShopId,
            rows: &OrderWrite,
        ) -> Result<(), DbError> {
            let columns = (&rows.order, &rows.confidential);
            let upsert = diesel::insert_into(orders::table)
                .values(columns)
                .on_conflict(orders::id)
                .do_update()
                .set(columns);
            let written = only_in_shop(upsert, orders::shop_id.eq(shop.as_str()))
                .execute(&mut *self)
                .await?;
            check_written(written, "order", &rows.order.id)?;
            diesel::delete(
                order_items::table
                    .filter(order_items::shop_id.eq(shop.as_str()))
                    .filter(order_items::order_id.eq(&rows.order.id)),
            )
            .execute(&mut *self)
            .await?;
            // One statement per item: diesel-async cannot run a multi-row INSERT on SQLite
            // (sync diesel emulates it there), and this body serves both backends.
            for item in &rows.items {
                diesel::insert_into(order_items::table)
                    .values(item)
                    .execute(&mut *self)
                    .await?;
            }
            Ok(())
        }
    }
}

pub(super) async fn import_clients<C: ImportConnection>(
    conn: &mut C,
    shop: &ShopId,
    clients: Vec<ImportedClient>,
    now: Timestamp,
    changes: &mut ImportChanges,
) -> Result<ImportCounts, DbError> {
    let ids: Vec<ClientId> = clients
        .iter()
        .map(|imported| imported.client.id.clone())
        .collect();
    let mut stored: HashMap<ClientId, (Client, ClientConfidential)> =
        HashMap::with_capacity(ids.len());
    for chunk in ids.chunks(IDS_PER_QUERY) {
        let mut confidential: HashMap<String, ClientConfidentialRow> = conn
            .client_confidential(shop, chunk)
            .await?
            .into_iter()
            .collect();
        for client in conn.load_clients(shop, ClientSelection::Ids(chunk)).await? {
            let private = take_confidential(&mut confidential, "clients", client.id.as_str())?;
            stored.insert(client.id.clone(), (client, private.into_domain()));
        }
    }
    let mut counts = ImportCounts::default();
    for imported in clients {
        let existing = stored
            .get(&imported.client.id)
            .map(|(client, private)| (client, private));
        match decide_client_import(existing, imported, now) {
            ImportDecision::Unchanged => counts.unchanged += 1,
            ImportDecision::Write(written) => {
                let (client, confidential) = *written;
                let rows = ClientWrite::new(shop, &client, &confidential)?;
                conn.write_client(shop, &rows).await?;
                changes.client(&client.id, !stored.contains_key(&client.id));
                counts.written += 1;
            }
        }
    }
    Ok(counts)
}

pub(super) async fn import_orders<C: ImportConnection>(
    conn: &mut C,
    shop: &ShopId,
    orders: Vec<ImportedOrder>,
    now: Timestamp,
    changes: &mut ImportChanges,
) -> Result<ImportCounts, DbError> {
    let ids: Vec<OrderId> = orders
        .iter()
        .map(|imported| imported.order.id.clone())
        .collect();
    let mut stored: HashMap<OrderId, (Order, OrderConfidential)> =
        HashMap::with_capacity(ids.len());
    for chunk in ids.chunks(IDS_PER_QUERY) {
        let mut confidential: HashMap<String, OrderConfidentialRow> = conn
            .order_confidential(shop, chunk)
            .await?
            .into_iter()
            .collect();
        for order in conn.load_orders(shop, OrderSelection::Ids(chunk)).await? {
            let private = take_confidential(&mut confidential, "orders", order.id.as_str())?;
            stored.insert(order.id.clone(), (order, private.into_domain()));
        }
    }
    let mut counts = ImportCounts::default();
    for imported in orders {
        let existing = stored
            .get(&imported.order.id)
            .map(|(order, private)| (order, private));
        match decide_order_import(existing, imported, now) {
            ImportDecision::Unchanged => counts.unchanged += 1,
            ImportDecision::Write(written) => {
                let (order, confidential) = *written;
                let rows = OrderWrite::new(shop, &order, &confidential)?;
                conn.write_order(shop, &rows).await?;
                changes.order(&order.id, !stored.contains_key(&order.id));
                counts.written += 1;
            }
        }
    }
    Ok(counts)
}

/// The confidential columns of a row the same transaction just read: missing means the
/// database broke its own consistency.
fn take_confidential<T>(
    found: &mut HashMap<String, T>,
    table: &str,
    id: &str,
) -> Result<T, DbError> {
    found.remove(id).ok_or_else(|| {
        DbError::Invariant(format!(
            "{table} row {id} has no confidential columns in the same transaction"
        ))
    })
}
