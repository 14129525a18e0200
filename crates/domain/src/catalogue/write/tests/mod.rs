//! The rules of product writes, by behaviour: bounds at their edge values, `null` and blank
//! handling, the default variant, codes given twice, and patches that change nothing.

use super::*;
use crate::write::MemberProblem;

mod codes;
mod create_bounds;
mod default_variant;
mod member_lists;
mod new_product;
mod product_patch;
mod variant;

fn text(value: &str) -> Option<Option<String>> {
    Some(Some(value.to_owned()))
}

fn strings(values: &[&str]) -> Option<Vec<String>> {
    Some(values.iter().map(|value| (*value).to_owned()).collect())
}

/// The paths of the problems, in the order they were found.
fn paths<T: std::fmt::Debug>(result: Result<T, Vec<MemberProblem>>) -> Vec<String> {
    result
        .unwrap_err()
        .into_iter()
        .map(|problem| problem.path)
        .collect()
}

/// The message of the one problem found.
fn message<T: std::fmt::Debug>(result: Result<T, Vec<MemberProblem>>) -> String {
    let problems = result.unwrap_err();
    assert_eq!(problems.len(), 1, "{problems:?}");
    problems[0].message.clone()
}

fn variant_input(label: &str) -> VariantInput {
    VariantInput {
        label: Some(label.to_owned()),
        ..VariantInput::default()
    }
}

/// A create with only what it requires.
fn product_input() -> ProductInput {
    ProductInput {
        name: Some("Bol".to_owned()),
        price_cents: Some(2_500),
        tax_rate: Some("20.00".to_owned()),
        variants: Some(vec![variant_input("Bleu")]),
        ..ProductInput::default()
    }
}

fn with_variants(variants: Vec<VariantInput>) -> ProductInput {
    ProductInput {
        variants: Some(variants),
        ..product_input()
    }
}
