//! API v2's conditional reads of one product or one client: send the `ETag` you hold, get
//! the resource only when it changed (`304 Not Modified` costs no body).

use crate::client::Client;
use crate::client::checked_id;
use crate::error::ApiError;
use crate::models::{Client as ShopClient, Product};

/// The answer to a read made with the `ETag` held.
#[derive(Clone, Debug, PartialEq)]
pub enum Conditional<T> {
    /// The resource changed (or no tag was held): it, and the tag to send next time.
    Modified { data: T, etag: Option<String> },
    /// It is still the one the tag names.
    NotModified,
}

impl Client {
    /// `GET /api/v2/products/{id}` with `If-None-Match: etag` when given.
    pub async fn product_if_changed(
        &self,
        id: &str,
        etag: Option<&str>,
    ) -> Result<Conditional<Product>, ApiError> {
        self.get_v2_if_changed(&["products", checked_id(id)?], etag)
            .await
    }

    /// `GET /api/v2/clients/{id}` with `If-None-Match: etag` when given.
    pub async fn client_if_changed(
        &self,
        id: &str,
        etag: Option<&str>,
    ) -> Result<Conditional<ShopClient>, ApiError> {
        self.get_v2_if_changed(&["clients", checked_id(id)?], etag)
            .await
    }
}
