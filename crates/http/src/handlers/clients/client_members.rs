//! The body of `POST /api/v2/clients` and of `PATCH /api/v2/clients/{id}` as a domain
//! `ClientInput`: each member read by its JSON type, `billing` member by member.

use shop_domain::client::{BillingInput, ClientInput};

use crate::body::members::Members;

/// Members the client's representation shows and no write takes: only `POST
/// …/loyalty/adjustments` moves points. `note` is not among them: the API never shows it, and
/// takes it as any unknown member.
const READ_ONLY: &[&str] = &["id", "loyalty", "createdAt", "updatedAt"];

/// Reads every member (reporting the problems of their form on `members`' issues); a create
/// requires `name`.
pub(super) fn read(mut members: Members, create: bool) -> ClientInput {
    if create {
        members.require("name");
    }
    let billing = members.object("billing").map(|mut billing| {
        let input = BillingInput {
            company: billing.nullable_string("company"),
            vat_number: billing.nullable_string("vatNumber"),
            address: billing.nullable_string("address"),
            city: billing.nullable_string("city"),
            postal_code: billing.nullable_string("postalCode"),
            country: billing.string("country"),
        };
        billing.finish(&[]);
        input
    });
    let input = ClientInput {
        name: members.string("name"),
        display_name: members.nullable_string("displayName"),
        phone: members.nullable_string("phone"),
        email: members.nullable_string("email"),
        billing,
        birth_date: members.nullable_string("birthDate"),
        receipt_by_email: members.boolean("receiptByEmail"),
        tags: members.strings("tags"),
    };
    members.finish(READ_ONLY);
    input
}
