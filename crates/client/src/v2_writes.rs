//! What API v2's writes of one resource share, whichever the resource (a client, a product):
//! a create under an `Idempotency-Key`, a JSON Merge Patch (RFC 7396) with `If-Match`, the
//! read-modify-write loop around it, and the [`Written`] answer with its `ETag`.
//!
//! A create is retried as a stock adjustment is: its key is sent again on every attempt, so a
//! lost answer never makes two resources. A patch is retried after a lost answer too, since
//! applying a merge patch twice leaves what applying it once does; with `If-Match`, such a
//! retry can only be refused (`412`, flagged `maybe_applied`), never applied twice.

use reqwest::Method;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::client::{Client, Tagged, WriteCondition, check_idempotency_key, json_body};
use crate::conditional::Conditional;
use crate::error::ApiError;

/// How many times a read-modify-write (`modify_client`, `modify_product`, ...) reads and
/// patches before it gives up on a resource that keeps changing.
const MODIFY_ATTEMPTS: u32 = 5;

/// A resource as a v2 write answered it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written<T> {
    /// The resource as it now is (for a variant's write, its whole product).
    pub data: T,
    /// Its `ETag` (quotes included), as `GET /api/v2/…` would give it: pass it as `if_match`
    /// to the next patch ([`Client::update_client`], [`Client::update_product`],
    /// [`Client::update_variant`]), or to [`Client::client_if_changed`] and
    /// [`Client::product_if_changed`].
    pub etag: Option<String>,
    /// The server answered with the first response to this `Idempotency-Key`: the resource had
    /// already been created (or the variant added), by an earlier call or attempt (`data` is
    /// it as it now is).
    pub replayed: bool,
    /// The `Idempotency-Key` sent on every attempt (creates and additions only).
    pub idempotency_key: Option<String>,
}

/// A merge patch body that knows when it changes nothing, so that a read-modify-write can
/// skip the write (and keep the tag) rather than send `{}`.
pub(crate) trait MergePatch: Serialize {
    fn is_empty(&self) -> bool;
}

impl Client {
    /// `POST`s `body` to the v2 path `segments` under `idempotency_key` (checked before
    /// anything is sent, then sent again on every retry).
    pub(crate) async fn create_v2<T: DeserializeOwned>(
        &self,
        segments: &[&str],
        body: &impl Serialize,
        idempotency_key: &str,
    ) -> Result<Written<T>, ApiError> {
        check_idempotency_key(idempotency_key)?;
        let condition = WriteCondition {
            idempotency_key: Some(idempotency_key),
            if_match: None,
        };
        let written: Tagged<T> = self
            .write_v2_tagged(Method::POST, segments, json_body(body)?, condition)
            .await?;
        Ok(Written {
            data: written.data,
            etag: written.etag,
            replayed: written.replayed,
            idempotency_key: Some(idempotency_key.to_owned()),
        })
    }

    /// `PATCH`es the v2 path `segments` with `patch` as a JSON Merge Patch, with `If-Match`
    /// when given.
    pub(crate) async fn patch_v2<T: DeserializeOwned>(
        &self,
        segments: &[&str],
        patch: &impl Serialize,
        if_match: Option<&str>,
    ) -> Result<Written<T>, ApiError> {
        let condition = WriteCondition {
            idempotency_key: None,
            if_match,
        };
        let written: Tagged<T> = self
            .write_v2_tagged(Method::PATCH, segments, json_body(patch)?, condition)
            .await?;
        Ok(Written {
            data: written.data,
            etag: written.etag,
            replayed: false,
            idempotency_key: None,
        })
    }

    /// Reads the resource at `read` with its tag, asks `change` for a patch on what it is,
    /// and `PATCH`es `write` with `If-Match`; on `412`, reads again and asks again, up to
    /// [`MODIFY_ATTEMPTS`] times. `read` and `write` differ when the patched part has no tag
    /// of its own (a variant is patched under its product's tag).
    pub(crate) async fn modify_v2<T, P>(
        &self,
        read: &[&str],
        write: &[&str],
        mut change: impl FnMut(&T) -> P,
    ) -> Result<Written<T>, ApiError>
    where
        T: DeserializeOwned,
        P: MergePatch,
    {
        let mut attempts = 0;
        loop {
            attempts += 1;
            let Conditional::Modified { data, etag } = self.get_v2_if_changed(read, None).await?
            else {
                return Err(ApiError::Invalid(
                    "the server answered 304 to a read without If-None-Match".to_owned(),
                ));
            };
            let patch = change(&data);
            if patch.is_empty() {
                return Ok(Written {
                    data,
                    etag,
                    replayed: false,
                    idempotency_key: None,
                });
            }
            // Without a tag to hold (a server that sends none), "*": the resource must exist.
            let if_match = etag.as_deref().unwrap_or("*");
            match self.patch_v2(write, &patch, Some(if_match)).await {
                Err(ApiError::PreconditionFailed { .. }) if attempts < MODIFY_ATTEMPTS => {}
                outcome => return outcome,
            }
        }
    }
}
