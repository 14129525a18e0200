//! Importing lottery tickets and instant spins: events with only a creation time, decided by
//! `decide_event_import`.

use std::collections::HashMap;

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::Timestamp;
use shop_domain::id::{ClientId, ShopId, SpinId, TicketId};
use shop_domain::import::{ImportDecision, ImportedEvent, decide_event_import};
use shop_domain::loyalty::{LotteryTicket, Spin};
use shop_ports::port::ImportCounts;

use super::changes::ImportChanges;
use super::{IDS_PER_QUERY, ImportConnection};
use crate::database::impl_for_each_backend;
use crate::error::DbError;
use crate::rows::{SpinRow, TicketRow};
use crate::schema::{clients, lottery_tickets, spins};
use crate::sql::shop_upsert::{check_written, only_in_shop};

/// The event import's own queries, implemented for both backends' connections.
pub(super) trait EventWrites {
    fn load_tickets(
        &mut self,
        shop: &ShopId,
        ids: &[String],
    ) -> impl Future<Output = Result<Vec<TicketRow>, DbError>> + Send;

    fn load_spins(
        &mut self,
        shop: &ShopId,
        ids: &[String],
    ) -> impl Future<Output = Result<Vec<SpinRow>, DbError>> + Send;

    fn write_ticket(
        &mut self,
        shop: &ShopId,
        row: &TicketRow,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    fn write_spin(
        &mut self,
        shop: &ShopId,
        row: &SpinRow,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    /// Moves the client's `updated_at` to `at`: its tickets or spins changed.
    fn touch_client(
        &mut self,
        shop: &ShopId,
        client: &ClientId,
        at: Timestamp,
    ) -> impl Future<Output = Result<(), DbError>> + Send;
}

impl_for_each_backend! {
    impl EventWrites {
        async fn load_tickets(
            &mut self,
            shop: &ShopId,
            ids: &[String],
        ) -> Result<Vec<TicketRow>, DbError> {
            Ok(lottery_tickets::table
                .filter(lottery_tickets::shop_id.eq(shop.as_str()))
                .filter(lottery_tickets::id.eq_any(ids))
                .select(TicketRow::as_select())
                .load(self)
                .await?)
        }

        async fn load_spins(
            &mut self,
            shop: &ShopId,
            ids: &[String],
        ) -> Result<Vec<SpinRow>, DbError> {
            Ok(spins::table
                .filter(spins::shop_id.eq(shop.as_str()))
                .filter(spins::id.eq_any(ids))
                .select(SpinRow::as_select())
                .load(self)
                .await?)
        }

        async fn write_ticket(
            &mut self,
            shop: &ShopId,
            row: &TicketRow,
        ) -> Result<(), DbError> {
            let upsert = diesel::insert_into(lottery_tickets::table)
                .values(row)
                .on_conflict(lottery_tickets::id)
                .do_update()
                .set(row);
            let written = only_in_shop(upsert, lottery_tickets::shop_id.eq(shop.as_str()))
                .execute(self)
                .await?;
            check_written(written, "lottery ticket", &row.id)
        }

        async fn write_spin(
            &mut self,
            shop: &ShopId,
            row: &SpinRow,
        ) -> Result<(), DbError> {
            let upsert = diesel::insert_into(spins::table)
                .values(row)
                .on_conflict(spins::id)
                .do_update()
                .set(row);
            let written = only_in_shop(upsert, spins::shop_id.eq(shop.as_str()))
                .execute(self)
                .await?;
            check_written(written, "spin", &row.id)
        }

        async fn touch_client(
            &mut self,
            shop: &ShopId,
            client: &ClientId,
            at: Timestamp,
        ) -> Result<(), DbError> {
            diesel::update(clients::table)
                .filter(clients::shop_id.eq(shop.as_str()))
                .filter(clients::id.eq(client.as_str()))
                .set(clients::updated_at_ms.eq(at.millis()))
                .execute(self)
                .await?;
            Ok(())
        }
    }
}

pub(super) async fn import_tickets<C: ImportConnection>(
    conn: &mut C,
    shop: &ShopId,
    tickets: Vec<ImportedEvent<LotteryTicket>>,
    now: Timestamp,
    changes: &mut ImportChanges,
) -> Result<ImportCounts, DbError> {
    let ids: Vec<String> = tickets
        .iter()
        .map(|imported| imported.event.id.as_str().to_owned())
        .collect();
    let mut stored: HashMap<TicketId, LotteryTicket> = HashMap::with_capacity(ids.len());
    for chunk in ids.chunks(IDS_PER_QUERY) {
        for row in conn.load_tickets(shop, chunk).await? {
            let ticket = row.into_domain()?;
            stored.insert(ticket.id.clone(), ticket);
        }
    }
    let mut counts = ImportCounts::default();
    for imported in tickets {
        let before = stored.get(&imported.event.id);
        let previous_client = before.map(|ticket| ticket.client_id.clone());
        match decide_event_import(before, imported, now) {
            ImportDecision::Unchanged => counts.unchanged += 1,
            ImportDecision::Write(ticket) => {
                conn.write_ticket(shop, &TicketRow::from_domain(shop, &ticket))
                    .await?;
                touch_clients(conn, shop, &ticket.client_id, previous_client, now, changes).await?;
                counts.written += 1;
            }
        }
    }
    Ok(counts)
}

pub(super) async fn import_spins<C: ImportConnection>(
    conn: &mut C,
    shop: &ShopId,
    spins: Vec<ImportedEvent<Spin>>,
    now: Timestamp,
    changes: &mut ImportChanges,
) -> Result<ImportCounts, DbError> {
    let ids: Vec<String> = spins
        .iter()
        .map(|imported| imported.event.id.as_str().to_owned())
        .collect();
    let mut stored: HashMap<SpinId, Spin> = HashMap::with_capacity(ids.len());
    for chunk in ids.chunks(IDS_PER_QUERY) {
        for row in conn.load_spins(shop, chunk).await? {
            let spin = row.into_domain()?;
            stored.insert(spin.id.clone(), spin);
        }
    }
    let mut counts = ImportCounts::default();
    for imported in spins {
        let before = stored.get(&imported.event.id);
        let previous_client = before.map(|spin| spin.client_id.clone());
        match decide_event_import(before, imported, now) {
            ImportDecision::Unchanged => counts.unchanged += 1,
            ImportDecision::Write(spin) => {
                conn.write_spin(shop, &SpinRow::from_domain(shop, &spin))
                    .await?;
                touch_clients(conn, shop, &spin.client_id, previous_client, now, changes).await?;
                counts.written += 1;
            }
        }
    }
    Ok(counts)
}

/// A ticket or spin written changes its client's loyalty (and its former client's, when it
/// moved): both clients' `updatedAt` move, so that `updatedSince` syncs see it.
async fn touch_clients<C: ImportConnection>(
    conn: &mut C,
    shop: &ShopId,
    client: &ClientId,
    previous: Option<ClientId>,
    now: Timestamp,
    changes: &mut ImportChanges,
) -> Result<(), DbError> {
    conn.touch_client(shop, client, now).await?;
    changes.client(client, false);
    if let Some(previous) = previous.filter(|previous| previous != client) {
        conn.touch_client(shop, &previous, now).await?;
        changes.client(&previous, false);
    }
    Ok(())
}
