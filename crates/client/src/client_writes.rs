//! API v2's client writes (issue 35): `POST /api/v2/clients` under an `Idempotency-Key`, and
//! `PATCH /api/v2/clients/{id}` as a JSON Merge Patch (RFC 7396) with `If-Match`; the requests
//! are sent, retried and answered as every v2 write is (`v2_writes.rs`).

use serde::{Serialize, Serializer};
use time::Date;

use crate::client::{Client, checked_id, new_idempotency_key};
use crate::error::ApiError;
use crate::merge_patch::{self, Patch};
use crate::models::{Client as ShopClient, iso_date};
use crate::v2_writes::{MergePatch, Written};

/// A birth date of a patch, as `YYYY-MM-DD`.
fn date_patch<S: Serializer>(patch: &Patch<Date>, serializer: S) -> Result<S::Ok, S::Error> {
    merge_patch::serialize_with(patch, serializer, iso_date::serialize)
}

/// A new client, as `POST /api/v2/clients` takes it: only `name` is required; a member left
/// `None` is not sent (the server's default applies: no e-mail, billing country `FR`, ...).
///
/// ```
/// use shop_api_client::{BillingDraft, ClientDraft};
///
/// let draft = ClientDraft {
///     email: Some("ana@example.com".to_owned()),
///     billing: Some(BillingDraft { city: Some("Lyon".to_owned()), ..Default::default() }),
///     tags: vec!["web".to_owned()],
///     ..ClientDraft::new("Ana Martin")
/// };
/// assert_eq!(
///     serde_json::to_string(&draft).unwrap(),
///     r#"{"name":"Ana Martin","email":"ana@example.com","billing":{"city":"Lyon"},"receiptByEmail":false,"tags":["web"]}"#
/// );
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientDraft {
    /// 1 to 200 characters once trimmed.
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// Digits, spaces and `+ . - ( ) /`, at least 4 digits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phone: Option<String>,
    /// Unique in the shop without regard to case: another client's is refused with a `409`
    /// ([`ErrorCode::Conflict`](crate::ErrorCode::Conflict), see
    /// [`ApiError::conflict_holder`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub billing: Option<BillingDraft>,
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "iso_date::option::serialize"
    )]
    pub birth_date: Option<Date>,
    pub receipt_by_email: bool,
    /// At most 50; a tag given twice is kept once.
    pub tags: Vec<String>,
}

impl ClientDraft {
    /// A client with only a name.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            ..Self::default()
        }
    }
}

/// The billing details of a new client; a member left `None` is not sent.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BillingDraft {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub company: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vat_number: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub city: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub postal_code: Option<String>,
    /// ISO 3166-1 alpha-2 (`fr` is stored `FR`); `FR` when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
}

/// A JSON Merge Patch of a client (`PATCH /api/v2/clients/{id}`): each member is left as it
/// is ([`Patch::Keep`], or `None`, the default), cleared ([`Patch::Clear`], for the members
/// that may be `null`) or replaced. `billing`'s members merge one by one.
///
/// ```
/// use shop_api_client::{BillingPatch, ClientPatch, Patch};
///
/// let patch = ClientPatch {
///     display_name: Patch::Set("Ana".to_owned()),
///     phone: Patch::Clear,
///     billing: Some(BillingPatch { city: Patch::Set("Paris".to_owned()), ..Default::default() }),
///     ..Default::default()
/// };
/// assert_eq!(
///     serde_json::to_string(&patch).unwrap(),
///     r#"{"displayName":"Ana","phone":null,"billing":{"city":"Paris"}}"#
/// );
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientPatch {
    /// Cannot be cleared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Patch::is_keep")]
    pub display_name: Patch<String>,
    #[serde(skip_serializing_if = "Patch::is_keep")]
    pub phone: Patch<String>,
    /// Unique in the shop without regard to case (`409` otherwise, as for a create).
    #[serde(skip_serializing_if = "Patch::is_keep")]
    pub email: Patch<String>,
    /// Merged member by member; the whole of it cannot be cleared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub billing: Option<BillingPatch>,
    #[serde(skip_serializing_if = "Patch::is_keep", serialize_with = "date_patch")]
    pub birth_date: Patch<Date>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receipt_by_email: Option<bool>,
    /// Replaces every tag (`Some(vec![])` removes them all).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
}

impl ClientPatch {
    /// Whether it changes nothing (its body is `{}`, or `billing` is `{}`).
    pub fn is_empty(&self) -> bool {
        let billing_empty = self.billing.as_ref().is_none_or(BillingPatch::is_empty);
        billing_empty
            && Self {
                billing: None,
                ..self.clone()
            } == Self::default()
    }
}

/// The billing members of a [`ClientPatch`], merged one by one.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BillingPatch {
    #[serde(skip_serializing_if = "Patch::is_keep")]
    pub company: Patch<String>,
    #[serde(skip_serializing_if = "Patch::is_keep")]
    pub vat_number: Patch<String>,
    #[serde(skip_serializing_if = "Patch::is_keep")]
    pub address: Patch<String>,
    #[serde(skip_serializing_if = "Patch::is_keep")]
    pub city: Patch<String>,
    #[serde(skip_serializing_if = "Patch::is_keep")]
    pub postal_code: Patch<String>,
    /// ISO 3166-1 alpha-2; cannot be cleared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
}

impl BillingPatch {
    /// Whether it changes nothing.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

impl MergePatch for ClientPatch {
    fn is_empty(&self) -> bool {
        ClientPatch::is_empty(self)
    }
}

impl Client {
    /// `POST /api/v2/clients`: creates a client (scope `clients:write`).
    ///
    /// As [`Client::adjust_stock`], a fresh `Idempotency-Key` (a UUID v4) is sent again on
    /// every retry of this call, so a lost answer never makes two clients; the key is in the
    /// answer. To make a retry after a restart safe as well, keep your own key with the
    /// pending sign-up and use [`Client::create_client_with_key`].
    ///
    /// An e-mail another client of the shop has (without regard to case) is refused with
    /// [`ErrorCode::Conflict`](crate::ErrorCode::Conflict), whose holder
    /// [`ApiError::conflict_holder`] gives.
    pub async fn create_client(
        &self,
        draft: &ClientDraft,
    ) -> Result<Written<ShopClient>, ApiError> {
        self.create_client_with_key(draft, &new_idempotency_key())
            .await
    }

    /// [`Client::create_client`] with your own `Idempotency-Key` (1–255 visible ASCII
    /// characters, kept 24 hours, one namespace with the adjustments' keys). The same key with
    /// the same draft replays the first answer (the same client, as it now is, with `replayed`
    /// set; or the same refusal); with another draft it is refused with
    /// [`ErrorCode::IdempotencyKeyReused`](crate::ErrorCode::IdempotencyKeyReused).
    pub async fn create_client_with_key(
        &self,
        draft: &ClientDraft,
        idempotency_key: &str,
    ) -> Result<Written<ShopClient>, ApiError> {
        self.create_v2(&["clients"], draft, idempotency_key).await
    }

    /// `PATCH /api/v2/clients/{id}`: applies `patch` (scope `clients:write`) and answers the
    /// client as it now is, with its new `ETag`. A patch that changes nothing writes nothing.
    ///
    /// With `if_match` (an `ETag` from a read or an earlier write, or `"*"`), the patch applies
    /// only if the client is still that version, else it is refused with
    /// [`ApiError::PreconditionFailed`], which carries the current tag. Without it, the patch
    /// applies to whatever is current (the last writer wins, member by member).
    ///
    /// Retries: after a 429 or a 503, and after a lost answer too (applying the same merge
    /// patch twice leaves what applying it once does). A conditional patch whose first attempt
    /// was applied but whose answer was lost gets `412` on the retry, since the tag it named
    /// changed with it: the error then has `maybe_applied` set; read the client to know.
    /// [`Client::modify_client`] handles all of it.
    ///
    /// ```no_run
    /// use shop_api_client::{ApiError, Client, ClientPatch, Conditional, Patch};
    ///
    /// # async fn run(client: Client) -> Result<(), ApiError> {
    /// let Conditional::Modified { data, etag } = client.client_if_changed("c1", None).await? else {
    ///     unreachable!("a read without a tag answers the client");
    /// };
    /// let patch = ClientPatch {
    ///     display_name: Patch::Set(data.name.to_uppercase()),
    ///     ..Default::default()
    /// };
    /// match client.update_client("c1", &patch, etag.as_deref()).await {
    ///     Ok(written) => println!("now {:?}", written.etag),
    ///     Err(error @ ApiError::PreconditionFailed { .. }) => {
    ///         println!("changed meanwhile; now {:?}", error.current_etag())
    ///     }
    ///     Err(other) => return Err(other),
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn update_client(
        &self,
        id: &str,
        patch: &ClientPatch,
        if_match: Option<&str>,
    ) -> Result<Written<ShopClient>, ApiError> {
        self.patch_v2(&["clients", checked_id(id)?], patch, if_match)
            .await
    }

    /// A read-modify-write of one client that loses no concurrent change: reads the client
    /// with its `ETag`, asks `change` for the patch to make on what it is, and sends it with
    /// `If-Match`; if the client changed in between (`412`), reads it again and asks again, up
    /// to 5 times (then the last [`ApiError::PreconditionFailed`] is returned).
    ///
    /// `change` may be called several times, each time with the client as it then is; an
    /// empty patch writes nothing and answers the client as read. Since each call sees the
    /// latest version, a patch whose answer was lost and then refused is simply made again on
    /// the version it produced, where it changes nothing.
    ///
    /// ```no_run
    /// use shop_api_client::{ApiError, Client, ClientPatch};
    ///
    /// # async fn run(client: Client) -> Result<(), ApiError> {
    /// // Adds the tag "vip", keeping the tags another program may be adding meanwhile.
    /// let written = client
    ///     .modify_client("c1", |current| {
    ///         if current.tags.iter().any(|tag| tag == "vip") {
    ///             return ClientPatch::default();
    ///         }
    ///         let mut tags = current.tags.clone();
    ///         tags.push("vip".to_owned());
    ///         ClientPatch { tags: Some(tags), ..Default::default() }
    ///     })
    ///     .await?;
    /// println!("{:?}, tag {:?}", written.data.tags, written.etag);
    /// # Ok(()) }
    /// ```
    pub async fn modify_client(
        &self,
        id: &str,
        change: impl FnMut(&ShopClient) -> ClientPatch,
    ) -> Result<Written<ShopClient>, ApiError> {
        let path = ["clients", checked_id(id)?];
        self.modify_v2(&path, &path, change).await
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use time::macros::date;

    use super::*;

    #[test]
    fn a_patch_member_is_absent_null_or_its_value() {
        let patch = ClientPatch {
            name: Some("Ana".to_owned()),
            display_name: Patch::Set("A".to_owned()),
            phone: Patch::Clear,
            billing: Some(BillingPatch {
                vat_number: Patch::Clear,
                city: Patch::Set("Paris".to_owned()),
                country: Some("be".to_owned()),
                ..BillingPatch::default()
            }),
            birth_date: Patch::Set(date!(1990 - 05 - 07)),
            receipt_by_email: Some(false),
            tags: Some(vec![]),
            ..ClientPatch::default()
        };
        assert_eq!(
            serde_json::to_value(&patch).unwrap(),
            json!({
                "name": "Ana", "displayName": "A", "phone": null,
                "billing": {"vatNumber": null, "city": "Paris", "country": "be"},
                "birthDate": "1990-05-07", "receiptByEmail": false, "tags": []
            })
        );
        let cleared = ClientPatch {
            email: Patch::Clear,
            birth_date: Patch::Clear,
            ..ClientPatch::default()
        };
        assert_eq!(
            serde_json::to_string(&cleared).unwrap(),
            r#"{"email":null,"birthDate":null}"#
        );
        assert_eq!(
            serde_json::to_string(&ClientPatch::default()).unwrap(),
            "{}"
        );
    }

    #[test]
    fn an_empty_patch_is_one_that_changes_nothing() {
        assert!(ClientPatch::default().is_empty());
        assert!(
            ClientPatch {
                billing: Some(BillingPatch::default()),
                ..ClientPatch::default()
            }
            .is_empty()
        );
        for patch in [
            ClientPatch {
                phone: Patch::Clear,
                ..ClientPatch::default()
            },
            ClientPatch {
                billing: Some(BillingPatch {
                    city: Patch::Clear,
                    ..BillingPatch::default()
                }),
                ..ClientPatch::default()
            },
            ClientPatch {
                tags: Some(vec![]),
                ..ClientPatch::default()
            },
        ] {
            assert!(!patch.is_empty(), "{patch:?}");
        }
    }

    #[test]
    fn a_draft_sends_its_name_and_what_it_sets() {
        assert_eq!(
            serde_json::to_value(ClientDraft::new("Bo")).unwrap(),
            json!({"name": "Bo", "receiptByEmail": false, "tags": []})
        );
        let full = ClientDraft {
            display_name: Some("Ana".to_owned()),
            phone: Some("+33 6 11 22 33 44".to_owned()),
            email: Some("ana@example.com".to_owned()),
            billing: Some(BillingDraft {
                company: Some("Atelier".to_owned()),
                vat_number: Some("FR40123456789".to_owned()),
                address: Some("1 rue de la Paix".to_owned()),
                city: Some("Lyon".to_owned()),
                postal_code: Some("69001".to_owned()),
                country: Some("FR".to_owned()),
            }),
            birth_date: Some(date!(1990 - 05 - 17)),
            receipt_by_email: true,
            tags: vec!["web".to_owned()],
            ..ClientDraft::new("Ana Martin")
        };
        assert_eq!(
            serde_json::to_value(full).unwrap(),
            json!({
                "name": "Ana Martin", "displayName": "Ana", "phone": "+33 6 11 22 33 44",
                "email": "ana@example.com",
                "billing": {"company": "Atelier", "vatNumber": "FR40123456789",
                            "address": "1 rue de la Paix", "city": "Lyon", "postalCode": "69001",
                            "country": "FR"},
                "birthDate": "1990-05-17", "receiptByEmail": true, "tags": ["web"]
            })
        );
    }
}
