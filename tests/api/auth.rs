use std::time::Duration;

use shop_domain::Timestamp;
use shop_domain::shop::SubscriptionStatus;
use shop_ports::usecase::ShopChange;

use crate::support::{Reply, TestApp, on_both_databases};

on_both_databases!(
    every_unauthorized_cause_gets_the_same_answer,
    each_forbidden_code_and_the_order_of_checks,
    a_revoked_key_is_refused_within_five_seconds,
    a_verified_key_does_not_run_argon2_again,
);

fn assert_unauthorized(reply: &Reply, reference: &Reply, cause: &str) {
    assert_eq!(reply.status, 401, "{cause}: {}", reply.text);
    assert_eq!(
        reply.text, reference.text,
        "{cause}: the body must not tell causes apart"
    );
    assert_eq!(reply.header("www-authenticate"), Some("Bearer"), "{cause}");
}

async fn every_unauthorized_cause_gets_the_same_answer(app: TestApp) {
    app.create_shop("atelier").await;
    let key = app.create_key("atelier", "products:read").await;
    let (prefix, secret) = key.trim_start_matches("svc_live_").split_once('_').unwrap();
    let me = app.url("/api/v1/me");

    let missing = app.send(app.client().get(&me)).await;
    assert_eq!(missing.json()["error"]["code"], "UNAUTHORIZED");
    assert!(
        missing.json()["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty())
    );

    let wrong_secret = format!(
        "svc_live_{prefix}_{}",
        secret.chars().rev().collect::<String>()
    );
    let unknown_prefix = format!(
        "svc_live_{}_{secret}",
        if prefix == "00000000" {
            "11111111"
        } else {
            "00000000"
        }
    );
    let cases = [
        (
            "another scheme",
            app.client()
                .get(&me)
                .header("Authorization", format!("Basic {key}")),
        ),
        (
            "no token",
            app.client().get(&me).header("Authorization", "Bearer"),
        ),
        (
            "malformed key",
            app.client().get(&me).bearer_auth("svc_live_nothex_123"),
        ),
        (
            "upper-case key",
            app.client().get(&me).bearer_auth(key.to_uppercase()),
        ),
        (
            "unknown prefix",
            app.client().get(&me).bearer_auth(&unknown_prefix),
        ),
        (
            "wrong secret",
            app.client().get(&me).bearer_auth(&wrong_secret),
        ),
    ];
    for (cause, request) in cases {
        assert_unauthorized(&app.send(request).await, &missing, cause);
    }

    let soon = Timestamp::from_millis(app.services.clock.now().millis() + 1_500);
    let expiring = app
        .create_key_expiring("atelier", "products:read", Some(soon))
        .await;
    assert_eq!(app.get("/api/v1/me", &expiring).await.status, 200);
    tokio::time::sleep(Duration::from_millis(1_700)).await;
    assert_unauthorized(
        &app.get("/api/v1/me", &expiring).await,
        &missing,
        "expired key",
    );

    let revoked = app.create_key("atelier", "products:read").await;
    app.revoke_key(&revoked).await;
    assert_unauthorized(
        &app.get("/api/v1/me", &revoked).await,
        &missing,
        "revoked key (never used)",
    );
}

async fn each_forbidden_code_and_the_order_of_checks(app: TestApp) {
    for slug in ["no-plan", "expired", "cancelled", "both", "fine"] {
        app.create_shop(slug).await;
    }
    let mut keys = Vec::new();
    for slug in ["no-plan", "expired", "cancelled", "both", "fine"] {
        keys.push(app.create_key(slug, "orders:read").await);
    }
    let no_plan = ShopChange {
        public_api_in_plan: Some(false),
        ..ShopChange::default()
    };
    app.update_shop("no-plan", no_plan).await;
    app.update_shop(
        "expired",
        ShopChange {
            subscription: Some(SubscriptionStatus::Expired),
            ..ShopChange::default()
        },
    )
    .await;
    app.update_shop(
        "cancelled",
        ShopChange {
            subscription: Some(SubscriptionStatus::Cancelled),
            ..ShopChange::default()
        },
    )
    .await;
    app.update_shop(
        "both",
        ShopChange {
            public_api_in_plan: Some(false),
            subscription: Some(SubscriptionStatus::Expired),
        },
    )
    .await;

    let expectations = [
        (&keys[0], "FEATURE_NOT_IN_PLAN"),
        (&keys[1], "SUBSCRIPTION_INACTIVE"),
        (&keys[2], "SUBSCRIPTION_INACTIVE"),
        (&keys[3], "FEATURE_NOT_IN_PLAN"),
    ];
    for (key, code) in expectations {
        for path in [
            "/api/v1/me",
            "/api/v1/products",
            "/api/v1/products/anything?limit=0",
        ] {
            let reply = app.get(path, key).await;
            assert_eq!(
                (reply.status, reply.error_code().as_str()),
                (403, code),
                "{path}: {}",
                reply.text
            );
        }
    }

    // A key without the scope: 403 even when the query is invalid too (scope before validation).
    let reply = app.get("/api/v1/products?limit=0", &keys[4]).await;
    assert_eq!(
        (reply.status, reply.error_code().as_str()),
        (403, "INSUFFICIENT_SCOPE")
    );
    assert!(
        reply.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("products:read"),
        "{}",
        reply.text
    );
    assert_eq!(
        app.get("/api/v1/products/p1", &keys[4]).await.error_code(),
        "INSUFFICIENT_SCOPE"
    );
}

async fn a_revoked_key_is_refused_within_five_seconds(app: TestApp) {
    app.create_shop("atelier").await;
    let key = app.create_key("atelier", "products:read").await;
    assert_eq!(app.get("/api/v1/products", &key).await.status, 200);

    let revoked_at = app.revoke_key(&key).await;
    loop {
        let status = app.get("/api/v1/products", &key).await.status;
        if status == 401 {
            break;
        }
        assert_eq!(status, 200);
        assert!(
            revoked_at.elapsed() < Duration::from_millis(5_500),
            "still accepted 5 s after revocation"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(revoked_at.elapsed() <= Duration::from_millis(5_500));
}

async fn a_verified_key_does_not_run_argon2_again(app: TestApp) {
    app.create_shop("atelier").await;
    let key = app.create_key("atelier", "products:read").await;
    let before = app.services.authenticator.stats();
    for _ in 0..20 {
        assert_eq!(app.get("/api/v1/products?limit=1", &key).await.status, 200);
    }
    let after = app.services.authenticator.stats();
    assert_eq!(after.argon2_verifications - before.argon2_verifications, 1);
    assert!(after.cache_hits - before.cache_hits >= 15, "{after:?}");
}
