//! Catalogue data for the scenarios, in the import file format.

use serde_json::{Value, json};

/// A product with every field set, two variants (the second inactive) and known values.
pub fn full_product(id: &str) -> Value {
    json!({
        "id": id,
        "name": "Théière en fonte",
        "productType": "variable",
        "ean": "3760000000017",
        "sku": "THE-01",
        "priceCents": 4500,
        "listPriceCents": 5000,
        "compareAtPriceCents": 5000,
        "promoActive": true,
        "taxRate": "20.00",
        "active": true,
        "trackStock": true,
        "tags": ["cuisine", "thé"],
        "photos": ["https://cdn.example.com/the.jpg"],
        "category": {"id": "cat_kitchen", "name": "Cuisine"},
        "brand": {"id": "brand_fonte", "name": "Fonderie"},
        "createdAt": "2026-01-05T10:00:00.000Z",
        "updatedAt": "2026-02-01T08:30:15.250Z",
        "variants": [
            {"id": format!("{id}_black"), "label": "Noir", "sku": "THE-01-N", "barcode": "3760000000024",
             "swatchColor": "#000000", "priceCents": 4500, "stock": 7, "lowStockThreshold": 2,
             "isDefault": true, "active": true, "order": 0},
            {"id": format!("{id}_red"), "label": "Rouge", "sku": "THE-01-R", "barcode": "3760000000031",
             "swatchColor": "#aa0000", "priceCents": 4700, "stock": 3, "lowStockThreshold": 2,
             "isDefault": false, "active": false, "order": 1}
        ]
    })
}

/// A product with every optional field empty.
pub fn bare_product(id: &str, name: &str) -> Value {
    json!({
        "id": id, "name": name, "productType": "simple", "priceCents": 990, "taxRate": "5.50",
        "trackStock": false,
        "variants": [{"id": format!("{id}_v"), "label": "Unique", "priceCents": 990, "stock": 4}]
    })
}

pub fn products(list: Vec<Value>) -> Value {
    json!({"products": list})
}

/// Secret values planted in the confidential fields: no response may contain them.
pub const SECRETS: [&str; 7] = [
    "sig-secret-1",
    "sig-prev-0",
    "note-secret",
    "pi_secret_1",
    "client-note-secret",
    "anon-secret",
    "987654321",
];

fn item(id: &str, variant: &str, quantity: i64) -> Value {
    json!({"id": id, "productId": "p_sale", "variantId": variant, "productName": "Tasse", "unitPriceCents": 450,
           "quantity": quantity, "totalCents": 450 * quantity, "taxRate": "20.00", "taxAmountCents": 75 * quantity,
           "refunded": null})
}

fn order(
    id: &str,
    source: &str,
    status: &str,
    payment: &str,
    client: Option<&str>,
    at: &str,
    items: Vec<Value>,
) -> Value {
    let paid = payment != "pending";
    json!({
        "id": id, "orderNumber": 100 + id.len() as i64, "source": source, "status": status, "paymentStatus": payment,
        "subtotalCents": 900, "discountAmountCents": 0, "taxAmountCents": 150, "totalCents": 900,
        "paymentMethod": if paid { json!("card") } else { Value::Null },
        "paidAt": if paid { json!(at) } else { Value::Null },
        "customer": null, "clientId": client, "items": items, "createdAt": at, "updatedAt": at,
        "signature": "sig-secret-1", "previousSignature": "sig-prev-0", "cumulativeTotalTTCSnapshot": 987654321,
        "internalNote": "note-secret", "paymentIntentId": "pi_secret_1"
    })
}

/// Three clients, five orders and loyalty data. Newest first, the orders are o5, o4 (same
/// instant as o5), o3, o2 (the last millisecond of 10 March), o1.
pub fn sales() -> Value {
    let client = |id: &str, name: &str, phone: &str, email: &str, lifetime: i64| {
        json!({"id": id, "name": name, "displayName": null, "phone": phone, "email": email,
               "billing": {"company": null, "vatNumber": null, "address": "1 rue Haute", "city": "Nantes", "postalCode": "44000", "country": "FR"},
               "birthDate": "1990-04-17",
               "loyalty": {"points": 120, "expiresAt": null, "pointsLifetime": lifetime, "pointsAllTime": lifetime + 10,
                           "tierAchievedAt": "2026-02-01T10:00:00.000Z"},
               "receiptByEmail": true, "tags": ["fidèle"], "createdAt": "2026-01-01T00:00:00.000Z",
               "updatedAt": "2026-01-02T00:00:00.000Z", "note": "client-note-secret", "anonymousClientId": "anon-secret"})
    };
    let tickets: Vec<Value> = (0..13)
        .map(|n| json!({"id": format!("t{n:02}"), "clientId": "c1", "orderId": if n % 2 == 0 { json!("o1") } else { Value::Null },
                        "createdAt": format!("2026-03-{:02}T08:00:00.000Z", 1 + n / 2)}))
        .collect();
    let spins: Vec<Value> = (0..12)
        .map(|n| {
            json!({"id": format!("s{n:02}"), "clientId": "c1", "orderId": "o1", "won": n % 3 == 0,
                        "prizeLabel": if n % 3 == 0 { json!("Bougie") } else { Value::Null },
                        "prizeType": if n % 3 == 0 { json!("product") } else { Value::Null },
                        "createdAt": format!("2026-03-{:02}T09:00:00.000Z", 1 + n)})
        })
        .collect();
    json!({
        "loyaltyTiers": [
            {"id": "tier_silver", "name": "Argent", "minPointsLifetime": 500, "color": "#C0C0C0"},
            {"id": "tier_gold", "name": "Or", "minPointsLifetime": 2000, "color": "#FFD700"}
        ],
        "products": [{
            "id": "p_sale", "name": "Tasse", "priceCents": 450, "taxRate": "20.00",
            "variants": [{"id": "v_blue", "label": "Bleu", "priceCents": 450}, {"id": "v_red", "label": "Rouge", "priceCents": 450}]
        }],
        "clients": [
            client("c1", "Marie Dupont", "06 12 34 56 78", "marie.dupont@example.com", 875),
            client("c2", "Lucas Martin", "+33 7 98 76 54 32", "lucas@example.org", 100),
            client("c3", "Élodie Petit", "01.44.55.66.77", "elodie@example.fr", 5000)
        ],
        "orders": [
            order("o1", "pos", "completed", "paid", Some("c1"), "2026-03-10T00:00:00.000Z", vec![item("o1_i1", "v_blue", 1), item("o1_i2", "v_red", 2)]),
            order("o2", "online", "pending", "pending", Some("c2"), "2026-03-10T23:59:59.999Z", vec![item("o2_i1", "v_blue", 2)]),
            order("o3", "click-collect", "ready", "paid", None, "2026-03-11T00:00:00.000Z", vec![item("o3_i1", "v_red", 2)]),
            order("o4", "pos", "cancelled", "refunded", Some("c1"), "2026-03-12T12:00:00.000Z", vec![item("o4_i1", "v_red", 2)]),
            order("o5", "online", "completed", "paid", Some("c1"), "2026-03-12T12:00:00.000Z", vec![item("o5_i1", "v_blue", 2)])
        ],
        "lotteryTickets": tickets,
        "spins": spins
    })
}

/// A tracked product with four variants at known stock levels (threshold 3): `v_ok` 10,
/// `v_low` 2, `v_out` 0, `v_off` 5 (inactive); and an untracked product with `v_free`.
pub fn stock() -> Value {
    let variant = |id: &str, label: &str, stock: i64, active: bool, order: i64| {
        json!({"id": id, "label": label, "sku": format!("SKU-{}", id.to_uppercase()), "barcode": format!("37000{order}"),
               "priceCents": 1000, "stock": stock, "lowStockThreshold": 3, "active": active, "order": order})
    };
    json!({"products": [
        {"id": "p_mug", "name": "Mug émaillé", "ean": "3760000099999", "sku": "MUG", "priceCents": 1000, "taxRate": "20.00",
         "trackStock": true, "updatedAt": "2026-01-01T00:00:00.000Z",
         "variants": [variant("v_ok", "Blanc", 10, true, 0), variant("v_low", "Noir", 2, true, 1),
                      variant("v_out", "Rouge", 0, true, 2), variant("v_off", "Vert", 5, false, 3)]},
        {"id": "p_card", "name": "Carte cadeau", "priceCents": 2000, "taxRate": "0.00", "trackStock": false,
         "variants": [variant("v_free", "25 €", 0, true, 0)]}
    ]})
}

/// A list's `pageInfo` without its `syncedAt` (the server's clock, checked on its own), which
/// must be an RFC 3339 instant in UTC with milliseconds.
pub fn without_synced_at(page_info: &Value) -> Value {
    let mut page_info = page_info.clone();
    let synced_at = page_info
        .as_object_mut()
        .and_then(|info| info.remove("syncedAt"))
        .unwrap_or_else(|| panic!("no syncedAt in {page_info}"));
    let text = synced_at.as_str().unwrap();
    assert!(
        time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339).is_ok()
            && text.ends_with('Z')
            && text.len() == "2026-11-21T09:30:00.000Z".len(),
        "syncedAt {text}"
    );
    page_info
}

/// A response body with the value of its `syncedAt` (the server's clock, so different in any
/// two responses) blanked, byte for byte: what two list responses must share.
pub fn with_synced_at_blanked(body: &str) -> String {
    const KEY: &str = "\"syncedAt\":\"";
    let Some(start) = body.find(KEY).map(|at| at + KEY.len()) else {
        return body.to_owned();
    };
    let end = body[start..]
        .find('"')
        .map_or(body.len(), |len| start + len);
    format!(
        "{}{}{}",
        &body[..start],
        "#".repeat(end - start),
        &body[end..]
    )
}

/// What exact-field tests write for a time the import stamped: the import's own time, not the
/// file's (a file's `updatedAt` is checked, never stored).
pub const IMPORT_TIME: &str = "<the import's time>";

/// `body` with the instant at JSON `pointer` replaced by [`IMPORT_TIME`], after checking that
/// it is an instant of the last ten minutes (the test's import).
pub fn stamped_by_the_import(mut body: Value, pointer: &str) -> Value {
    let slot = body
        .pointer_mut(pointer)
        .unwrap_or_else(|| panic!("no {pointer}"));
    let text = slot.as_str().unwrap_or_else(|| panic!("{pointer}: {slot}"));
    let at = time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|e| panic!("{pointer}: {text}: {e}"));
    let age = time::OffsetDateTime::now_utc() - at;
    assert!(
        age >= time::Duration::ZERO && age < time::Duration::minutes(10),
        "{pointer}: {text} is not the import's time"
    );
    *slot = Value::String(IMPORT_TIME.to_owned());
    body
}
