//! `GET /api/v1/clients` and `GET /api/v1/clients/{id}`; API v2's `POST /api/v2/clients` and
//! `PATCH /api/v2/clients/{id}` (`clients:write`, issue 35).

mod client_members;

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use shop_domain::client::{
    Client, ClientListQuery, ClientPatch, ClientSearch, NewClient, client_cursor_position,
};
use shop_domain::id::ClientId;
use shop_domain::pagination::{CursorKind, PageLimit};
use shop_domain::scope::Operation;

use crate::ApiState;
use crate::api_version::ApiVersion;
use crate::auth::authenticate;
use crate::dto::client::ClientDto;
use crate::dto::page::ListDto;
use crate::dto::schemas::{ClientCreateBody, ClientPatchBody};
use crate::error::{ApiError, Resource};
use crate::etag::{self, single_resource};
use crate::handlers::idempotency::created_at;
use crate::handlers::params::{
    ClientListParams, CreateIdempotencyKeyHeader, IdPath, IfMatchHeader,
};
use crate::handlers::responses::{CreateClient, ListClients, ShowClient, UpdateClient};
use crate::handlers::write_request::{create_request, patch_request};
use crate::path_id::PathId;
use crate::query::{QueryParams, expect_none};
use crate::read_from::read_from;

/// The query parameters the list accepts; its `params(...)` documents the same (tested).
pub(crate) const LIST_PARAMETERS: &[&str] = &["cursor", "limit", "q", "updatedSince"];

#[utoipa::path(
    get,
    path = "/api/v1/clients",
    tag = "clients",
    operation_id = "listClients",
    summary = "List clients",
    description = "Scope `clients:read`. By ascending id; with `updatedSince`, the clients changed since then by `updatedAt` ascending, then id.",
    params(ClientListParams),
    responses(ListClients)
)]
pub async fn list(
    request: HttpRequest,
    state: web::Data<ApiState>,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&request, &state, Operation::ListClients).await?;
    let query = list_query(request.query_string())?;
    let from = read_from(&request, &principal).await;
    let page = state
        .clients
        .list(&principal.shop.id, &query, from)
        .await
        .map_err(ApiError::reading(Resource::Client))?;
    ListDto::from_page(&page, ClientDto::from).into_response()
}

#[utoipa::path(
    get,
    path = "/api/v1/clients/{id}",
    tag = "clients",
    operation_id = "getClient",
    summary = "One client",
    description = "Scope `clients:read`.",
    params(IdPath),
    responses(ShowClient)
)]
pub async fn show(
    request: HttpRequest,
    version: ApiVersion,
    id: PathId<ClientId>,
    state: web::Data<ApiState>,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&request, &state, Operation::GetClient).await?;
    expect_none(request.query_string())?;
    let id = id.or_not_found(Resource::Client)?;
    let from = read_from(&request, &principal).await;
    let client = state
        .clients
        .get(&principal.shop.id, &id, from)
        .await
        .map_err(ApiError::reading(Resource::Client))?;
    single_resource(version, request.headers(), ClientDto::from(&client))
}

fn list_query(raw: &str) -> Result<ClientListQuery, ApiError> {
    let mut params = QueryParams::parse(raw, LIST_PARAMETERS)?;
    let (after, changed) = params.walk(client_cursor_position, CursorKind::ClientsChanged, |id| {
        ClientId::parse(id).ok()
    });
    let limit = params.get("limit", PageLimit::parse);
    // A blank `q` is no search.
    let search = params.get("q", ClientSearch::parse).flatten();
    params.finish()?;
    Ok(ClientListQuery {
        search,
        after,
        changed,
        limit: limit.unwrap_or(PageLimit::CLIENTS_DEFAULT),
    })
}

/// As every write: authentication first (401, 429, 403), then the query, the `Content-Type`,
/// the body's size and syntax, every member and the `Idempotency-Key` together, then the use
/// case.
#[utoipa::path(
    post,
    path = "/api/v2/clients",
    tag = "clients",
    operation_id = "createClient",
    summary = "Create a client",
    description = "Scope `clients:write`. Creates a client of the key's shop and answers it as \
                   `GET /api/v2/clients/{id}` shows it, with its `ETag` and its `Location`. Only \
                   `name` is required. An `email` another client of the shop has, without \
                   regard to case, is refused (`409 CONFLICT`, naming the holder). A \
                   `client.created` event is sent. Body at most 64 KiB, `Content-Type: \
                   application/json`. Send an `Idempotency-Key` to retry safely.",
    params(CreateIdempotencyKeyHeader),
    request_body(content = ClientCreateBody, content_type = "application/json"),
    responses(CreateClient)
)]
pub async fn create(
    request: HttpRequest,
    payload: web::Payload,
    state: web::Data<ApiState>,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&request, &state, Operation::CreateClient).await?;
    expect_none(request.query_string())?;
    let (client, key) = create_request(&request, payload, |members| {
        NewClient::try_from(client_members::read(members, true))
    })
    .await?;

    let answer = state.client_writes.create(&principal, client, key).await;
    let replayed = match &answer {
        Ok(written) => written.replayed,
        Err(error) => error.replayed(),
    };
    let answer = answer
        .map(|written| {
            let location = format!("/api/v2/clients/{}", written.client.id);
            (ClientDto::from(&written.client), location)
        })
        .map_err(ApiError::from);
    created_at(answer, replayed)
}

/// As a create, with the client's id (404) after the body, and `If-Match` read with the body's
/// members: a malformed one is a 400 of its own, a stale one a `412` from the use case.
#[utoipa::path(
    patch,
    path = "/api/v2/clients/{id}",
    tag = "clients",
    operation_id = "updateClient",
    summary = "Change a client",
    description = "Scope `clients:write`. A JSON Merge Patch (RFC 7396) of the client's \
                   writable members: a member given replaces the client's, `null` clears a \
                   nullable one, `billing`'s members merge one by one. `loyalty` is read-only \
                   (its points move by adjustments). Answers the client as it now is, with its \
                   new `ETag`. With `If-Match`, the patch applies only if the client still has \
                   that `ETag`, else `412 PRECONDITION_FAILED` with the current one. A patch \
                   that changes something moves `updatedAt` and sends `client.updated`; one that \
                   changes nothing writes nothing. `Content-Type: application/merge-patch+json` \
                   or `application/json`.",
    params(IdPath, IfMatchHeader),
    request_body(content = ClientPatchBody, content_type = "application/merge-patch+json"),
    responses(UpdateClient)
)]
pub async fn update(
    request: HttpRequest,
    id: PathId<ClientId>,
    payload: web::Payload,
    state: web::Data<ApiState>,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&request, &state, Operation::UpdateClient).await?;
    expect_none(request.query_string())?;
    let (patch, precondition) = patch_request(
        &request,
        payload,
        |members| ClientPatch::try_from(client_members::read(members, false)),
        |client: &Client| etag::entity_tag(ClientDto::from(client)),
    )
    .await?;
    let id = id.or_not_found(Resource::Client)?;

    let client = state
        .client_writes
        .patch(&principal, id, patch, precondition)
        .await?;
    etag::written(StatusCode::OK, ClientDto::from(&client))
}
