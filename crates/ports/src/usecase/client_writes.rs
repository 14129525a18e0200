//! `POST /api/v2/clients` and `PATCH /api/v2/clients/{id}` (issue 35): an integration creates
//! the clients who sign up elsewhere and keeps their contact details, safe to retry (a create
//! under an `Idempotency-Key`, a patch under `If-Match`).

use std::sync::Arc;

use shop_domain::client::{Client, ClientPatch, NewClient};
use shop_domain::id::{ApiWriteId, ClientId};
use shop_domain::stock::{IDEMPOTENCY_RETENTION_MILLIS, IdempotencyKey};

use super::Principal;
use crate::StoreError;
use crate::port::{
    ClientWriter, Clock, CreateClientCommand, CreateClientOutcome, CreateClientResult, IdGenerator,
    IdempotencyClaim, PatchClientCommand, PatchClientResult, Precondition,
};

/// A client as a write left it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientWritten {
    pub client: Client,
    /// The first answer to the same `Idempotency-Key`, repeated: nothing changed this time.
    pub replayed: bool,
}

/// Why a write of a client changed nothing. A refusal of a create is an answer too, recorded
/// under its idempotency key: `replayed` says that it repeats the first answer to that key.
#[derive(Debug, thiserror::Error)]
pub enum ClientWriteError {
    #[error("the shop has no such client")]
    NotFound,
    /// `If-Match` does not hold: the client as it is now, whose entity tag the answer gives.
    #[error("the client changed since the version the condition names")]
    PreconditionFailed(Box<Client>),
    #[error("another client of the shop has this e-mail")]
    EmailTaken { holder: ClientId, replayed: bool },
    #[error("the idempotency key was used with a different request")]
    KeyReused,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl ClientWriteError {
    /// Whether this refusal repeats the first answer to its idempotency key.
    pub const fn replayed(&self) -> bool {
        match self {
            Self::EmailTaken { replayed, .. } => *replayed,
            _ => false,
        }
    }
}

pub struct ClientEditor {
    writer: Arc<dyn ClientWriter>,
    ids: Arc<dyn IdGenerator>,
    clock: Arc<dyn Clock>,
}

impl ClientEditor {
    pub fn new(
        writer: Arc<dyn ClientWriter>,
        ids: Arc<dyn IdGenerator>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self { writer, ids, clock }
    }

    /// Creates (or replays the creation of) a client of the caller's shop.
    pub async fn create(
        &self,
        caller: &Principal,
        client: NewClient,
        idempotency_key: Option<IdempotencyKey>,
    ) -> Result<ClientWritten, ClientWriteError> {
        let at = self.clock.now();
        let idempotency = idempotency_key.map(|key| IdempotencyClaim {
            key,
            fingerprint: client.fingerprint(),
            expired_before: at.plus_millis(-IDEMPOTENCY_RETENTION_MILLIS),
        });
        let id =
            ClientId::parse(format!("cli_{}", self.ids.new_id())).map_err(StoreError::failure)?;
        let command = CreateClientCommand {
            shop: caller.shop.id.clone(),
            id,
            client,
            key_prefix: caller.key_prefix.clone(),
            write_id: self.write_id()?,
            at,
            idempotency,
        };
        let (result, replayed) = match self.writer.create_client(&command).await? {
            CreateClientOutcome::Fresh(result) => (result, false),
            CreateClientOutcome::Replayed(result) => (result, true),
            CreateClientOutcome::KeyReused => return Err(ClientWriteError::KeyReused),
        };
        match result {
            CreateClientResult::Created(client) => Ok(ClientWritten {
                client: *client,
                replayed,
            }),
            CreateClientResult::EmailTaken { holder } => {
                Err(ClientWriteError::EmailTaken { holder, replayed })
            }
        }
    }

    fn write_id(&self) -> Result<ApiWriteId, StoreError> {
        ApiWriteId::parse(format!("wrt_{}", self.ids.new_id())).map_err(StoreError::failure)
    }

    /// Applies a merge patch to the caller's shop's client, when `precondition` (if any) holds
    /// on the client as it is.
    pub async fn patch(
        &self,
        caller: &Principal,
        id: ClientId,
        patch: ClientPatch,
        precondition: Option<Precondition<Client>>,
    ) -> Result<Client, ClientWriteError> {
        let command = PatchClientCommand {
            shop: caller.shop.id.clone(),
            id,
            patch,
            key_prefix: caller.key_prefix.clone(),
            write_id: self.write_id()?,
            at: self.clock.now(),
            precondition,
        };
        match self.writer.patch_client(&command).await? {
            PatchClientResult::Patched(client) => Ok(*client),
            PatchClientResult::NotFound => Err(ClientWriteError::NotFound),
            PatchClientResult::PreconditionFailed(current) => {
                Err(ClientWriteError::PreconditionFailed(current))
            }
            PatchClientResult::EmailTaken { holder } => Err(ClientWriteError::EmailTaken {
                holder,
                replayed: false,
            }),
        }
    }
}

#[cfg(test)]
mod tests;
