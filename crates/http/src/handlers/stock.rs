//! `GET /api/v1/stock` and `POST /api/v1/stock/adjustments`.

mod adjustment_members;

use actix_web::http::header::{HeaderMap, HeaderName, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, web};
use shop_domain::id::{ProductId, VariantId};
use shop_domain::pagination::{CursorKind, PageLimit};
use shop_domain::scope::Operation;
use shop_domain::stock::{
    AdjustmentRequest, IdempotencyKey, InvalidIdempotencyKey, StockListQuery, stock_cursor_position,
};
use shop_domain::text::SearchTerm;

use crate::ApiState;
use crate::auth::authenticate;
use crate::body::read_object;
use crate::dto::page::{DataDto, ListDto};
use crate::dto::schemas::AdjustmentBody;
use crate::dto::stock::{StockAdjustmentDto, StockEntryDto};
use crate::error::{ApiError, FieldIssue, Resource};
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

const IDEMPOTENCY_KEY: HeaderName = HeaderName::from_static("idempotency-key");
/// Set on a response that repeats the first answer to the same `Idempotency-Key`.
const IDEMPOTENT_REPLAYED: HeaderName = HeaderName::from_static("idempotent-replayed");

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
    let adjustment = match AdjustmentRequest::try_from(AdjustmentMembers::read(&mut fields)) {
        Ok(adjustment) => Some(adjustment),
        Err(problems) => {
            for problem in problems {
                fields.reject(problem.field, problem.message);
            }
            None
        }
    };
    let key = idempotency_key(request.headers());
    let mut issues = fields.into_issues();
    if let Err(issue) = &key {
        issues.push(issue.clone());
    }
    let (Some(adjustment), Ok(key), true) = (adjustment, key, issues.is_empty()) else {
        return Err(ApiError::invalid_body(issues));
    };

    let answer = state.stock.adjust(&principal, adjustment, key).await;
    // A replayed refusal answers as it did the first time, with the replay header too.
    let replayed = match &answer {
        Ok(adjusted) => adjusted.replayed,
        Err(error) => error.replayed(),
    };
    let mut response = match answer {
        Ok(adjusted) => HttpResponse::Created()
            .json(DataDto::new(StockAdjustmentDto::from(&adjusted.adjustment))),
        Err(error) => HttpResponse::from_error(ApiError::from(error)),
    };
    if replayed {
        response
            .headers_mut()
            .insert(IDEMPOTENT_REPLAYED, HeaderValue::from_static("true"));
    }
    Ok(response)
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

/// The optional `Idempotency-Key`: given at most once, and valid per the domain.
fn idempotency_key(headers: &HeaderMap) -> Result<Option<IdempotencyKey>, FieldIssue> {
    let mut values = headers.get_all(IDEMPOTENCY_KEY);
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(FieldIssue::new(
            "Idempotency-Key",
            "must be given at most once",
        ));
    }
    value
        .to_str()
        .map_err(|_| InvalidIdempotencyKey)
        .and_then(IdempotencyKey::parse)
        .map(Some)
        .map_err(|invalid| FieldIssue::new("Idempotency-Key", invalid.to_string()))
}
