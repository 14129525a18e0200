use super::*;
use crate::Timestamp;
use crate::catalogue::CategoryRef;
use crate::id::{CategoryId, ProductId, VariantId};
use crate::money::Cents;
use crate::tax_rate::TaxRate;

fn created(input: ProductInput) -> crate::catalogue::Product {
    let new = NewProduct::try_from(input).unwrap();
    let mut next = 0;
    let ids = || {
        next += 1;
        VariantId::parse(format!("var_{next}")).unwrap()
    };
    let id = ProductId::parse("prod_9").unwrap();
    new.product(id, ids, None, None, Timestamp::from_millis(7))
}

#[test]
fn a_create_with_only_what_it_requires_takes_the_defaults() {
    let product = created(product_input());
    assert_eq!(product.name, "Bol");
    assert_eq!(product.product_type, DEFAULT_PRODUCT_TYPE);
    assert_eq!(
        (product.price, product.list_price),
        (Cents(2_500), Cents(2_500))
    );
    assert_eq!(
        (&product.ean, &product.sku, product.compare_at_price),
        (&None, &None, None)
    );
    assert!(!product.promo_active && product.active && !product.track_stock);
    assert!(product.tags.is_empty() && product.photos.is_empty());
    assert_eq!(product.stock_quantity(), None);
    assert_eq!(product.created_at, Timestamp::from_millis(7));
    assert_eq!(product.updated_at, Timestamp::from_millis(7));
    let [variant] = product.variants.as_slice() else {
        panic!("one variant")
    };
    assert_eq!(variant.id.as_str(), "var_1");
    assert_eq!(
        (variant.price, variant.stock, variant.low_stock_threshold),
        (Cents(2_500), 0, 0)
    );
    assert!(variant.is_default && variant.active && !variant.tracked);
    assert_eq!(
        (
            variant.order,
            variant.sku.clone(),
            variant.swatch_color.clone()
        ),
        (0, None, None)
    );
}

#[test]
fn a_create_writes_every_member_as_validated() {
    let input = ProductInput {
        name: Some("  Bol à soupe ".to_owned()),
        product_type: Some(" variable ".to_owned()),
        ean: text(" 3760000000017 "),
        sku: text("BOL-1"),
        list_price_cents: Some(3_000),
        compare_at_price_cents: Some(Some(3_500)),
        promo_active: Some(true),
        tax_rate: Some("5.50".to_owned()),
        active: Some(false),
        tags: strings(&[" cuisine", "cuisine ", "grès"]),
        photos: strings(&[" https://CDN.example.com/bol a.jpg "]),
        category: Some(Some(ReferenceInput {
            id: None,
            name: Some(" Cuisine ".to_owned()),
        })),
        brand: Some(Some(ReferenceInput {
            id: Some("brand_1".to_owned()),
            name: None,
        })),
        variants: Some(vec![
            VariantInput {
                order: Some(5),
                price_cents: Some(2_700),
                swatch_color: text("#a1b2c3"),
                low_stock_threshold: Some(3),
                active: Some(false),
                ..variant_input("Grand")
            },
            variant_input("Petit"),
        ]),
        ..product_input()
    };
    let new = NewProduct::try_from(input).unwrap();
    assert_eq!(new.name, "Bol à soupe");
    assert_eq!(new.product_type, "variable");
    assert_eq!(new.ean.as_deref(), Some("3760000000017"));
    assert_eq!(new.sku.as_deref(), Some("BOL-1"));
    assert_eq!(
        (new.list_price, new.compare_at_price),
        (Cents(3_000), Some(Cents(3_500)))
    );
    assert_eq!(new.tax_rate, TaxRate::parse("5.50").unwrap());
    assert!(new.promo_active && !new.active);
    assert_eq!(new.tags, ["cuisine", "grès"]);
    assert_eq!(new.photos, ["https://cdn.example.com/bol%20a.jpg"]);
    assert_eq!(
        new.category,
        Some(CatalogueReference::Name("Cuisine".to_owned()))
    );
    assert_eq!(
        new.brand,
        Some(CatalogueReference::Id("brand_1".to_owned()))
    );
    let category = CategoryRef {
        id: CategoryId::parse("cat_1").unwrap(),
        name: "cuisine".into(),
    };
    let mut ids = ["var_b", "var_a"]
        .into_iter()
        .map(|id| VariantId::parse(id).unwrap());
    let product = new.product(
        ProductId::parse("prod_1").unwrap(),
        || ids.next().unwrap(),
        Some(category.clone()),
        None,
        Timestamp::from_millis(1),
    );
    assert_eq!(product.category, Some(category));
    // In display order: "Petit" takes its index (1), "Grand" its own order (5).
    let shown: Vec<_> = product
        .variants
        .iter()
        .map(|v| (v.label.as_str(), v.order))
        .collect();
    assert_eq!(shown, [("Petit", 1), ("Grand", 5)]);
    let grand = &product.variants[1];
    assert_eq!(
        (grand.id.as_str(), grand.price, grand.low_stock_threshold),
        ("var_b", Cents(2_700), 3)
    );
    assert_eq!(
        grand.swatch_color.as_ref().map(|c| c.as_str()),
        Some("#A1B2C3")
    );
    assert!(grand.is_default && !grand.active);
    assert_eq!(product.variants[0].price, Cents(2_500));
}

#[test]
fn a_missing_required_member_fails_without_a_problem_of_its_own() {
    // The reader reported it ("is required"); the domain only refuses to build the product.
    for input in [
        ProductInput {
            name: None,
            ..product_input()
        },
        ProductInput {
            price_cents: None,
            ..product_input()
        },
        ProductInput {
            tax_rate: None,
            ..product_input()
        },
        ProductInput {
            variants: None,
            ..product_input()
        },
        with_variants(vec![VariantInput {
            label: None,
            ..variant_input("x")
        }]),
    ] {
        assert_eq!(NewProduct::try_from(input), Err(vec![]));
    }
}

#[test]
fn every_problem_comes_back_at_once_under_its_path() {
    let input = ProductInput {
        name: Some("  ".to_owned()),
        product_type: Some(String::new()),
        ean: text(&"1".repeat(65)),
        price_cents: Some(-1),
        list_price_cents: Some(MAX_PRICE_CENTS + 1),
        compare_at_price_cents: Some(Some(-5)),
        tax_rate: Some("20".to_owned()),
        tags: Some((0..51).map(|i| format!("t{i}")).collect()),
        photos: strings(&["https://a.example/1.jpg", "http://a.example/2.jpg"]),
        category: Some(Some(ReferenceInput::default())),
        brand: Some(Some(ReferenceInput {
            id: None,
            name: Some("b\u{7}".to_owned()),
        })),
        variants: Some(vec![
            variant_input("ok"),
            VariantInput {
                sku: text("a\nb"),
                order: Some(-1),
                ..variant_input(&"é".repeat(201))
            },
        ]),
        ..product_input()
    };
    assert_eq!(
        paths(NewProduct::try_from(input)),
        [
            "name",
            "productType",
            "ean",
            "priceCents",
            "listPriceCents",
            "compareAtPriceCents",
            "taxRate",
            "tags",
            "photos[1]",
            "category",
            "brand.name",
            "variants[1].label",
            "variants[1].sku",
            "variants[1].order",
        ]
    );
}
