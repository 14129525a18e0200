use super::*;
use crate::catalogue::product::fixtures::{product, variant};
use crate::catalogue::{CategoryRef, Product};
use crate::id::CategoryId;
use crate::money::Cents;
use crate::tax_rate::TaxRate;

fn stored() -> Product {
    product(vec![variant("a", 0, 3, true), variant("b", 1, 0, true)])
}

fn patch(input: ProductInput) -> ProductPatch {
    ProductPatch::try_from(input).unwrap()
}

#[test]
fn an_empty_patch_changes_nothing() {
    let empty = patch(ProductInput::default());
    assert_eq!(empty, ProductPatch::default());
    let before = stored();
    assert_eq!(empty.apply(&before), before);
    assert!(ProductPatch::changed_members(&before, &empty.apply(&before)).is_empty());
}

#[test]
fn a_patch_carrying_variants_is_refused_whatever_they_hold() {
    for variants in [vec![], vec![variant_input("x")]] {
        let input = ProductInput {
            variants: Some(variants),
            ..ProductInput::default()
        };
        let problems = ProductPatch::try_from(input).unwrap_err();
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].path, "variants");
        assert!(problems[0].message.contains("/products/{id}/variants"));
    }
}

#[test]
fn null_and_blank_clear_the_nullable_members_and_absent_keeps_them() {
    let cleared = patch(ProductInput {
        ean: Some(None),
        sku: text("  "),
        compare_at_price_cents: Some(None),
        category: Some(None),
        brand: Some(None),
        ..ProductInput::default()
    });
    assert_eq!((&cleared.ean, &cleared.sku), (&Some(None), &Some(None)));
    assert_eq!(cleared.compare_at_price, Some(None));
    assert_eq!(
        (&cleared.category, &cleared.brand),
        (&Some(None), &Some(None))
    );
    assert_eq!(
        (&cleared.name, &cleared.price, &cleared.tags),
        (&None, &None, &None)
    );
    let mut before = stored();
    before.compare_at_price = Some(Cents(3_000));
    let after = cleared.apply(&before);
    assert_eq!(
        (&after.ean, &after.sku, after.compare_at_price),
        (&None, &None, None)
    );
    assert_eq!(
        ProductPatch::changed_members(&before, &after),
        ["ean", "sku", "compareAtPriceCents"]
    );
}

#[test]
fn a_patch_changes_only_the_members_it_gives() {
    let given = patch(ProductInput {
        name: Some(" Écharpe rouge ".to_owned()),
        price_cents: Some(1_900),
        tax_rate: Some("5.50".to_owned()),
        tags: strings(&["hiver"]),
        photos: strings(&["https://cdn.example/e.jpg"]),
        promo_active: Some(true),
        ..ProductInput::default()
    });
    let before = stored();
    let after = given.apply(&before);
    assert_eq!(after.name, "Écharpe rouge");
    assert_eq!(after.price, Cents(1_900));
    // `listPriceCents` does not follow `priceCents`.
    assert_eq!(after.list_price, before.list_price);
    assert_eq!(after.tax_rate, TaxRate::parse("5.50").unwrap());
    assert_eq!(
        (after.sku.clone(), after.ean.clone()),
        (before.sku.clone(), before.ean.clone())
    );
    assert_eq!(after.variants, before.variants);
    assert_eq!(
        ProductPatch::changed_members(&before, &after),
        [
            "name",
            "priceCents",
            "promoActive",
            "taxRate",
            "tags",
            "photos"
        ]
    );
}

#[test]
fn a_patch_resending_the_current_values_changes_nothing() {
    let before = stored();
    let resent = patch(ProductInput {
        name: Some(format!(" {} ", before.name)),
        product_type: Some(before.product_type.clone()),
        ean: Some(before.ean.clone()),
        sku: Some(before.sku.clone()),
        price_cents: Some(before.price.get()),
        list_price_cents: Some(before.list_price.get()),
        compare_at_price_cents: Some(None),
        promo_active: Some(before.promo_active),
        tax_rate: Some(before.tax_rate.to_string()),
        active: Some(before.active),
        tags: Some(before.tags.clone()),
        photos: Some(before.photos.clone()),
        ..ProductInput::default()
    });
    let after = resent.apply(&before);
    assert_eq!(after, before);
    assert!(ProductPatch::changed_members(&before, &after).is_empty());
}

#[test]
fn category_and_brand_are_left_to_persistence_and_compared_by_id() {
    let linking = patch(ProductInput {
        category: Some(Some(ReferenceInput {
            id: None,
            name: Some("Laine".to_owned()),
        })),
        ..ProductInput::default()
    });
    assert_eq!(
        linking.category,
        Some(Some(CatalogueReference::Name("Laine".to_owned())))
    );
    let before = stored();
    let mut after = linking.apply(&before);
    assert_eq!(after.category, None, "resolution is persistence's");
    let laine = |name: &str| CategoryRef {
        id: CategoryId::parse("cat_1").unwrap(),
        name: name.into(),
    };
    after.category = Some(laine("Laine"));
    assert_eq!(ProductPatch::changed_members(&before, &after), ["category"]);
    // The same row under another spelling of its name is no change.
    let mut linked = before.clone();
    linked.category = Some(laine("laine"));
    assert!(ProductPatch::changed_members(&after, &linked).is_empty());
}

#[test]
fn a_patch_holds_each_given_member_to_the_create_rules() {
    let input = ProductInput {
        name: Some("x".repeat(201)),
        sku: text(&"s".repeat(65)),
        list_price_cents: Some(-1),
        compare_at_price_cents: Some(Some(1_000_000_000_001)),
        tax_rate: Some("100.01".to_owned()),
        photos: strings(&["ftp://cdn.example/a.jpg"]),
        brand: Some(Some(ReferenceInput {
            id: Some("b".into()),
            name: Some("B".into()),
        })),
        ..ProductInput::default()
    };
    assert_eq!(
        paths(ProductPatch::try_from(input)),
        [
            "name",
            "sku",
            "listPriceCents",
            "compareAtPriceCents",
            "taxRate",
            "photos[0]",
            "brand"
        ]
    );
}
