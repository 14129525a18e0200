//! `GET /api/v1/clients/{id}/loyalty`: needs `loyalty:read` only, not `clients:read`.

use actix_web::{HttpRequest, HttpResponse, web};
use shop_domain::id::ClientId;
use shop_domain::scope::Operation;

use crate::ApiState;
use crate::auth::authenticate;
use crate::dto::loyalty::LoyaltySummaryDto;
use crate::dto::page::DataDto;
use crate::error::{ApiError, Resource};
use crate::handlers::params::IdPath;
use crate::handlers::responses::ShowLoyalty;
use crate::path_id::PathId;
use crate::query::expect_none;
use crate::read_from::read_from;

#[utoipa::path(
    get,
    path = "/api/v1/clients/{id}/loyalty",
    tag = "clients",
    operation_id = "getClientLoyalty",
    summary = "A client's loyalty summary",
    description = "Scope `loyalty:read` (not `clients:read`). Balance, current and next tier \
                   with the progress between them, and the 10 latest lottery tickets and spins.",
    params(IdPath),
    responses(ShowLoyalty)
)]
pub async fn show(
    request: HttpRequest,
    id: PathId<ClientId>,
    state: web::Data<ApiState>,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&request, &state, Operation::GetLoyalty).await?;
    expect_none(request.query_string())?;
    // What is missing is the client whose summary was asked for.
    let id = id.or_not_found(Resource::Client)?;
    let from = read_from(&request, &principal).await;
    let summary = state
        .loyalty
        .summary(&principal.shop.id, &id, from)
        .await
        .map_err(ApiError::reading(Resource::Client))?;
    Ok(HttpResponse::Ok().json(DataDto::new(LoyaltySummaryDto::from(&summary))))
}
