//! Every route of API v1, in one place. A read endpoint is one `read(...)` line: it answers
//! GET and HEAD; a write endpoint is one `write(...)` line: it answers POST. Both catch a
//! panicking handler, and any other method gets actix's 405 (with `Allow`), which the envelope
//! middleware turns into the JSON envelope. The OpenAPI document and the docs page, which need
//! no key, are registered by `openapi::configure_document` and `openapi::configure_docs_page`.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::middleware::from_fn;
use actix_web::{Error, FromRequest, Handler, Resource, Responder, web};

use crate::handlers::{clients, loyalty, me, orders, products, stock};
use crate::middleware::catch_panic::catch_panic;
use crate::openapi;

pub fn configure(config: &mut web::ServiceConfig) {
    openapi::configure_document(config);
    // The router tries the resources in this order, and a path with a `{segment}` is a
    // regular expression run on every request that gets that far: the fixed paths come first.
    config.service(
        web::scope("/api/v1")
            .service(read("/me", me::show))
            .service(read("/products", products::list))
            .service(read("/orders", orders::list))
            .service(read("/stock", stock::list))
            .service(write("/stock/adjustments", stock::adjust))
            .service(read("/clients", clients::list))
            .service(read("/products/{id}", products::show))
            .service(read("/orders/{id}", orders::show))
            .service(read("/clients/{id}", clients::show))
            .service(read("/clients/{id}/loyalty", loyalty::show)),
    );
    openapi::configure_docs_page(config);
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
