//! `GET /api/v1/me` and `GET /api/v2/me`: which shop and key the caller is (no scope
//! required). v1 shows the ten scopes it knows; v2 shows them all.

use actix_web::{HttpRequest, HttpResponse, web};
use shop_domain::scope::Operation;

use crate::ApiState;
use crate::api_version::ApiVersion;
use crate::auth::authenticate;
use crate::dto::me::MeDto;
use crate::error::ApiError;
use crate::handlers::responses::ShowMe;
use crate::query::expect_none;

#[utoipa::path(
    get,
    path = "/api/v1/me",
    tag = "key",
    operation_id = "getMe",
    summary = "The shop and API key of the caller",
    description = "Needs no particular scope.",
    responses(ShowMe)
)]
pub async fn show(
    request: HttpRequest,
    state: web::Data<ApiState>,
    version: ApiVersion,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&request, &state, Operation::Me).await?;
    expect_none(request.query_string())?;
    Ok(HttpResponse::Ok().json(MeDto::new(&principal, version)))
}
