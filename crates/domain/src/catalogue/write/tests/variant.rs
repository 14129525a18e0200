use super::*;
use crate::catalogue::Product;
use crate::catalogue::product::fixtures::{product, variant};
use crate::id::VariantId;
use crate::money::Cents;

fn stored() -> Product {
    product(vec![variant("a", 0, 3, true), variant("b", 4, 0, true)])
}

fn id(text: &str) -> VariantId {
    VariantId::parse(text).unwrap()
}

#[test]
fn a_new_variants_members_are_bounded_at_their_edges() {
    let ok = VariantInput {
        sku: text(&"S".repeat(64)),
        barcode: text(&"4".repeat(64)),
        price_cents: Some(MAX_PRICE_CENTS),
        low_stock_threshold: Some(1_000_000_000_000),
        order: Some(i64::from(MAX_VARIANT_ORDER)),
        swatch_color: text(" #a1b2c3 "),
        ..variant_input(&"é".repeat(200))
    };
    let new = NewVariant::try_from(ok).unwrap();
    assert_eq!(new.swatch_color.unwrap().as_str(), "#A1B2C3");
    assert_eq!(
        (new.order, new.low_stock_threshold),
        (Some(10_000), 1_000_000_000_000)
    );
    let too_far = VariantInput {
        sku: text(&"S".repeat(65)),
        barcode: text(&"4".repeat(65)),
        swatch_color: text("#abc"),
        price_cents: Some(MAX_PRICE_CENTS + 1),
        low_stock_threshold: Some(1_000_000_000_001),
        order: Some(10_001),
        ..variant_input(&"é".repeat(201))
    };
    assert_eq!(
        paths(NewVariant::try_from(too_far)),
        [
            "label",
            "sku",
            "barcode",
            "swatchColor",
            "priceCents",
            "lowStockThreshold",
            "order"
        ]
    );
    let below = VariantInput {
        low_stock_threshold: Some(-1),
        order: Some(-1),
        price_cents: Some(-1),
        ..variant_input("x")
    };
    let problems = NewVariant::try_from(below).unwrap_err();
    let messages: Vec<_> = problems.iter().map(|p| p.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "must be between 0 and 1000000000000",
            "must be between 0 and 1000000000000",
            "must be between 0 and 10000",
        ]
    );
    assert_eq!(
        paths(NewVariant::try_from(VariantInput {
            order: Some(i64::MAX),
            ..variant_input("x")
        })),
        ["order"]
    );
}

#[test]
fn a_new_variant_needs_a_label_whose_absence_the_reader_reported() {
    assert_eq!(NewVariant::try_from(VariantInput::default()), Err(vec![]));
    assert_eq!(
        message(NewVariant::try_from(variant_input(" "))),
        "must not be empty"
    );
}

#[test]
fn a_variants_problems_in_a_create_are_named_under_its_index() {
    let input = with_variants(vec![
        variant_input("ok"),
        variant_input("ok too"),
        VariantInput {
            barcode: text("a\u{1}"),
            swatch_color: text("red"),
            ..variant_input("")
        },
    ]);
    assert_eq!(
        paths(NewProduct::try_from(input)),
        [
            "variants[2].label",
            "variants[2].barcode",
            "variants[2].swatchColor"
        ]
    );
}

#[test]
fn a_variant_patch_clears_nullable_members_and_refuses_nothing_else() {
    let cleared = VariantPatch::try_from(VariantInput {
        sku: Some(None),
        barcode: text(" "),
        swatch_color: Some(None),
        ..VariantInput::default()
    })
    .unwrap();
    assert_eq!(
        (&cleared.sku, &cleared.barcode, &cleared.swatch_color),
        (&Some(None), &Some(None), &Some(None))
    );
    assert_eq!(
        (&cleared.label, cleared.price, cleared.order),
        (&None, None, None)
    );
    let patched = cleared.apply(&stored(), &id("a")).unwrap();
    let a = patched
        .product
        .variants
        .iter()
        .find(|v| v.id == id("a"))
        .unwrap();
    assert_eq!((&a.sku, &a.barcode), (&None, &None));
    assert_eq!(patched.changed, ["sku", "barcode"]);
}

#[test]
fn a_variant_patch_changes_what_it_gives_and_keeps_display_order() {
    let moved = VariantPatch::try_from(VariantInput {
        label: Some(" Grand ".to_owned()),
        price_cents: Some(1_200),
        order: Some(9),
        active: Some(false),
        ..VariantInput::default()
    })
    .unwrap();
    let before = stored();
    let patched = moved.apply(&before, &id("a")).unwrap();
    let order: Vec<_> = patched
        .product
        .variants
        .iter()
        .map(|v| v.id.as_str())
        .collect();
    assert_eq!(order, ["b", "a"]);
    let a = &patched.product.variants[1];
    assert_eq!(
        (a.label.as_str(), a.price, a.order, a.active),
        ("Grand", Cents(1_200), 9, false)
    );
    assert_eq!(
        (a.stock, a.tracked),
        (3, true),
        "stock and tracking are not the patch's"
    );
    assert_eq!(patched.changed, ["label", "priceCents", "active", "order"]);
    assert!(!patched.changes_nothing());
}

#[test]
fn a_variant_patch_resending_the_current_values_changes_nothing() {
    let before = stored();
    let a = &before.variants[0];
    let resent = VariantPatch::try_from(VariantInput {
        label: Some(a.label.clone()),
        sku: Some(a.sku.clone()),
        barcode: Some(a.barcode.clone()),
        swatch_color: Some(None),
        price_cents: Some(a.price.get()),
        low_stock_threshold: Some(a.low_stock_threshold),
        is_default: Some(true),
        active: Some(true),
        order: Some(0),
    })
    .unwrap();
    let patched = resent.apply(&before, &a.id).unwrap();
    assert!(patched.changes_nothing(), "{patched:?}");
    assert_eq!(patched.product, before);
}

#[test]
fn a_patch_of_a_variant_the_product_lacks_is_refused() {
    let refused = VariantPatch::default().apply(&stored(), &id("z"));
    assert_eq!(refused.unwrap_err(), VariantWriteRefusal::UnknownVariant);
}

#[test]
fn an_added_variant_takes_its_products_price_and_goes_last() {
    let new = NewVariant::try_from(VariantInput {
        sku: text("SKU-N"),
        ..variant_input("Nouveau")
    })
    .unwrap();
    let added = new.add_to(&stored(), id("n")).unwrap();
    assert_eq!(
        (added.variant.price, added.variant.order),
        (Cents(2_500), 5)
    );
    assert_eq!((added.variant.stock, added.variant.tracked), (0, false));
    assert!(!added.variant.is_default && added.lost_default.is_empty());
    assert_eq!(added.product.variants.last(), Some(&added.variant));
    let own = NewVariant::try_from(VariantInput {
        price_cents: Some(0),
        order: Some(0),
        ..variant_input("x")
    })
    .unwrap();
    let added = own.add_to(&stored(), id("n")).unwrap();
    assert_eq!((added.variant.price, added.variant.order), (Cents(0), 0));
    let ids: Vec<_> = added
        .product
        .variants
        .iter()
        .map(|v| v.id.as_str())
        .collect();
    assert_eq!(ids, ["a", "n", "b"], "equal orders by id");
    let first = NewVariant::try_from(variant_input("x"))
        .unwrap()
        .add_to(&product(vec![]), id("n"));
    assert_eq!(first.unwrap().variant.order, 0);
}

#[test]
fn a_product_holds_at_most_a_hundred_variants() {
    let full = |n: usize| {
        product(
            (0..n)
                .map(|i| variant(&format!("v{i}"), i as i32, 0, true))
                .collect(),
        )
    };
    let new = NewVariant::try_from(variant_input("x")).unwrap();
    assert!(new.add_to(&full(99), id("n")).is_ok());
    let refused = new.add_to(&full(100), id("n")).unwrap_err();
    assert_eq!(refused, VariantWriteRefusal::TooManyVariants);
    assert_eq!(refused.to_string(), "a product holds at most 100 variants");
    assert_eq!(refused.member_problem(), None);
}
