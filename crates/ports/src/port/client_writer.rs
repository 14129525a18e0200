use async_trait::async_trait;
use shop_domain::Timestamp;
use shop_domain::api_key::KeyPrefix;
use shop_domain::client::{Client, ClientPatch, NewClient};
use shop_domain::id::{ApiWriteId, ClientId, ShopId};

use crate::StoreError;
use crate::port::{IdempotencyClaim, Precondition};

/// Everything `POST /clients` writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CreateClientCommand {
    pub shop: ShopId,
    /// The id the client gets if it is created.
    pub id: ClientId,
    pub client: NewClient,
    /// The API key that writes, recorded with the write (the console's activity).
    pub key_prefix: KeyPrefix,
    /// The id of the write in the console's activity.
    pub write_id: ApiWriteId,
    pub at: Timestamp,
    pub idempotency: Option<IdempotencyClaim>,
}

/// What a create came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CreateClientResult {
    /// The client as now stored (on a replay, as it is now: its id is the first answer's).
    Created(Box<Client>),
    /// Another client of the shop has this e-mail, without regard to case.
    EmailTaken { holder: ClientId },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CreateClientOutcome {
    /// Decided now (and, with a key, recorded for replays).
    Fresh(CreateClientResult),
    /// The key was used before with the same request: its first result, nothing changed.
    Replayed(CreateClientResult),
    /// The key was used before with a different request (of any operation): nothing changed.
    KeyReused,
}

/// Everything `PATCH /clients/{id}` writes.
#[derive(Clone, Debug)]
pub struct PatchClientCommand {
    pub shop: ShopId,
    pub id: ClientId,
    pub patch: ClientPatch,
    pub key_prefix: KeyPrefix,
    /// The id of the write in the console's activity, if it changes anything.
    pub write_id: ApiWriteId,
    pub at: Timestamp,
    /// `None`: unconditional.
    pub precondition: Option<Precondition<Client>>,
}

/// What a patch came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PatchClientResult {
    /// The client as now stored. When the patch changed nothing, nothing was written: no
    /// `updatedAt`, no event.
    Patched(Box<Client>),
    /// The shop has no such client (another shop's is not found either).
    NotFound,
    /// The precondition does not hold on the client as it is (given here): nothing changed.
    PreconditionFailed(Box<Client>),
    /// Another client of the shop has this e-mail, without regard to case.
    EmailTaken { holder: ClientId },
}

#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait]
pub trait ClientWriter: Send + Sync {
    /// In ONE transaction: replay or refuse per a live idempotency record; otherwise refuse an
    /// e-mail another client of the shop holds (without regard to case; two concurrent creates
    /// with one e-mail cannot both pass), insert the client, append its `client.created`
    /// event, record the write for the console's activity and the result under the key.
    async fn create_client(
        &self,
        command: &CreateClientCommand,
    ) -> Result<CreateClientOutcome, StoreError>;

    /// In ONE transaction that concurrent writes of the client wait for: find the shop's
    /// client (`NotFound`), check the precondition on it as it is (`PreconditionFailed`),
    /// apply the patch; if anything changed, refuse an e-mail another client holds, write
    /// the client with its `updatedAt` moved forward to `at`, append its `client.updated`
    /// event and record the write for the console's activity.
    async fn patch_client(
        &self,
        command: &PatchClientCommand,
    ) -> Result<PatchClientResult, StoreError>;
}
