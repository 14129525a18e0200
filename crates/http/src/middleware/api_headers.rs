//! Headers that no answer of the API may lack, whatever produced it (a handler, the envelope,
//! a refusal before authentication): `X-Content-Type-Options: nosniff` on every response of
//! the server, so that no browser ever reads a JSON body as a page, and `Cache-Control:
//! no-store` on the API's answers (`/api/v1/...`, `/api/v2/...`, but the public OpenAPI
//! documents), which
//! hold a shop's data that no shared or browser cache may keep. The docs page (`/docs`, Swagger
//! UI, served from the binary) gets the console's kind of Content-Security-Policy: its own
//! scripts and styles only (Swagger UI sets styles through the DOM, which the policy allows,
//! and inlines its icons as `data:` images), and no framing.

use actix_web::Error;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderValue};
use actix_web::middleware::Next;

use crate::api_version::ApiVersion;

/// The docs page's policy: nothing but its own files, no framing.
pub const DOCS_CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; \
     frame-ancestors 'none'; base-uri 'none'; object-src 'none'";

pub async fn add(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let path = request.path();
    let private = holds_shop_data(path);
    let docs = is_docs_page(path);
    let mut response = next.call(request).await?;
    let headers = response.headers_mut();
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    if private {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    if docs {
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(DOCS_CONTENT_SECURITY_POLICY),
        );
        headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    }
    Ok(response)
}

fn is_docs_page(path: &str) -> bool {
    path == "/docs" || path.starts_with("/docs/")
}

fn holds_shop_data(path: &str) -> bool {
    ApiVersion::of_path(path).is_some_and(|version| path != version.document_path())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_api_answer_but_the_public_document_is_private() {
        assert!(holds_shop_data("/api/v1/me"));
        assert!(holds_shop_data("/api/v1/products/p1"));
        assert!(!holds_shop_data("/api/v1/openapi.json"));
        assert!(holds_shop_data("/api/v2/me"));
        assert!(!holds_shop_data("/api/v2/openapi.json"));
        assert!(!holds_shop_data("/healthz"));
        assert!(!holds_shop_data("/console/keys"));
    }
}
