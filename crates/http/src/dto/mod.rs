//! Response bodies. Each is a plain `Serialize` struct converted by hand from a domain value:
//! the JSON names and types of the spec live here and nowhere else, and a domain field that
//! has no DTO field cannot leak. `Option`s serialize as `null`, never as a missing key.
//!
//! Each also derives `utoipa::ToSchema`, so that the OpenAPI document (`crate::openapi`)
//! describes these very structs: a field added here appears there, and the committed
//! `docs/openapi.json` test makes the change visible. Doc comments on the structs and fields
//! are the schema descriptions, written for integrators. `#[serde(deny_unknown_fields)]` does
//! nothing when serializing; it makes each schema say `additionalProperties: false`, which is
//! true of every DTO: a body has exactly the fields declared here. Likewise every `Option`
//! field says `#[schema(required = true)]`: its key is always there, only its value may be
//! `null`.
//!
//! The list and detail DTOs of products and orders borrow their text from the domain value
//! instead of copying it: a page is built, serialized and dropped within one handler call, and
//! copying every string of 20 products or orders was a large share of a page's CPU
//! (docs/PERFORMANCE.md).

mod as_text;
pub mod client;
pub mod event;
pub mod loyalty;
pub mod me;
pub mod order;
pub mod page;
pub mod product;
pub(crate) mod schemas;
pub mod stock;
pub mod webhook;
