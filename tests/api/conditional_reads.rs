//! API v2's reads of one product or client (issue 35): a strong `ETag` that changes with
//! every change to what they show, and `304 Not Modified` to an `If-None-Match` that holds
//! it; v1's reads unchanged.

use serde_json::json;

use crate::orders::seeded;
use crate::stock_list::stocked;
use crate::support::{Reply, TestApp, on_both_databases};

on_both_databases!(
    a_products_etag_follows_its_stock_and_answers_304_while_nothing_changed,
    a_clients_etag_follows_its_loyalty,
    the_conditions_are_checked_after_the_key_and_the_resource,
);

async fn get_if_none_match(app: &TestApp, path: &str, key: &str, tags: &str) -> Reply {
    app.send(
        app.client()
            .get(app.url(path))
            .bearer_auth(key)
            .header("If-None-Match", tags),
    )
    .await
}

/// The `ETag` of a 200, checked to be strong: a quoted hex digest.
fn etag(reply: &Reply) -> String {
    assert_eq!(reply.status, 200, "{}", reply.text);
    let tag = reply.header("etag").expect("an ETag").to_owned();
    assert!(
        tag.len() == 34
            && tag.starts_with('"')
            && tag.ends_with('"')
            && tag[1..33].bytes().all(|b| b.is_ascii_hexdigit()),
        "{tag}"
    );
    tag
}

async fn a_products_etag_follows_its_stock_and_answers_304_while_nothing_changed(app: TestApp) {
    let key = stocked(&app, "products:read,stock:write").await;
    let path = "/api/v2/products/p_mug";
    let first = app.get(path, &key).await;
    let tag = etag(&first);
    let v1 = app.get("/api/v1/products/p_mug", &key).await;
    assert_eq!(v1.header("etag"), None, "v1's answers never change");
    assert_eq!(v1.text, first.text, "the same representation");
    assert_eq!(
        etag(&app.get(path, &key).await),
        tag,
        "stable while nothing changes"
    );

    for held in [tag.clone(), format!("\"other\", W/{tag}"), "*".to_owned()] {
        let unchanged = get_if_none_match(&app, path, &key, &held).await;
        assert_eq!(unchanged.status, 304, "{held}: {}", unchanged.text);
        assert_eq!(unchanged.text, "", "no body");
        assert_eq!(unchanged.header("etag"), Some(tag.as_str()));
        assert!(unchanged.header("x-request-id").is_some());
        assert!(
            unchanged.header("ratelimit").is_some(),
            "a 304 is a counted read"
        );
    }
    let other = get_if_none_match(&app, path, &key, "\"0000\"").await;
    assert_eq!(other.text, first.text);

    let adjusted = app
        .adjust(
            &key,
            &json!({"variantId": "v_ok", "quantity": -1, "reason": "sold"}),
            None,
        )
        .await;
    assert_eq!(adjusted.status, 201, "{}", adjusted.text);
    let changed = get_if_none_match(&app, path, &key, &tag).await;
    let new_tag = etag(&changed);
    assert_ne!(new_tag, tag, "the stock is part of the product");
    assert_eq!(changed.json()["data"]["variants"][0]["stock"], 9);
    let head = app
        .send(
            app.client()
                .head(app.url(path))
                .bearer_auth(&key)
                .header("If-None-Match", &new_tag),
        )
        .await;
    assert_eq!(head.status, 304);
}

async fn a_clients_etag_follows_its_loyalty(app: TestApp) {
    let key = seeded(&app, "clients:read,loyalty:write").await;
    let path = "/api/v2/clients/c1";
    let tag = etag(&app.get(path, &key).await);
    assert_eq!(get_if_none_match(&app, path, &key, &tag).await.status, 304);
    let credit = app
        .send(app.post_request(
            "/api/v2/clients/c1/loyalty/adjustments",
            &key,
            &json!({"points": 10, "reason": "web order"}),
            None,
        ))
        .await;
    assert_eq!(credit.status, 201, "{}", credit.text);
    let changed = get_if_none_match(&app, path, &key, &tag).await;
    assert_ne!(etag(&changed), tag, "the loyalty is part of the client");
    assert_eq!(changed.json()["data"]["loyalty"]["points"], 130);
    let list = app.get("/api/v2/clients", &key).await;
    assert_eq!(list.header("etag"), None, "lists carry none");
}

async fn the_conditions_are_checked_after_the_key_and_the_resource(app: TestApp) {
    let key = seeded(&app, "clients:read").await;
    let missing = get_if_none_match(&app, "/api/v2/clients/nobody", &key, "*").await;
    assert_eq!(missing.status, 404, "{}", missing.text);
    let stranger = get_if_none_match(&app, "/api/v2/clients/c1", "svc_live_0_0", "*").await;
    assert_eq!(stranger.status, 401);
    let reader = app.create_key("atelier", "products:read").await;
    let forbidden = get_if_none_match(&app, "/api/v2/clients/c1", &reader, "*").await;
    assert_eq!(forbidden.status, 403);
}
