//! The rate-limit headers on every response to a request that presented a valid key.
//!
//! Authentication leaves what it counted ([`Counted`]) in the request's extensions; this adds
//! its headers to whatever response comes out: a 2xx, any 4xx a handler returned after
//! authentication (403, 400, 404, 422, the 429 of an exhausted budget), or a 500 from a panic.
//! Doing it here rather than in each handler means no endpoint can forget them. It wraps the
//! envelope middleware, so that it also sees the responses that one rebuilds. Requests that
//! never authenticated (a 401, the failed-authentication 429, an unknown path, a 405) have no
//! valid key to describe and get no such headers.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{Error, HttpMessage as _};

use crate::rate_limit::Counted;

pub async fn add(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let mut response = next.call(request).await?;
    let counted = response.request().extensions().get::<Counted>().copied();
    if let Some(counted) = counted {
        let headers = response.headers_mut();
        for (name, value) in counted.headers() {
            headers.insert(name, value);
        }
    }
    Ok(response)
}
