//! API v2's product writes against the scripted server: the paths, headers and bodies sent
//! (a variant's patch under its product's tag), what a 409 decodes to, and the
//! read-modify-write loops of a product and of a variant.

use super::{FakeServer, Reply, TAG_1, TAG_2, precondition_failed, recording_client, tagged};
use crate::models::Product;
use crate::{
    ErrorCode, Patch, ProductDraft, ProductPatch, RetryReason, VariantDraft, VariantPatch,
};

/// `{"data": product}` with one variant `var_1` labelled `label`.
fn product(price_cents: i64, tags: &str, label: &str) -> String {
    format!(
        r#"{{"data":{{"id":"prd_1","name":"Mug","productType":"simple","ean":null,"sku":"MUG",
        "priceCents":{price_cents},"listPriceCents":1200,"compareAtPriceCents":null,"promoActive":false,
        "taxRate":"20.00","active":true,"trackStock":false,"stockQuantity":null,"tags":{tags},"photos":[],
        "category":null,"brand":null,"variants":[{{"id":"var_1","label":"{label}","sku":null,"barcode":null,
        "swatchColor":null,"priceCents":{price_cents},"stock":0,"lowStockThreshold":0,"isDefault":true,
        "active":true,"order":0}}],"createdAt":"2026-01-01T00:00:00.000Z","updatedAt":"2026-11-25T10:30:00.000Z"}}}}"#
    )
}

/// One request as the tests compare it.
#[derive(Clone, Debug, PartialEq)]
struct Call {
    method: String,
    target: String,
    if_match: Option<String>,
    idempotency_key: Option<String>,
    body: String,
}

impl Call {
    fn new(method: &str, target: &str, if_match: Option<&str>, body: &str) -> Self {
        Self {
            method: method.to_owned(),
            target: target.to_owned(),
            if_match: if_match.map(str::to_owned),
            idempotency_key: None,
            body: body.to_owned(),
        }
    }

    fn keyed(self, key: &str) -> Self {
        Self {
            idempotency_key: Some(key.to_owned()),
            ..self
        }
    }
}

fn calls(server: &FakeServer) -> Vec<Call> {
    server
        .seen()
        .into_iter()
        .map(|seen| Call {
            if_match: seen.header("if-match").map(str::to_owned),
            idempotency_key: seen.header("idempotency-key").map(str::to_owned),
            method: seen.method,
            target: seen.target,
            body: seen.body,
        })
        .collect()
}

#[tokio::test]
async fn a_create_and_an_added_variant_send_their_key_on_every_attempt() {
    let server = FakeServer::start(vec![
        Reply::Drop,
        Reply::Http(
            201,
            vec![
                ("ETag", TAG_1.to_owned()),
                ("Location", "/api/v2/products/prd_1".to_owned()),
                ("Idempotent-Replayed", "true".to_owned()),
            ],
            product(1200, "[]", "Bleu"),
        ),
        tagged(201, TAG_2, product(1200, "[]", "Bleu")),
    ])
    .await;
    let (api, events) = recording_client(&server);
    let draft = ProductDraft {
        sku: Some("MUG".to_owned()),
        ..ProductDraft::new("Mug", 1200, "20.00", vec![VariantDraft::new("Bleu")])
    };
    let created = api.create_product(&draft).await.unwrap();
    assert_eq!(
        (created.data.id.as_str(), created.etag.as_deref()),
        ("prd_1", Some(TAG_1))
    );
    assert!(created.replayed);
    let key = created.idempotency_key.unwrap();
    let added = api
        .add_variant_with_key(
            "prd_1",
            &VariantDraft {
                is_default: Some(true),
                ..VariantDraft::new("Vert")
            },
            "erp-vert",
        )
        .await
        .unwrap();
    assert_eq!(
        (
            added.etag.as_deref(),
            added.replayed,
            added.idempotency_key.as_deref()
        ),
        (Some(TAG_2), false, Some("erp-vert"))
    );

    let create = Call::new(
        "POST",
        "/api/v2/products",
        None,
        r#"{"name":"Mug","priceCents":1200,"taxRate":"20.00","variants":[{"label":"Bleu"}],"sku":"MUG"}"#,
    );
    let lost_and_retried = [create.clone().keyed(&key), create.keyed(&key)];
    assert_eq!(calls(&server)[..2], lost_and_retried);
    assert_eq!(
        calls(&server)[2],
        Call::new(
            "POST",
            "/api/v2/products/prd_1/variants",
            None,
            r#"{"label":"Vert","isDefault":true}"#
        )
        .keyed("erp-vert")
    );
    assert!(
        server
            .seen()
            .iter()
            .all(|seen| seen.header("content-type") == Some("application/json"))
    );
    assert_eq!(events.lock().unwrap()[0].reason, RetryReason::Transport);
}

#[tokio::test]
async fn patches_are_merge_patches_and_a_variants_takes_the_products_tag() {
    let server = FakeServer::start(vec![
        tagged(200, TAG_2, product(1350, "[]", "Bleu")),
        precondition_failed(TAG_2),
    ])
    .await;
    let (api, _) = recording_client(&server);
    let patch = ProductPatch {
        price_cents: Some(1350),
        ean: Patch::Clear,
        ..ProductPatch::default()
    };
    let written = api
        .update_product("prd_1", &patch, Some(TAG_1))
        .await
        .unwrap();
    assert_eq!(
        (written.data.price_cents, written.etag.as_deref()),
        (1350, Some(TAG_2))
    );
    let stale = api
        .update_variant(
            "prd_1",
            "var_1",
            &VariantPatch {
                swatch_color: Patch::Clear,
                ..VariantPatch::default()
            },
            Some(TAG_1),
        )
        .await
        .unwrap_err();
    assert_eq!(stale.code(), Some(&ErrorCode::PreconditionFailed));
    assert_eq!(stale.current_etag(), Some(TAG_2));

    assert_eq!(
        calls(&server),
        [
            Call::new(
                "PATCH",
                "/api/v2/products/prd_1",
                Some(TAG_1),
                r#"{"ean":null,"priceCents":1350}"#
            ),
            Call::new(
                "PATCH",
                "/api/v2/products/prd_1/variants/var_1",
                Some(TAG_1),
                r#"{"swatchColor":null}"#
            ),
        ]
    );
    assert!(
        server
            .seen()
            .iter()
            .all(|seen| seen.header("content-type") == Some("application/merge-patch+json"))
    );
}

#[tokio::test]
async fn a_taken_sku_names_its_holder() {
    let server = FakeServer::start(vec![Reply::Http(
        409,
        vec![],
        r#"{"error":{"code":"CONFLICT","message":"Another resource of the shop already holds this value.",
        "details":[{"field":"variants[0].sku","message":"is already the SKU of another product or variant of the shop","holderId":"var_9"}]}}"#
            .to_owned(),
    )])
    .await;
    let (api, _) = recording_client(&server);
    let draft = ProductDraft::new(
        "Copie",
        1,
        "20.00",
        vec![VariantDraft {
            sku: Some("MUG-B".to_owned()),
            ..VariantDraft::new("U")
        }],
    );
    let error = api.create_product(&draft).await.unwrap_err();
    assert_eq!(
        (error.status(), error.code(), error.conflict_holder()),
        (Some(409), Some(&ErrorCode::Conflict), Some("var_9"))
    );
}

#[tokio::test]
async fn modify_product_and_modify_variant_read_again_after_a_412() {
    let tag_3 = "\"33333333333333333333333333333333\"";
    let server = FakeServer::start(vec![
        tagged(200, TAG_1, product(1200, r#"["web"]"#, "Bleu")),
        precondition_failed(TAG_2),
        // Another writer added "b2b" meanwhile.
        tagged(200, TAG_2, product(1200, r#"["web","b2b"]"#, "Bleu")),
        tagged(
            200,
            tag_3,
            product(1200, r#"["web","b2b","promo"]"#, "Bleu"),
        ),
        // The variant's loop: read the product, patch the variant under its tag.
        tagged(
            200,
            tag_3,
            product(1200, r#"["web","b2b","promo"]"#, "Bleu"),
        ),
        tagged(
            200,
            TAG_1,
            product(1200, r#"["web","b2b","promo"]"#, "Bleu vif"),
        ),
    ])
    .await;
    let (api, _) = recording_client(&server);
    let add_promo = |current: &Product| {
        let mut tags = current.tags.clone();
        tags.push("promo".to_owned());
        ProductPatch {
            tags: Some(tags),
            ..ProductPatch::default()
        }
    };
    let written = api.modify_product("prd_1", add_promo).await.unwrap();
    assert_eq!(written.data.tags, ["web", "b2b", "promo"]);
    assert_eq!(written.etag.as_deref(), Some(tag_3));
    let variant = api
        .modify_variant("prd_1", "var_1", |current| VariantPatch {
            label: Some(format!("{} vif", current.variants[0].label)),
            ..VariantPatch::default()
        })
        .await
        .unwrap();
    assert_eq!(variant.data.variants[0].label, "Bleu vif");

    let call = |method: &str, target: &str, if_match: Option<&str>, body: &str| {
        Call::new(
            method,
            &format!("/api/v2/products/prd_1{target}"),
            if_match,
            body,
        )
    };
    assert_eq!(
        calls(&server),
        [
            call("GET", "", None, ""),
            call("PATCH", "", Some(TAG_1), r#"{"tags":["web","promo"]}"#),
            call("GET", "", None, ""),
            call(
                "PATCH",
                "",
                Some(TAG_2),
                r#"{"tags":["web","b2b","promo"]}"#
            ),
            call("GET", "", None, ""),
            call(
                "PATCH",
                "/variants/var_1",
                Some(tag_3),
                r#"{"label":"Bleu vif"}"#
            ),
        ]
    );
}
