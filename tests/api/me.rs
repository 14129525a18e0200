use serde_json::json;

use crate::support::{TestApp, on_both_databases};

on_both_databases!(me_describes_the_shop_and_the_key, me_needs_no_scope);

async fn me_describes_the_shop_and_the_key(app: TestApp) {
    let shop = app.create_shop("atelier").await;
    let key = app.create_key("atelier", "stock:write,products:read").await;
    let reply = app.get("/api/v1/me", &key).await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    assert_eq!(
        reply.json(),
        json!({
            "shop": {"id": shop.id.as_str(), "name": "Shop atelier", "slug": "atelier"},
            "apiKey": {"label": "atelier test key", "scopes": ["products:read", "stock:write"]}
        })
    );
    assert!(
        reply
            .header("content-type")
            .is_some_and(|t| t.starts_with("application/json"))
    );
}

async fn me_needs_no_scope(app: TestApp) {
    app.create_shop("atelier").await;
    let key = app.create_key("atelier", "loyalty:read").await;
    assert_eq!(app.get("/api/v1/me", &key).await.status, 200);
    assert_eq!(
        app.get("/api/v1/products", &key).await.error_code(),
        "INSUFFICIENT_SCOPE"
    );
}
