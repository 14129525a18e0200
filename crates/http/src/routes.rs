//! Every route of the API, in one place: v1's operations, served under `/api/v1` and again,
//! unchanged, under `/api/v2` (`api_version`), and the operations v2 adds, under `/api/v2`
//! only. A read endpoint is one `read(...)` line: it answers GET and HEAD; a write endpoint is
//! one `write(...)` line: it answers POST; a path with several methods is one `web::resource`
//! listing them. All catch a panicking handler, and any other method gets actix's 405 (with
//! `Allow`), which the envelope middleware turns into the JSON envelope. The OpenAPI documents and the docs page,
//! which need no key, are registered by `openapi::configure_documents` and
//! `openapi::configure_docs_page`.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::middleware::from_fn;
use actix_web::{Error, FromRequest, Handler, Resource, Responder, Route, Scope, web};

use crate::api_version::ApiVersion;
use crate::handlers::{
    clients, events, loyalty, me, orders, product_writes, products, stock, webhooks,
};
use crate::middleware::catch_panic::catch_panic;
use crate::openapi;

pub fn configure(config: &mut web::ServiceConfig) {
    openapi::configure_documents(config);
    for version in ApiVersion::ALL {
        let scope = v1_operations(web::scope(version.prefix()), version);
        config.service(match version {
            ApiVersion::V1 => scope,
            ApiVersion::V2 => v2_operations(scope),
        });
    }
    openapi::configure_docs_page(config);
}

/// The operations of API v1, which v2 serves unchanged; on a path where v2 adds a method
/// (`POST /clients` beside `GET /clients`), v2's resource lists it too, so that the router
/// finds both on one resource (a second resource of the same path would never be reached).
fn v1_operations(scope: Scope, version: ApiVersion) -> Scope {
    let v2 = version == ApiVersion::V2;
    // The router tries the resources in this order, and a path with a `{segment}` is a
    // regular expression run on every request that gets that far: the fixed paths come first.
    scope
        .service(read("/me", me::show))
        .service(with_v2(
            read("/products", products::list),
            v2,
            web::post().to(product_writes::create),
        ))
        .service(read("/orders", orders::list))
        .service(read("/stock", stock::list))
        .service(write("/stock/adjustments", stock::adjust))
        .service(with_v2(
            read("/clients", clients::list),
            v2,
            web::post().to(clients::create),
        ))
        .service(with_v2(
            read("/products/{id}", products::show),
            v2,
            web::patch().to(product_writes::update),
        ))
        .service(read("/orders/{id}", orders::show))
        .service(with_v2(
            read("/clients/{id}", clients::show),
            v2,
            web::patch().to(clients::update),
        ))
        .service(read("/clients/{id}/loyalty", loyalty::show))
}

/// The operations API v2 adds: the webhook endpoints and the event log (issue 34), and the
/// writes (issue 35).
fn v2_operations(scope: Scope) -> Scope {
    scope
        .service(write(
            "/products/{id}/variants",
            product_writes::add_variant,
        ))
        .service(
            web::resource("/products/{id}/variants/{variantId}")
                .route(web::patch().to(product_writes::update_variant))
                .wrap(from_fn(catch_panic)),
        )
        .service(write(
            "/clients/{id}/loyalty/adjustments",
            loyalty::adjust_points,
        ))
        .service(
            web::resource("/webhook-endpoints")
                .route(web::get().to(webhooks::list))
                .route(web::head().to(webhooks::list))
                .route(web::post().to(webhooks::create))
                .wrap(from_fn(catch_panic)),
        )
        .service(read("/events", events::list))
        .service(
            web::resource("/webhook-endpoints/{id}")
                .route(web::get().to(webhooks::show))
                .route(web::head().to(webhooks::show))
                .route(web::patch().to(webhooks::update))
                .route(web::delete().to(webhooks::delete))
                .wrap(from_fn(catch_panic)),
        )
        .service(write(
            "/webhook-endpoints/{id}/secret/rotate",
            webhooks::rotate_secret,
        ))
        .service(write("/webhook-endpoints/{id}/test", webhooks::send_test))
        .service(read(
            "/webhook-endpoints/{id}/deliveries",
            webhooks::deliveries,
        ))
        .service(write(
            "/webhook-endpoints/{id}/deliveries/{deliveryId}/retry",
            webhooks::retry,
        ))
        .service(write("/webhook-endpoints/{id}/recover", webhooks::recover))
}

/// A resource answering GET and HEAD with `handler`. actix-http drops the body of HEAD
/// responses itself and keeps the GET headers (including `Content-Length`).
pub(crate) fn read<F, Args>(
    path: &str,
    handler: F,
) -> Resource<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = Error,
        InitError = (),
    >,
>
where
    F: Handler<Args>,
    Args: FromRequest + 'static,
    F::Output: Responder + 'static,
{
    web::resource(path)
        .route(web::get().to(handler.clone()))
        .route(web::head().to(handler))
        .wrap(from_fn(catch_panic))
}

/// `resource`, with `route` added on API v2.
fn with_v2<T>(resource: Resource<T>, v2: bool, route: Route) -> Resource<T>
where
    T: ServiceFactory<ServiceRequest, Config = (), Error = Error, InitError = ()>,
{
    if v2 { resource.route(route) } else { resource }
}

/// A resource answering POST with `handler`. The handler reads the body itself, after
/// authentication (see `body`), within the app's `PayloadConfig` limit.
fn write<F, Args>(
    path: &str,
    handler: F,
) -> Resource<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = Error,
        InitError = (),
    >,
>
where
    F: Handler<Args>,
    Args: FromRequest + 'static,
    F::Output: Responder + 'static,
{
    web::resource(path)
        .route(web::post().to(handler))
        .wrap(from_fn(catch_panic))
}
