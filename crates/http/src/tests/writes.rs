//! API v2's writes of clients and products, against mocked stores: what reaches the store
//! (the `If-Match` condition, checked there on the resource as it is), and how each refusal
//! is answered. A store left without expectations panics when called (a 500), so a refused
//! body is also shown not to reach it.

use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::test::TestRequest;
use shop_domain::Timestamp;
use shop_domain::client::{ClientInput, NewClient};
use shop_domain::id::ClientId;
use shop_ports::port::{
    MockClientWriter, MockProductWriter, PatchClientResult, ProductWriteResult,
};

use super::{NOW_MILLIS, TestApi, key, shop};

fn patch(uri: &str, body: &str) -> TestRequest {
    TestRequest::patch()
        .uri(uri)
        .insert_header((header::AUTHORIZATION, format!("Bearer {}", key())))
        .insert_header((header::CONTENT_TYPE, "application/merge-patch+json"))
        .set_payload(body.to_owned())
}

fn ana() -> shop_domain::client::Client {
    NewClient::try_from(ClientInput {
        name: Some("Ana".into()),
        ..ClientInput::default()
    })
    .unwrap()
    .client(
        ClientId::parse("cli_7").unwrap(),
        Timestamp::from_millis(NOW_MILLIS),
    )
}

#[actix_web::test]
async fn if_match_reaches_the_store_as_a_condition_on_the_client_as_it_is() {
    let current = ana();
    let tag = crate::etag::entity_tag(crate::dto::client::ClientDto::from(&current)).unwrap();
    let (stored, holds) = (current.clone(), tag.clone());
    let mut writer = MockClientWriter::new();
    writer
        .expect_patch_client()
        .withf(move |command| {
            let condition = command.precondition.as_ref().unwrap();
            let mut changed = stored.clone();
            changed.name = "Ana M".into();
            command.id.as_str() == "cli_7" && condition.holds(&stored) && !condition.holds(&changed)
        })
        .times(1)
        .returning(move |_| {
            Ok(PatchClientResult::PreconditionFailed(Box::new(
                current.clone(),
            )))
        });
    let reply = TestApi::with_key(shop(), "clients:write")
        .client_writer(writer)
        .send(
            patch("/api/v2/clients/cli_7", r#"{"name": "Ana M"}"#)
                .insert_header((header::IF_MATCH, holds.as_str())),
        )
        .await;
    reply.error(StatusCode::PRECONDITION_FAILED, "PRECONDITION_FAILED");
    assert_eq!(reply.header("etag"), Some(tag.as_str()), "the current tag");
}

#[actix_web::test]
async fn a_conflict_names_the_member_and_its_holder_and_a_bad_body_never_reaches_the_store() {
    let mut writer = MockProductWriter::new();
    writer.expect_patch_variant().times(1).returning(|_| {
        Ok(ProductWriteResult::Conflict {
            member: "sku".into(),
            holder: "var_9".into(),
        })
    });
    let api = TestApi::with_key(shop(), "products:write").product_writer(writer);
    let reply = api
        .send(patch(
            "/api/v2/products/prd_1/variants/var_1",
            r#"{"sku": "MUG-B"}"#,
        ))
        .await;
    let error = reply.error(StatusCode::CONFLICT, "CONFLICT");
    assert_eq!(
        error["details"],
        serde_json::json!([{"field": "sku", "holderId": "var_9",
            "message": "is already the code of another product or variant of the shop"}])
    );

    let refused = TestApi::with_key(shop(), "products:write")
        .send(patch(
            "/api/v2/products/prd_1",
            r#"{"stock": 5, "name": null, "priceCents": 1.5}"#,
        ))
        .await;
    let error = refused.error(StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    let fields: Vec<&str> = error["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["name", "priceCents", "stock"]);
}
