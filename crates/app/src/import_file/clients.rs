//! `clients` of the import file: the Client of spec §2 plus the private `note` and
//! `anonymousClientId`.

use serde_json::Value;
use shop_domain::Timestamp;
use shop_domain::client::{Billing, Client, ClientConfidential, ClientLoyalty};
use shop_domain::id::ClientId;
use shop_domain::import::ImportedClient;
use time::Date;
use time::macros::format_description;

use super::reader::{Object, Reader};

const FIELDS: &[&str] = &[
    "id",
    "name",
    "displayName",
    "phone",
    "email",
    "billing",
    "birthDate",
    "loyalty",
    "receiptByEmail",
    "tags",
    "createdAt",
    "updatedAt",
    "note",
    "anonymousClientId",
];
const BILLING_FIELDS: &[&str] = &[
    "company",
    "vatNumber",
    "address",
    "city",
    "postalCode",
    "country",
];
const LOYALTY_FIELDS: &[&str] = &[
    "points",
    "expiresAt",
    "pointsLifetime",
    "pointsAllTime",
    "tierAchievedAt",
];
/// The shops this service serves are French; a client without a billing country is billed in
/// France.
const DEFAULT_COUNTRY: &str = "FR";

pub fn read_client(reader: &mut Reader<'_>, path: &str, value: &Value) -> Option<ImportedClient> {
    let object = reader.object(value, path)?;
    object.refuse_unknown(reader, FIELDS, &[]);
    let id = object.id(reader, ClientId::parse);
    let name = object.label(reader, "name", 200);
    let billing = object
        .child(reader, "billing")
        .map(|billing| read_billing(reader, &billing));
    let loyalty = object
        .child(reader, "loyalty")
        .map(|loyalty| read_loyalty(reader, &loyalty));
    let birth_date = object.optional_parsed(reader, "birthDate", |text| {
        Date::parse(text, format_description!("[year]-[month]-[day]"))
            .map(|_| text.to_owned())
            .map_err(|_| "expected a date such as 1990-04-17")
    });
    let client = Client {
        id: id?,
        name: name?,
        display_name: object.optional_string(reader, "displayName"),
        phone: object.optional_string(reader, "phone"),
        email: object.optional_string(reader, "email"),
        billing: billing.unwrap_or_else(|| Billing {
            country: DEFAULT_COUNTRY.to_owned(),
            ..Billing::default()
        }),
        birth_date,
        loyalty: loyalty.unwrap_or_default(),
        receipt_by_email: object
            .optional_bool(reader, "receiptByEmail")
            .unwrap_or(false),
        tags: object.string_list(reader, "tags"),
        created_at: Timestamp::from_millis(0),
        updated_at: Timestamp::from_millis(0),
    };
    let confidential = ClientConfidential {
        note: object.optional_string(reader, "note"),
        anonymous_client_id: object.optional_string(reader, "anonymousClientId"),
    };
    Some(ImportedClient {
        client,
        confidential,
        stamps: object.stamps(reader),
    })
}

fn read_billing(reader: &mut Reader<'_>, billing: &Object<'_>) -> Billing {
    billing.refuse_unknown(reader, BILLING_FIELDS, &[]);
    Billing {
        company: billing.optional_string(reader, "company"),
        vat_number: billing.optional_string(reader, "vatNumber"),
        address: billing.optional_string(reader, "address"),
        city: billing.optional_string(reader, "city"),
        postal_code: billing.optional_string(reader, "postalCode"),
        country: billing
            .optional_string(reader, "country")
            .unwrap_or_else(|| DEFAULT_COUNTRY.to_owned()),
    }
}

fn read_loyalty(reader: &mut Reader<'_>, loyalty: &Object<'_>) -> ClientLoyalty {
    loyalty.refuse_unknown(reader, LOYALTY_FIELDS, &[]);
    ClientLoyalty {
        points: loyalty.optional_int(reader, "points").unwrap_or(0),
        expires_at: loyalty.optional_parsed(reader, "expiresAt", Timestamp::parse_rfc3339),
        points_lifetime: loyalty.optional_int(reader, "pointsLifetime").unwrap_or(0),
        points_all_time: loyalty.optional_int(reader, "pointsAllTime").unwrap_or(0),
        tier_achieved_at: loyalty.optional_parsed(
            reader,
            "tierAchievedAt",
            Timestamp::parse_rfc3339,
        ),
    }
}
