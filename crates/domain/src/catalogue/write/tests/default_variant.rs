use proptest::prelude::*;

use super::*;
use crate::Timestamp;
use crate::catalogue::Product;
use crate::catalogue::product::fixtures::{product, variant};
use crate::id::{ProductId, VariantId};

fn id(text: &str) -> VariantId {
    VariantId::parse(text).unwrap()
}

fn defaults(product: &Product) -> Vec<&str> {
    let defaults = product.variants.iter().filter(|v| v.is_default);
    defaults.map(|v| v.id.as_str()).collect()
}

fn asking(flags: &[Option<bool>]) -> ProductInput {
    with_variants(
        flags
            .iter()
            .enumerate()
            .map(|(i, flag)| VariantInput {
                is_default: *flag,
                ..variant_input(&format!("v{i}"))
            })
            .collect(),
    )
}

fn default_index(new: &NewProduct) -> Vec<usize> {
    let variants = new.variants().iter().enumerate();
    variants
        .filter(|(_, v)| v.is_default)
        .map(|(i, _)| i)
        .collect()
}

#[test]
fn a_create_without_a_default_makes_its_first_variant_the_default() {
    for flags in [
        vec![None, None],
        vec![Some(false), None],
        vec![Some(false), Some(false)],
    ] {
        assert_eq!(
            default_index(&NewProduct::try_from(asking(&flags)).unwrap()),
            [0]
        );
    }
    let second = NewProduct::try_from(asking(&[Some(false), Some(true), None])).unwrap();
    assert_eq!(default_index(&second), [1]);
}

#[test]
fn a_second_default_in_a_create_is_a_problem_on_that_variant() {
    let twice = NewProduct::try_from(asking(&[None, Some(true), Some(false), Some(true)]));
    let problems = twice.unwrap_err();
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].path, "variants[3].isDefault");
    assert!(
        problems[0].message.contains("variants[1] is the default"),
        "{}",
        problems[0].message
    );
}

#[test]
fn is_default_true_on_a_patch_moves_the_default_there() {
    let stored = product(vec![variant("a", 0, 0, true), variant("b", 1, 0, true)]);
    let to_b = VariantPatch {
        is_default: Some(true),
        ..VariantPatch::default()
    };
    let patched = to_b.apply(&stored, &id("b")).unwrap();
    assert_eq!(defaults(&patched.product), ["b"]);
    assert_eq!(patched.lost_default, [id("a")]);
    assert_eq!(patched.changed, ["isDefault"]);
    // Already the default: nothing moves.
    let again = to_b.apply(&patched.product, &id("b")).unwrap();
    assert!(again.changes_nothing());
}

#[test]
fn is_default_false_on_the_only_default_is_refused() {
    let stored = product(vec![variant("a", 0, 0, true), variant("b", 1, 0, true)]);
    let off = VariantPatch {
        is_default: Some(false),
        ..VariantPatch::default()
    };
    let refused = off.apply(&stored, &id("a")).unwrap_err();
    assert_eq!(refused, VariantWriteRefusal::LastDefault);
    let problem = refused.member_problem().unwrap();
    assert_eq!(problem.path, "isDefault");
    assert_eq!(
        problem.message,
        "a product keeps exactly one default variant; set isDefault on another variant to move it"
    );
    // On a variant that is not the default, `false` is what it already says.
    assert!(off.apply(&stored, &id("b")).unwrap().changes_nothing());
}

#[test]
fn imported_products_without_one_or_with_several_defaults_are_never_made_worse() {
    let mut two = product(vec![variant("a", 0, 0, true), variant("b", 1, 0, true)]);
    two.variants[1].is_default = true;
    let off = VariantPatch {
        is_default: Some(false),
        ..VariantPatch::default()
    };
    let patched = off.apply(&two, &id("a")).unwrap();
    assert_eq!(defaults(&patched.product), ["b"]);
    let on = VariantPatch {
        is_default: Some(true),
        ..VariantPatch::default()
    };
    let patched = on.apply(&two, &id("a")).unwrap();
    assert_eq!(defaults(&patched.product), ["a"]);
    assert_eq!(patched.lost_default, [id("b")]);
    assert!(patched.changed.is_empty() && !patched.changes_nothing());

    let mut none = two.clone();
    none.variants.iter_mut().for_each(|v| v.is_default = false);
    assert!(off.apply(&none, &id("a")).unwrap().changes_nothing());
    let added = NewVariant::try_from(variant_input("c"))
        .unwrap()
        .add_to(&none, id("c"))
        .unwrap();
    assert_eq!(
        defaults(&added.product),
        ["c"],
        "the product had none: the new one is it"
    );
}

#[test]
fn an_added_variant_asking_to_be_the_default_takes_it() {
    let stored = product(vec![variant("a", 0, 0, true), variant("b", 1, 0, true)]);
    let asks = VariantInput {
        is_default: Some(true),
        ..variant_input("c")
    };
    let added = NewVariant::try_from(asks)
        .unwrap()
        .add_to(&stored, id("c"))
        .unwrap();
    assert_eq!(defaults(&added.product), ["c"]);
    assert_eq!(added.lost_default, [id("a")]);
    let quiet = NewVariant::try_from(variant_input("d"))
        .unwrap()
        .add_to(&stored, id("d"))
        .unwrap();
    assert_eq!(defaults(&quiet.product), ["a"]);
}

#[derive(Clone, Debug)]
enum Step {
    Patch {
        variant: usize,
        is_default: Option<bool>,
    },
    Add {
        is_default: bool,
    },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (0usize..8, proptest::option::of(any::<bool>())).prop_map(|(variant, is_default)| {
            Step::Patch {
                variant,
                is_default,
            }
        }),
        any::<bool>().prop_map(|is_default| Step::Add { is_default }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Whatever valid writes follow a create, the product has exactly one default, and a
    /// write is refused only for switching that one off.
    #[test]
    fn exactly_one_default_after_any_writes(
        created_flags in prop::collection::vec(proptest::option::of(any::<bool>()), 1..6),
        steps in prop::collection::vec(step(), 0..20),
    ) {
        // At most one `true` in a valid create: keep the first.
        let mut seen = false;
        let flags: Vec<_> = created_flags.into_iter().map(|flag| match flag {
            Some(true) if seen => Some(false),
            Some(true) => { seen = true; Some(true) }
            other => other,
        }).collect();
        let new = NewProduct::try_from(asking(&flags)).unwrap();
        let mut next = 0;
        let mut new_id = || { next += 1; id(&format!("v{next:03}")) };
        let mut product = new.product(
            ProductId::parse("p").unwrap(), &mut new_id, None, None, Timestamp::from_millis(0),
        );
        prop_assert_eq!(defaults(&product).len(), 1);
        for step in steps {
            match step {
                Step::Patch { variant, is_default } => {
                    let target = product.variants[variant % product.variants.len()].clone();
                    let patch = VariantPatch { is_default, ..VariantPatch::default() };
                    match patch.apply(&product, &target.id) {
                        Ok(patched) => product = patched.product,
                        Err(refusal) => {
                            prop_assert_eq!(refusal, VariantWriteRefusal::LastDefault);
                            prop_assert!(target.is_default && is_default == Some(false));
                        }
                    }
                }
                Step::Add { is_default } => {
                    let input = VariantInput { is_default: Some(is_default), ..variant_input("n") };
                    let new = NewVariant::try_from(input).unwrap();
                    if let Ok(added) = new.add_to(&product, new_id()) {
                        prop_assert_eq!(added.variant.is_default, is_default);
                        product = added.product;
                    }
                }
            }
            prop_assert_eq!(defaults(&product).len(), 1, "{:?}", product.variants);
        }
    }
}
