//! Where a read request's queries may go when the database has read replicas (issue 22):
//! a replica that has replayed the presenting key's last write, so that a client never reads
//! a state older than its own adjustment (`shop_ports::port::replication`).
//!
//! The key is taken from the `Authorization` header as presented, before it is verified: a
//! forged or unknown prefix only chooses between replicas and the primary for a request that
//! authentication then refuses, and every query is scoped by the authenticated shop anyway.
//! Without replicas (no [`ReadRouting`] in the server's `Operations`) nothing is scoped:
//! reads go to the one database.

use std::sync::Arc;

use actix_web::Error;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::web;
use shop_domain::api_key::PresentedKey;
use shop_ports::port::{ReadScope, WritePositions, reading_in};

use crate::auth::bearer_token;
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

    async fn scope_of(&self, request: &ServiceRequest) -> ReadScope {
        let Some(key) = bearer_token(request.headers()).and_then(|t| PresentedKey::parse(t).ok())
        else {
            return ReadScope::AnyReplica;
        };
        match self.positions.last(key.prefix()).await {
            Ok(None) => ReadScope::AnyReplica,
            Ok(Some(position)) => ReadScope::After(position),
            // Where the key wrote last is unknown: only the primary is sure to have it.
            Err(error) => {
                tracing::warn!(error = %error, "write positions unavailable: reading the primary");
                ReadScope::Primary
            }
        }
    }
}

pub async fn scope_reads(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let routing = request
        .app_data::<web::Data<Operations>>()
        .and_then(|operations| operations.read_routing().cloned());
    match routing {
        Some(routing) => {
            let scope = routing.scope_of(&request).await;
            reading_in(scope, next.call(request)).await
        }
        None => next.call(request).await,
    }
}
