//! An integration's writes of a client (API v2, issue 35): `POST /clients` and the JSON Merge
//! Patch (RFC 7396) of `PATCH /clients/{id}`.
//!
//! Both carry the same members; a create is a patch of a blank client that names the client.
//! `loyalty` is not among them (only `POST …/loyalty/adjustments` moves points), nor the
//! private `note`, which the API never shows and so never takes.

use sha2::{Digest, Sha256};

use super::contact;
use super::{Billing, Client, ClientLoyalty};
use crate::Timestamp;
use crate::id::ClientId;
use crate::write::{self, MAX_CONTACT_CHARS, MAX_NAME_CHARS, MemberProblem, MemberProblems};

/// The billing country of a client whose writer gives none (as the import's).
pub const DEFAULT_COUNTRY: &str = "FR";

/// The members of a client body that had the right JSON type. `None`: absent (a patch leaves
/// it as it is), or mistyped (the reader reported it). `Some(None)`: `null`, which clears it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientInput {
    pub name: Option<String>,
    pub display_name: Option<Option<String>>,
    pub phone: Option<Option<String>>,
    pub email: Option<Option<String>>,
    pub billing: Option<BillingInput>,
    pub birth_date: Option<Option<String>>,
    pub receipt_by_email: Option<bool>,
    pub tags: Option<Vec<String>>,
}

/// `billing`'s members, merged one by one into the client's billing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BillingInput {
    pub company: Option<Option<String>>,
    pub vat_number: Option<Option<String>>,
    pub address: Option<Option<String>>,
    pub city: Option<Option<String>>,
    pub postal_code: Option<Option<String>>,
    pub country: Option<String>,
}

/// A valid merge patch of a client: each `Some` replaces the member (`Some(None)` clears it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientPatch {
    pub name: Option<String>,
    pub display_name: Option<Option<String>>,
    pub phone: Option<Option<String>>,
    pub email: Option<Option<String>>,
    pub company: Option<Option<String>>,
    pub vat_number: Option<Option<String>>,
    pub address: Option<Option<String>>,
    pub city: Option<Option<String>>,
    pub postal_code: Option<Option<String>>,
    pub country: Option<String>,
    pub birth_date: Option<Option<String>>,
    pub receipt_by_email: Option<bool>,
    pub tags: Option<Vec<String>>,
}

/// A valid `POST /clients`: a patch that names the client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewClient(ClientPatch);

impl TryFrom<ClientInput> for ClientPatch {
    type Error = Vec<MemberProblem>;

    fn try_from(input: ClientInput) -> Result<Self, Self::Error> {
        let mut problems = MemberProblems::new();
        let patch = read_patch(input, &mut problems);
        problems.verdict(Some(patch))
    }
}

impl TryFrom<ClientInput> for NewClient {
    type Error = Vec<MemberProblem>;

    /// `name` is the one member a create needs; its absence was reported by the reader.
    fn try_from(input: ClientInput) -> Result<Self, Self::Error> {
        let mut problems = MemberProblems::new();
        let patch = read_patch(input, &mut problems);
        let named = patch.name.is_some().then_some(patch);
        problems.verdict(named).map(Self)
    }
}

fn read_patch(input: ClientInput, problems: &mut MemberProblems) -> ClientPatch {
    let billing = input.billing.unwrap_or_default();
    let mut text = |path: &str, given: Option<Option<String>>, max: usize| {
        nullable(problems, path, given, |raw| write::optional_text(raw, max))
    };
    let display_name = text("displayName", input.display_name, MAX_NAME_CHARS);
    let company = text("billing.company", billing.company, MAX_CONTACT_CHARS);
    let vat_number = text("billing.vatNumber", billing.vat_number, MAX_CONTACT_CHARS);
    let address = text("billing.address", billing.address, MAX_CONTACT_CHARS);
    let city = text("billing.city", billing.city, MAX_CONTACT_CHARS);
    let postal_code = text("billing.postalCode", billing.postal_code, MAX_CONTACT_CHARS);
    let present = |result: Result<String, String>| result.map(Some);
    ClientPatch {
        name: input
            .name
            .and_then(|raw| problems.check("name", write::name(&raw))),
        display_name,
        phone: nullable(problems, "phone", input.phone, |raw| {
            present(contact::phone(raw).map_err(|e| e.to_string()))
        }),
        email: nullable(problems, "email", input.email, |raw| {
            present(contact::email(raw).map_err(|e| e.to_string()))
        }),
        company,
        vat_number,
        address,
        city,
        postal_code,
        country: billing
            .country
            .and_then(|raw| problems.check("billing.country", contact::country(&raw))),
        birth_date: nullable(problems, "birthDate", input.birth_date, |raw| {
            present(contact::birth_date(raw).map_err(|e| e.to_string()))
        }),
        receipt_by_email: input.receipt_by_email,
        tags: input
            .tags
            .and_then(|raw| problems.check("tags", write::tags(&raw))),
    }
}

/// A nullable member: absent stays absent, `null` and a blank text clear it, any other text
/// is held to `rule`.
fn nullable<E: ToString>(
    problems: &mut MemberProblems,
    path: &str,
    given: Option<Option<String>>,
    rule: impl FnOnce(&str) -> Result<Option<String>, E>,
) -> Option<Option<String>> {
    match given? {
        // An empty text is no value: `""` clears the member as `null` does.
        Some(raw) if raw.trim().is_empty() => Some(None),
        None => Some(None),
        Some(raw) => problems.check(path, rule(&raw)),
    }
}

impl ClientPatch {
    /// The client once patched; its id, loyalty and times are the caller's to set.
    pub fn apply(&self, client: &Client) -> Client {
        let mut next = client.clone();
        let set = |slot: &mut Option<String>, given: &Option<Option<String>>| {
            if let Some(value) = given {
                slot.clone_from(value);
            }
        };
        if let Some(name) = &self.name {
            next.name.clone_from(name);
        }
        set(&mut next.display_name, &self.display_name);
        set(&mut next.phone, &self.phone);
        set(&mut next.email, &self.email);
        set(&mut next.birth_date, &self.birth_date);
        let billing = &mut next.billing;
        set(&mut billing.company, &self.company);
        set(&mut billing.vat_number, &self.vat_number);
        set(&mut billing.address, &self.address);
        set(&mut billing.city, &self.city);
        set(&mut billing.postal_code, &self.postal_code);
        if let Some(country) = &self.country {
            billing.country.clone_from(country);
        }
        if let Some(receipt) = self.receipt_by_email {
            next.receipt_by_email = receipt;
        }
        if let Some(tags) = &self.tags {
            next.tags.clone_from(tags);
        }
        next
    }

    /// The members' paths whose values differ between two states of a client, in the order
    /// of the representation: what the console's activity says a write changed. Empty when
    /// the write changed nothing.
    pub fn changed_members(before: &Client, after: &Client) -> Vec<&'static str> {
        let (was, now) = (&before.billing, &after.billing);
        [
            ("name", before.name != after.name),
            ("displayName", before.display_name != after.display_name),
            ("phone", before.phone != after.phone),
            ("email", before.email != after.email),
            ("billing.company", was.company != now.company),
            ("billing.vatNumber", was.vat_number != now.vat_number),
            ("billing.address", was.address != now.address),
            ("billing.city", was.city != now.city),
            ("billing.postalCode", was.postal_code != now.postal_code),
            ("billing.country", was.country != now.country),
            ("birthDate", before.birth_date != after.birth_date),
            (
                "receiptByEmail",
                before.receipt_by_email != after.receipt_by_email,
            ),
            ("tags", before.tags != after.tags),
        ]
        .into_iter()
        .filter_map(|(path, changed)| changed.then_some(path))
        .collect()
    }

    /// The e-mail this patch gives the client, when it gives one.
    pub fn new_email(&self) -> Option<&str> {
        self.email.as_ref()?.as_deref()
    }
}

impl NewClient {
    pub fn patch(&self) -> &ClientPatch {
        &self.0
    }

    /// The new client, created (and updated) at `at`: no points, the default country unless
    /// one is given, no receipt by e-mail unless asked.
    pub fn client(&self, id: ClientId, at: Timestamp) -> Client {
        let blank = Client {
            id,
            name: String::new(),
            display_name: None,
            phone: None,
            email: None,
            billing: Billing {
                country: DEFAULT_COUNTRY.to_owned(),
                ..Billing::default()
            },
            birth_date: None,
            loyalty: ClientLoyalty::default(),
            receipt_by_email: false,
            tags: Vec::new(),
            created_at: at,
            updated_at: at,
        };
        self.0.apply(&blank)
    }

    /// What makes two creates one request for `Idempotency-Key`: every member as validated
    /// (so `" Ana "` and `"Ana"` are one request). Absent, `null` and a value are three
    /// different members; a value is length-prefixed, so no two requests share a digest input.
    pub fn fingerprint(&self) -> String {
        let patch = &self.0;
        let receipt = patch
            .receipt_by_email
            .map(|yes| if yes { "yes" } else { "no" });
        // Tags hold no control character (`write::tags`): a line feed separates them.
        let tags = patch.tags.as_ref().map(|tags| tags.join("\n"));
        let members = [
            patch.name.as_deref().map(Some),
            patch.display_name.as_ref().map(Option::as_deref),
            patch.phone.as_ref().map(Option::as_deref),
            patch.email.as_ref().map(Option::as_deref),
            patch.company.as_ref().map(Option::as_deref),
            patch.vat_number.as_ref().map(Option::as_deref),
            patch.address.as_ref().map(Option::as_deref),
            patch.city.as_ref().map(Option::as_deref),
            patch.postal_code.as_ref().map(Option::as_deref),
            patch.country.as_deref().map(Some),
            patch.birth_date.as_ref().map(Option::as_deref),
            receipt.map(Some),
            tags.as_deref().map(Some),
        ];
        let mut digest = Sha256::new().chain_update(b"client-create\0");
        for member in members {
            match member {
                None => digest.update([0]),
                Some(None) => digest.update([1]),
                Some(Some(value)) => {
                    digest.update([2]);
                    digest.update((value.len() as u64).to_be_bytes());
                    digest.update(value);
                }
            }
        }
        crate::hex::to_lower_hex(&digest.finalize())
    }
}

#[cfg(test)]
mod tests;
