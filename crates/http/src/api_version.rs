//! Which version of the API a request speaks, read from its path. `/api/v1` is frozen: its
//! paths and answers never change. `/api/v2` serves every v1 operation with the same handlers
//! and adds its own; where the two answer differently (a key's v2-only scopes), the handler
//! asks for the version as it asks for the shop.

use std::future::{Ready, ready};

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest};

use crate::error::ApiError;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApiVersion {
    V1,
    V2,
}

impl ApiVersion {
    pub const ALL: [ApiVersion; 2] = [ApiVersion::V1, ApiVersion::V2];

    /// The scope every path of this version sits under.
    pub const fn prefix(self) -> &'static str {
        match self {
            ApiVersion::V1 => "/api/v1",
            ApiVersion::V2 => "/api/v2",
        }
    }

    /// Where this version's OpenAPI document is served (without a key).
    pub const fn document_path(self) -> &'static str {
        match self {
            ApiVersion::V1 => "/api/v1/openapi.json",
            ApiVersion::V2 => "/api/v2/openapi.json",
        }
    }

    /// The version whose scope holds `path`, if any.
    pub fn of_path(path: &str) -> Option<Self> {
        ApiVersion::ALL.into_iter().find(|version| {
            path.strip_prefix(version.prefix())
                .is_some_and(|rest| rest.starts_with('/'))
        })
    }
}

/// A handler's version: the request reached it through that version's scope, so its path
/// starts with the prefix (v1 for a path under neither, which no route serves).
impl FromRequest for ApiVersion {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(Ok(
            ApiVersion::of_path(request.path()).unwrap_or(ApiVersion::V1)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_belongs_to_the_version_of_its_prefix_only() {
        assert_eq!(ApiVersion::of_path("/api/v1/me"), Some(ApiVersion::V1));
        assert_eq!(
            ApiVersion::of_path("/api/v2/products/p1"),
            Some(ApiVersion::V2)
        );
        for outside in [
            "/api/v2",
            "/api/v20/me",
            "/api/v3/me",
            "/docs/",
            "/console/keys",
        ] {
            assert_eq!(ApiVersion::of_path(outside), None, "{outside}");
        }
    }
}
