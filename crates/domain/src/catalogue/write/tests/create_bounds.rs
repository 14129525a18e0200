//! A create's members at the edges of their bounds, and its blank, null and nested members.

use super::*;
use crate::id::CategoryId;

#[test]
fn names_types_and_codes_are_bounded_at_their_edges() {
    let name = |n: usize| ProductInput {
        name: Some("é".repeat(n)),
        ..product_input()
    };
    assert!(NewProduct::try_from(name(200)).is_ok());
    assert_eq!(
        message(NewProduct::try_from(name(201))),
        "must be at most 200 characters"
    );
    let kind = |n: usize| ProductInput {
        product_type: Some("k".repeat(n)),
        ..product_input()
    };
    assert!(NewProduct::try_from(kind(64)).is_ok());
    assert_eq!(paths(NewProduct::try_from(kind(65))), ["productType"]);
    let codes = |n: usize| ProductInput {
        sku: text(&"S".repeat(n)),
        ean: text(&"4".repeat(n)),
        ..product_input()
    };
    assert!(NewProduct::try_from(codes(64)).is_ok());
    assert_eq!(paths(NewProduct::try_from(codes(65))), ["ean", "sku"]);
}

#[test]
fn prices_run_from_zero_to_ten_to_the_twelfth_cents() {
    let priced = |cents: i64| ProductInput {
        price_cents: Some(cents),
        ..product_input()
    };
    assert!(NewProduct::try_from(priced(0)).is_ok());
    assert!(NewProduct::try_from(priced(1_000_000_000_000)).is_ok());
    for cents in [-1, 1_000_000_000_001, i64::MAX] {
        assert_eq!(
            message(NewProduct::try_from(priced(cents))),
            "must be between 0 and 1000000000000"
        );
    }
}

#[test]
fn photos_are_at_most_twenty_absolute_https_urls() {
    let photos = |urls: Vec<String>| ProductInput {
        photos: Some(urls),
        ..product_input()
    };
    let many = |n: usize| {
        (0..n)
            .map(|i| format!("https://cdn.example/{i}.jpg"))
            .collect()
    };
    assert_eq!(
        NewProduct::try_from(photos(many(20))).unwrap().photos.len(),
        20
    );
    assert_eq!(paths(NewProduct::try_from(photos(many(21)))), ["photos"]);
    let one = |url: &str| NewProduct::try_from(photos(vec![url.to_owned()]));
    assert_eq!(message(one("http://cdn.example/a.jpg")), "must use https");
    assert_eq!(
        message(one("/a.jpg")),
        "must be an absolute URL such as https://example.com/photo.jpg"
    );
    assert_eq!(
        message(one("https://me:pw@cdn.example/a.jpg")),
        "must not carry a user name or password"
    );
    let long = |n: usize| format!("https://cdn.example/{}", "a".repeat(n - 20));
    assert_eq!(long(2_048).len(), 2_048);
    assert!(one(&long(2_048)).is_ok());
    assert_eq!(
        message(one(&long(2_049))),
        "must be at most 2048 characters"
    );
}

#[test]
fn blank_and_null_codes_are_no_code_on_a_create() {
    let input = ProductInput {
        ean: Some(None),
        sku: text("   "),
        compare_at_price_cents: Some(None),
        category: Some(None),
        variants: Some(vec![VariantInput {
            sku: text(""),
            barcode: Some(None),
            swatch_color: text(" "),
            ..variant_input("x")
        }]),
        ..product_input()
    };
    let new = NewProduct::try_from(input).unwrap();
    assert_eq!(
        (&new.ean, &new.sku, new.compare_at_price, &new.category),
        (&None, &None, None, &None)
    );
    let variant = &new.variants()[0];
    assert_eq!(
        (&variant.sku, &variant.barcode, &variant.swatch_color),
        (&None, &None, &None)
    );
}

#[test]
fn a_create_holds_one_to_a_hundred_variants() {
    let count = |n: usize| with_variants((0..n).map(|i| variant_input(&format!("v{i}"))).collect());
    assert_eq!(
        message(NewProduct::try_from(count(0))),
        "must hold at least one variant"
    );
    assert_eq!(
        NewProduct::try_from(count(100)).unwrap().variants().len(),
        100
    );
    assert_eq!(paths(NewProduct::try_from(count(101))), ["variants"]);
}

#[test]
fn a_reference_is_an_id_or_a_name_never_both() {
    let category = |id: Option<&str>, name: Option<&str>| ProductInput {
        category: Some(Some(ReferenceInput {
            id: id.map(str::to_owned),
            name: name.map(str::to_owned),
        })),
        ..product_input()
    };
    let both = NewProduct::try_from(category(Some("cat_1"), Some("Shoes")));
    assert_eq!(message(both), "must hold either id or name, not both");
    assert_eq!(
        paths(NewProduct::try_from(category(None, None))),
        ["category"]
    );
    assert_eq!(
        paths(NewProduct::try_from(category(None, Some(" ")))),
        ["category.name"]
    );
    let named = NewProduct::try_from(category(None, Some(" Chaussures "))).unwrap();
    let reference = named.category.unwrap();
    assert_eq!(reference.folded_name().as_deref(), Some("chaussures"));
    assert_eq!(reference.category_id(), None);
    // An id that cannot exist is kept: it is "unknown", which persistence answers.
    let impossible = NewProduct::try_from(category(Some("a/b"), None)).unwrap();
    let reference = impossible.category.unwrap();
    assert_eq!(reference, CatalogueReference::Id("a/b".to_owned()));
    assert_eq!(
        (reference.category_id(), reference.folded_name()),
        (None, None)
    );
    let id = CatalogueReference::Id("cat_1".to_owned());
    assert_eq!(id.category_id(), Some(CategoryId::parse("cat_1").unwrap()));
    assert_eq!(id.brand_id().unwrap().as_str(), "cat_1");
}
