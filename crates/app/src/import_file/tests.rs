use serde_json::json;
use shop_domain::import::GivenStamps;

use super::*;

struct FixedIds;

impl IdGenerator for FixedIds {
    fn new_id(&self) -> String {
        "generated".to_owned()
    }
}

fn problems(value: Value) -> Vec<String> {
    match parse(&value.to_string(), &FixedIds) {
        Ok(_) => Vec::new(),
        Err(problems) => problems.into_iter().map(|p| p.to_string()).collect(),
    }
}

fn product() -> Value {
    json!({
        "id": "prod_1", "name": "Bol", "productType": "simple", "ean": null, "sku": "BOL",
        "priceCents": 1200, "listPriceCents": 1500, "compareAtPriceCents": null, "promoActive": false,
        "taxRate": "20.00", "active": true, "trackStock": true, "stockQuantity": 3,
        "tags": ["cuisine"], "photos": [], "category": {"id": "cat_1", "name": "Cuisine"}, "brand": null,
        "createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": "2026-01-02T00:00:00.000Z",
        "variants": [{
            "id": "var_1", "label": "Bleu", "sku": null, "barcode": "3700000000001", "swatchColor": "#0000ff",
            "priceCents": 1200, "stock": 3, "lowStockThreshold": 1, "isDefault": true, "active": true, "order": 0
        }]
    })
}

#[test]
fn api_output_shapes_import_as_they_are() {
    let import = parse(&json!({"products": [product()]}).to_string(), &FixedIds).unwrap();
    let imported = &import.products[0];
    assert_eq!(imported.product.id.as_str(), "prod_1");
    assert_eq!(
        imported.product.variants[0]
            .swatch_color
            .as_ref()
            .unwrap()
            .as_str(),
        "#0000FF"
    );
    assert_eq!(imported.product.category.as_ref().unwrap().name, "Cuisine");
    assert_eq!(
        imported.stamps.updated_at.unwrap().to_rfc3339(),
        "2026-01-02T00:00:00.000Z"
    );
}

#[test]
fn minimal_products_get_defaults_and_generated_ids() {
    let import = parse(
        &json!({"products": [{"name": "Bol", "priceCents": 100, "taxRate": "5.50"}]}).to_string(),
        &FixedIds,
    )
    .unwrap();
    let product = &import.products[0].product;
    assert_eq!(product.id.as_str(), "generated");
    assert_eq!(product.list_price, product.price);
    assert!(product.active && product.track_stock);
    assert_eq!(import.products[0].stamps, GivenStamps::default());
}

#[test]
fn every_variant_tracks_stock_as_its_product_says() {
    for track in [true, false] {
        let mut value = product();
        value["trackStock"] = json!(track);
        value["variants"] = json!([
            value["variants"][0].clone(),
            {"id": "var_2", "label": "Rouge", "priceCents": 1200}
        ]);
        let import = parse(&json!({ "products": [value] }).to_string(), &FixedIds).unwrap();
        let product = &import.products[0].product;
        assert_eq!(product.track_stock, track);
        let tracked: Vec<bool> = product.variants.iter().map(|v| v.tracked).collect();
        assert_eq!(tracked, [track, track]);
    }
}

#[test]
fn every_problem_is_reported_with_its_path() {
    let mut bad = product();
    bad["variants"][0]["priceCents"] = json!("12");
    bad["taxRate"] = json!("20");
    bad["colour"] = json!("red");
    bad["category"] = json!({"id": "a b", "name": "x"});
    let found = problems(
        json!({"products": [product(), bad], "loyaltyTiers": [{"id": "t", "name": "Or", "minPointsLifetime": 1.5, "color": "gold"}]}),
    );
    for expected in [
        "products[1].variants[0].priceCents: expected an integer, found a string",
        "products[1].taxRate: expected a rate",
        "products[1].colour: unknown field",
        "products[1].category.id: expected an id",
        "loyaltyTiers[0].minPointsLifetime: expected an integer, found a number",
        "loyaltyTiers[0].color: expected a colour in #RRGGBB form",
    ] {
        assert!(
            found.iter().any(|p| p.starts_with(expected)),
            "missing {expected:?} in {found:#?}"
        );
    }
}

#[test]
fn a_nul_character_in_any_text_is_refused_with_its_path() {
    let mut value = product();
    value["sku"] = json!("BOL\u{0}");
    value["variants"][0]["label"] = json!("Bl\u{0}eu");
    let found = problems(json!({ "products": [value] }));
    for path in ["products[0].sku", "products[0].variants[0].label"] {
        assert!(
            found.contains(&format!(
                "{path}: must not contain the NUL character (U+0000)"
            )),
            "{path}: {found:?}"
        );
    }
}

#[test]
fn required_fields_and_negative_prices_are_refused() {
    let found = problems(
        json!({"products": [{"priceCents": -1, "taxRate": "20.00", "variants": [{"priceCents": 1}]}]}),
    );
    assert!(
        found.contains(&"products[0].name: is required".to_owned()),
        "{found:?}"
    );
    assert!(
        found.contains(&"products[0].priceCents: must not be negative".to_owned()),
        "{found:?}"
    );
    assert!(
        found.contains(&"products[0].variants[0].label: is required".to_owned()),
        "{found:?}"
    );
}

#[test]
fn syntax_errors_and_wrong_roots_are_refused() {
    assert!(
        parse("{", &FixedIds).unwrap_err()[0]
            .message
            .starts_with("not valid JSON")
    );
    assert_eq!(problems(json!([])), vec!["$: expected an object"]);
    assert_eq!(
        problems(json!({"products": {}})),
        vec!["products: expected an array, found an object"]
    );
}

#[test]
fn orders_keep_their_confidential_fields_apart() {
    let order = json!({
        "id": "o1", "orderNumber": 7, "source": "click-collect", "status": "ready", "paymentStatus": "paid",
        "totalCents": 900, "paidAt": "2026-05-01T10:00:00Z", "customer": null, "clientId": "c1",
        "signature": "sig", "previousSignature": null, "cumulativeTotalTTCSnapshot": 12345,
        "internalNote": "fragile", "paymentIntentId": "pi_1",
        "items": [{"id": "i1", "productId": "p1", "variantId": "v1", "productName": "Bol", "unitPriceCents": 300,
                   "quantity": 3, "taxRate": "20.00", "refunded": null}]
    });
    let import = parse(&json!({"orders": [order]}).to_string(), &FixedIds).unwrap();
    let imported = &import.orders[0];
    assert_eq!(
        imported.order.items[0].total.get(),
        900,
        "total defaults to unit x quantity"
    );
    assert_eq!(imported.order.subtotal.get(), 900);
    assert_eq!(imported.confidential.signature.as_deref(), Some("sig"));
    assert_eq!(
        imported.confidential.cumulative_total_ttc_snapshot,
        Some(12_345)
    );
    assert_eq!(
        imported.confidential.payment_intent_id.as_deref(),
        Some("pi_1")
    );
}

#[test]
fn order_problems_are_reported_with_their_paths() {
    let found = problems(json!({"orders": [{
        "orderNumber": "7", "source": "shop", "status": "done", "paymentStatus": "paid", "totalCents": 1,
        "customer": {"name": "x"}, "items": [{"productId": "p1", "productName": "Bol", "unitPriceCents": 1, "quantity": 1, "taxRate": "20.00", "refunded": {}}]
    }]}));
    for expected in [
        "orders[0].orderNumber: expected an integer",
        "orders[0].source: must be one of pos, click-collect, online",
        "orders[0].status: must be one of pending, preparing, ready, completed, cancelled",
        "orders[0].customer: must be null",
        "orders[0].items[0].variantId: is required",
        "orders[0].items[0].refunded: must be null",
    ] {
        assert!(
            found.iter().any(|p| p.starts_with(expected)),
            "missing {expected:?} in {found:#?}"
        );
    }
}

#[test]
fn clients_tickets_and_spins_parse_with_defaults() {
    let data = json!({
        "clients": [{"id": "c1", "name": "Marie", "phone": "06 12 34 56 78", "note": "VIP", "anonymousClientId": "a1",
                     "loyalty": {"pointsLifetime": 600, "tierAchievedAt": "2026-01-01T00:00:00Z"}}],
        "lotteryTickets": [{"id": "t1", "clientId": "c1", "orderId": null}],
        "spins": [{"id": "s1", "clientId": "c1", "won": true, "prizeLabel": "Bougie", "prizeType": "product"}]
    });
    let import = parse(&data.to_string(), &FixedIds).unwrap();
    let client = &import.clients[0];
    assert_eq!(client.client.billing.country, "FR");
    assert_eq!(client.client.loyalty.points_lifetime, 600);
    assert_eq!(client.confidential.note.as_deref(), Some("VIP"));
    assert_eq!(import.lottery_tickets[0].created_at, None);
    assert!(import.spins[0].event.won);
    let found = problems(
        json!({"spins": [{"id": "s1", "clientId": "c1"}], "clients": [{"name": "M", "birthDate": "17/04/1990"}]}),
    );
    assert!(
        found.contains(&"spins[0].won: is required".to_owned()),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|p| p.starts_with("clients[0].birthDate: expected a date")),
        "{found:?}"
    );
}
