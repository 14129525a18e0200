//! The owners' console in a real browser (Debian's Chromium, driven over WebDriver by
//! chromedriver), on both databases, as an owner uses it after `shop-api demo`: sign in with
//! the demo's credentials, create a key with two scopes and read it off the page, call the API
//! with it (a granted scope answers 200, another 403 INSUFFICIENT_SCOPE), revoke it and see
//! the API refuse it within 5 s, go back through the history without ever seeing the secret
//! again, switch a variant's tracking and see the API follow, and read the activity; then add
//! a webhook endpoint (a refused URL first) and read its secret once, see a stock change's
//! delivery and retry it, send it a test, disable it (the overview flags it) and enable it,
//! recover since an hour ago, and delete it after its confirmation.
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

    let endpoint = webhooks(&app, &mut browser, &demo.key).await;

    browser.client.set_window_size(390, 844).await.unwrap();
    browser
        .client
        .goto(&app.url("/console/keys"))
        .await
        .unwrap();
    browser.shot("keys-on-a-phone").await;
    browser
        .client
        .goto(&app.url("/console/webhooks"))
        .await
        .unwrap();
    browser.shot("webhooks-on-a-phone").await;
    browser.client.goto(&app.url(&endpoint)).await.unwrap();
    browser.shot("webhook-on-a-phone").await;
    browser.client.set_window_size(1280, 900).await.unwrap();

    delete_the_endpoint(&app, &mut browser, &endpoint).await;

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

/// Waits for a page that says `text`: the form's own page may still be there right after the
/// click, saying something else.
async fn wait_for_text(browser: &Browser, text: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let page = browser.source().await;
        if page.contains(text) {
            return;
        }
        assert!(Instant::now() < deadline, "never said {text:?}:\n{page}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Adds an endpoint and reads its secret once, retries a delivery, sends it a test, disables
/// it (the overview flags it), enables it again and recovers since an hour ago; the
/// endpoint's page.
async fn webhooks(app: &TestApp, browser: &mut Browser, key: &str) -> String {
    browser.click("nav a[href='/console/webhooks']").await;
    browser.arrive("/console/webhooks").await;
    browser.shot("webhooks").await;

    // A refused URL is said beside its field, and what was typed stays.
    browser
        .type_into("#url", "hooks.example.com/maison-lumiere")
        .await;
    browser.click("#event-stock-updated").await;
    browser.click("#add-endpoint").await;
    browser.wait_for("#url-problems").await;
    assert!(
        browser
            .source()
            .await
            .contains("The URL must be an absolute URL")
    );
    browser.shot("webhook-refused").await;

    let url = browser.client.find(Locator::Css("#url")).await.unwrap();
    url.clear().await.unwrap();
    url.send_keys("https://hooks.example.com/maison-lumiere")
        .await
        .unwrap();
    browser.click("#event-order-created").await;
    browser
        .type_into("#description", "Stock and orders sync")
        .await;
    browser.click("#add-endpoint").await;
    browser.wait_for("#new-secret").await;
    let secret = browser
        .client
        .find(Locator::Css("#new-secret"))
        .await
        .unwrap()
        .prop("value")
        .await
        .unwrap()
        .expect("the secret");
    assert!(secret.starts_with("whsec_"), "{secret}");
    browser.click("#copy-secret").await;
    browser.shot("webhook-added").await;

    let endpoint = browser
        .client
        .find(Locator::Css("#done"))
        .await
        .unwrap()
        .attr("href")
        .await
        .unwrap()
        .expect("the endpoint's page");
    assert!(endpoint.starts_with("/console/webhooks/we_"), "{endpoint}");
    browser.click("#done").await;
    browser.arrive(&endpoint).await;
    let page = browser.source().await;
    assert!(page.contains("stock.updated") && page.contains("order.created"));
    assert!(!page.contains(&secret), "the secret is shown once");
    // Back to the answer that showed it: `no-store`, so Chromium cannot show it again.
    browser.client.back().await.unwrap();
    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert!(
        !browser.source().await.contains(&secret),
        "back: the secret showed again"
    );
    browser.client.forward().await.unwrap();
    browser.arrive(&endpoint).await;

    // A change of the shop is pushed to it: its delivery is listed, and sent again on demand.
    let tracked = app.get("/api/v1/stock?limit=1", key).await.json();
    let variant = tracked["data"][0]["variantId"]
        .as_str()
        .expect("a tracked variant")
        .to_owned();
    let adjustment = json!({"variantId": variant, "quantity": 2, "reason": "réception"});
    let adjusted = app.adjust(key, &adjustment, None).await;
    assert!(adjusted.status < 300, "{}", adjusted.text);
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        browser.client.goto(&app.url(&endpoint)).await.unwrap();
        let page = browser.source().await;
        if page.contains("data-status=\"failed\"") || page.contains("data-status=\"succeeded\"") {
            break;
        }
        assert!(Instant::now() < deadline, "no attempt listed:\n{page}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    assert!(browser.source().await.contains("stock.updated"));
    browser.shot("webhook-deliveries").await;
    browser.click("#deliveries button.retry").await;
    wait_for_text(browser, "The delivery is queued again").await;

    browser.click("#send-test").await;
    wait_for_text(browser, "A test event (ping) is queued").await;
    browser.shot("webhook-test-sent").await;

    browser.click("#disable-endpoint").await;
    browser.wait_for("#enable-endpoint").await;
    assert!(
        browser
            .source()
            .await
            .contains("This endpoint is disabled (manual)")
    );
    browser.shot("webhook-disabled").await;

    browser.click("nav a[href='/console']").await;
    browser.arrive("/console").await;
    browser.wait_for("#webhooks-disabled").await;
    assert!(
        browser
            .source()
            .await
            .contains("1 webhook endpoint is disabled (manual)")
    );
    browser.shot("overview-webhook-disabled").await;

    browser.click("nav a[href='/console/webhooks']").await;
    browser.arrive("/console/webhooks").await;
    assert!(!browser.source().await.contains(&secret));
    browser.shot("webhooks-one-disabled").await;
    browser.click(&format!("a.manage[href='{endpoint}']")).await;
    browser.arrive(&endpoint).await;
    browser.click("#enable-endpoint").await;
    browser.wait_for("#disable-endpoint").await;
    browser.shot("webhook-enabled").await;

    // Recover since an hour ago: a `datetime-local` field, set as the browser's picker would.
    let since = (time::OffsetDateTime::now_utc() - time::Duration::hours(1))
        .format(time::macros::format_description!(
            "[year]-[month]-[day]T[hour]:[minute]"
        ))
        .unwrap();
    let field = browser.client.find(Locator::Css("#since")).await.unwrap();
    browser
        .client
        .execute(
            "arguments[0].value = arguments[1];",
            vec![serde_json::to_value(&field).unwrap(), json!(since)],
        )
        .await
        .unwrap();
    browser.click("#recover").await;
    wait_for_text(browser, "Recovered:").await;
    browser.shot("webhook-recovered").await;
    endpoint
}

/// Deletes the endpoint after its confirmation.
async fn delete_the_endpoint(app: &TestApp, browser: &mut Browser, endpoint: &str) {
    browser.client.goto(&app.url(endpoint)).await.unwrap();
    browser.click("#delete-endpoint").await;
    browser.arrive(&format!("{endpoint}/delete")).await;
    browser.shot("webhook-delete-confirmation").await;
    browser.click("#confirm-delete").await;
    browser.arrive("/console/webhooks").await;
    wait_for_text(browser, "The endpoint is deleted").await;
    let list = browser.source().await;
    assert!(!list.contains("hooks.example.com/maison-lumiere"), "{list}");
    browser.shot("webhooks-after-deletion").await;
}
