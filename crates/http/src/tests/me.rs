use actix_web::http::StatusCode;
use serde_json::json;

use super::{TestApi, get};

#[actix_web::test]
async fn me_shows_the_shop_and_the_key_unwrapped() {
    let reply = TestApi::new().send(get("/api/v1/me")).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.header("content-type"), Some("application/json"));
    assert_eq!(
        reply.json(),
        json!({
            "shop": {"id": "shop_1", "name": "La Boutique", "slug": "la-boutique"},
            "apiKey": {
                "label": "ERP sync",
                "scopes": [
                    "products:read",
                    "orders:read",
                    "stock:read",
                    "clients:read",
                    "loyalty:read"
                ]
            }
        })
    );
}

#[actix_web::test]
async fn me_takes_no_parameters() {
    let reply = TestApi::new().send(get("/api/v1/me?verbose=1")).await;
    assert_eq!(reply.detail_fields(), ["verbose"]);
}

#[actix_web::test]
async fn v1_shows_its_ten_scopes_and_v2_every_scope_of_the_key() {
    let scopes = "products:read,stock:write,webhooks:read,webhooks:write";
    let replies = TestApi::with_key(super::shop(), scopes)
        .send_all(vec![get("/api/v1/me"), get("/api/v2/me")])
        .await;
    let listed = |reply: &super::Reply| reply.json()["apiKey"]["scopes"].clone();
    assert_eq!(listed(&replies[0]), json!(["products:read", "stock:write"]));
    assert_eq!(
        listed(&replies[1]),
        json!([
            "products:read",
            "stock:write",
            "webhooks:read",
            "webhooks:write"
        ])
    );
    // Apart from the scopes, v2 answers as v1 does.
    assert_eq!(replies[0].json()["shop"], replies[1].json()["shop"]);
    assert_eq!(replies[1].header("cache-control"), Some("no-store"));
}

#[actix_web::test]
async fn v1s_answers_are_v2s() {
    // What these mocks can answer without a store; the black-box suite compares real reads.
    let paths = [
        "/me",
        "/products?active=sometimes",
        "/orders?limit=abc",
        "/stock?lowStockOnly=maybe",
        "/clients?limit=0",
        "/no-such-path",
    ];
    let requests = paths
        .iter()
        .flat_map(|path| {
            [
                get(&format!("/api/v1{path}")),
                get(&format!("/api/v2{path}")),
            ]
        })
        .collect();
    let replies = TestApi::new().send_all(requests).await;
    for (path, pair) in paths.iter().zip(replies.chunks(2)) {
        assert_eq!(pair[0].status, pair[1].status, "{path}");
        assert_eq!(pair[0].body, pair[1].body, "{path}");
    }
}
