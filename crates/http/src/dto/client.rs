//! Client (spec §2).
//!
//! Built from `shop_domain::client::Client` only: the private note and the legacy
//! `anonymousClientId` live in `ClientConfidential`, which no DTO reads.

use serde::Serialize;
use shop_domain::client::{Billing, Client, ClientLoyalty};
use utoipa::ToSchema;

use crate::dto::as_text;

/// An identified client of the shop.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = Client)]
pub struct ClientDto {
    id: String,
    name: String,
    #[schema(required = true)]
    display_name: Option<String>,
    #[schema(required = true)]
    phone: Option<String>,
    #[schema(required = true)]
    email: Option<String>,
    billing: BillingDto,
    /// `YYYY-MM-DD`.
    #[schema(required = true, format = Date)]
    birth_date: Option<String>,
    loyalty: ClientLoyaltyDto,
    receipt_by_email: bool,
    tags: Vec<String>,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
}

/// Billing details; only `country` is always set.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = Billing)]
struct BillingDto {
    #[schema(required = true)]
    company: Option<String>,
    #[schema(required = true)]
    vat_number: Option<String>,
    #[schema(required = true)]
    address: Option<String>,
    #[schema(required = true)]
    city: Option<String>,
    #[schema(required = true)]
    postal_code: Option<String>,
    country: String,
}

/// The client's loyalty balance.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = ClientLoyalty)]
struct ClientLoyaltyDto {
    points: i64,
    #[schema(required = true, format = DateTime)]
    expires_at: Option<String>,
    points_lifetime: i64,
    points_all_time: i64,
    /// `null` when the client never reached a tier.
    #[schema(required = true, format = DateTime)]
    tier_achieved_at: Option<String>,
}

impl From<&Client> for ClientDto {
    fn from(client: &Client) -> Self {
        Self {
            id: client.id.to_string(),
            name: client.name.clone(),
            display_name: client.display_name.clone(),
            phone: client.phone.clone(),
            email: client.email.clone(),
            billing: BillingDto::from(&client.billing),
            birth_date: client.birth_date.clone(),
            loyalty: ClientLoyaltyDto::from(&client.loyalty),
            receipt_by_email: client.receipt_by_email,
            tags: client.tags.clone(),
            created_at: as_text::rfc3339(client.created_at),
            updated_at: as_text::rfc3339(client.updated_at),
        }
    }
}

impl From<&Billing> for BillingDto {
    fn from(billing: &Billing) -> Self {
        Self {
            company: billing.company.clone(),
            vat_number: billing.vat_number.clone(),
            address: billing.address.clone(),
            city: billing.city.clone(),
            postal_code: billing.postal_code.clone(),
            country: billing.country.clone(),
        }
    }
}

impl From<&ClientLoyalty> for ClientLoyaltyDto {
    fn from(loyalty: &ClientLoyalty) -> Self {
        Self {
            points: loyalty.points,
            expires_at: loyalty.expires_at.map(as_text::rfc3339),
            points_lifetime: loyalty.points_lifetime,
            points_all_time: loyalty.points_all_time,
            tier_achieved_at: loyalty.tier_achieved_at.map(as_text::rfc3339),
        }
    }
}
