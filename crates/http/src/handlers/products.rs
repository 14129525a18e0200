//! `GET /api/v1/products` and `GET /api/v1/products/{id}`; API v2's writes of products are in
//! `product_writes.rs`, their bodies read by `product_members.rs`.

pub(crate) mod product_members;

use actix_web::{HttpRequest, HttpResponse, web};
use shop_domain::catalogue::{ActiveFilter, ProductListQuery, product_cursor_position};
use shop_domain::id::{BrandId, CategoryId, ProductId};
use shop_domain::pagination::PageLimit;
use shop_domain::scope::Operation;
use shop_domain::sync::parse_updated_since;
use shop_domain::text::SearchTerm;

use crate::ApiState;
use crate::api_version::ApiVersion;
use crate::auth::authenticate;
use crate::dto::page::ListDto;
use crate::dto::product::ProductDto;
use crate::error::{ApiError, Resource};
use crate::etag::single_resource;
use crate::handlers::params::{IdPath, ProductListParams};
use crate::handlers::responses::{ListProducts, ShowProduct};
use crate::path_id::PathId;
use crate::query::{QueryParams, expect_none};
use crate::read_from::read_from;

/// The query parameters the list accepts; its `params(...)` documents the same (tested).
pub(crate) const LIST_PARAMETERS: &[&str] = &[
    "cursor",
    "limit",
    "q",
    "category",
    "brand",
    "productType",
    "active",
    "updatedSince",
];

#[utoipa::path(
    get,
    path = "/api/v1/products",
    tag = "products",
    operation_id = "listProducts",
    summary = "List products",
    description = "Scope `products:read`. By ascending id.",
    params(ProductListParams),
    responses(ListProducts)
)]
pub async fn list(
    request: HttpRequest,
    state: web::Data<ApiState>,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&request, &state, Operation::ListProducts).await?;
    let query = list_query(request.query_string())?;
    let from = read_from(&request, &principal).await;
    let page = state
        .catalogue
        .list(&principal.shop.id, &query, from)
        .await
        .map_err(ApiError::reading(Resource::Product))?;
    ListDto::from_page(&page, ProductDto::from).into_response()
}

#[utoipa::path(
    get,
    path = "/api/v1/products/{id}",
    tag = "products",
    operation_id = "getProduct",
    summary = "One product",
    description = "Scope `products:read`. Inactive variants included.",
    params(IdPath),
    responses(ShowProduct)
)]
pub async fn show(
    request: HttpRequest,
    version: ApiVersion,
    id: PathId<ProductId>,
    state: web::Data<ApiState>,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&request, &state, Operation::GetProduct).await?;
    expect_none(request.query_string())?;
    let id = id.or_not_found(Resource::Product)?;
    let from = read_from(&request, &principal).await;
    let listing = state
        .catalogue
        .get(&principal.shop.id, &id, from)
        .await
        .map_err(ApiError::reading(Resource::Product))?;
    single_resource(version, request.headers(), ProductDto::from(&listing))
}

/// The list's parameters as a domain query; every invalid parameter is reported at once.
fn list_query(raw: &str) -> Result<ProductListQuery, ApiError> {
    let mut params = QueryParams::parse(raw, LIST_PARAMETERS)?;
    let after = params.get("cursor", product_cursor_position);
    let limit = params.get("limit", PageLimit::parse);
    let search = params.get("q", SearchTerm::parse).flatten();
    let category = params.get("category", |text| CategoryId::parse(text));
    let brand = params.get("brand", |text| BrandId::parse(text));
    let product_type = params.get("productType", non_blank);
    let active = params.get("active", str::parse::<ActiveFilter>);
    let updated_since = params.get("updatedSince", parse_updated_since);
    params.finish()?;
    Ok(ProductListQuery {
        search,
        category,
        brand,
        product_type,
        active: active.unwrap_or_default(),
        updated_since,
        after,
        limit: limit.unwrap_or(PageLimit::PRODUCTS_DEFAULT),
    })
}

#[derive(Debug, thiserror::Error)]
#[error("must not be empty")]
struct Blank;

fn non_blank(text: &str) -> Result<String, Blank> {
    if text.trim().is_empty() {
        Err(Blank)
    } else {
        Ok(text.to_owned())
    }
}
