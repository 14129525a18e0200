//! The owners' console in a real browser (Debian's Chromium, driven over WebDriver by
//! chromedriver), on both databases, as an owner uses it after `shop-api demo`: sign in with
//! the demo's credentials, create a key with two scopes and read it off the page, call the API
//! with it (a granted scope answers 200, another 403 INSUFFICIENT_SCOPE), revoke it and see
//! the API refuse it within 5 s, go back through the history without ever seeing the secret
//! again, switch a variant's tracking and see the API follow, and read the activity.
//!
//! A screenshot of every page goes to `target/console-screenshots/`. Without chromedriver the
//! test says it was skipped, and fails instead when `REQUIRE_BROWSER=1` (as in `.ci/run`).

use std::time::{Duration, Instant};

use fantoccini::Locator;
use serde_json::json;

use crate::support::browser::{Browser, chromedriver};
use crate::support::{TestApp, on_both_databases};

on_both_databases!(an_owner_in_a_real_browser_creates_uses_and_revokes_a_key);

async fn an_owner_in_a_real_browser_creates_uses_and_revokes_a_key(app: TestApp) {
    let Some(driver) = chromedriver() else {
        return;
    };
    // What `shop-api demo` prints: a full-scope key, the owner's e-mail and a fresh password.
    let demo = shop_app::demo::prepare(&app.services).await.unwrap();
    let mut browser = Browser::start(driver, app.backend).await;

    browser
        .client
        .goto(&app.url("/console/login"))
        .await
        .unwrap();
    browser.shot("sign-in").await;
    browser.type_into("#email", demo.owner_email.as_str()).await;
    browser.type_into("#password", &demo.owner_password).await;
    browser.click("#sign-in").await;
    browser.arrive("/console").await;
    let overview = browser.source().await;
    assert!(overview.contains("Maison Lumière (demo)") && overview.contains("Included"));
    browser.shot("overview").await;

    browser.click("nav a[href='/console/keys']").await;
    browser.arrive("/console/keys").await;
    let reserved = browser
        .client
        .find(Locator::Css("#scope-orders-write"))
        .await
        .unwrap();
    assert!(
        reserved.attr("disabled").await.unwrap().is_some(),
        "a reserved scope cannot be checked"
    );
    browser.shot("keys").await;
    browser.type_into("#label", "Browser test key").await;
    browser.click("#scope-products-read").await;
    browser.click("#scope-stock-read").await;
    browser.click("#create-key").await;
    let field = browser
        .client
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css("#new-key"))
        .await
        .unwrap();
    let key = field.prop("value").await.unwrap().expect("the key");
    assert!(key.starts_with("svc_live_"), "{key}");
    let secret = key[18..].to_owned();
    browser.click("#copy-key").await;
    browser.shot("key-created").await;

    let granted = app.get("/api/v1/products?limit=1", &key).await;
    assert_eq!(granted.status, 200, "{}", granted.text);
    let refused = app.get("/api/v1/orders", &key).await;
    assert_eq!(
        (refused.status, refused.error_code()),
        (403, "INSUFFICIENT_SCOPE".to_owned())
    );

    browser.click("#done").await;
    browser.arrive("/console/keys").await;
    let list = browser.source().await;
    assert!(
        !list.contains(&secret),
        "the key page never shows the secret again"
    );
    browser.shot("keys-with-the-new-key").await;
    let prefix = &key[9..17];
    browser
        .click(&format!("tr[data-prefix='{prefix}'] a.revoke"))
        .await;
    browser
        .arrive(&format!("/console/keys/{prefix}/revoke"))
        .await;
    assert!(browser.source().await.contains("within 5 seconds"));
    browser.shot("revoke-confirmation").await;
    browser.click("#confirm-revoke").await;
    browser.arrive("/console/keys").await;
    let revoked_at = Instant::now();
    let refused_after = app
        .refused_within_five_seconds(&key, "/api/v1/products?limit=1", revoked_at)
        .await;
    eprintln!(
        "{}: the revoked key was refused after {refused_after:?}",
        browser.prefix
    );
    browser.shot("keys-after-revocation").await;

    // Back through the history (the confirmation, the list, the entry of the page that showed
    // the key): never the secret again. That page is `no-store`, so Chromium cannot show it
    // from its cache and asks the list again.
    for step in 0..3 {
        browser.client.back().await.unwrap();
        tokio::time::sleep(Duration::from_millis(1000)).await;
        let page = browser.source().await;
        assert!(
            !page.contains(&secret),
            "back {step}: the secret showed again"
        );
    }
    assert_eq!(
        browser.client.current_url().await.unwrap().path(),
        "/console/keys"
    );
    browser.shot("back-to-the-created-key").await;

    browser
        .client
        .goto(&app.url("/console/stock?q=MLU-001"))
        .await
        .unwrap();
    let row = browser
        .client
        .find(Locator::Css("tr[data-tracked='true']"))
        .await
        .unwrap();
    let variant = row
        .attr("data-variant")
        .await
        .unwrap()
        .expect("a variant id");
    browser.shot("stock").await;
    row.find(Locator::Css("button[type='submit']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    // The form answers with the same stock page: wait for the new page's row, not the old
    // one, which may still be there (a stale element) right after the click.
    browser
        .client
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css(&format!(
            "tr[data-variant='{variant}'][data-tracked='false']"
        )))
        .await
        .expect("the variant shown as not tracked after the switch");
    browser.arrive("/console/stock").await;
    browser.shot("stock-tracking-off").await;
    let adjustment = json!({"variantId": variant, "quantity": -1, "reason": "casse"});
    let untracked = app.adjust(&demo.key, &adjustment, None).await;
    assert_eq!(
        (untracked.status, untracked.error_code()),
        (422, "STOCK_NOT_TRACKED".to_owned())
    );
    let listed = app.get("/api/v1/stock?q=MLU-001", &demo.key).await.json();
    assert!(
        !listed["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|entry| entry["variantId"] == variant.as_str()),
        "{listed}"
    );

    browser.click("nav a[href='/console/activity']").await;
    browser.arrive("/console/activity").await;
    assert!(browser.source().await.contains("Tracking switched off"));
    browser.shot("activity").await;

    browser.client.set_window_size(390, 844).await.unwrap();
    browser
        .client
        .goto(&app.url("/console/keys"))
        .await
        .unwrap();
    browser.shot("keys-on-a-phone").await;
    browser.client.set_window_size(1280, 900).await.unwrap();

    browser.click("#sign-out").await;
    browser.arrive("/console/login").await;
    browser
        .client
        .goto(&app.url("/console/keys"))
        .await
        .unwrap();
    browser.arrive("/console/login").await;
    browser.shot("signed-out").await;
    browser.client.clone().close().await.unwrap();
}
