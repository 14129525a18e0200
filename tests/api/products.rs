use serde_json::{Value, json};

use crate::fixtures::{
    IMPORT_TIME, bare_product, full_product, products, stamped_by_the_import,
    with_synced_at_blanked, without_synced_at,
};
use crate::support::{TestApp, on_both_databases};

on_both_databases!(
    product_fields_have_their_exact_names_and_types,
    absent_values_are_null_never_missing,
    another_shops_product_is_not_found_like_an_unknown_one,
    every_filter_selects_what_it_says,
    search_is_case_insensitive_and_literal,
    active_filter_and_variant_visibility,
    updated_since_is_inclusive,
    reimporting_the_same_file_changes_nothing,
    ids_that_a_url_cannot_hold_are_refused_by_the_import_at_their_path,
);

async fn seeded(app: &TestApp, data: Value) -> String {
    app.create_shop("atelier").await;
    app.import("atelier", &data).await;
    app.create_key("atelier", "products:read").await
}

fn ids(page: &Value) -> Vec<String> {
    page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_owned())
        .collect()
}

async fn product_fields_have_their_exact_names_and_types(app: TestApp) {
    let key = seeded(&app, products(vec![full_product("prod_full")])).await;
    let reply = app.get("/api/v1/products/prod_full", &key).await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    let expected = json!({
        "id": "prod_full",
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
        "stockQuantity": 10,
        "tags": ["cuisine", "thé"],
        "photos": ["https://cdn.example.com/the.jpg"],
        "category": {"id": "cat_kitchen", "name": "Cuisine"},
        "brand": {"id": "brand_fonte", "name": "Fonderie"},
        "variants": [
            {"id": "prod_full_black", "label": "Noir", "sku": "THE-01-N", "barcode": "3760000000024",
             "swatchColor": "#000000", "priceCents": 4500, "stock": 7, "lowStockThreshold": 2,
             "isDefault": true, "active": true, "order": 0},
            {"id": "prod_full_red", "label": "Rouge", "sku": "THE-01-R", "barcode": "3760000000031",
             "swatchColor": "#AA0000", "priceCents": 4700, "stock": 3, "lowStockThreshold": 2,
             "isDefault": false, "active": false, "order": 1}
        ],
        "createdAt": "2026-01-05T10:00:00.000Z",
        "updatedAt": IMPORT_TIME
    });
    // Equality of JSON values checks names, types (4500 is not "4500" nor 4500.0) and that
    // there is no extra key.
    assert_eq!(
        stamped_by_the_import(reply.json(), "/data/updatedAt"),
        json!({"data": expected})
    );

    let list = app.get("/api/v1/products", &key).await.json();
    let listed = &list["data"][0];
    assert_eq!(
        listed["variants"].as_array().unwrap().len(),
        1,
        "the list hides inactive variants"
    );
    assert_eq!(listed["stockQuantity"], 10, "but their stock still counts");
    assert_eq!(
        without_synced_at(&list["pageInfo"]),
        json!({"hasMore": false, "nextCursor": null, "limit": 20})
    );
}

async fn absent_values_are_null_never_missing(app: TestApp) {
    let key = seeded(&app, products(vec![bare_product("prod_bare", "Savon")])).await;
    let product = app.get("/api/v1/products/prod_bare", &key).await.json()["data"].clone();
    for field in [
        "ean",
        "sku",
        "compareAtPriceCents",
        "stockQuantity",
        "category",
        "brand",
    ] {
        assert_eq!(product.get(field), Some(&Value::Null), "{field}");
    }
    for field in ["sku", "barcode", "swatchColor"] {
        assert_eq!(
            product["variants"][0].get(field),
            Some(&Value::Null),
            "variant {field}"
        );
    }
    assert_eq!(product["taxRate"], "5.50");
    assert_eq!(product["tags"], json!([]));
    assert_eq!(product["listPriceCents"], 990);
    let created = product["createdAt"].as_str().unwrap();
    assert_eq!(created.len(), "2026-11-21T09:30:00.000Z".len(), "{created}");
    assert!(
        created.ends_with('Z') && created.as_bytes()[19] == b'.',
        "{created}"
    );
}

async fn another_shops_product_is_not_found_like_an_unknown_one(app: TestApp) {
    let key_a = seeded(&app, products(vec![bare_product("prod_a", "A")])).await;
    app.create_shop("voisin").await;
    app.import("voisin", &products(vec![bare_product("prod_b", "B")]))
        .await;
    let key_b = app.create_key("voisin", "products:read").await;

    let foreign = app.get("/api/v1/products/prod_b", &key_a).await;
    let unknown = app.get("/api/v1/products/prod_zzz", &key_a).await;
    assert_eq!(foreign.status, 404);
    assert_eq!(foreign.text, unknown.text.replace("prod_zzz", "prod_b"));
    assert_eq!(foreign.error_code(), "NOT_FOUND");
    assert_eq!(
        ids(&app.get("/api/v1/products?active=all", &key_a).await.json()),
        ["prod_a"]
    );
    assert_eq!(
        ids(&app.get("/api/v1/products?active=all", &key_b).await.json()),
        ["prod_b"]
    );
    assert_eq!(app.get("/api/v1/products/prod_b", &key_b).await.status, 200);
}

async fn every_filter_selects_what_it_says(app: TestApp) {
    let mut mug = bare_product("p_mug", "Mug");
    mug["category"] = json!({"id": "cat_kitchen", "name": "Cuisine"});
    mug["brand"] = json!({"id": "brand_a", "name": "A"});
    mug["productType"] = json!("simple");
    let mut plaid = bare_product("p_plaid", "Plaid");
    plaid["category"] = json!({"id": "cat_textile", "name": "Textile"});
    plaid["brand"] = json!({"id": "brand_a", "name": "A"});
    plaid["productType"] = json!("variable");
    let mut bowl = bare_product("p_bowl", "Bol");
    bowl["category"] = json!({"id": "cat_kitchen", "name": "Cuisine"});
    bowl["brand"] = json!({"id": "brand_b", "name": "B"});
    let key = seeded(&app, products(vec![mug, plaid, bowl])).await;

    let cases = [
        ("category=cat_kitchen", vec!["p_bowl", "p_mug"]),
        ("brand=brand_a", vec!["p_mug", "p_plaid"]),
        ("productType=variable", vec!["p_plaid"]),
        ("category=cat_kitchen&brand=brand_a", vec!["p_mug"]),
        ("category=cat_unknown", vec![]),
        ("productType=SIMPLE", vec![]),
    ];
    for (query, expected) in cases {
        let reply = app.get(&format!("/api/v1/products?{query}"), &key).await;
        assert_eq!(reply.status, 200, "{query}: {}", reply.text);
        assert_eq!(ids(&reply.json()), expected, "{query}");
    }
}

async fn search_is_case_insensitive_and_literal(app: TestApp) {
    let mut teapot = full_product("p_teapot");
    teapot["name"] = json!("Théière 100% fonte");
    let key = seeded(
        &app,
        products(vec![teapot, bare_product("p_soap", "Savon d'Alep")]),
    )
    .await;
    let cases = [
        ("q=TH%C3%89I%C3%88RE", vec!["p_teapot"]), // "THÉIÈRE": case folding beyond ASCII
        ("q=100%25", vec!["p_teapot"]),            // a literal %
        ("q=%25", vec!["p_teapot"]),
        ("q=_", vec![]),                       // a literal _, not "any character"
        ("q=3760000000017", vec!["p_teapot"]), // EAN
        ("q=the-01", vec!["p_teapot"]),        // product SKU
        ("q=the-01-r", vec!["p_teapot"]),      // SKU of an inactive variant
        ("q=3760000000024", vec!["p_teapot"]), // variant barcode
        ("q=savon+d'alep", vec!["p_soap"]),
        ("q=introuvable", vec![]),
        ("q=", vec!["p_soap", "p_teapot"]), // blank: no search
    ];
    for (query, expected) in cases {
        let reply = app.get(&format!("/api/v1/products?{query}"), &key).await;
        assert_eq!(reply.status, 200, "{query}: {}", reply.text);
        assert_eq!(ids(&reply.json()), expected, "{query}");
    }
}

async fn active_filter_and_variant_visibility(app: TestApp) {
    let mut archived = full_product("p_old");
    archived["active"] = json!(false);
    let key = seeded(&app, products(vec![full_product("p_new"), archived])).await;

    let variants_of = |page: &Value| -> Vec<usize> {
        page["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["variants"].as_array().unwrap().len())
            .collect()
    };
    let default = app.get("/api/v1/products", &key).await.json();
    assert_eq!(ids(&default), ["p_new"]);
    assert_eq!(variants_of(&default), [1]);
    let active = app.get("/api/v1/products?active=true", &key).await.json();
    assert_eq!(ids(&active), ["p_new"]);
    let inactive = app.get("/api/v1/products?active=false", &key).await.json();
    assert_eq!(ids(&inactive), ["p_old"]);
    assert_eq!(variants_of(&inactive), [1]);
    let all = app.get("/api/v1/products?active=all", &key).await.json();
    assert_eq!(ids(&all), ["p_new", "p_old"]);
    assert_eq!(variants_of(&all), [2, 2]);
    let one = app.get("/api/v1/products/p_old", &key).await.json();
    assert_eq!(
        one["data"]["variants"].as_array().unwrap().len(),
        2,
        "detail shows inactive variants"
    );
}

async fn updated_since_is_inclusive(app: TestApp) {
    use time::format_description::well_known::Rfc3339;
    use time::{Duration, OffsetDateTime, UtcOffset};

    // Each import stamps what it writes with its own time: two imports, two instants.
    let key = seeded(&app, products(vec![bare_product("p_early", "Early")])).await;
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    app.import("atelier", &products(vec![bare_product("p_late", "Late")]))
        .await;
    let updated_at = async |id: &str| {
        let reply = app.get(&format!("/api/v1/products/{id}"), &key).await;
        let text = reply.json()["data"]["updatedAt"]
            .as_str()
            .unwrap()
            .to_owned();
        OffsetDateTime::parse(&text, &Rfc3339).unwrap()
    };
    let (early, late) = (updated_at("p_early").await, updated_at("p_late").await);
    assert!(early < late);
    let utc = |at: OffsetDateTime| at.format(&Rfc3339).unwrap();
    let plus_one_hour = late
        .to_offset(UtcOffset::from_hms(1, 0, 0).unwrap())
        .format(&Rfc3339)
        .unwrap()
        .replace('+', "%2B");
    let cases = [
        (utc(early), vec!["p_early", "p_late"]),
        (utc(early + Duration::milliseconds(1)), vec!["p_late"]),
        (plus_one_hour, vec!["p_late"]), // the same instant with an offset
        (utc(late + Duration::milliseconds(1)), vec![]),
    ];
    for (since, expected) in cases {
        let reply = app
            .get(&format!("/api/v1/products?updatedSince={since}"), &key)
            .await;
        assert_eq!(reply.status, 200, "{since}: {}", reply.text);
        assert_eq!(ids(&reply.json()), expected, "{since}");
    }
}

async fn reimporting_the_same_file_changes_nothing(app: TestApp) {
    let data = products(vec![bare_product("p_one", "One"), full_product("p_two")]);
    let key = seeded(&app, data.clone()).await;
    let listed =
        async || with_synced_at_blanked(&app.get("/api/v1/products?active=all", &key).await.text);
    let before = listed().await;
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    app.import("atelier", &data).await;
    assert_eq!(listed().await, before);

    let mut changed = bare_product("p_one", "One, renamed");
    changed["createdAt"] = Value::Null;
    app.import("atelier", &products(vec![changed])).await;
    let after = app.get("/api/v1/products/p_one", &key).await.json();
    let old: Value = serde_json::from_str(&before).unwrap();
    assert_eq!(after["data"]["name"], "One, renamed");
    assert_eq!(
        after["data"]["createdAt"], old["data"][0]["createdAt"],
        "createdAt is kept"
    );
    assert_ne!(
        after["data"]["updatedAt"], old["data"][0]["updatedAt"],
        "updatedAt moves"
    );
}

async fn ids_that_a_url_cannot_hold_are_refused_by_the_import_at_their_path(app: TestApp) {
    app.create_shop("atelier").await;
    let mut dots = bare_product("p_dots", "Dots");
    dots["variants"][0]["id"] = json!("..");
    dots["category"] = json!({"id": "a/b", "name": "Slashed"});
    let data = products(vec![bare_product(".", "Dot"), dots]);
    let problems = app
        .try_import("atelier", &data)
        .await
        .expect_err("ids `.`, `..` and `a/b` must be refused");
    for path in [
        "products[0].id",
        "products[1].variants[0].id",
        "products[1].category.id",
    ] {
        assert!(
            problems
                .iter()
                .any(|p| p.starts_with(&format!("{path}: expected an id"))),
            "{path} not in {problems:?}"
        );
    }
    assert_eq!(problems.len(), 3, "{problems:?}");

    let key = app.create_key("atelier", "products:read").await;
    let listed = app.get("/api/v1/products?active=all", &key).await.json();
    assert_eq!(listed["data"], json!([]), "nothing was written");
}
