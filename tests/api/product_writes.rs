//! API v2's writes of products and variants (issue 35): every member written and read back
//! through v1 and v2, the refusals, unique codes, the default variant, `If-Match` under
//! concurrency, idempotent creates, events and `updatedSince`.

use serde_json::{Value, json};

use crate::orders::seeded;
use crate::support::{Reply, TestApp, on_both_databases};
use crate::webhooks::events;

on_both_databases!(
    a_created_product_shows_every_member_through_v1_and_v2_with_its_event,
    a_merge_patch_changes_what_it_names_and_never_the_stock,
    a_write_that_changes_what_stock_entries_show_pushes_each_of_them,
    variants_are_added_and_patched_with_one_default,
    codes_are_unique_in_the_shop_across_products_and_variants,
    every_bad_member_is_named_by_its_path,
    of_fifty_patches_carrying_one_etag_exactly_one_applies,
    a_retried_create_under_one_key_creates_one_product,
    another_shops_product_is_not_found_and_the_scope_is_required,
);

const SCOPES: &str = "products:write,products:read,stock:read,stock:write,webhooks:read";

fn create_request(
    app: &TestApp,
    key: &str,
    body: &Value,
    idempotency_key: Option<&str>,
) -> reqwest::RequestBuilder {
    app.post_request("/api/v2/products", key, body, idempotency_key)
}

async fn create(app: &TestApp, key: &str, body: &Value) -> Reply {
    app.send(create_request(app, key, body, None)).await
}

async fn patch(app: &TestApp, key: &str, path: &str, body: &Value) -> Reply {
    app.send(app.patch_request(path, key, body, None)).await
}

async fn product(app: &TestApp, key: &str, version: &str, id: &str) -> Value {
    let reply = app.get(&format!("/api/{version}/products/{id}"), key).await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    reply.json()["data"].clone()
}

/// The product's events since the import.
async fn product_events(app: &TestApp, key: &str, id: &str) -> Vec<(String, Value)> {
    events(app, key)
        .await
        .into_iter()
        .filter(|event| event["data"]["id"] == id && event["data"]["name"] != "Tasse")
        .map(|event| {
            (
                event["type"].as_str().unwrap().to_owned(),
                event["data"].clone(),
            )
        })
        .collect()
}

fn mug() -> Value {
    json!({
        "name": " Mug Atelier ", "productType": "variable", "ean": "3700000000017", "sku": "MUG",
        "priceCents": 1200, "listPriceCents": 1500, "compareAtPriceCents": 1800,
        "promoActive": true, "taxRate": "5.50", "active": true, "tags": ["kitchen", "gift"],
        "photos": ["https://cdn.example.com/mug.jpg"], "category": {"name": "Cuisine"},
        "brand": {"name": "Atelier"},
        "variants": [
            {"label": "Bleu", "sku": "MUG-B", "barcode": "3700000000024", "swatchColor": "#0000ff",
             "priceCents": 1250, "lowStockThreshold": 3, "active": true, "order": 2},
            {"label": "Rouge", "sku": "MUG-R", "isDefault": true}
        ]
    })
}

async fn a_created_product_shows_every_member_through_v1_and_v2_with_its_event(app: TestApp) {
    let key = seeded(&app, SCOPES).await;
    let reply = create(&app, &key, &mug()).await;
    assert_eq!(reply.status, 201, "{}", reply.text);
    let data = reply.json()["data"].clone();
    let id = data["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("prd_"), "{id}");
    assert_eq!(
        reply.header("location"),
        Some(format!("/api/v2/products/{id}").as_str())
    );
    let at = data["createdAt"].clone();
    let variants = data["variants"].as_array().unwrap();
    let (red, blue) = (&variants[0], &variants[1]);
    let category = data["category"]["id"].clone();
    assert!(category.as_str().unwrap().starts_with("cat_"), "{category}");
    let mut expected = json!({
        "id": id, "name": "Mug Atelier", "productType": "variable", "ean": "3700000000017",
        "sku": "MUG", "priceCents": 1200, "listPriceCents": 1500, "compareAtPriceCents": 1800,
        "promoActive": true, "taxRate": "5.50", "active": true, "trackStock": false,
        "stockQuantity": null, "tags": ["kitchen", "gift"],
        "photos": ["https://cdn.example.com/mug.jpg"],
        "category": {"id": category, "name": "Cuisine"},
        "brand": {"id": data["brand"]["id"], "name": "Atelier"},
        "variants": [
            {"id": red["id"], "label": "Rouge", "sku": "MUG-R", "barcode": null, "swatchColor": null,
             "priceCents": 1200, "stock": 0, "lowStockThreshold": 0, "isDefault": true,
             "active": true, "order": 1},
            {"id": blue["id"], "label": "Bleu", "sku": "MUG-B", "barcode": "3700000000024",
             "swatchColor": "#0000FF", "priceCents": 1250, "stock": 0, "lowStockThreshold": 3,
             "isDefault": false, "active": true, "order": 2}
        ],
        "createdAt": at, "updatedAt": at
    });
    // Each variant as the v1 representation writes it (fields it may not show are left out).
    for (shown, wanted) in data["variants"]
        .as_array()
        .unwrap()
        .iter()
        .zip(expected["variants"].as_array_mut().unwrap())
    {
        for (member, value) in shown.as_object().unwrap() {
            wanted
                .as_object_mut()
                .unwrap()
                .entry(member.clone())
                .or_insert(value.clone());
        }
    }
    assert_eq!(data, expected);
    for version in ["v1", "v2"] {
        assert_eq!(product(&app, &key, version, &id).await, data, "{version}");
    }
    let tag = reply.header("etag").unwrap().to_owned();
    let unchanged = app
        .send(
            app.client()
                .get(app.url(&format!("/api/v2/products/{id}")))
                .bearer_auth(&key)
                .header("If-None-Match", &tag),
        )
        .await;
    assert_eq!(unchanged.status, 304);
    let since = at.as_str().unwrap();
    let changed = app
        .get(&format!("/api/v1/products?updatedSince={since}"), &key)
        .await
        .json();
    let ids: Vec<&Value> = changed["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["id"])
        .collect();
    assert_eq!(ids, [&json!(id)]);
    let found = app.get("/api/v1/products?q=mug-r", &key).await.json();
    assert_eq!(
        found["data"][0]["id"],
        json!(id),
        "found by a variant's SKU: {found}"
    );
    assert_eq!(
        product_events(&app, &key, &id).await,
        [("product.created".to_owned(), data.clone())]
    );

    // A second product names the category in another case: the same one; the brand by id.
    let other = create(
        &app,
        &key,
        &json!({"name": "Bol", "priceCents": 900, "taxRate": "20.00", "category": {"name": "CUISINE"},
                "brand": {"id": data["brand"]["id"]}, "variants": [{"label": "Unique"}]}),
    )
    .await;
    assert_eq!(other.status, 201, "{}", other.text);
    let other = other.json()["data"].clone();
    assert_eq!(
        (other["category"].clone(), other["brand"].clone()),
        (data["category"].clone(), data["brand"].clone())
    );
    assert_eq!(other["productType"], "simple");
    assert_eq!(other["listPriceCents"], 900);
}

/// The product's `stock.updated` events, each entry as pushed (its `cause` apart) with the
/// cause's kind.
async fn stock_events(app: &TestApp, key: &str, id: &str) -> Vec<(String, Value)> {
    events(app, key)
        .await
        .into_iter()
        .filter(|event| event["type"] == "stock.updated" && event["data"]["productId"] == id)
        .map(|event| {
            let mut entry = event["data"].clone();
            let cause = entry.as_object_mut().unwrap().remove("cause").unwrap();
            (cause["kind"].as_str().unwrap().to_owned(), entry)
        })
        .collect()
}

async fn a_write_that_changes_what_stock_entries_show_pushes_each_of_them(app: TestApp) {
    let key = seeded(&app, SCOPES).await;
    let created = create(&app, &key, &mug()).await.json()["data"].clone();
    let id = created["id"].as_str().unwrap().to_owned();
    let entries = |listed: Value| -> Vec<Value> {
        let mut entries: Vec<Value> = listed["data"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|entry| entry["productId"] == json!(id))
            .cloned()
            .collect();
        entries.sort_by_key(|entry| entry["variantId"].as_str().unwrap().to_owned());
        entries
    };
    let listed = || app.get("/api/v1/stock?trackedOnly=false&limit=100", &key);
    let by_variant = |mut pushed: Vec<(String, Value)>| {
        pushed.sort_by_key(|(_, entry)| entry["variantId"].as_str().unwrap().to_owned());
        pushed
    };
    // Each new variant's entry, as the stock list shows it.
    let new_entries = entries(listed().await.json());
    assert_eq!(new_entries.len(), 2);
    let pushed = by_variant(stock_events(&app, &key, &id).await);
    let expected: Vec<(String, Value)> = new_entries
        .iter()
        .map(|entry| ("product".to_owned(), entry.clone()))
        .collect();
    assert_eq!(pushed, expected);

    // A rename changes every entry's `productName`: each is pushed again, stamped as the
    // product, and a price alone changes none.
    let path = format!("/api/v2/products/{id}");
    let renamed = patch(&app, &key, &path, &json!({"name": "Mug Atelier bis"})).await;
    assert_eq!(renamed.status, 200, "{}", renamed.text);
    let renamed = renamed.json()["data"].clone();
    let repriced = patch(&app, &key, &path, &json!({"priceCents": 1400})).await;
    assert_eq!(repriced.status, 200, "{}", repriced.text);
    let now_listed = entries(listed().await.json());
    assert!(
        now_listed
            .iter()
            .all(|entry| entry["productName"] == "Mug Atelier bis"
                && entry["updatedAt"] == renamed["updatedAt"]),
        "{now_listed:?}"
    );
    let pushed = stock_events(&app, &key, &id).await;
    let after_rename = by_variant(pushed[2..].to_vec());
    let expected: Vec<(String, Value)> = now_listed
        .iter()
        .map(|entry| ("product".to_owned(), entry.clone()))
        .collect();
    assert_eq!(
        after_rename, expected,
        "the rename's, and none of the price's"
    );
}

async fn a_merge_patch_changes_what_it_names_and_never_the_stock(app: TestApp) {
    let key = seeded(&app, SCOPES).await;
    let id = create(&app, &key, &mug()).await.json()["data"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let path = format!("/api/v2/products/{id}");
    let before = product(&app, &key, "v2", &id).await;
    let reply = patch(
        &app,
        &key,
        &path,
        &json!({"priceCents": 1350, "ean": null, "active": false, "brand": null, "tags": []}),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    let after = reply.json()["data"].clone();
    let mut expected = before.clone();
    expected["priceCents"] = json!(1350);
    expected["ean"] = Value::Null;
    expected["active"] = json!(false);
    expected["brand"] = Value::Null;
    expected["tags"] = json!([]);
    expected["updatedAt"] = after["updatedAt"].clone();
    assert_eq!(after, expected);
    assert_eq!(product(&app, &key, "v1", &id).await, after);
    let pushed = product_events(&app, &key, &id).await;
    assert_eq!(
        pushed.last().unwrap(),
        &("product.updated".to_owned(), after.clone())
    );

    // Resending what it has changes nothing, and writes nothing.
    let again = patch(
        &app,
        &key,
        &path,
        &json!({"priceCents": 1350, "sku": "MUG"}),
    )
    .await;
    assert_eq!(
        (again.status, again.json()["data"].clone()),
        (200, after.clone())
    );
    assert_eq!(product_events(&app, &key, &id).await.len(), pushed.len());

    // Stock and tracking are not written here; variants have their own paths.
    for (body, field) in [
        (json!({"stockQuantity": 5}), "stockQuantity"),
        (json!({"trackStock": true}), "trackStock"),
        (json!({"variants": []}), "variants"),
        (
            json!({"createdAt": "2026-01-01T00:00:00.000Z"}),
            "createdAt",
        ),
    ] {
        let refused = patch(&app, &key, &path, &body).await;
        assert_eq!(
            (refused.status, refused.detail_fields()),
            (400, vec![field.to_owned()]),
            "{body}"
        );
    }
}

async fn variants_are_added_and_patched_with_one_default(app: TestApp) {
    let key = seeded(&app, SCOPES).await;
    let created = create(&app, &key, &mug()).await.json()["data"].clone();
    let id = created["id"].as_str().unwrap().to_owned();
    let red = created["variants"][0]["id"].as_str().unwrap().to_owned();
    let added = app
        .send(app.post_request(
            &format!("/api/v2/products/{id}/variants"),
            &key,
            &json!({"label": "Vert", "sku": "MUG-V", "isDefault": true}),
            None,
        ))
        .await;
    assert_eq!(added.status, 201, "{}", added.text);
    let product_now = added.json()["data"].clone();
    let variants = product_now["variants"].as_array().unwrap();
    assert_eq!(variants.len(), 3);
    let green = variants.iter().find(|v| v["label"] == "Vert").unwrap();
    assert_eq!(
        (
            green["stock"].clone(),
            green["isDefault"].clone(),
            green["order"].clone(),
            green["priceCents"].clone()
        ),
        (json!(0), json!(true), json!(3), json!(1200))
    );
    let defaults: Vec<&Value> = variants.iter().filter(|v| v["isDefault"] == true).collect();
    assert_eq!(defaults.len(), 1, "the default moved to the new variant");
    let green = green["id"].as_str().unwrap().to_owned();
    // A new variant's stock is not tracked: the stock list leaves it out.
    let stock = app.get("/api/v1/stock?limit=100", &key).await.json();
    assert!(
        !stock["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["variantId"] == json!(green)),
        "{stock}"
    );

    // The variant's patch takes the product's tag and moves the default back.
    let tag = added.header("etag").unwrap().to_owned();
    let back = app
        .send(app.patch_request(
            &format!("/api/v2/products/{id}/variants/{red}"),
            &key,
            &json!({"isDefault": true, "label": "Rouge vif"}),
            Some(&tag),
        ))
        .await;
    assert_eq!(back.status, 200, "{}", back.text);
    let data = back.json()["data"].clone();
    let default: Vec<&Value> = data["variants"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v["isDefault"] == true)
        .map(|v| &v["label"])
        .collect();
    assert_eq!(default, [&json!("Rouge vif")]);
    assert_ne!(data["updatedAt"], product_now["updatedAt"]);
    let stale = app
        .send(app.patch_request(
            &format!("/api/v2/products/{id}/variants/{red}"),
            &key,
            &json!({"label": "X"}),
            Some(&tag),
        ))
        .await;
    assert_eq!(
        (stale.status, stale.error_code()),
        (412, "PRECONDITION_FAILED".into())
    );
    assert_eq!(stale.header("etag"), back.header("etag"));
    // The only default cannot stop being it.
    let last = patch(
        &app,
        &key,
        &format!("/api/v2/products/{id}/variants/{red}"),
        &json!({"isDefault": false}),
    )
    .await;
    assert_eq!(
        (last.status, last.detail_fields()),
        (400, vec!["isDefault".to_owned()]),
        "{}",
        last.text
    );
    let unknown = patch(
        &app,
        &key,
        &format!("/api/v2/products/{id}/variants/var_nope"),
        &json!({"label": "X"}),
    )
    .await;
    assert_eq!(unknown.status, 404);
    let read_only = patch(
        &app,
        &key,
        &format!("/api/v2/products/{id}/variants/{red}"),
        &json!({"stock": 5, "tracked": true}),
    )
    .await;
    assert_eq!(read_only.detail_fields(), ["stock", "tracked"]);

    // A product whose codes share search suffixes (`000` of `MLU-000` and of its barcodes)
    // rewrites its search index when a code goes (SQLite's triggers under an upsert).
    let codes = create(
        &app,
        &key,
        &json!({"name": "Mug", "priceCents": 1, "taxRate": "20.00", "sku": "MLU-000",
        "variants": [{"label": "A", "sku": "MLU-000-0", "barcode": "3760000000000"},
                     {"label": "B", "sku": "MLU-000-1", "barcode": "3760000000001"}]}),
    )
    .await;
    assert_eq!(codes.status, 201, "{}", codes.text);
    let codes = codes.json()["data"].clone();
    let (product_id, variant_id) = (
        codes["id"].as_str().unwrap(),
        codes["variants"][1]["id"].as_str().unwrap(),
    );
    let cleared = patch(
        &app,
        &key,
        &format!("/api/v2/products/{product_id}/variants/{variant_id}"),
        &json!({"sku": null}),
    )
    .await;
    assert_eq!(cleared.status, 200, "{}", cleared.text);
    let found = app.get("/api/v1/products?q=mlu-000-0", &key).await.json();
    assert_eq!(
        found["data"][0]["id"],
        json!(product_id),
        "still found by its other codes"
    );
}

async fn codes_are_unique_in_the_shop_across_products_and_variants(app: TestApp) {
    let key = seeded(&app, SCOPES).await;
    let created = create(&app, &key, &mug()).await.json()["data"].clone();
    let blue = created["variants"][1]["id"].clone();
    let holder = |reply: &Reply| {
        (
            reply.status,
            reply.json()["error"]["details"][0]["field"].clone(),
            reply.json()["error"]["details"][0]["holderId"].clone(),
        )
    };
    // A product's SKU that a variant holds, a variant's barcode that a product's EAN is.
    let taken = create(&app, &key, &json!({"name": "Copie", "priceCents": 1, "taxRate": "20.00", "sku": "MUG-B", "variants": [{"label": "U"}]})).await;
    assert_eq!(
        holder(&taken),
        (409, json!("sku"), blue.clone()),
        "{}",
        taken.text
    );
    let ean = create(&app, &key, &json!({"name": "Copie", "priceCents": 1, "taxRate": "20.00", "variants": [{"label": "U", "barcode": "3700000000017"}]})).await;
    assert_eq!(
        holder(&ean),
        (409, json!("variants[0].barcode"), created["id"].clone())
    );
    // Two equal codes in one body are a 400 naming the second.
    let twice = create(&app, &key, &json!({"name": "Double", "priceCents": 1, "taxRate": "20.00", "sku": "X-1", "variants": [{"label": "A", "sku": "X-1"}]})).await;
    assert_eq!(
        (twice.status, twice.detail_fields()),
        (400, vec!["variants[0].sku".to_owned()]),
        "{}",
        twice.text
    );
    // Resending one's own code is no conflict; taking another's is.
    let id = created["id"].as_str().unwrap();
    let own = patch(
        &app,
        &key,
        &format!("/api/v2/products/{id}"),
        &json!({"sku": "MUG"}),
    )
    .await;
    assert_eq!(own.status, 200, "{}", own.text);
    let red = created["variants"][0]["id"].as_str().unwrap();
    let steal = patch(
        &app,
        &key,
        &format!("/api/v2/products/{id}/variants/{red}"),
        &json!({"sku": "MUG-B"}),
    )
    .await;
    assert_eq!(holder(&steal), (409, json!("sku"), blue));
    // Another shop may hold the same codes.
    app.create_shop("other").await;
    let other = app.create_key("other", SCOPES).await;
    assert_eq!(create(&app, &other, &mug()).await.status, 201);
    // Twenty creates of one new SKU at once: one product has it.
    let requests = (0..20)
        .map(|n| create_request(&app, &key, &json!({"name": format!("Twin {n}"), "priceCents": 1, "taxRate": "20.00", "sku": "TWIN", "variants": [{"label": "U"}]}), None))
        .collect();
    let statuses: Vec<u16> = app
        .send_all_at_once(requests)
        .await
        .iter()
        .map(|r| r.status)
        .collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 201).count(),
        1,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 409).count(),
        19,
        "{statuses:?}"
    );
}

async fn every_bad_member_is_named_by_its_path(app: TestApp) {
    let key = seeded(&app, SCOPES).await;
    let cases = [
        (json!({}), vec!["name", "priceCents", "taxRate", "variants"]),
        (
            json!({"name": "A", "priceCents": -1, "taxRate": "20", "variants": [{"label": "x".repeat(201), "stock": 4, "swatchColor": "blue"}, {}]}),
            vec![
                "variants[0].stock",
                "variants[1].label",
                "priceCents",
                "taxRate",
                "variants[0].label",
                "variants[0].swatchColor",
            ],
        ),
        (
            json!({"name": "A", "priceCents": 1_000_000_000_001_i64, "taxRate": "20.00", "photos": ["http://x.example/a.jpg"], "variants": [{"label": "U"}], "trackStock": true}),
            vec!["trackStock", "priceCents", "photos[0]"],
        ),
        (
            json!({"name": "A", "priceCents": 1, "taxRate": "20.00", "variants": [], "category": {"id": "c", "name": "n"}}),
            vec!["variants", "category"],
        ),
        (
            json!({"name": "A", "priceCents": 1, "taxRate": "20.00", "sku": "s".repeat(65), "tags": (0..51).map(|n| n.to_string()).collect::<Vec<_>>(), "variants": [{"label": "U"}]}),
            vec!["sku", "tags"],
        ),
    ];
    for (body, fields) in cases {
        let reply = create(&app, &key, &body).await;
        let mut found = reply.detail_fields();
        let mut wanted: Vec<String> = fields.iter().map(|f| f.to_string()).collect();
        found.sort();
        wanted.sort();
        assert_eq!(
            (reply.status, reply.error_code(), found),
            (400, "VALIDATION_ERROR".to_owned(), wanted),
            "{body}: {}",
            reply.text
        );
    }
    let unknown = create(&app, &key, &json!({"name": "A", "priceCents": 1, "taxRate": "20.00", "category": {"id": "cat_nope"}, "variants": [{"label": "U"}]})).await;
    assert_eq!(
        (unknown.status, unknown.detail_fields()),
        (400, vec!["category.id".to_owned()]),
        "{}",
        unknown.text
    );
    let listed = app.get("/api/v1/products?limit=100", &key).await.json();
    assert_eq!(
        listed["data"].as_array().unwrap().len(),
        1,
        "nothing was created"
    );
}

const PATCHES: usize = 50;

async fn of_fifty_patches_carrying_one_etag_exactly_one_applies(app: TestApp) {
    let key = seeded(&app, SCOPES).await;
    let read = app.get("/api/v2/products/p_sale", &key).await;
    let tag = read.header("etag").unwrap().to_owned();
    let requests = (0..PATCHES)
        .map(|n| {
            app.patch_request(
                "/api/v2/products/p_sale",
                &key,
                &json!({"priceCents": 500 + n}),
                Some(&tag),
            )
        })
        .collect();
    let replies = app.send_all_at_once(requests).await;
    let statuses: Vec<u16> = replies.iter().map(|r| r.status).collect();
    let applied: Vec<&Reply> = replies.iter().filter(|r| r.status == 200).collect();
    assert_eq!(
        (
            applied.len(),
            statuses.iter().filter(|s| **s == 412).count()
        ),
        (1, PATCHES - 1),
        "{statuses:?}"
    );
    let current = applied[0].header("etag").unwrap();
    assert!(
        replies
            .iter()
            .filter(|r| r.status == 412)
            .all(|r| r.header("etag") == Some(current))
    );
    assert_eq!(
        product(&app, &key, "v2", "p_sale").await,
        applied[0].json()["data"]
    );

    // A stock adjustment changes the product's tag: a patch holding the old one fails.
    let tracked = app
        .adjust(
            &key,
            &json!({"variantId": "v_blue", "quantity": 2, "reason": "count"}),
            None,
        )
        .await;
    if tracked.status == 201 {
        let stale = app
            .send(app.patch_request(
                "/api/v2/products/p_sale",
                &key,
                &json!({"name": "T"}),
                Some(current),
            ))
            .await;
        assert_eq!(stale.status, 412, "the stock is part of the product's tag");
    }
}

async fn a_retried_create_under_one_key_creates_one_product(app: TestApp) {
    let key = seeded(&app, SCOPES).await;
    let first = app
        .send(create_request(&app, &key, &mug(), Some("erp-mug")))
        .await;
    assert_eq!(first.status, 201, "{}", first.text);
    let again = app
        .send(create_request(&app, &key, &mug(), Some("erp-mug")))
        .await;
    assert_eq!(
        (again.status, again.header("idempotent-replayed")),
        (201, Some("true"))
    );
    assert_eq!(again.json(), first.json());
    let other = app.send(create_request(&app, &key, &json!({"name": "Autre", "priceCents": 1, "taxRate": "20.00", "variants": [{"label": "U"}]}), Some("erp-mug"))).await;
    assert_eq!(
        (other.status, other.error_code()),
        (422, "IDEMPOTENCY_KEY_REUSED".into())
    );
    let id = first.json()["data"]["id"].as_str().unwrap().to_owned();
    let variant = json!({"label": "Jaune"});
    let path = format!("/api/v2/products/{id}/variants");
    let requests = (0..10)
        .map(|_| app.post_request(&path, &key, &variant, Some("erp-jaune")))
        .collect();
    for reply in app.send_all_at_once(requests).await {
        assert_eq!(reply.status, 201, "{}", reply.text);
    }
    let variants = product(&app, &key, "v2", &id).await["variants"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(variants, 3, "one variant added under one key");
}

async fn another_shops_product_is_not_found_and_the_scope_is_required(app: TestApp) {
    let key = seeded(&app, SCOPES).await;
    app.create_shop("other").await;
    let other = app.create_key("other", SCOPES).await;
    let reply = patch(
        &app,
        &other,
        "/api/v2/products/p_sale",
        &json!({"name": "Stolen"}),
    )
    .await;
    assert_eq!(
        (reply.status, reply.error_code()),
        (404, "NOT_FOUND".into())
    );
    let variant = patch(
        &app,
        &other,
        "/api/v2/products/p_sale/variants/v_blue",
        &json!({"label": "X"}),
    )
    .await;
    assert_eq!(variant.status, 404);
    let add = app
        .send(app.post_request(
            "/api/v2/products/p_sale/variants",
            &other,
            &json!({"label": "X"}),
            None,
        ))
        .await;
    assert_eq!(add.status, 404);
    assert_eq!(product(&app, &key, "v1", "p_sale").await["name"], "Tasse");
    let reader = app.create_key("atelier", "products:read").await;
    let forbidden = create(&app, &reader, &mug()).await;
    assert_eq!(
        (forbidden.status, forbidden.error_code()),
        (403, "INSUFFICIENT_SCOPE".into())
    );
    let v1 = app
        .send(app.post_request("/api/v1/products", &key, &mug(), None))
        .await;
    assert_eq!(v1.status, 405, "v1 has no product writes");
}
