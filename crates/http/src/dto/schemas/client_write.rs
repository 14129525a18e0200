//! The bodies of `POST /api/v2/clients` and `PATCH /api/v2/clients/{id}` (issue 35), for the
//! OpenAPI document only: they are read by hand (`handlers::clients::client_members`), every
//! problem reported at once under its path, and held to `shop_domain::client`'s rules, whose
//! bounds these schemas state.

use utoipa::ToSchema;
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Schema, Type};

/// A new client: only `name` is required.
#[derive(serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(
    as = ClientCreate,
    examples(json!({
        "name": "Ana Martin",
        "email": "ana@example.com",
        "phone": "+33 6 12 34 56 78",
        "billing": {"city": "Lyon", "country": "FR"},
        "tags": ["web"]
    }))
)]
#[expect(
    dead_code,
    reason = "describes the request body for the OpenAPI document only"
)]
pub struct ClientCreateBody {
    /// 1 to 200 characters once trimmed, without control characters.
    #[schema(min_length = 1, max_length = 200, pattern = r"\S")]
    name: String,
    #[serde(flatten)]
    contact: ClientContact,
}

/// A JSON Merge Patch (RFC 7396) of a client: a member given replaces the client's, `null`
/// (or an empty text) clears a nullable one, `billing`'s members merge one by one; a member
/// left out stays as it is.
#[derive(serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(
    as = ClientPatch,
    examples(json!({"email": "ana.martin@example.com", "billing": {"city": "Paris"}}))
)]
#[expect(
    dead_code,
    reason = "describes the request body for the OpenAPI document only"
)]
pub struct ClientPatchBody {
    /// 1 to 200 characters once trimmed, without control characters; cannot be cleared.
    #[schema(min_length = 1, max_length = 200, pattern = r"\S")]
    name: Option<String>,
    #[serde(flatten)]
    contact: ClientContact,
}

/// The members a create and a patch both take, all optional.
#[derive(serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[expect(
    dead_code,
    reason = "describes the request body for the OpenAPI document only"
)]
struct ClientContact {
    /// At most 200 characters once trimmed, without control characters.
    #[schema(max_length = 200, nullable)]
    display_name: Option<String>,
    /// Stored as given (trimmed) and found by the phone search in all its forms: at most 32
    /// characters, digits, spaces and `+ . - ( ) /`, with at least 4 digits.
    #[schema(max_length = 32, pattern = r"^[ +.()/0-9-]*$", nullable)]
    phone: Option<String>,
    /// Unique in the shop without regard to case (`409 CONFLICT` names the holder): one `@`
    /// between a local part and a dotted domain, at most 254 characters.
    #[schema(max_length = 254, format = Email, nullable)]
    email: Option<String>,
    billing: Option<BillingWrite>,
    /// `YYYY-MM-DD`, from 1900-01-01 to 2099-12-31.
    #[schema(format = Date, nullable)]
    birth_date: Option<String>,
    /// Whether the client gets receipts by e-mail; `false` on a new client.
    receipt_by_email: Option<bool>,
    #[schema(schema_with = tags)]
    tags: Option<Vec<String>>,
}

/// A client's (or a product's) `tags` as a write takes them.
pub(crate) fn tags() -> Schema {
    let tag = ObjectBuilder::new()
        .schema_type(Type::String)
        .min_length(Some(1))
        .max_length(Some(50))
        .pattern(Some(r"\S"));
    ArrayBuilder::new()
        .items(tag)
        .max_items(Some(50))
        .description(Some(
            "At most 50 tags of 1 to 50 characters once trimmed, without control characters; a \
             tag given twice is kept once.",
        ))
        .into()
}

/// Billing details, merged member by member.
#[derive(serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = BillingWrite)]
#[expect(
    dead_code,
    reason = "describes the request body for the OpenAPI document only"
)]
struct BillingWrite {
    /// Each at most 200 characters once trimmed.
    #[schema(max_length = 200, nullable)]
    company: Option<String>,
    #[schema(max_length = 200, nullable)]
    vat_number: Option<String>,
    #[schema(max_length = 200, nullable)]
    address: Option<String>,
    #[schema(max_length = 200, nullable)]
    city: Option<String>,
    #[schema(max_length = 200, nullable)]
    postal_code: Option<String>,
    /// ISO 3166-1 alpha-2 (`fr` is stored `FR`); `FR` on a new client that gives none.
    #[schema(min_length = 2, max_length = 2, pattern = "^[A-Za-z]{2}$")]
    country: Option<String>,
}
