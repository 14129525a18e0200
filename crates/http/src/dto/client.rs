//! Client (spec §2).
//!
//! Built from `shop_domain::client::Client` only: the private note and the legacy
//! `anonymousClientId` live in `ClientConfidential`, which no DTO reads.

use serde::Serialize;
use shop_domain::client::{Billing, Client, ClientLoyalty};

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientDto {
    id: String,
    name: String,
    display_name: Option<String>,
    phone: Option<String>,
    email: Option<String>,
    billing: BillingDto,
    /// `YYYY-MM-DD`.
    birth_date: Option<String>,
    loyalty: ClientLoyaltyDto,
    receipt_by_email: bool,
    tags: Vec<String>,
    created_at: String,
    updated_at: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct BillingDto {
    company: Option<String>,
    vat_number: Option<String>,
    address: Option<String>,
    city: Option<String>,
    postal_code: Option<String>,
    country: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ClientLoyaltyDto {
    points: i64,
    expires_at: Option<String>,
    points_lifetime: i64,
    points_all_time: i64,
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
            created_at: client.created_at.to_rfc3339(),
            updated_at: client.updated_at.to_rfc3339(),
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
            expires_at: loyalty.expires_at.map(|at| at.to_rfc3339()),
            points_lifetime: loyalty.points_lifetime,
            points_all_time: loyalty.points_all_time,
            tier_achieved_at: loyalty.tier_achieved_at.map(|at| at.to_rfc3339()),
        }
    }
}
