//! Identified clients (spec §2).

pub mod contact;
mod search;
mod write;

pub use contact::email_key;
pub use search::{ClientSearch, normalize_phone};
pub use write::{BillingInput, ClientInput, ClientPatch, DEFAULT_COUNTRY, NewClient};

use crate::Timestamp;
use crate::id::ClientId;
use crate::pagination::{Cursor, CursorKind, InvalidCursor, PageLimit};
use crate::sync::ChangedSince;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Billing {
    pub company: Option<String>,
    pub vat_number: Option<String>,
    pub address: Option<String>,
    pub city: Option<String>,
    pub postal_code: Option<String>,
    /// ISO 3166-1 alpha-2, `FR` when the shop's data gives none.
    pub country: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientLoyalty {
    pub points: i64,
    pub expires_at: Option<Timestamp>,
    pub points_lifetime: i64,
    pub points_all_time: i64,
    pub tier_achieved_at: Option<Timestamp>,
}

/// A client as the API shows it; the private fields are in [`ClientConfidential`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Client {
    pub id: ClientId,
    pub name: String,
    pub display_name: Option<String>,
    pub phone: Option<String>,
    pub email: Option<String>,
    pub billing: Billing,
    /// `YYYY-MM-DD`.
    pub birth_date: Option<String>,
    pub loyalty: ClientLoyalty,
    pub receipt_by_email: bool,
    pub tags: Vec<String>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// The manager's private note and the legacy link: stored, never returned (spec §2).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientConfidential {
    pub note: Option<String>,
    pub anonymous_client_id: Option<String>,
}

/// A validated `GET /clients` request; clients are listed by ascending id (stable keyset).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientListQuery {
    pub search: Option<ClientSearch>,
    pub after: Option<ClientId>,
    /// `updatedSince`: walk the clients changed since then instead (`after` is then unused).
    pub changed: Option<ChangedSince<ClientId>>,
    pub limit: PageLimit,
}

impl Default for ClientListQuery {
    fn default() -> Self {
        Self {
            search: None,
            after: None,
            changed: None,
            limit: PageLimit::CLIENTS_DEFAULT,
        }
    }
}

pub fn client_cursor(last: &ClientId) -> Cursor {
    Cursor::new(CursorKind::Clients, vec![last.as_str().to_owned()])
}

pub fn client_cursor_position(text: &str) -> Result<ClientId, InvalidCursor> {
    let cursor = Cursor::decode(text, CursorKind::Clients)?;
    match cursor.parts() {
        [id] => ClientId::parse(id.as_str()).map_err(|_| InvalidCursor),
        _ => Err(InvalidCursor),
    }
}

impl Client {
    /// The case-folded text that `q` searches besides the phone: name, display name, e-mail.
    pub fn search_text(&self) -> String {
        let mut parts: Vec<&str> = vec![&self.name];
        parts.extend(self.display_name.as_deref());
        parts.extend(self.email.as_deref());
        crate::text::fold_case(&parts.join("\n"))
    }

    /// The phone as [`normalize_phone`] writes it, for phone search.
    pub fn phone_digits(&self) -> String {
        self.phone
            .as_deref()
            .map(normalize_phone)
            .unwrap_or_default()
    }
}
