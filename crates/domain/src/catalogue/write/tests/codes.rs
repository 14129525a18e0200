use super::*;
use crate::catalogue::product::fixtures::{product, variant};
use crate::id::{ProductId, VariantId};

fn coded(sku: Option<&str>, barcode: Option<&str>) -> VariantInput {
    VariantInput {
        sku: sku.map(|sku| Some(sku.to_owned())),
        barcode: barcode.map(|code| Some(code.to_owned())),
        ..variant_input("v")
    }
}

fn problems(input: ProductInput) -> Vec<(String, String)> {
    let found = NewProduct::try_from(input).unwrap_err().into_iter();
    found
        .map(|problem| (problem.path, problem.message))
        .collect()
}

#[test]
fn a_code_given_twice_in_a_create_is_a_problem_on_the_later_member() {
    let input = ProductInput {
        sku: text("MUG"),
        ean: text("3760000000017"),
        variants: Some(vec![
            coded(Some("MUG-S"), Some("3760000000017")),
            coded(Some(" MUG "), Some("111")),
            coded(Some("MUG-S"), Some(" 111")),
        ]),
        ..product_input()
    };
    assert_eq!(
        problems(input),
        [
            (
                "variants[0].barcode".to_owned(),
                "must differ from ean: a barcode names one product or variant".to_owned()
            ),
            (
                "variants[1].sku".to_owned(),
                "must differ from sku: a SKU names one product or variant".to_owned()
            ),
            (
                "variants[2].sku".to_owned(),
                "must differ from variants[0].sku: a SKU names one product or variant".to_owned()
            ),
            (
                "variants[2].barcode".to_owned(),
                "must differ from variants[1].barcode: a barcode names one product or variant"
                    .to_owned()
            ),
        ]
    );
}

#[test]
fn codes_differ_by_case_and_across_namespaces() {
    let input = ProductInput {
        sku: text("mug"),
        ean: text("MUG"),
        variants: Some(vec![
            coded(Some("MUG"), Some("mug")),
            coded(Some("Mug"), None),
        ]),
        ..product_input()
    };
    assert!(NewProduct::try_from(input).is_ok());
}

#[test]
fn duplicates_are_reported_beside_every_other_problem() {
    let input = ProductInput {
        name: Some(String::new()),
        variants: Some(vec![
            coded(Some("A"), None),
            VariantInput {
                label: None,
                ..coded(Some("A"), None)
            },
        ]),
        ..product_input()
    };
    let paths: Vec<_> = problems(input).into_iter().map(|(path, _)| path).collect();
    assert_eq!(paths, ["name", "variants[1].sku"]);
}

#[test]
fn a_create_claims_every_code_for_rows_it_creates() {
    let input = ProductInput {
        sku: text("MUG"),
        variants: Some(vec![
            coded(None, Some("111")),
            coded(Some("MUG-L"), Some("222")),
        ]),
        ..product_input()
    };
    let claims = NewProduct::try_from(input).unwrap().code_claims();
    let listed: Vec<_> = claims
        .iter()
        .map(|c| (c.kind, c.value.as_str(), c.path.as_str()))
        .collect();
    assert_eq!(
        listed,
        [
            (CodeKind::Sku, "MUG", "sku"),
            (CodeKind::Barcode, "111", "variants[0].barcode"),
            (CodeKind::Sku, "MUG-L", "variants[1].sku"),
            (CodeKind::Barcode, "222", "variants[1].barcode"),
        ]
    );
    assert!(claims.iter().all(|claim| claim.owner.is_none()));
    assert!(duplicate_codes(&claims).is_empty());
    let added = NewVariant::try_from(coded(Some("X"), None))
        .unwrap()
        .code_claims();
    assert_eq!((added[0].path.as_str(), &added[0].owner), ("sku", &None));
}

#[test]
fn a_patch_claims_only_the_codes_its_row_does_not_hold() {
    // The fixture's product holds sku ECH-01 and ean 3760000000017.
    let stored = product(vec![variant("a", 0, 0, true)]);
    let resent = ProductPatch::try_from(ProductInput {
        sku: text(" ECH-01 "),
        ean: text("3760000000017"),
        ..ProductInput::default()
    })
    .unwrap();
    assert!(resent.code_claims(&stored).is_empty());
    let cleared = ProductPatch {
        sku: Some(None),
        ..ProductPatch::default()
    };
    assert!(cleared.code_claims(&stored).is_empty());
    // Its own variant's SKU is another row's: a claim, which persistence finds taken.
    let renamed = ProductPatch {
        sku: Some(Some("SKU-a".to_owned())),
        ..ProductPatch::default()
    };
    let claims = renamed.code_claims(&stored);
    assert_eq!(claims.len(), 1);
    assert_eq!(
        (claims[0].kind, claims[0].path.as_str()),
        (CodeKind::Sku, "sku")
    );
    let owner = CodeOwner::Product(ProductId::parse("prod_1").unwrap());
    assert_eq!(claims[0].owner, Some(owner));

    let a = &stored.variants[0];
    let variant_patch = VariantPatch {
        sku: Some(a.sku.clone()),
        barcode: Some(Some("999".to_owned())),
        ..VariantPatch::default()
    };
    let claims = variant_patch.code_claims(a);
    assert_eq!(claims.len(), 1);
    assert_eq!(
        (
            claims[0].kind,
            claims[0].value.as_str(),
            claims[0].path.as_str()
        ),
        (CodeKind::Barcode, "999", "barcode")
    );
    let owner = CodeOwner::Variant(VariantId::parse("a").unwrap());
    assert_eq!(claims[0].owner, Some(owner));
}
