//! `ImportRepository`: an idempotent upsert of a shop's data, all or nothing, in one
//! transaction.
//!
//! Steps: (1) [`checks`] reads where the ids of the file are stored (which shop, which parent)
//! and hands that to `shop_domain::import::refusals`, whose rules say which rows are refused and
//! at which JSON path: ids of another shop, children stored under another parent, references
//! that resolve nowhere. Any problem refuses the whole file before anything is written.
//! (2) Each kind is loaded as stored, decided row by row with the domain's `decide_*` rules,
//! and only the rows they say changed are written, parents before children (tiers, products,
//! clients, orders, then tickets and spins) so that foreign keys hold at every statement.
//! Re-importing the same file writes nothing at all. (3) An import that ran long stamps its
//! rows again before committing ([`restamp`]).

mod catalogue;
mod changes;
mod checks;
mod events;
pub(crate) mod restamp;
mod sales;

use std::time::Duration;

use async_trait::async_trait;
use shop_domain::Timestamp;
use shop_domain::id::ShopId;
use shop_domain::import::{ImportProblem, ShopImport};
use shop_domain::sync::MAX_WRITE_SPAN_MS;
use shop_ports::port::{ImportReport, ImportRepository, ImportStoreError};

use crate::catalogue::CatalogueQueries;
use crate::clients::ClientQueries;
use crate::database::write_span::WriteSpan;
use crate::database::{Database, in_transaction};
use crate::error::DbError;
use crate::orders::OrderQueries;
use crate::webhooks::outbox::OutboxQueries;
use changes::ImportChanges;
use restamp::Restamp;

/// Ids per `IN (…)` list: far below SQLite's and PostgreSQL's bind limits.
const IDS_PER_QUERY: usize = 500;

/// An import that has run this long stamps its rows again before committing: half the span a
/// write may take to commit (`shop_domain::sync::MAX_WRITE_SPAN_MS`) leaves the other half
/// for the restamp and the commit.
const RESTAMP_AFTER: Duration = Duration::from_millis(MAX_WRITE_SPAN_MS.unsigned_abs() / 2);

/// Why the import transaction rolled back.
#[derive(Debug)]
enum ImportFailure {
    Rejected(Vec<ImportProblem>),
    Db(DbError),
}

impl From<DbError> for ImportFailure {
    fn from(error: DbError) -> Self {
        Self::Db(error)
    }
}

impl From<diesel::result::Error> for ImportFailure {
    fn from(error: diesel::result::Error) -> Self {
        Self::Db(error.into())
    }
}

/// Every query the import runs, on either backend's connection.
trait ImportConnection:
    CatalogueQueries
    + ClientQueries
    + OrderQueries
    + checks::OwnershipQueries
    + catalogue::CatalogueWrites
    + crate::catalogue::write::ProductWrites
    + sales::SalesWrites
    + events::EventWrites
    + restamp::Restamp
    + OutboxQueries
    + Send
{
}

impl<C> ImportConnection for C where
    C: CatalogueQueries
        + ClientQueries
        + OrderQueries
        + checks::OwnershipQueries
        + catalogue::CatalogueWrites
        + crate::catalogue::write::ProductWrites
        + sales::SalesWrites
        + events::EventWrites
        + restamp::Restamp
        + OutboxQueries
        + Send
{
}

#[async_trait]
impl ImportRepository for Database {
    async fn import(
        &self,
        shop: &ShopId,
        data: ShopImport,
        now: Timestamp,
    ) -> Result<ImportReport, ImportStoreError> {
        let span = WriteSpan::start();
        let outbox = self.outbox_write();
        let events = outbox.as_ref();
        let outcome: Result<ImportReport, ImportFailure> = in_transaction!(self, |conn| {
            let mut changes = ImportChanges::default();
            let report = apply(conn, shop, data, now, &mut changes).await?;
            let mut stamp = now;
            if let Some(later) = span.restamp_after(now, RESTAMP_AFTER) {
                conn.restamp(shop, now, later).await?;
                stamp = later;
            }
            if let Some(outbox) = events {
                changes.append(conn, outbox, shop, stamp).await?;
            }
            Ok(report)
        });
        let report = outcome.map_err(|failure| match failure {
            ImportFailure::Rejected(problems) => ImportStoreError::Rejected(problems),
            ImportFailure::Db(error) => ImportStoreError::Store(error.into()),
        })?;
        if outbox
            .as_ref()
            .is_some_and(|outbox| outbox.queued_deliveries())
        {
            self.events_wake.notify_one();
            // The command line's import ends right after: the `NOTIFY` is sent before it does.
            self.announce_events_now().await;
        }
        Ok(report)
    }
}

/// The whole import, on a connection already inside the transaction. An `Err` rolls back.
async fn apply<C: ImportConnection>(
    conn: &mut C,
    shop: &ShopId,
    data: ShopImport,
    now: Timestamp,
    changes: &mut ImportChanges,
) -> Result<ImportReport, ImportFailure> {
    let problems = checks::problems(conn, shop, &data).await?;
    if !problems.is_empty() {
        return Err(ImportFailure::Rejected(problems));
    }
    let ShopImport {
        tiers,
        products,
        clients,
        orders,
        lottery_tickets,
        spins,
    } = data;
    // Parents first: orders refer to clients, tickets and spins to clients and orders.
    let tiers = catalogue::import_tiers(conn, shop, &tiers).await?;
    let products = catalogue::import_products(conn, shop, products, now, changes).await?;
    let clients = sales::import_clients(conn, shop, clients, now, changes).await?;
    let orders = sales::import_orders(conn, shop, orders, now, changes).await?;
    let lottery_tickets = events::import_tickets(conn, shop, lottery_tickets, now, changes).await?;
    let spins = events::import_spins(conn, shop, spins, now, changes).await?;
    Ok(ImportReport {
        tiers,
        products,
        clients,
        orders,
        lottery_tickets,
        spins,
    })
}
