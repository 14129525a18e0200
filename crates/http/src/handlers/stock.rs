//! `GET /api/v1/stock` and `POST /api/v1/stock/adjustments`.

mod adjustment_members;

use actix_web::{HttpRequest, HttpResponse, web};
use shop_domain::id::{ProductId, VariantId};
use shop_domain::pagination::{CursorKind, PageLimit};
use shop_domain::scope::Operation;
use shop_domain::stock::{AdjustmentRequest, StockListQuery, stock_cursor_position};
use shop_domain::text::SearchTerm;

use crate::ApiState;
use crate::auth::authenticate;
use crate::body::read_object;
use crate::dto::page::ListDto;
use crate::dto::schemas::AdjustmentBody;
use crate::dto::stock::{StockAdjustmentDto, StockEntryDto};
use crate::error::{ApiError, Resource};
use crate::handlers::idempotency::{created_or_refused, request_and_key};
use crate::handlers::params::{IdempotencyKeyHeader, StockListParams};
use crate::handlers::responses::{AdjustStock, ListStock};
use crate::query::{QueryParams, expect_none};
use crate::read_from::read_from;
use adjustment_members::AdjustmentMembers;

/// The query parameters the list accepts; its `params(...)` documents the same (tested).
pub(crate) const LIST_PARAMETERS: &[&str] = &[
    "cursor",
    "limit",
    "productId",
    "q",
    "lowStockOnly",
    "trackedOnly",
    "updatedSince",
];

#[utoipa::path(
    get,
    path = "/api/v1/stock",
    tag = "stock",
    operation_id = "listStock",
    summary = "List stock per variant",
    description = "Scope `stock:read`. One entry per variant, by ascending variant id; with `updatedSince`, the entries changed since then by `updatedAt` ascending, then variant id.",
    params(StockListParams),
    responses(ListStock)
)]
pub async fn list(
    request: HttpRequest,
    state: web::Data<ApiState>,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&request, &state, Operation::ListStock).await?;
    let query = list_query(request.query_string())?;
    let from = read_from(&request, &principal).await;
    let page = state
        .stock
        .list(&principal.shop.id, &query, from)
        .await
        .map_err(ApiError::reading(Resource::Variant))?;
    ListDto::from_page(&page, StockEntryDto::from).into_response()
}

/// Authentication first (401, 429, 403, before a byte of the body is read), then the query, the
/// `Content-Type`, the body's size and syntax, then every field and the `Idempotency-Key`
/// together, then the use case.
#[utoipa::path(
    post,
    path = "/api/v1/stock/adjustments",
    tag = "stock",
    operation_id = "adjustStock",
    summary = "Adjust the stock of one variant",
    description = "Scope `stock:write`. Adds `quantity` to the variant's stock and records a stock \
                   movement. Body at most 64 KiB, `Content-Type: application/json`. Send an \
                   `Idempotency-Key` to retry safely.",
    params(IdempotencyKeyHeader),
    request_body(content = AdjustmentBody, content_type = "application/json"),
    responses(AdjustStock)
)]
pub async fn adjust(
    request: HttpRequest,
    payload: web::Payload,
    state: web::Data<ApiState>,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&request, &state, Operation::AdjustStock).await?;
    expect_none(request.query_string())?;
    let mut fields = read_object(&request, payload, AdjustmentMembers::FIELDS).await?;
    let parsed = AdjustmentRequest::try_from(AdjustmentMembers::read(&mut fields));
    let (adjustment, key) = request_and_key(parsed, fields, request.headers())?;

    let answer = state.stock.adjust(&principal, adjustment, key).await;
    // A replayed refusal answers as it did the first time, with the replay header too.
    let replayed = match &answer {
        Ok(adjusted) => adjusted.replayed,
        Err(error) => error.replayed(),
    };
    let answer = answer
        .map(|adjusted| StockAdjustmentDto::from(&adjusted.adjustment))
        .map_err(ApiError::from);
    Ok(created_or_refused(answer, replayed))
}

/// The list's parameters as a domain query; every invalid parameter is reported at once.
fn list_query(raw: &str) -> Result<StockListQuery, ApiError> {
    let mut params = QueryParams::parse(raw, LIST_PARAMETERS)?;
    let (after, changed) = params.walk(stock_cursor_position, CursorKind::StockChanged, |id| {
        VariantId::parse(id).ok()
    });
    let limit = params.get("limit", PageLimit::parse);
    let product_id = params.get("productId", |text| ProductId::parse(text));
    // A blank `q` is no search.
    let search = params.get("q", SearchTerm::parse).flatten();
    let low_stock_only = params.get("lowStockOnly", boolean);
    let tracked_only = params.get("trackedOnly", boolean);
    params.finish()?;
    Ok(StockListQuery {
        product_id,
        search,
        low_stock_only: low_stock_only.unwrap_or(false),
        tracked_only: tracked_only.unwrap_or(true),
        after,
        changed,
        limit: limit.unwrap_or(PageLimit::STOCK_DEFAULT),
    })
}

#[derive(Debug, thiserror::Error)]
#[error("must be true or false")]
struct NotBoolean;

/// Exactly `true` or `false`: `1`, `yes` or `TRUE` are refused rather than guessed.
fn boolean(text: &str) -> Result<bool, NotBoolean> {
    match text {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(NotBoolean),
    }
}
