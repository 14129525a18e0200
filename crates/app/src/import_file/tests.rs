use serde_json::json;

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
fn data_of_later_releases_is_refused_not_dropped() {
    let found = problems(json!({"orders": [{"id": "o1"}], "clients": []}));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("orders: not importable"));
}
