//! The parameters of each operation, for the OpenAPI document only.
//!
//! Handlers parse their query strings by hand (`query::QueryParams`), so these structs are
//! never built: they describe, field for field, what `LIST_PARAMETERS` and the parsers of each
//! handler accept. Every query parameter is optional; an unknown, repeated or invalid one is a
//! 400 `VALIDATION_ERROR` naming it. Fields are not `Option`s, so that no parameter is
//! documented as nullable (a query string has no `null`).

#![expect(
    dead_code,
    reason = "parameter structs describe the hand-parsed query strings and are never built"
)]

use utoipa::IntoParams;

use crate::dto::schemas::{
    ActiveFilter, DateOrInstant, DeliveryStatusName, EventTypeName, OrderSource, OrderStatus,
    PaymentStatus,
};

/// `GET /api/v1/products`.
#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct ProductListParams {
    /// The `pageInfo.nextCursor` of the previous page. Send the same filters with every page;
    /// a garbled cursor, or one of another list, is refused (400).
    #[param(required = false)]
    cursor: String,
    /// The page size.
    #[param(required = false, minimum = 1, maximum = 100, default = 20)]
    limit: i64,
    /// Case-insensitive search over the name, EAN and SKU of the product and the SKU and
    /// barcode of its variants; `%` and `_` are literal. Blank means no search.
    #[param(required = false, max_length = 100)]
    q: String,
    /// A category id (`category.id`); an unknown id gives an empty list.
    #[param(required = false, pattern = "^[A-Za-z0-9_.:-]{1,64}$")]
    category: String,
    /// A brand id (`brand.id`); an unknown id gives an empty list.
    #[param(required = false, pattern = "^[A-Za-z0-9_.:-]{1,64}$")]
    brand: String,
    /// Exact, case-sensitive product type.
    #[param(required = false, pattern = r"\S")]
    product_type: String,
    /// `true`: active products (inactive variants left out); `false`: inactive products
    /// (inactive variants left out); `all`: every product with all its variants.
    #[param(required = false, value_type = ActiveFilter)]
    active: String,
    /// Only the products changed at or after this moment (inclusive): an RFC 3339 instant with an
    /// offset, or a `YYYY-MM-DD` date (from 00:00 UTC). Pass the `pageInfo.syncedAt` of the
    /// previous sync's first page. The list keeps its id order.
    #[param(required = false, value_type = DateOrInstant)]
    updated_since: String,
}

/// `GET /api/v1/orders`.
#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct OrderListParams {
    /// The `pageInfo.nextCursor` of the previous page (newest orders first).
    #[param(required = false)]
    cursor: String,
    /// The page size.
    #[param(required = false, minimum = 1, maximum = 100, default = 20)]
    limit: i64,
    /// Exact order status.
    #[param(required = false, value_type = OrderStatus)]
    status: String,
    /// Exact payment status.
    #[param(required = false, value_type = PaymentStatus)]
    payment_status: String,
    /// Exact source.
    #[param(required = false, value_type = OrderSource)]
    source: String,
    /// Orders of this client.
    #[param(required = false, pattern = "^[A-Za-z0-9_.:-]{1,64}$")]
    client_id: String,
    /// Orders created at or after: an RFC 3339 instant, or a `YYYY-MM-DD` date (from 00:00 UTC).
    /// Must not be after `dateTo`.
    #[param(required = false, value_type = DateOrInstant)]
    date_from: String,
    /// Orders created at or before: an RFC 3339 instant, or a `YYYY-MM-DD` date (its whole UTC
    /// day).
    #[param(required = false, value_type = DateOrInstant)]
    date_to: String,
    /// Only the orders changed at or after this moment (inclusive): an RFC 3339 instant with an
    /// offset, or a `YYYY-MM-DD` date (from 00:00 UTC). Pass the `pageInfo.syncedAt` of the
    /// previous sync's first page. The list is then by `updatedAt` ascending, then id,
    /// and its cursors are valid only with `updatedSince`.
    #[param(required = false, value_type = DateOrInstant)]
    updated_since: String,
}

/// `GET /api/v1/stock`.
#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct StockListParams {
    /// The `pageInfo.nextCursor` of the previous page (by variant id).
    #[param(required = false)]
    cursor: String,
    /// The page size.
    #[param(required = false, minimum = 1, maximum = 100, default = 50)]
    limit: i64,
    /// Only the variants of this product.
    #[param(required = false, pattern = "^[A-Za-z0-9_.:-]{1,64}$")]
    product_id: String,
    /// Case-insensitive search over the product's name, EAN and SKU and the variant's SKU and
    /// barcode. Blank means no search.
    #[param(required = false, max_length = 100)]
    q: String,
    /// `true`: only low-stock variants (tracked, `stock <= lowStockThreshold`).
    #[param(required = false, default = false)]
    low_stock_only: bool,
    /// `false` also returns the variants whose stock is not tracked.
    #[param(required = false, default = true)]
    tracked_only: bool,
    /// Only the stock entries changed at or after this moment (inclusive): an RFC 3339 instant with an
    /// offset, or a `YYYY-MM-DD` date (from 00:00 UTC). Pass the `pageInfo.syncedAt` of the
    /// previous sync's first page. The list is then by `updatedAt` ascending, then
    /// variant id, and its cursors are valid only with `updatedSince`.
    #[param(required = false, value_type = DateOrInstant)]
    updated_since: String,
}

/// `GET /api/v1/clients`.
#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct ClientListParams {
    /// The `pageInfo.nextCursor` of the previous page (by id).
    #[param(required = false)]
    cursor: String,
    /// The page size.
    #[param(required = false, minimum = 1, maximum = 100, default = 20)]
    limit: i64,
    /// Case-insensitive search over the name, display name and e-mail; a term made of digits
    /// and `space . - + ( ) /` also searches the phone's national digits (`06 12 34 56 78`,
    /// `+33612345678` and `0612345678` are one number). Blank means no search.
    #[param(required = false, max_length = 100)]
    q: String,
    /// Only the clients changed at or after this moment (inclusive): an RFC 3339 instant with an
    /// offset, or a `YYYY-MM-DD` date (from 00:00 UTC). Pass the `pageInfo.syncedAt` of the
    /// previous sync's first page. The list is then by `updatedAt` ascending, then id,
    /// and its cursors are valid only with `updatedSince`.
    #[param(required = false, value_type = DateOrInstant)]
    updated_since: String,
}

/// The `{id}` of a detail path.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub struct IdPath {
    /// The id, as returned in `id`. An id that is unknown, of another shop or that cannot
    /// exist answers 404.
    #[param(pattern = "^[A-Za-z0-9_.:-]{1,64}$")]
    id: String,
}

/// `GET /api/v2/webhook-endpoints`.
#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct WebhookListParams {
    /// The `pageInfo.nextCursor` of the previous page (by id).
    #[param(required = false)]
    cursor: String,
    /// The page size.
    #[param(required = false, minimum = 1, maximum = 100, default = 20)]
    limit: i64,
}

/// `GET /api/v2/webhook-endpoints/{id}/deliveries`.
#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct DeliveryListParams {
    /// Only the rows of this status.
    #[param(required = false, value_type = DeliveryStatusName)]
    status: String,
    /// The `pageInfo.nextCursor` of the previous page (newest first). Send the same `status`
    /// with every page.
    #[param(required = false)]
    cursor: String,
    /// The page size.
    #[param(required = false, minimum = 1, maximum = 100, default = 20)]
    limit: i64,
}

/// `GET /api/v2/events`.
#[derive(IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct EventListParams {
    /// Only the events of this type (`ping` is not listed). A type whose resource the key
    /// cannot read lists nothing.
    #[param(rename = "type", required = false, value_type = EventTypeName)]
    kind: String,
    /// Only the events created at or after this moment: an RFC 3339 instant with an offset,
    /// or a `YYYY-MM-DD` date (from 00:00 UTC).
    #[param(required = false, value_type = DateOrInstant)]
    since: String,
    /// The `pageInfo.nextCursor` of the previous page (commit order). Send the same `type`
    /// and `since` with every page.
    #[param(required = false)]
    cursor: String,
    /// The page size.
    #[param(required = false, minimum = 1, maximum = 100, default = 20)]
    limit: i64,
}

/// The two ids of a delivery's path.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub struct DeliveryPath {
    /// The endpoint's id. An id that is unknown, of another shop or that cannot exist answers
    /// 404.
    #[param(pattern = "^[A-Za-z0-9_.:-]{1,64}$")]
    id: String,
    /// The delivery's `id`, as `/deliveries` lists it.
    #[param(rename = "deliveryId", pattern = "^[A-Za-z0-9_.:-]{1,64}$")]
    delivery_id: String,
}

/// The optional `Idempotency-Key` of a stock adjustment.
#[derive(IntoParams)]
#[into_params(parameter_in = Header)]
pub struct IdempotencyKeyHeader {
    /// 1 to 255 visible ASCII characters (a UUID, an ERP line id), scoped to the API key and
    /// kept 24 hours. The same key with the same request replays the first response (same
    /// status, same `movementId`) with `Idempotent-Replayed: true`, and changes nothing; with
    /// a different request it answers 422 `IDEMPOTENCY_KEY_REUSED`. Without it, two identical
    /// requests are two adjustments.
    #[param(
        rename = "Idempotency-Key",
        required = false,
        min_length = 1,
        max_length = 255,
        pattern = "^[!-~]{1,255}$"
    )]
    idempotency_key: String,
}

/// The optional `Idempotency-Key` of an adjustment of a client's points (API v2).
#[derive(IntoParams)]
#[into_params(parameter_in = Header)]
pub struct PointsIdempotencyKeyHeader {
    /// 1 to 255 visible ASCII characters (a UUID, a web order's id), scoped to the API key
    /// and kept 24 hours; the keys of stock adjustments and of points adjustments are one
    /// namespace. The same key with the same request replays the first response (same status,
    /// same `adjustmentId`) with `Idempotent-Replayed: true`, and changes nothing; with a
    /// different request it answers 422 `IDEMPOTENCY_KEY_REUSED`. Without it, two identical
    /// requests are two adjustments.
    #[param(
        rename = "Idempotency-Key",
        required = false,
        min_length = 1,
        max_length = 255,
        pattern = "^[!-~]{1,255}$"
    )]
    idempotency_key: String,
}

/// The optional `Idempotency-Key` of a create (API v2: a client, a product, a variant).
#[derive(IntoParams)]
#[into_params(parameter_in = Header)]
pub struct CreateIdempotencyKeyHeader {
    /// 1 to 255 visible ASCII characters (a UUID, an ERP's or a sign-up's id), scoped to the
    /// API key and kept 24 hours, in one namespace with the adjustments' keys. The same key
    /// with the same request replays the first answer (the same resource, as it is now, or the
    /// same `409`) with `Idempotent-Replayed: true`, and creates nothing; with a different
    /// request it answers 422 `IDEMPOTENCY_KEY_REUSED`. Without it, two identical requests
    /// create two.
    #[param(
        rename = "Idempotency-Key",
        required = false,
        min_length = 1,
        max_length = 255,
        pattern = "^[!-~]{1,255}$"
    )]
    idempotency_key: String,
}

/// The optional `If-Match` of a write (API v2, RFC 9110 §13.1.1).
#[derive(IntoParams)]
#[into_params(parameter_in = Header)]
pub struct IfMatchHeader {
    /// The `ETag` of the version the change is based on (or several, comma-separated, or
    /// `*`): the write applies only if the resource still has one of them, else `412
    /// PRECONDITION_FAILED` with its current `ETag`, and nothing changes. Weak tags never
    /// match. Without it, the write applies to whatever is current.
    #[param(rename = "If-Match", required = false, min_length = 1)]
    if_match: String,
}

/// The two ids of a variant's path.
#[derive(IntoParams)]
#[into_params(parameter_in = Path)]
pub struct VariantPath {
    /// The product's id. An id that is unknown, of another shop or that cannot exist answers
    /// 404.
    #[param(pattern = "^[A-Za-z0-9_.:-]{1,64}$")]
    id: String,
    /// The variant's `id`, one of the product's.
    #[param(rename = "variantId", pattern = "^[A-Za-z0-9_.:-]{1,64}$")]
    variant_id: String,
}
