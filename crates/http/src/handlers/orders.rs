//! `GET /api/v1/orders` and `GET /api/v1/orders/{id}`.

use actix_web::{HttpRequest, HttpResponse, web};
use shop_domain::id::{ClientId, OrderId};
use shop_domain::order::{
    DateRangeError, OrderListQuery, OrderSource, OrderStatus, PaymentStatus, order_cursor_position,
    parse_date_from, parse_date_to,
};
use shop_domain::pagination::{CursorKind, PageLimit};
use shop_domain::scope::Operation;

use crate::ApiState;
use crate::auth::authenticate;
use crate::dto::order::OrderDto;
use crate::dto::page::{DataDto, ListDto};
use crate::error::{ApiError, Resource};
use crate::handlers::params::{IdPath, OrderListParams};
use crate::handlers::responses::{ListOrders, ShowOrder};
use crate::path_id::PathId;
use crate::query::{QueryParams, expect_none};
use crate::read_from::read_from;

/// The query parameters the list accepts; its `params(...)` documents the same (tested).
pub(crate) const LIST_PARAMETERS: &[&str] = &[
    "cursor",
    "limit",
    "status",
    "paymentStatus",
    "source",
    "clientId",
    "dateFrom",
    "dateTo",
    "updatedSince",
];

#[utoipa::path(
    get,
    path = "/api/v1/orders",
    tag = "orders",
    operation_id = "listOrders",
    summary = "List orders",
    description = "Scope `orders:read`. Newest first (`createdAt`, then id, descending); with `updatedSince`, the orders changed since then by `updatedAt` ascending, then id.",
    params(OrderListParams),
    responses(ListOrders)
)]
pub async fn list(
    request: HttpRequest,
    state: web::Data<ApiState>,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&request, &state, Operation::ListOrders).await?;
    let query = list_query(request.query_string())?;
    let from = read_from(&request, &principal).await;
    let page = state
        .orders
        .list(&principal.shop.id, &query, from)
        .await
        .map_err(ApiError::reading(Resource::Order))?;
    ListDto::from_page(&page, OrderDto::from).into_response()
}

#[utoipa::path(
    get,
    path = "/api/v1/orders/{id}",
    tag = "orders",
    operation_id = "getOrder",
    summary = "One order with its lines",
    description = "Scope `orders:read`.",
    params(IdPath),
    responses(ShowOrder)
)]
pub async fn show(
    request: HttpRequest,
    id: PathId<OrderId>,
    state: web::Data<ApiState>,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&request, &state, Operation::GetOrder).await?;
    expect_none(request.query_string())?;
    let id = id.or_not_found(Resource::Order)?;
    let from = read_from(&request, &principal).await;
    let order = state
        .orders
        .get(&principal.shop.id, &id, from)
        .await
        .map_err(ApiError::reading(Resource::Order))?;
    Ok(HttpResponse::Ok().json(DataDto::new(OrderDto::from(&order))))
}

/// The list's parameters as a domain query; every invalid parameter is reported at once, and
/// reversed dates once both parse.
fn list_query(raw: &str) -> Result<OrderListQuery, ApiError> {
    let mut params = QueryParams::parse(raw, LIST_PARAMETERS)?;
    let (before, changed) = params.walk(order_cursor_position, CursorKind::OrdersChanged, |id| {
        OrderId::parse(id).ok()
    });
    let limit = params.get("limit", PageLimit::parse);
    let status = params.get("status", str::parse::<OrderStatus>);
    let payment_status = params.get("paymentStatus", str::parse::<PaymentStatus>);
    let source = params.get("source", str::parse::<OrderSource>);
    let client_id = params.get("clientId", |text| ClientId::parse(text));
    let created_from = params.get("dateFrom", parse_date_from);
    let created_to = params.get("dateTo", parse_date_to);
    if let (Some(from), Some(to)) = (created_from, created_to)
        && from > to
    {
        params.reject("dateFrom", DateRangeError::FromAfterTo);
    }
    params.finish()?;
    Ok(OrderListQuery {
        status,
        payment_status,
        source,
        client_id,
        created_from,
        created_to,
        before,
        changed,
        limit: limit.unwrap_or(PageLimit::ORDERS_DEFAULT),
    })
}
