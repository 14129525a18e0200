//! Client rows, in three parts written together by the import: the public columns
//! ([`ClientRow`], all that the API's reads select), the private ones
//! ([`ClientConfidentialRow`], read only by the import to compare) and the search columns
//! derived from the client ([`ClientSearchRow`], written, never read back: the search texts
//! and the e-mail's key of its uniqueness).

use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::sqlite::Sqlite;
use shop_domain::Timestamp;
use shop_domain::client::{Billing, Client, ClientConfidential, ClientLoyalty, email_key};
use shop_domain::id::{ClientId, ShopId};

use crate::error::DbError;
use crate::schema::clients;

/// The columns a `Client` is built from. As a changeset, `None` writes NULL.
#[derive(Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = clients, check_for_backend(Sqlite, Pg))]
#[diesel(treat_none_as_default_value = false, treat_none_as_null = true)]
pub(crate) struct ClientRow {
    pub id: String,
    pub shop_id: String,
    pub name: String,
    pub display_name: Option<String>,
    pub phone: Option<String>,
    pub email: Option<String>,
    pub billing_company: Option<String>,
    pub billing_vat_number: Option<String>,
    pub billing_address: Option<String>,
    pub billing_city: Option<String>,
    pub billing_postal_code: Option<String>,
    pub billing_country: String,
    pub birth_date: Option<String>,
    pub points: i64,
    pub points_expires_at_ms: Option<i64>,
    pub points_lifetime: i64,
    pub points_all_time: i64,
    pub tier_achieved_at_ms: Option<i64>,
    pub receipt_by_email: bool,
    pub tags: String,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
}

impl ClientRow {
    pub fn from_domain(shop: &ShopId, client: &Client) -> Result<Self, DbError> {
        let billing = &client.billing;
        let loyalty = &client.loyalty;
        Ok(Self {
            id: client.id.as_str().to_owned(),
            shop_id: shop.as_str().to_owned(),
            name: client.name.clone(),
            display_name: client.display_name.clone(),
            phone: client.phone.clone(),
            email: client.email.clone(),
            billing_company: billing.company.clone(),
            billing_vat_number: billing.vat_number.clone(),
            billing_address: billing.address.clone(),
            billing_city: billing.city.clone(),
            billing_postal_code: billing.postal_code.clone(),
            billing_country: billing.country.clone(),
            birth_date: client.birth_date.clone(),
            points: loyalty.points,
            points_expires_at_ms: loyalty.expires_at.map(Timestamp::millis),
            points_lifetime: loyalty.points_lifetime,
            points_all_time: loyalty.points_all_time,
            tier_achieved_at_ms: loyalty.tier_achieved_at.map(Timestamp::millis),
            receipt_by_email: client.receipt_by_email,
            tags: tags_json(client)?,
            created_at_ms: client.created_at.millis(),
            updated_at_ms: client.updated_at.millis(),
        })
    }

    pub fn into_domain(self) -> Result<Client, DbError> {
        let corrupt =
            |problem: &dyn ToString| DbError::corrupt("clients", &self.id, problem.to_string());
        Ok(Client {
            id: ClientId::parse(self.id.as_str()).map_err(|e| corrupt(&e))?,
            tags: serde_json::from_str(&self.tags).map_err(|e| corrupt(&e))?,
            billing: Billing {
                company: self.billing_company,
                vat_number: self.billing_vat_number,
                address: self.billing_address,
                city: self.billing_city,
                postal_code: self.billing_postal_code,
                country: self.billing_country,
            },
            loyalty: ClientLoyalty {
                points: self.points,
                expires_at: self.points_expires_at_ms.map(Timestamp::from_millis),
                points_lifetime: self.points_lifetime,
                points_all_time: self.points_all_time,
                tier_achieved_at: self.tier_achieved_at_ms.map(Timestamp::from_millis),
            },
            receipt_by_email: self.receipt_by_email,
            created_at: Timestamp::from_millis(self.created_at_ms),
            updated_at: Timestamp::from_millis(self.updated_at_ms),
            name: self.name,
            display_name: self.display_name,
            phone: self.phone,
            email: self.email,
            birth_date: self.birth_date,
        })
    }
}

/// The private columns (spec §2: never returned).
#[derive(Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = clients, check_for_backend(Sqlite, Pg))]
#[diesel(treat_none_as_default_value = false, treat_none_as_null = true)]
pub(crate) struct ClientConfidentialRow {
    pub note: Option<String>,
    pub anonymous_client_id: Option<String>,
}

impl ClientConfidentialRow {
    pub fn from_domain(confidential: &ClientConfidential) -> Self {
        Self {
            note: confidential.note.clone(),
            anonymous_client_id: confidential.anonymous_client_id.clone(),
        }
    }

    pub fn into_domain(self) -> ClientConfidential {
        ClientConfidential {
            note: self.note,
            anonymous_client_id: self.anonymous_client_id,
        }
    }
}

/// What `q` searches, computed by the domain so that the stored text and the caller's term are
/// folded by the same function.
#[derive(Insertable, AsChangeset)]
#[diesel(table_name = clients, check_for_backend(Sqlite, Pg))]
// A client whose e-mail was cleared has no key left: `None` writes NULL (an embedded
// changeset does not inherit its container's setting).
#[diesel(treat_none_as_null = true)]
pub(crate) struct ClientSearchRow {
    pub search_text: String,
    pub phone_digits: String,
    /// `email_key`: what makes the shop's e-mails unique without regard to case.
    pub email_key: Option<String>,
}

impl ClientSearchRow {
    pub fn from_domain(client: &Client) -> Self {
        Self {
            search_text: client.search_text(),
            phone_digits: client.phone_digits(),
            email_key: client.email.as_deref().map(email_key),
        }
    }
}

/// A new client's public and search columns, as one insertable row (an API create, the
/// bulk loader's many per statement). The confidential columns are left out (NULL).
#[derive(Insertable)]
#[diesel(table_name = clients)]
pub(crate) struct NewClientRow {
    #[diesel(embed)]
    pub client: ClientRow,
    #[diesel(embed)]
    pub search: ClientSearchRow,
}

impl NewClientRow {
    pub fn from_domain(shop: &ShopId, client: &Client) -> Result<Self, DbError> {
        Ok(Self {
            client: ClientRow::from_domain(shop, client)?,
            search: ClientSearchRow::from_domain(client),
        })
    }
}

/// What an integration writes of a client (`ClientPatch`), with the derived search columns
/// and `updated_at`: never its id, shop, creation or loyalty, which other writers own.
#[derive(AsChangeset)]
#[diesel(table_name = clients, check_for_backend(Sqlite, Pg))]
#[diesel(treat_none_as_null = true)]
pub(crate) struct ClientContactChangeset {
    pub name: String,
    pub display_name: Option<String>,
    pub phone: Option<String>,
    pub email: Option<String>,
    pub billing_company: Option<String>,
    pub billing_vat_number: Option<String>,
    pub billing_address: Option<String>,
    pub billing_city: Option<String>,
    pub billing_postal_code: Option<String>,
    pub billing_country: String,
    pub birth_date: Option<String>,
    pub receipt_by_email: bool,
    pub tags: String,
    pub updated_at_ms: i64,
    #[diesel(embed)]
    pub search: ClientSearchRow,
}

impl ClientContactChangeset {
    pub fn from_domain(client: &Client) -> Result<Self, DbError> {
        let billing = &client.billing;
        Ok(Self {
            name: client.name.clone(),
            display_name: client.display_name.clone(),
            phone: client.phone.clone(),
            email: client.email.clone(),
            billing_company: billing.company.clone(),
            billing_vat_number: billing.vat_number.clone(),
            billing_address: billing.address.clone(),
            billing_city: billing.city.clone(),
            billing_postal_code: billing.postal_code.clone(),
            billing_country: billing.country.clone(),
            birth_date: client.birth_date.clone(),
            receipt_by_email: client.receipt_by_email,
            tags: tags_json(client)?,
            updated_at_ms: client.updated_at.millis(),
            search: ClientSearchRow::from_domain(client),
        })
    }
}

/// The tags as the `tags` column keeps them: a JSON array of strings.
fn tags_json(client: &Client) -> Result<String, DbError> {
    serde_json::to_string(&client.tags)
        .map_err(|e| DbError::corrupt("clients", client.id.as_str(), e))
}
