use shop_domain::Timestamp;
use shop_domain::catalogue::write::{ProductInput, VariantInput};

use super::*;
use crate::port::{MockIdGenerator, MockProductWriter};

const NOW: i64 = 100 * 86_400_000;

fn caller() -> Principal {
    crate::usecase::test_caller::caller("products:write")
}

fn editor(writer: MockProductWriter) -> ProductEditor {
    let mut ids = MockIdGenerator::new();
    let mut next = 0;
    ids.expect_new_id().returning(move || {
        next += 1;
        next.to_string()
    });
    let clock = crate::usecase::test_clock::at(Timestamp::from_millis(NOW));
    ProductEditor::new(Arc::new(writer), Arc::new(ids), clock)
}

fn new_product(variants: usize) -> NewProduct {
    NewProduct::try_from(ProductInput {
        name: Some("Mug".into()),
        price_cents: Some(1200),
        tax_rate: Some("20.00".into()),
        variants: Some(
            (0..variants)
                .map(|n| VariantInput {
                    label: Some(format!("V{n}")),
                    ..VariantInput::default()
                })
                .collect(),
        ),
        ..ProductInput::default()
    })
    .unwrap()
}

fn stored(new: &NewProduct) -> Product {
    let mut n = 0;
    new.product(
        ProductId::parse("prd_1").unwrap(),
        || {
            n += 1;
            VariantId::parse(format!("var_{n}")).unwrap()
        },
        None,
        None,
        Timestamp::from_millis(NOW),
    )
}

#[tokio::test]
async fn a_create_gets_new_ids_for_the_product_each_variant_and_whatever_it_names() {
    let new = new_product(2);
    let fingerprint = new.fingerprint();
    let answer = stored(&new);
    let mut writer = MockProductWriter::new();
    writer
        .expect_create_product()
        .withf(move |command| {
            let context = &command.context;
            let ids: Vec<&str> = command.variant_ids.iter().map(|id| id.as_str()).collect();
            context.shop.as_str() == "shop_a"
                && context.key_prefix.as_str() == "0a1b2c3d"
                && context.at.millis() == NOW
                && context.write_id.as_str().starts_with("wrt_")
                && context.new_category_id.as_str().starts_with("cat_")
                && context.new_brand_id.as_str().starts_with("brd_")
                && command.id.as_str().starts_with("prd_")
                && ids.len() == 2
                && ids.iter().all(|id| id.starts_with("var_"))
                && ids[0] != ids[1]
                && command.idempotency.as_ref().unwrap().fingerprint == fingerprint
        })
        .times(1)
        .returning(move |_| {
            Ok(ProductPostOutcome::Replayed(ProductWriteResult::Written(
                Box::new(answer.clone()),
            )))
        });
    let key = IdempotencyKey::parse("erp-42").unwrap();
    let written = editor(writer)
        .create(&caller(), new.clone(), Some(key))
        .await
        .unwrap();
    assert!(written.replayed);
    assert_eq!(written.product, stored(&new));
}

#[tokio::test]
async fn each_refusal_of_the_store_is_the_use_cases() {
    let answer = |result: ProductWriteResult| {
        let mut writer = MockProductWriter::new();
        writer
            .expect_patch_product()
            .returning(move |_| Ok(result.clone()));
        async move {
            editor(writer)
                .patch(
                    &caller(),
                    ProductId::parse("prd_1").unwrap(),
                    ProductPatch::default(),
                    None,
                )
                .await
        }
    };
    assert!(matches!(
        answer(ProductWriteResult::ProductNotFound).await,
        Err(ProductWriteError::ProductNotFound)
    ));
    let conflict = answer(ProductWriteResult::Conflict {
        member: "sku".into(),
        holder: "var_9".into(),
    })
    .await;
    assert!(matches!(
        conflict,
        Err(ProductWriteError::Conflict { ref member, ref holder, replayed: false })
            if member == "sku" && holder == "var_9"
    ));
    let unknown = answer(ProductWriteResult::UnknownReference {
        member: "category.id".into(),
    })
    .await;
    assert!(matches!(
        unknown,
        Err(ProductWriteError::UnknownReference { .. })
    ));
    let current = stored(&new_product(1));
    let failed = answer(ProductWriteResult::PreconditionFailed(Box::new(
        current.clone(),
    )))
    .await;
    assert!(matches!(failed, Err(ProductWriteError::PreconditionFailed(now)) if *now == current));
}

#[tokio::test]
async fn a_variant_patch_names_its_product_and_variant_and_keeps_its_condition() {
    let current = stored(&new_product(2));
    let check = current.clone();
    let mut writer = MockProductWriter::new();
    writer
        .expect_patch_variant()
        .withf(move |command| {
            command.product_id.as_str() == "prd_1"
                && command.variant_id.as_str() == "var_2"
                && command
                    .precondition
                    .as_ref()
                    .is_some_and(|p| p.holds(&check))
        })
        .times(1)
        .returning(|_| Ok(ProductWriteResult::VariantNotFound));
    let same = current.clone();
    let refused = editor(writer)
        .patch_variant(
            &caller(),
            ProductId::parse("prd_1").unwrap(),
            VariantId::parse("var_2").unwrap(),
            VariantPatch::default(),
            Some(Precondition::new(move |product: &Product| *product == same)),
        )
        .await;
    assert!(matches!(refused, Err(ProductWriteError::VariantNotFound)));
}
