//! `/api/v2/webhook-endpoints` (API v2 only, issue 34): the shop's webhook endpoints, their
//! secrets, tests, deliveries and recoveries.
//!
//! Each handler keeps the API's order: authenticate for its operation (401, 429, 403), then
//! the query string and the body (400), then the path's ids and the use case (404). Reads
//! need `webhooks:read`, the rest `webhooks:write` and draw on the write budget. Every
//! answer is scoped to the key's shop: another shop's endpoint is the 404 of an unknown one.

mod members;

use std::convert::Infallible;

use actix_web::{HttpRequest, HttpResponse, web};
use shop_domain::id::{DeliveryId, WebhookEndpointId};
use shop_domain::pagination::PageLimit;
use shop_domain::scope::Operation;
use shop_domain::webhook::DeliveryStatus;

use crate::ApiState;
use crate::auth::authenticate;
use crate::body::{JsonFields, read_object};
use crate::dto::page::{DataDto, ListDto};
use crate::dto::schemas::{
    WebhookEndpointChangeBody, WebhookEndpointCreationBody, WebhookRecoveryBody,
};
use crate::dto::webhook::{
    CreatedWebhookEndpointDto, DeliveryDto, QueuedDto, TestEventDto, WebhookEndpointDto,
    WebhookSecretDto,
};
use crate::error::{ApiError, Resource};
use crate::handlers::params::{DeliveryListParams, DeliveryPath, IdPath, WebhookListParams};
use crate::handlers::responses::{
    CreateWebhookEndpoint, DeleteWebhookEndpoint, ListWebhookDeliveries, ListWebhookEndpoints,
    RecoverWebhookEndpoint, RetryWebhookDelivery, RotateWebhookSecret, ShowWebhookEndpoint,
    TestWebhookEndpoint, UpdateWebhookEndpoint,
};
use crate::path_id::PathId;
use crate::query::{QueryParams, expect_none};

/// The query parameters of the endpoints' list; its `params(...)` documents the same.
pub(crate) const LIST_PARAMETERS: &[&str] = &["cursor", "limit"];
/// The query parameters of an endpoint's deliveries; likewise.
pub(crate) const DELIVERY_PARAMETERS: &[&str] = &["status", "cursor", "limit"];

/// The page size of the webhook lists when `limit` is not given: 20, as most v1 lists.
pub(crate) const DEFAULT_LIMIT: PageLimit = PageLimit::ORDERS_DEFAULT;

const ENDPOINT: Resource = Resource::WebhookEndpoint;

#[utoipa::path(
    get,
    path = "/api/v2/webhook-endpoints",
    tag = "webhooks",
    operation_id = "listWebhookEndpoints",
    summary = "List the shop's webhook endpoints",
    description = "Scope `webhooks:read`. By ascending id. A shop has at most 16 endpoints. No secret is shown.",
    params(WebhookListParams),
    responses(ListWebhookEndpoints)
)]
pub async fn list(
    request: HttpRequest,
    state: web::Data<ApiState>,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&request, &state, Operation::ListWebhookEndpoints).await?;
    let mut params = QueryParams::parse(request.query_string(), LIST_PARAMETERS)?;
    let cursor = params.get("cursor", text);
    let limit = params.get("limit", PageLimit::parse);
    params.finish()?;
    let page = state
        .webhook_endpoints
        .list(
            &principal.shop.id,
            cursor.as_deref(),
            limit.unwrap_or(DEFAULT_LIMIT),
        )
        .await
        .map_err(ApiError::webhooks(ENDPOINT))?;
    ListDto::from_page(&page, WebhookEndpointDto::from).into_response()
}

/// Authentication first (nothing of the body is read before), then the body's shape, then
/// the use case's rules: the URL, the types and the key's scopes over them (403), the
/// description, and the shop's limit (422).
#[utoipa::path(
    post,
    path = "/api/v2/webhook-endpoints",
    tag = "webhooks",
    operation_id = "createWebhookEndpoint",
    summary = "Create a webhook endpoint",
    description = "Scope `webhooks:write`, and the read scope of every type listed in `events`. Body at most 64 KiB, `Content-Type: application/json`. The answer holds the endpoint's signing `secret`, shown this once.",
    request_body(content = WebhookEndpointCreationBody, content_type = "application/json"),
    responses(CreateWebhookEndpoint)
)]
pub async fn create(
    request: HttpRequest,
    payload: web::Payload,
    state: web::Data<ApiState>,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&request, &state, Operation::CreateWebhookEndpoint).await?;
    expect_none(request.query_string())?;
    let mut fields = read_object(&request, payload, members::CREATION).await?;
    let input = members::creation(&mut fields);
    well_formed(fields)?;
    let created = state
        .webhook_endpoints
        .create(&principal.shop.id, principal.scopes, input)
        .await
        .map_err(ApiError::webhooks(ENDPOINT))?;
    Ok(HttpResponse::Created().json(DataDto::new(CreatedWebhookEndpointDto::from(&created))))
}

#[utoipa::path(
    get,
    path = "/api/v2/webhook-endpoints/{id}",
    tag = "webhooks",
    operation_id = "getWebhookEndpoint",
    summary = "One webhook endpoint",
    description = "Scope `webhooks:read`. No secret is shown.",
    params(IdPath),
    responses(ShowWebhookEndpoint)
)]
pub async fn show(
    request: HttpRequest,
    id: PathId<WebhookEndpointId>,
    state: web::Data<ApiState>,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&request, &state, Operation::GetWebhookEndpoint).await?;
    expect_none(request.query_string())?;
    let id = id.or_not_found(ENDPOINT)?;
    let endpoint = state
        .webhook_endpoints
        .get(&principal.shop.id, &id)
        .await
        .map_err(ApiError::webhooks(ENDPOINT))?;
    Ok(HttpResponse::Ok().json(DataDto::new(WebhookEndpointDto::from(&endpoint))))
}

#[utoipa::path(
    patch,
    path = "/api/v2/webhook-endpoints/{id}",
    tag = "webhooks",
    operation_id = "updateWebhookEndpoint",
    summary = "Change a webhook endpoint",
    description = "Scope `webhooks:write`, and the read scope of every type listed in `events`. A JSON merge patch (RFC 7396) sent as `application/json`: members left out are unchanged, `description: null` clears it, unknown members are refused. Body at most 64 KiB.",
    params(IdPath),
    request_body(content = WebhookEndpointChangeBody, content_type = "application/json"),
    responses(UpdateWebhookEndpoint)
)]
pub async fn update(
    request: HttpRequest,
    id: PathId<WebhookEndpointId>,
    payload: web::Payload,
    state: web::Data<ApiState>,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&request, &state, Operation::UpdateWebhookEndpoint).await?;
    expect_none(request.query_string())?;
    let mut fields = read_object(&request, payload, members::CHANGE).await?;
    let input = members::change(&mut fields);
    well_formed(fields)?;
    let id = id.or_not_found(ENDPOINT)?;
    let endpoint = state
        .webhook_endpoints
        .update(&principal.shop.id, principal.scopes, &id, input)
        .await
        .map_err(ApiError::webhooks(ENDPOINT))?;
    Ok(HttpResponse::Ok().json(DataDto::new(WebhookEndpointDto::from(&endpoint))))
}

#[utoipa::path(
    delete,
    path = "/api/v2/webhook-endpoints/{id}",
    tag = "webhooks",
    operation_id = "deleteWebhookEndpoint",
    summary = "Delete a webhook endpoint",
    description = "Scope `webhooks:write`. Deletes the endpoint with its deliveries; nothing more is sent to it.",
    params(IdPath),
    responses(DeleteWebhookEndpoint)
)]
pub async fn delete(
    request: HttpRequest,
    id: PathId<WebhookEndpointId>,
    state: web::Data<ApiState>,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&request, &state, Operation::DeleteWebhookEndpoint).await?;
    expect_none(request.query_string())?;
    let id = id.or_not_found(ENDPOINT)?;
    state
        .webhook_endpoints
        .delete(&principal.shop.id, &id)
        .await
        .map_err(ApiError::webhooks(ENDPOINT))?;
    Ok(HttpResponse::NoContent().finish())
}

#[utoipa::path(
    post,
    path = "/api/v2/webhook-endpoints/{id}/secret/rotate",
    tag = "webhooks",
    operation_id = "rotateWebhookSecret",
    summary = "Rotate an endpoint's signing secret",
    description = "Scope `webhooks:write`. Answers the new secret, shown this once. For 24 hours deliveries carry a signature by the new secret and one by the previous, so that receivers can switch without losing an event. No body is read.",
    params(IdPath),
    responses(RotateWebhookSecret)
)]
pub async fn rotate_secret(
    request: HttpRequest,
    id: PathId<WebhookEndpointId>,
    state: web::Data<ApiState>,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&request, &state, Operation::RotateWebhookSecret).await?;
    expect_none(request.query_string())?;
    let id = id.or_not_found(ENDPOINT)?;
    let secret = state
        .webhook_endpoints
        .rotate_secret(&principal.shop.id, &id)
        .await
        .map_err(ApiError::webhooks(ENDPOINT))?;
    Ok(HttpResponse::Ok().json(DataDto::new(WebhookSecretDto::from(&secret))))
}

#[utoipa::path(
    post,
    path = "/api/v2/webhook-endpoints/{id}/test",
    tag = "webhooks",
    operation_id = "testWebhookEndpoint",
    summary = "Send a test event to an endpoint",
    description = "Scope `webhooks:write`. Queues a `ping` event for this endpoint alone (even a disabled one is not sent it until enabled); follow it in `/deliveries`. No body is read.",
    params(IdPath),
    responses(TestWebhookEndpoint)
)]
pub async fn send_test(
    request: HttpRequest,
    id: PathId<WebhookEndpointId>,
    state: web::Data<ApiState>,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&request, &state, Operation::TestWebhookEndpoint).await?;
    expect_none(request.query_string())?;
    let id = id.or_not_found(ENDPOINT)?;
    let event_id = state
        .webhook_endpoints
        .send_test(&principal.shop.id, &id)
        .await
        .map_err(ApiError::webhooks(ENDPOINT))?;
    Ok(HttpResponse::Accepted().json(DataDto::new(TestEventDto::from(&event_id))))
}

#[utoipa::path(
    get,
    path = "/api/v2/webhook-endpoints/{id}/deliveries",
    tag = "webhooks",
    operation_id = "listWebhookDeliveries",
    summary = "List an endpoint's deliveries",
    description = "Scope `webhooks:read`. Newest first: each attempt made, and each event waiting or superseded.",
    params(IdPath, DeliveryListParams),
    responses(ListWebhookDeliveries)
)]
pub async fn deliveries(
    request: HttpRequest,
    id: PathId<WebhookEndpointId>,
    state: web::Data<ApiState>,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&request, &state, Operation::ListWebhookDeliveries).await?;
    let mut params = QueryParams::parse(request.query_string(), DELIVERY_PARAMETERS)?;
    let status = params.get("status", str::parse::<DeliveryStatus>);
    let cursor = params.get("cursor", text);
    let limit = params.get("limit", PageLimit::parse);
    params.finish()?;
    let id = id.or_not_found(ENDPOINT)?;
    let page = state
        .webhook_endpoints
        .deliveries(
            &principal.shop.id,
            &id,
            status,
            cursor.as_deref(),
            limit.unwrap_or(DEFAULT_LIMIT),
        )
        .await
        .map_err(ApiError::webhooks(ENDPOINT))?;
    ListDto::from_page(&page, DeliveryDto::from).into_response()
}

#[utoipa::path(
    post,
    path = "/api/v2/webhook-endpoints/{id}/deliveries/{deliveryId}/retry",
    tag = "webhooks",
    operation_id = "retryWebhookDelivery",
    summary = "Send a delivery again",
    description = "Scope `webhooks:write`. Queues the newest event of the delivery's resource (never an older state after a newer one) for an attempt now. No body is read.",
    params(DeliveryPath),
    responses(RetryWebhookDelivery)
)]
pub async fn retry(
    request: HttpRequest,
    id: PathId<WebhookEndpointId>,
    state: web::Data<ApiState>,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&request, &state, Operation::RetryWebhookDelivery).await?;
    expect_none(request.query_string())?;
    let delivery = Resource::WebhookDelivery;
    let id = id.or_not_found(delivery)?;
    let delivery_id =
        PathId::<DeliveryId>::segment(&request, "deliveryId").or_not_found(delivery)?;
    state
        .webhook_endpoints
        .retry(&principal.shop.id, &id, &delivery_id)
        .await
        .map_err(ApiError::webhooks(delivery))?;
    Ok(HttpResponse::Accepted().json(DataDto::new(QueuedDto::new(1))))
}

#[utoipa::path(
    post,
    path = "/api/v2/webhook-endpoints/{id}/recover",
    tag = "webhooks",
    operation_id = "recoverWebhookEndpoint",
    summary = "Send an endpoint what it missed",
    description = "Scope `webhooks:write`. For every resource changed since `since` whose newest event the endpoint was not delivered (those written while it was disabled included), queues that event; enables the endpoint. Body at most 64 KiB, `Content-Type: application/json`.",
    params(IdPath),
    request_body(content = WebhookRecoveryBody, content_type = "application/json"),
    responses(RecoverWebhookEndpoint)
)]
pub async fn recover(
    request: HttpRequest,
    id: PathId<WebhookEndpointId>,
    payload: web::Payload,
    state: web::Data<ApiState>,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&request, &state, Operation::RecoverWebhookEndpoint).await?;
    expect_none(request.query_string())?;
    let mut fields = read_object(&request, payload, members::RECOVERY).await?;
    let since = members::recovery(&mut fields);
    let issues = fields.into_issues();
    // No `since` without an issue saying why.
    let (Some(since), true) = (since, issues.is_empty()) else {
        return Err(ApiError::invalid_body(issues));
    };
    let id = id.or_not_found(ENDPOINT)?;
    let queued = state
        .webhook_endpoints
        .recover(&principal.shop.id, &id, since)
        .await
        .map_err(ApiError::webhooks(ENDPOINT))?;
    Ok(HttpResponse::Accepted().json(DataDto::new(QueuedDto::new(queued))))
}

/// A body whose shape is right; every problem at once otherwise.
fn well_formed(fields: JsonFields) -> Result<(), ApiError> {
    let issues = fields.into_issues();
    if issues.is_empty() {
        Ok(())
    } else {
        Err(ApiError::invalid_body(issues))
    }
}

/// A parameter taken as it is (`cursor`: the use case decodes it).
fn text(value: &str) -> Result<String, Infallible> {
    Ok(value.to_owned())
}
