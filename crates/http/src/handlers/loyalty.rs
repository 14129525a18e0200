//! `GET /api/v1/clients/{id}/loyalty`: needs `loyalty:read` only, not `clients:read`; and
//! `POST /api/v2/clients/{id}/loyalty/adjustments` (`loyalty:write`, issue 35).

mod points_members;

use actix_web::{HttpRequest, HttpResponse, web};
use shop_domain::id::ClientId;
use shop_domain::loyalty::PointsAdjustmentRequest;
use shop_domain::scope::Operation;

use crate::ApiState;
use crate::auth::authenticate;
use crate::body::read_object;
use crate::dto::loyalty::{LoyaltySummaryDto, PointsAdjustmentDto};
use crate::dto::page::DataDto;
use crate::dto::schemas::PointsAdjustmentBody;
use crate::error::{ApiError, Resource};
use crate::handlers::idempotency::{created_or_refused, request_and_key};
use crate::handlers::params::{IdPath, PointsIdempotencyKeyHeader};
use crate::handlers::responses::{AdjustPoints, ShowLoyalty};
use crate::path_id::PathId;
use crate::query::expect_none;
use crate::read_from::read_from;
use points_members::PointsMembers;

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

/// As a stock adjustment: authentication first (401, 429, 403), then the query, the
/// `Content-Type`, the body's size and syntax, every member and the `Idempotency-Key`
/// together, then the client's id (404), then the use case.
#[utoipa::path(
    post,
    path = "/api/v2/clients/{id}/loyalty/adjustments",
    tag = "loyalty",
    operation_id = "adjustClientPoints",
    summary = "Credit or debit a client's points",
    description = "Scope `loyalty:write`. Adds `points` to the client's spendable points in \
                   one transaction that concurrent adjustments cannot interleave with: a credit \
                   also raises `pointsLifetime` and `pointsAllTime` and moves the tier when it \
                   crosses a threshold (its `achievedAt` is then the credit's time); a debit \
                   never takes the balance below 0. The client's `updatedAt` moves and a \
                   `client.updated` event is sent. Body at most 64 KiB, `Content-Type: \
                   application/json`. Send an `Idempotency-Key` to retry safely.",
    params(IdPath, PointsIdempotencyKeyHeader),
    request_body(content = PointsAdjustmentBody, content_type = "application/json"),
    responses(AdjustPoints)
)]
pub async fn adjust_points(
    request: HttpRequest,
    id: PathId<ClientId>,
    payload: web::Payload,
    state: web::Data<ApiState>,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&request, &state, Operation::AdjustPoints).await?;
    expect_none(request.query_string())?;
    let mut fields = read_object(&request, payload, PointsMembers::FIELDS).await?;
    let parsed = PointsAdjustmentRequest::try_from(PointsMembers::read(&mut fields));
    let (adjustment, key) = request_and_key(parsed, fields, request.headers())?;
    let client = id.or_not_found(Resource::Client)?;

    let answer = state
        .points
        .adjust(&principal, client, adjustment, key)
        .await;
    let replayed = match &answer {
        Ok(adjusted) => adjusted.replayed,
        Err(error) => error.replayed(),
    };
    let answer = answer
        .map(|adjusted| PointsAdjustmentDto::from(&adjusted.adjustment))
        .map_err(ApiError::from);
    Ok(created_or_refused(answer, replayed))
}
