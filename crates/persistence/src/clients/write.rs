//! `ClientWriter`: an integration's create and merge patch of a client (API v2, issue 35), each
//! in one transaction with its event, its line in the console's activity and, for a create,
//! its idempotency record.
//!
//! **E-mails unique without regard to case.** A write that gives a client an e-mail first
//! claims the e-mail's key in the shop (`WriteLocks::lock_value`), then looks for another
//! client holding it: two concurrent writes of one e-mail check one after the other, so at
//! most one passes. Clients imported with one e-mail stay as they are.
//!
//! **`If-Match`.** A patch locks the client's row (`WriteLocks::lock_client`) before it reads
//! the client and checks the precondition, and keeps the lock to its commit: of concurrent
//! patches carrying one entity tag, the first changes the client and the others find their
//! tag stale. A patch that changes nothing writes nothing.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::client::{Client, ClientPatch, email_key};
use shop_domain::id::{ClientId, ShopId};
use shop_domain::webhook::{EventData, EventType};
use shop_ports::StoreError;
use shop_ports::port::{
    ClientWriter, CreateClientCommand, CreateClientOutcome, CreateClientResult, PatchClientCommand,
    PatchClientResult,
};

use super::{ClientQueries, ClientSelection};
use crate::database::write_locks::WriteLocks;
use crate::database::{Database, impl_for_each_backend, write_transaction};
use crate::error::DbError;
use crate::rows::{
    ApiWrite, ClientContactChangeset, CreateRecorded, NewClientRow, WriteAction, WrittenResource,
};
use crate::schema::clients;
use crate::sql::kept_prepared::KeptPrepared;
use crate::stock::adjust::{AdjustQueries, deciding_again};
use crate::webhooks::outbox::{self, OutboxQueries, OutboxWrite};
use crate::write_log::WriteLog;

/// The namespace of the e-mails' value locks.
const EMAILS: &str = "client.email";

/// The statements of a client's writes, implemented for both backends' connections.
pub(crate) trait ClientWriteQueries {
    /// Another client of the shop whose e-mail has this key, if any.
    fn email_holder(
        &mut self,
        shop: &ShopId,
        key: &str,
        except: &ClientId,
    ) -> impl Future<Output = Result<Option<ClientId>, DbError>> + Send;

    fn insert_client(
        &mut self,
        row: &NewClientRow,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    fn update_client_contact(
        &mut self,
        shop: &ShopId,
        id: &ClientId,
        changes: &ClientContactChangeset,
    ) -> impl Future<Output = Result<(), DbError>> + Send;
}

impl_for_each_backend! {
    impl ClientWriteQueries {
        async fn email_holder(
            &mut self,
            shop: &ShopId,
            key: &str,
            except: &ClientId,
        ) -> Result<Option<ClientId>, DbError> {
            let holder = clients::table
                .filter(clients::shop_id.eq(shop.as_str()))
                .filter(clients::email_key.eq(key))
                .filter(clients::id.ne(except.as_str()))
                .select(clients::id)
                .order(clients::id.asc())
                .first::<String>(self)
                .await
                .optional()?;
            holder
                .map(|id| ClientId::parse(id.as_str()).map_err(|e| DbError::corrupt("clients", &id, e)))
                .transpose()
        }

        async fn insert_client(&mut self, row: &NewClientRow) -> Result<(), DbError> {
            KeptPrepared(diesel::insert_into(clients::table).values(row))
                .execute(self)
                .await?;
            Ok(())
        }

        async fn update_client_contact(
            &mut self,
            shop: &ShopId,
            id: &ClientId,
            changes: &ClientContactChangeset,
        ) -> Result<(), DbError> {
            let update = diesel::update(clients::table)
                .filter(clients::shop_id.eq(shop.as_str()))
                .filter(clients::id.eq(id.as_str()))
                .set(changes);
            KeptPrepared(update).execute(self).await?;
            Ok(())
        }
    }
}

/// Claims the e-mail `client` would have and answers the other client holding it, if any.
async fn email_taken<C: WriteLocks + ClientWriteQueries + Send>(
    conn: &mut C,
    shop: &ShopId,
    client: &Client,
) -> Result<Option<ClientId>, DbError> {
    let Some(email) = &client.email else {
        return Ok(None);
    };
    let key = email_key(email);
    conn.lock_value(shop, EMAILS, &key).await?;
    conn.email_holder(shop, &key, &client.id).await
}

async fn create<C>(
    conn: &mut C,
    command: &CreateClientCommand,
    outbox: Option<&OutboxWrite<'_>>,
) -> Result<CreateClientOutcome, DbError>
where
    C: AdjustQueries
        + ClientQueries
        + ClientWriteQueries
        + WriteLocks
        + WriteLog
        + OutboxQueries
        + Send,
{
    let shop = &command.shop;
    if let Some(claim) = &command.idempotency
        && let Some(record) = conn.live_record(&command.key_prefix, claim).await?
    {
        if record.fingerprint != claim.fingerprint {
            return Ok(CreateClientOutcome::KeyReused);
        }
        let first = replay(conn, shop, CreateRecorded::of(&record)?).await?;
        return Ok(CreateClientOutcome::Replayed(first));
    }
    let client = command.client.client(command.id.clone(), command.at);
    let (result, recorded) = match email_taken(conn, shop, &client).await? {
        Some(holder) => {
            let recorded = CreateRecorded::Conflict {
                member: "email".to_owned(),
                holder: holder.to_string(),
            };
            (CreateClientResult::EmailTaken { holder }, recorded)
        }
        None => {
            conn.insert_client(&NewClientRow::from_domain(shop, &client)?)
                .await?;
            let changed = ClientPatch::changed_members(&blank_of(&client), &client);
            let write = ApiWrite {
                id: &command.write_id,
                shop,
                key_prefix: &command.key_prefix,
                resource: WrittenResource::Client,
                resource_id: client.id.as_str(),
                action: WriteAction::Created,
                changed: &changed,
                at: command.at,
            };
            conn.log_write(&write).await?;
            if let Some(outbox) = outbox {
                append_event(conn, outbox, shop, EventType::ClientCreated, &client).await?;
            }
            let recorded = CreateRecorded::Created(client.id.to_string());
            (CreateClientResult::Created(Box::new(client)), recorded)
        }
    };
    if let Some(claim) = &command.idempotency {
        let row = recorded.row(&command.key_prefix, claim, command.at);
        conn.insert_record(&row).await?;
    }
    Ok(CreateClientOutcome::Fresh(result))
}

/// The client before its create's members: what the activity compares the new one with.
fn blank_of(client: &Client) -> Client {
    Client {
        name: String::new(),
        display_name: None,
        phone: None,
        email: None,
        billing: Default::default(),
        birth_date: None,
        receipt_by_email: false,
        tags: Vec::new(),
        ..client.clone()
    }
}

/// The first answer under a record: a created client as it is now (its id is the first
/// answer's), or the same refusal.
async fn replay<C: ClientQueries + Send>(
    conn: &mut C,
    shop: &ShopId,
    recorded: CreateRecorded,
) -> Result<CreateClientResult, DbError> {
    let parse =
        |id: &str| ClientId::parse(id).map_err(|e| DbError::corrupt("idempotency_records", id, e));
    match recorded {
        CreateRecorded::Created(id) => {
            let id = parse(&id)?;
            let client = load(conn, shop, &id).await?.ok_or_else(|| {
                DbError::Invariant(format!("a record names client {id}, not in this shop"))
            })?;
            Ok(CreateClientResult::Created(Box::new(client)))
        }
        CreateRecorded::Conflict { holder, .. } => Ok(CreateClientResult::EmailTaken {
            holder: parse(&holder)?,
        }),
    }
}

async fn patch<C>(
    conn: &mut C,
    command: &PatchClientCommand,
    outbox: Option<&OutboxWrite<'_>>,
) -> Result<PatchClientResult, DbError>
where
    C: ClientQueries + ClientWriteQueries + WriteLocks + WriteLog + OutboxQueries + Send,
{
    let (shop, id) = (&command.shop, &command.id);
    if !conn.lock_client(shop, id).await? {
        return Ok(PatchClientResult::NotFound);
    }
    let current = load(conn, shop, id)
        .await?
        .ok_or_else(|| DbError::Invariant(format!("locked client {id} is gone")))?;
    if let Some(precondition) = &command.precondition
        && !precondition.holds(&current)
    {
        return Ok(PatchClientResult::PreconditionFailed(Box::new(current)));
    }
    let mut next = command.patch.apply(&current);
    let changed = ClientPatch::changed_members(&current, &next);
    if changed.is_empty() {
        return Ok(PatchClientResult::Patched(Box::new(current)));
    }
    if changed.contains(&"email")
        && let Some(holder) = email_taken(conn, shop, &next).await?
    {
        return Ok(PatchClientResult::EmailTaken { holder });
    }
    next.updated_at = command.at.stamp_after(current.updated_at);
    conn.update_client_contact(shop, id, &ClientContactChangeset::from_domain(&next)?)
        .await?;
    let write = ApiWrite {
        id: &command.write_id,
        shop,
        key_prefix: &command.key_prefix,
        resource: WrittenResource::Client,
        resource_id: id.as_str(),
        action: WriteAction::Updated,
        changed: &changed,
        at: command.at,
    };
    conn.log_write(&write).await?;
    if let Some(outbox) = outbox {
        append_event(conn, outbox, shop, EventType::ClientUpdated, &next).await?;
    }
    Ok(PatchClientResult::Patched(Box::new(next)))
}

async fn load<C: ClientQueries + Send>(
    conn: &mut C,
    shop: &ShopId,
    id: &ClientId,
) -> Result<Option<Client>, DbError> {
    let mut found = conn
        .load_clients(shop, ClientSelection::Ids(std::slice::from_ref(id)))
        .await?;
    Ok(found.pop())
}

async fn append_event<C: OutboxQueries + Send>(
    conn: &mut C,
    outbox: &OutboxWrite<'_>,
    shop: &ShopId,
    event_type: EventType,
    client: &Client,
) -> Result<(), DbError> {
    let event = outbox.event(
        event_type,
        client.updated_at,
        EventData::Client(client.clone()),
    )?;
    outbox::append(conn, outbox, shop, &[event]).await
}

#[async_trait]
impl ClientWriter for Database {
    async fn create_client(
        &self,
        command: &CreateClientCommand,
    ) -> Result<CreateClientOutcome, StoreError> {
        let outcome =
            deciding_again(move || async move { write_transaction!(self, create(command)) })
                .await?;
        self.remember_write(&command.key_prefix).await;
        Ok(outcome)
    }

    async fn patch_client(
        &self,
        command: &PatchClientCommand,
    ) -> Result<PatchClientResult, StoreError> {
        let result = write_transaction!(self, patch(command))?;
        self.remember_write(&command.key_prefix).await;
        Ok(result)
    }
}
