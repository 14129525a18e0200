//! API v2's writes of products (`products:write`, issue 35): `POST /api/v2/products`, `PATCH
//! /api/v2/products/{id}`, `POST /api/v2/products/{id}/variants` and `PATCH
//! /api/v2/products/{id}/variants/{variantId}`. As every write: authentication first (401,
//! 429, 403), then the query, the `Content-Type`, the body's size and syntax, every member and
//! the `Idempotency-Key` or `If-Match` together, then the ids (404), then the use case. Each
//! answers the whole product as `GET /api/v2/products/{id}` shows it, with its `ETag`.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use shop_domain::catalogue::write::{NewProduct, NewVariant, ProductPatch, VariantPatch};
use shop_domain::catalogue::{Product, ProductListing};
use shop_domain::id::{ProductId, VariantId};
use shop_domain::scope::Operation;
use shop_ports::usecase::{ProductWriteError, ProductWritten};

use crate::ApiState;
use crate::auth::authenticate;
use crate::dto::product::ProductDto;
use crate::dto::schemas::{
    ProductCreateBody, ProductPatchBody, VariantCreateBody, VariantPatchBody,
};
use crate::error::{ApiError, Resource};
use crate::etag;
use crate::handlers::idempotency::created_at;
use crate::handlers::params::{CreateIdempotencyKeyHeader, IdPath, IfMatchHeader, VariantPath};
use crate::handlers::products::product_members;
use crate::handlers::responses::{AddVariant, CreateProduct, UpdateProduct, UpdateVariant};
use crate::handlers::write_request::{create_request, patch_request};
use crate::path_id::PathId;
use crate::query::expect_none;

/// The product as v2's read shows it: every variant, active or not.
fn shown(product: Product) -> ProductListing {
    product.into_listing(true)
}

/// The entity tag of the product as v2's read shows it.
pub(crate) fn product_tag(product: &Product) -> Result<String, ApiError> {
    let listing = shown(product.clone());
    etag::entity_tag(ProductDto::from(&listing))
}

/// The `201` of a `POST`: the whole product, its `ETag` and `Location`.
fn created(answer: Result<ProductWritten, ProductWriteError>) -> Result<HttpResponse, ApiError> {
    let replayed = answer
        .as_ref()
        .map_or_else(ProductWriteError::replayed, |w| w.replayed);
    match answer {
        Ok(written) => {
            let location = format!("/api/v2/products/{}", written.product.id);
            let listing = shown(written.product);
            created_at(Ok((ProductDto::from(&listing), location)), replayed)
        }
        Err(error) => created_at::<ProductDto>(Err(error.into()), replayed),
    }
}

/// The `200` of a patch.
fn patched(product: Product) -> Result<HttpResponse, ApiError> {
    let listing = shown(product);
    etag::written(StatusCode::OK, ProductDto::from(&listing))
}

#[utoipa::path(
    post,
    path = "/api/v2/products",
    tag = "products",
    operation_id = "createProduct",
    summary = "Create a product with its variants",
    description = "Scope `products:write`. Creates a product with 1 to 100 variants and answers it as `GET /api/v2/products/{id}` shows it, with its `ETag` and `Location`. `name`, `priceCents`, `taxRate` and `variants` (each with a `label`) are required; exactly one variant is the default (the first unless one says `isDefault`). New variants have stock 0 and tracking off: stock moves only by adjustments. `category` and `brand` are `{\"id\": …}` or `{\"name\": …}` (matched without regard to case, created when the shop has none). A `sku` (one namespace with the variants') or an `ean` (one namespace with the variants' `barcode`s) another product or variant holds is `409 CONFLICT`. Sends a `stock.updated` (cause `product`) for each new variant's stock entry, then `product.created`. Send an `Idempotency-Key` to retry safely.",
    params(CreateIdempotencyKeyHeader),
    request_body(content = ProductCreateBody, content_type = "application/json"),
    responses(CreateProduct)
)]
pub async fn create(
    request: HttpRequest,
    payload: web::Payload,
    state: web::Data<ApiState>,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&request, &state, Operation::CreateProduct).await?;
    expect_none(request.query_string())?;
    let (product, key) = create_request(&request, payload, |members| {
        NewProduct::try_from(product_members::product(members, true))
    })
    .await?;

    created(state.product_writes.create(&principal, product, key).await)
}

#[utoipa::path(
    patch,
    path = "/api/v2/products/{id}",
    tag = "products",
    operation_id = "updateProduct",
    summary = "Change a product",
    description = "Scope `products:write`. A JSON Merge Patch (RFC 7396) of the product's writable members (not its variants, which have their own paths; not its stock, which moves by adjustments). Archiving is `active: false`: nothing is ever deleted. With `If-Match`, applies only if the product (its variants and stock included) still has that `ETag`, else `412 PRECONDITION_FAILED` with the current one. A patch that changes something moves `updatedAt` and sends `product.updated`, after a `stock.updated` (cause `product`) for each stock entry it changed (a new `name` or `active` changes every entry: they show them); one that changes nothing writes nothing. `Content-Type: application/merge-patch+json` or `application/json`.",
    params(IdPath, IfMatchHeader),
    request_body(content = ProductPatchBody, content_type = "application/merge-patch+json"),
    responses(UpdateProduct)
)]
pub async fn update(
    request: HttpRequest,
    id: PathId<ProductId>,
    payload: web::Payload,
    state: web::Data<ApiState>,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&request, &state, Operation::UpdateProduct).await?;
    expect_none(request.query_string())?;
    let (patch, precondition) = patch_request(
        &request,
        payload,
        |members| ProductPatch::try_from(product_members::product(members, false)),
        product_tag,
    )
    .await?;
    let id = id.or_not_found(Resource::Product)?;

    let product = state
        .product_writes
        .patch(&principal, id, patch, precondition)
        .await?;
    patched(product)
}

#[utoipa::path(
    post,
    path = "/api/v2/products/{id}/variants",
    tag = "products",
    operation_id = "addVariant",
    summary = "Add a variant to a product",
    description = "Scope `products:write`. Adds a variant (`label` required) with stock 0 and tracking off, after the product's last one unless it gives its `order`; `isDefault: true` moves the default to it. Answers the whole product with its new `ETag`, `201`. Codes as a create's (`409 CONFLICT`). Sends the new entry's `stock.updated` (cause `product`), then `product.updated`. Send an `Idempotency-Key` to retry safely.",
    params(IdPath, CreateIdempotencyKeyHeader),
    request_body(content = VariantCreateBody, content_type = "application/json"),
    responses(AddVariant)
)]
pub async fn add_variant(
    request: HttpRequest,
    id: PathId<ProductId>,
    payload: web::Payload,
    state: web::Data<ApiState>,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&request, &state, Operation::UpdateProduct).await?;
    expect_none(request.query_string())?;
    let (variant, key) = create_request(&request, payload, |members| {
        NewVariant::try_from(product_members::variant(members, true))
    })
    .await?;
    let id = id.or_not_found(Resource::Product)?;

    created(
        state
            .product_writes
            .add_variant(&principal, id, variant, key)
            .await,
    )
}

#[utoipa::path(
    patch,
    path = "/api/v2/products/{id}/variants/{variantId}",
    tag = "products",
    operation_id = "updateVariant",
    summary = "Change a variant",
    description = "Scope `products:write`. A JSON Merge Patch of one variant's writable members. `isDefault: true` moves the product's default to it; `false` on the only default is refused (`400`). `If-Match` takes the product's `ETag` (a variant has none of its own). Answers the whole product; the product's `updatedAt` moves and `product.updated` is sent, after a `stock.updated` (cause `product`) when its stock entry changed (its `label`, `sku`, `barcode`, `lowStockThreshold` or `active`). `Content-Type: application/merge-patch+json` or `application/json`.",
    params(VariantPath, IfMatchHeader),
    request_body(content = VariantPatchBody, content_type = "application/merge-patch+json"),
    responses(UpdateVariant)
)]
pub async fn update_variant(
    request: HttpRequest,
    id: PathId<ProductId>,
    payload: web::Payload,
    state: web::Data<ApiState>,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&request, &state, Operation::UpdateProduct).await?;
    expect_none(request.query_string())?;
    let (patch, precondition) = patch_request(
        &request,
        payload,
        |members| VariantPatch::try_from(product_members::variant(members, false)),
        product_tag,
    )
    .await?;
    let id = id.or_not_found(Resource::Product)?;
    let variant_id =
        PathId::<VariantId>::segment(&request, "variantId").or_not_found(Resource::Variant)?;

    let product = state
        .product_writes
        .patch_variant(&principal, id, variant_id, patch, precondition)
        .await?;
    patched(product)
}
