//! The `{id}` segment of a route, parsed into a domain id before the handler runs.

use std::convert::Infallible;
use std::future::{Ready, ready};
use std::str::FromStr;

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest};
use shop_domain::id::InvalidId;

use crate::error::{ApiError, Resource};

/// The route's `{id}` as a `T` of `shop_domain::id`, or the knowledge that no such id can
/// exist.
///
/// Extraction never fails: the 404 of an impossible id comes after the authentication, the
/// rate limit, the scope and the query (401 -> 429 -> 403 -> 400 -> 404), which the handler
/// checks first; it then takes the id with [`PathId::or_not_found`].
#[derive(Debug)]
pub struct PathId<T>(Option<T>);

impl<T> PathId<T> {
    /// The id, or the 404 of `resource`: an id that cannot exist gets the same body as an
    /// unknown one, and never reaches a use case.
    pub fn or_not_found(self, resource: Resource) -> Result<T, ApiError> {
        self.0.ok_or_else(|| ApiError::not_found(resource))
    }
}

impl<T: FromStr<Err = InvalidId>> PathId<T> {
    /// The route's segment `{name}`, as the router decoded it: the second id of a path that
    /// has two (`/webhook-endpoints/{id}/deliveries/{deliveryId}/retry`).
    pub fn segment(request: &HttpRequest, name: &str) -> Self {
        Self(
            request
                .match_info()
                .get(name)
                .and_then(|text| text.parse().ok()),
        )
    }
}

impl<T: FromStr<Err = InvalidId>> FromRequest for PathId<T> {
    type Error = Infallible;
    type Future = Ready<Result<Self, Infallible>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        // Only the routes with `{id}` take a `PathId`.
        ready(Ok(Self::segment(request, "id")))
    }
}

#[cfg(test)]
mod tests {
    use actix_web::test::TestRequest;
    use shop_domain::id::ProductId;

    use super::*;

    async fn extract(segment: &str) -> PathId<ProductId> {
        let request = TestRequest::default()
            .param("id", segment.to_owned())
            .to_http_request();
        let Ok(id) = PathId::<ProductId>::extract(&request).await;
        id
    }

    #[actix_web::test]
    async fn a_possible_id_is_parsed() {
        let id = extract("prod_1").await.or_not_found(Resource::Product);
        assert_eq!(id.ok(), ProductId::parse("prod_1").ok());
    }

    #[actix_web::test]
    async fn an_impossible_id_is_the_resources_404() {
        for impossible in ["a b", "a/b", "", "é"] {
            let error = extract(impossible)
                .await
                .or_not_found(Resource::Product)
                .err()
                .unwrap_or_else(|| panic!("{impossible:?} must be refused"));
            assert_eq!(
                error.envelope(),
                ApiError::not_found(Resource::Product).envelope(),
                "{impossible:?}"
            );
        }
    }
}
