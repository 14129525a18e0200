//! A panicking handler answers 500 in the envelope instead of dropping the connection.
//!
//! actix-web does not catch panics (actix/actix-web#1501): the worker survives, but the client
//! sees a reset connection, which a load balancer reads as an unhealthy instance. This is the
//! usual `catch_unwind` around the inner service; actix-web-lab's `CatchPanic` does the same
//! but answers an empty body and would bring a large 0.x dependency tree for 20 lines.
//! The panic message becomes the cause of an `ApiError::Internal`, so it is logged with the
//! request id by the envelope middleware and never shown to the client.
//!
//! It wraps each resource (see `routes`), not the App: building the 500 needs the request,
//! and a clone of it held at App or scope level makes actix's router panic (routing needs the
//! only reference to write the path parameters). At resource level routing is over.

use std::any::Any;
use std::panic::AssertUnwindSafe;

use actix_web::Error;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use futures::FutureExt as _;

use crate::error::ApiError;

#[derive(Debug, thiserror::Error)]
#[error("handler panicked: {0}")]
struct Panicked(String);

pub async fn catch_panic(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    // `HttpRequest` is reference-counted; the clone lets a response be built after a panic.
    let http_request = request.request().clone();
    // The call itself is inside the future so that a panic while building it is caught too.
    let outcome = AssertUnwindSafe(async move { next.call(request).await })
        .catch_unwind()
        .await;
    match outcome {
        Ok(result) => result.map(ServiceResponse::map_into_boxed_body),
        Err(payload) => {
            let cause = Panicked(panic_message(payload.as_ref()));
            Ok(ServiceResponse::from_err(
                ApiError::internal(cause),
                http_request,
            ))
        }
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        String::from("non-text panic payload")
    }
}
