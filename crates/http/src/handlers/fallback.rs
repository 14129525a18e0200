//! What answers when no route matches (the app's default service).

use actix_web::HttpResponse;

use crate::error::ApiError;

/// 404 in the envelope, without authentication: an unknown path reveals nothing about keys.
pub async fn unknown_route() -> Result<HttpResponse, ApiError> {
    Err(ApiError::NotFound("No resource at this path."))
}
