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
