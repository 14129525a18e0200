//! `GET /api/v1/clients` and `GET /api/v1/clients/{id}`.

use actix_web::{HttpRequest, HttpResponse, web};
use shop_domain::client::{ClientListQuery, ClientSearch, client_cursor_position};
use shop_domain::id::ClientId;
use shop_domain::pagination::{CursorKind, PageLimit};
use shop_domain::scope::Operation;

use crate::ApiState;
use crate::api_version::ApiVersion;
use crate::auth::authenticate;
use crate::dto::client::ClientDto;
use crate::dto::page::ListDto;
use crate::error::{ApiError, Resource};
use crate::etag::single_resource;
use crate::handlers::params::{ClientListParams, IdPath};
use crate::handlers::responses::{ListClients, ShowClient};
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
