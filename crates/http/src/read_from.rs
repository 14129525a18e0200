//! Which database an API read goes to when the database has read replicas (issue 22): a
//! replica that has replayed the caller's key's last write, so that a client never reads a
//! state older than its own adjustment (`shop_ports::port::replication`).
//!
//! Each read handler asks [`read_from`] once it has authenticated the caller, and hands the
//! answer to its use case, which passes it to the repository. Without replicas (no
//! [`ReadRouting`] in the server's `Operations`) the answer is the primary: the one database.

use std::sync::Arc;

use actix_web::{HttpRequest, web};
use shop_ports::port::{ReadFrom, WritePositions};
use shop_ports::usecase::Principal;

use crate::operations::Operations;

/// The write positions of the keys, when the database has read replicas.
#[derive(Clone)]
pub struct ReadRouting {
    positions: Arc<dyn WritePositions>,
}

impl ReadRouting {
    pub fn new(positions: Arc<dyn WritePositions>) -> Self {
        Self { positions }
    }

    async fn read_from(&self, principal: &Principal) -> ReadFrom {
        match self.positions.last(&principal.key_prefix).await {
            Ok(None) => ReadFrom::AnyReplica,
            Ok(Some(position)) => ReadFrom::ReplicaAfter(position),
            // Where the key wrote last is unknown: only the primary is sure to have it.
            Err(error) => {
                tracing::warn!(error = %error, "write positions unavailable: reading the primary");
                ReadFrom::Primary
            }
        }
    }
}

/// Where the reads of `principal`'s request go: after its key's last write when the database
/// has replicas, otherwise the primary.
pub(crate) async fn read_from(request: &HttpRequest, principal: &Principal) -> ReadFrom {
    let routing = request
        .app_data::<web::Data<Operations>>()
        .and_then(|operations| operations.read_routing());
    match routing {
        Some(routing) => routing.read_from(principal).await,
        None => ReadFrom::Primary,
    }
}
