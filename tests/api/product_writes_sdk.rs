//! API v2's product writes through the typed client (`shop-api-client`) against the real
//! server: an idempotent create and its replay, merge patches made conditional by the tag a
//! write hands back and a stale tag's 412 with the current one, the read-modify-write loop
//! under a concurrent change, a variant added and patched under its product's tag, and the 409
//! that names a code's holder.

use shop_api_client::{
    ActiveFilter, ApiError, Client, Conditional, ErrorCode, Patch, ProductDraft, ProductPatch,
    ProductQuery, Reference, VariantDraft, VariantPatch,
};

use crate::orders::seeded;
use crate::support::{TestApp, on_both_databases};

on_both_databases!(
    a_create_under_a_key_is_replayed_and_makes_one_product,
    a_patch_carries_the_tag_of_the_create_and_a_stale_tag_gets_the_current_one,
    modify_product_keeps_a_concurrent_change,
    a_variant_is_added_and_patched_under_the_products_tag,
    a_taken_sku_names_its_holder,
);

const SCOPES: &str = "products:write,products:read";

fn client_of(app: &TestApp, key: &str) -> Client {
    Client::new(app.url(""), key).unwrap()
}

/// A mug with two variants; the second, red, is the default.
fn mug() -> ProductDraft {
    ProductDraft {
        product_type: Some("variable".to_owned()),
        ean: Some("3700000000017".to_owned()),
        sku: Some("MUG".to_owned()),
        list_price_cents: Some(1500),
        compare_at_price_cents: Some(1800),
        promo_active: Some(true),
        tags: vec!["kitchen".to_owned(), "gift".to_owned()],
        photos: vec!["https://cdn.example.com/mug.jpg".to_owned()],
        category: Some(Reference::Name("Cuisine".to_owned())),
        brand: Some(Reference::Name("Atelier".to_owned())),
        ..ProductDraft::new(
            " Mug Atelier ",
            1200,
            "5.50",
            vec![
                VariantDraft {
                    sku: Some("MUG-B".to_owned()),
                    barcode: Some("3700000000024".to_owned()),
                    swatch_color: Some("#0000ff".to_owned()),
                    price_cents: Some(1250),
                    low_stock_threshold: Some(3),
                    order: Some(2),
                    ..VariantDraft::new("Bleu")
                },
                VariantDraft {
                    sku: Some("MUG-R".to_owned()),
                    is_default: Some(true),
                    ..VariantDraft::new("Rouge")
                },
            ],
        )
    }
}

/// How many products of the shop, active or not, have this name.
async fn named(api: &Client, name: &str) -> usize {
    let query = ProductQuery {
        limit: Some(100),
        active: Some(ActiveFilter::All),
        ..ProductQuery::default()
    };
    let page = api.products(query).await.unwrap();
    assert!(!page.page_info.has_more);
    page.data.iter().filter(|p| p.name == name).count()
}

async fn a_create_under_a_key_is_replayed_and_makes_one_product(app: TestApp) {
    let key = seeded(&app, SCOPES).await;
    let api = client_of(&app, &key);
    let first = api
        .create_product_with_key(&mug(), "erp-mug")
        .await
        .unwrap();
    assert!(!first.replayed);
    assert_eq!(first.idempotency_key.as_deref(), Some("erp-mug"));
    let created = &first.data;
    assert!(created.id.starts_with("prd_"), "{}", created.id);
    assert_eq!(
        (
            created.name.as_str(),
            created.product_type.as_str(),
            created.ean.as_deref(),
            created.sku.as_deref(),
            created.price_cents,
            created.list_price_cents,
            created.compare_at_price_cents,
            created.promo_active,
            created.tax_rate.as_str(),
            created.active,
            created.track_stock,
        ),
        (
            "Mug Atelier",
            "variable",
            Some("3700000000017"),
            Some("MUG"),
            1200,
            1500,
            Some(1800),
            true,
            "5.50",
            true,
            false,
        )
    );
    assert_eq!(created.tags, ["kitchen", "gift"]);
    assert_eq!(
        (
            created.category.as_ref().map(|c| c.name.as_str()),
            created.brand.as_ref().map(|b| b.name.as_str())
        ),
        (Some("Cuisine"), Some("Atelier"))
    );
    let variants: Vec<_> = created
        .variants
        .iter()
        .map(|v| {
            (
                v.label.as_str(),
                v.sku.as_deref(),
                v.swatch_color.as_deref(),
                v.price_cents,
                v.stock,
                v.is_default,
            )
        })
        .collect();
    assert_eq!(
        variants,
        [
            ("Rouge", Some("MUG-R"), None, 1200, 0, true),
            ("Bleu", Some("MUG-B"), Some("#0000FF"), 1250, 0, false),
        ]
    );
    let tag = first.etag.clone().expect("a create answers its ETag");
    assert_eq!(tag.len(), 34, "a strong tag: {tag}");

    // The same key and draft: the same product, replayed; nothing more is created.
    let again = api
        .create_product_with_key(&mug(), "erp-mug")
        .await
        .unwrap();
    assert!(again.replayed);
    assert_eq!(again.data, first.data);
    assert_eq!(again.etag, first.etag);
    assert_eq!(named(&api, "Mug Atelier").await, 1, "one product exists");
    // The create's tag is the read's.
    assert_eq!(
        api.product_if_changed(&created.id, Some(&tag))
            .await
            .unwrap(),
        Conditional::NotModified
    );
    // Another draft under the key is refused.
    let other = ProductDraft::new("Autre", 1, "20.00", vec![VariantDraft::new("U")]);
    let reused = api
        .create_product_with_key(&other, "erp-mug")
        .await
        .unwrap_err();
    assert_eq!(reused.code(), Some(&ErrorCode::IdempotencyKeyReused));

    // Without a key of ours, each call gets its own: two calls, two products, the defaults.
    let one = api.create_product(&other).await.unwrap();
    let two = api.create_product(&other).await.unwrap();
    assert_ne!(one.idempotency_key, two.idempotency_key);
    assert_ne!(one.data.id, two.data.id);
    assert_eq!(
        (
            one.data.product_type.as_str(),
            one.data.list_price_cents,
            one.data.promo_active,
            one.data.active,
            one.data.variants[0].is_default,
        ),
        ("simple", 1, false, true, true)
    );
    assert_eq!(named(&api, "Autre").await, 2);
}

async fn a_patch_carries_the_tag_of_the_create_and_a_stale_tag_gets_the_current_one(app: TestApp) {
    let key = seeded(&app, SCOPES).await;
    let api = client_of(&app, &key);
    let created = api.create_product(&mug()).await.unwrap();
    let id = created.data.id.clone();
    let created_tag = created.etag.unwrap();

    let patch = ProductPatch {
        price_cents: Some(1350),
        ean: Patch::Clear,
        compare_at_price_cents: Patch::Clear,
        brand: Patch::Clear,
        tags: Some(vec![]),
        ..ProductPatch::default()
    };
    let patched = api
        .update_product(&id, &patch, Some(&created_tag))
        .await
        .unwrap();
    let product = &patched.data;
    assert_eq!(
        (
            product.price_cents,
            product.ean.as_deref(),
            product.compare_at_price_cents,
            product.brand.is_none(),
            product.tags.len()
        ),
        (1350, None, None, true, 0)
    );
    assert_eq!(
        (
            product.list_price_cents,
            product.sku.as_deref(),
            product.category.as_ref().map(|c| c.name.as_str())
        ),
        (1500, Some("MUG"), Some("Cuisine")),
        "what the patch does not name stays"
    );
    let current_tag = patched.etag.clone().unwrap();
    assert_ne!(current_tag, created_tag);
    assert_eq!(api.product(&id).await.unwrap(), patched.data);

    // The create's tag is stale now: refused with the current tag, and nothing changes; a
    // variant's patch holding it too.
    let rename = ProductPatch {
        name: Some("Someone else's".to_owned()),
        ..ProductPatch::default()
    };
    let stale = api
        .update_product(&id, &rename, Some(&created_tag))
        .await
        .unwrap_err();
    assert!(
        matches!(
            &stale,
            ApiError::PreconditionFailed {
                maybe_applied: false,
                ..
            }
        ),
        "{stale:?}"
    );
    assert_eq!(
        (stale.code(), stale.status(), stale.current_etag()),
        (
            Some(&ErrorCode::PreconditionFailed),
            Some(412),
            Some(current_tag.as_str())
        )
    );
    let red = &created.data.variants[0].id;
    let stale_variant = api
        .update_variant(
            &id,
            red,
            &VariantPatch {
                label: Some("X".to_owned()),
                ..VariantPatch::default()
            },
            Some(&created_tag),
        )
        .await
        .unwrap_err();
    assert_eq!(stale_variant.current_etag(), Some(current_tag.as_str()));
    assert_eq!(api.product(&id).await.unwrap(), patched.data);

    // With the current tag it applies; an empty patch changes nothing, not even the tag.
    let renamed = api
        .update_product(&id, &rename, stale.current_etag())
        .await
        .unwrap();
    assert_eq!(renamed.data.name, "Someone else's");
    let nothing = api
        .update_product(&id, &ProductPatch::default(), renamed.etag.as_deref())
        .await
        .unwrap();
    assert_eq!((nothing.data, nothing.etag), (renamed.data, renamed.etag));

    let missing = api
        .update_product("prd_nobody", &ProductPatch::default(), None)
        .await
        .unwrap_err();
    assert_eq!(missing.code(), Some(&ErrorCode::NotFound));
}

async fn modify_product_keeps_a_concurrent_change(app: TestApp) {
    let key = seeded(&app, SCOPES).await;
    let api = client_of(&app, &key);
    let other = client_of(&app, &key);
    let mut calls = 0;
    let written = api
        .modify_product("p_sale", |current| {
            calls += 1;
            if calls == 1 {
                // Another program writes between this read and the patch; the patch made
                // on the first read must not undo it.
                tokio::task::block_in_place(|| {
                    tokio::runtime::Handle::current().block_on(async {
                        let theirs = ProductPatch {
                            tags: Some(vec!["b2b".to_owned()]),
                            price_cents: Some(990),
                            ..ProductPatch::default()
                        };
                        other.update_product("p_sale", &theirs, None).await.unwrap();
                    });
                });
            }
            let mut tags = current.tags.clone();
            tags.push("promo".to_owned());
            ProductPatch {
                tags: Some(tags),
                ..ProductPatch::default()
            }
        })
        .await
        .unwrap();
    assert_eq!(calls, 2, "the 412 made it read again");
    assert_eq!(
        (written.data.tags.clone(), written.data.price_cents),
        (vec!["b2b".to_owned(), "promo".to_owned()], 990),
        "both changes are applied"
    );
    assert_eq!(api.product("p_sale").await.unwrap(), written.data);
    // Nothing left to change: nothing is written, and the tag stays.
    let unchanged = api
        .modify_product("p_sale", |_| ProductPatch::default())
        .await
        .unwrap();
    assert_eq!(unchanged.etag, written.etag);
}

async fn a_variant_is_added_and_patched_under_the_products_tag(app: TestApp) {
    let key = seeded(&app, SCOPES).await;
    let api = client_of(&app, &key);
    let created = api.create_product(&mug()).await.unwrap();
    let id = created.data.id.clone();
    let red = created.data.variants[0].id.clone();

    let green = VariantDraft {
        sku: Some("MUG-V".to_owned()),
        is_default: Some(true),
        ..VariantDraft::new("Vert")
    };
    let added = api
        .add_variant_with_key(&id, &green, "erp-vert")
        .await
        .unwrap();
    assert!(!added.replayed);
    let variants = &added.data.variants;
    assert_eq!(variants.len(), 3);
    let new = variants.iter().find(|v| v.label == "Vert").unwrap();
    assert_eq!(
        (new.stock, new.is_default, new.order, new.price_cents),
        (0, true, 3, 1200)
    );
    assert_eq!(
        variants.iter().filter(|v| v.is_default).count(),
        1,
        "the default moved to the new variant"
    );
    assert_ne!(added.etag, created.etag);
    // Retried under its key, it is added once.
    let again = api
        .add_variant_with_key(&id, &green, "erp-vert")
        .await
        .unwrap();
    assert!(again.replayed);
    assert_eq!(again.data.variants.len(), 3);

    // The variant's patch takes the product's tag, and moves the default back.
    let tag = added.etag.clone().unwrap();
    let back = api
        .update_variant(
            &id,
            &red,
            &VariantPatch {
                is_default: Some(true),
                label: Some("Rouge vif".to_owned()),
                sku: Patch::Clear,
                ..VariantPatch::default()
            },
            Some(&tag),
        )
        .await
        .unwrap();
    let defaults: Vec<(&str, Option<&str>)> = back
        .data
        .variants
        .iter()
        .filter(|v| v.is_default)
        .map(|v| (v.label.as_str(), v.sku.as_deref()))
        .collect();
    assert_eq!(defaults, [("Rouge vif", None)]);
    let current = back.etag.clone().unwrap();
    assert_ne!(current, tag);
    // The tag it held is the product's, now stale.
    let stale = api
        .update_variant(
            &id,
            &red,
            &VariantPatch {
                label: Some("X".to_owned()),
                ..VariantPatch::default()
            },
            Some(&tag),
        )
        .await
        .unwrap_err();
    assert_eq!(stale.current_etag(), Some(current.as_str()));
    // The loop of a variant reads the product and patches the variant under its tag.
    let modified = api
        .modify_variant(&id, &red, |product| {
            let variant = product.variants.iter().find(|v| v.id == red).unwrap();
            VariantPatch {
                price_cents: Some(variant.price_cents + 100),
                ..VariantPatch::default()
            }
        })
        .await
        .unwrap();
    let red_now = modified.data.variants.iter().find(|v| v.id == red).unwrap();
    assert_eq!(
        (red_now.label.as_str(), red_now.price_cents),
        ("Rouge vif", 1300)
    );
    assert_eq!(api.product(&id).await.unwrap(), modified.data);
    // The only default cannot stop being it.
    let last = api
        .update_variant(
            &id,
            &red,
            &VariantPatch {
                is_default: Some(false),
                ..VariantPatch::default()
            },
            None,
        )
        .await
        .unwrap_err();
    let ApiError::Api {
        status, details, ..
    } = &last
    else {
        panic!("{last:?}");
    };
    assert_eq!((*status, details[0].field.as_str()), (400, "isDefault"));
}

async fn a_taken_sku_names_its_holder(app: TestApp) {
    let key = seeded(&app, SCOPES).await;
    let api = client_of(&app, &key);
    let created = api.create_product(&mug()).await.unwrap();
    let id = created.data.id.clone();
    let (red, blue) = (&created.data.variants[0].id, &created.data.variants[1].id);

    // A product's SKU that a variant holds.
    let copy = ProductDraft {
        sku: Some("MUG-B".to_owned()),
        ..ProductDraft::new("Copie", 1, "20.00", vec![VariantDraft::new("U")])
    };
    let taken = api
        .create_product_with_key(&copy, "erp-copie")
        .await
        .unwrap_err();
    assert_eq!(
        (taken.status(), taken.code(), taken.conflict_holder()),
        (Some(409), Some(&ErrorCode::Conflict), Some(blue.as_str()))
    );
    let ApiError::Api { details, .. } = &taken else {
        panic!("{taken:?}");
    };
    assert_eq!((details.len(), details[0].field.as_str()), (1, "sku"));
    // A refusal under a key is replayed as a refusal; nothing was created.
    let again = api
        .create_product_with_key(&copy, "erp-copie")
        .await
        .unwrap_err();
    assert_eq!(again.conflict_holder(), Some(blue.as_str()));
    assert_eq!(named(&api, "Copie").await, 0);

    // A variant's SKU that the product holds, in a patch; and one's own code is no conflict.
    let steal = api
        .update_variant(
            &id,
            red,
            &VariantPatch {
                sku: Patch::Set("MUG".to_owned()),
                ..VariantPatch::default()
            },
            None,
        )
        .await
        .unwrap_err();
    assert_eq!(steal.conflict_holder(), Some(id.as_str()));
    let own = api
        .update_product(
            &id,
            &ProductPatch {
                sku: Patch::Set("MUG".to_owned()),
                ..ProductPatch::default()
            },
            None,
        )
        .await
        .unwrap();
    assert_eq!(own.data, api.product(&id).await.unwrap());
    assert_eq!(own.data.variants[0].sku.as_deref(), Some("MUG-R"));
}
