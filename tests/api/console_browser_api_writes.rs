//! The console's tab of API writes (Activity → API writes) in a real browser (as
//! `console_browser.rs`), on both databases: the owner creates a key for an integration in the
//! console, under a label that holds HTML; the integration creates a client, patches it and
//! credits its points with that key, and the demo key renames a product; the owner reads each
//! write on the tab with the key that made it (the label shown as the text it is) and what it
//! changed, newest first.
//!
//! Screenshots (`target/console-screenshots/*-api-writes*.png`): the tab, and on a phone.

use std::time::Duration;

use fantoccini::Locator;
use serde_json::{Value, json};

use crate::support::browser::{Browser, chromedriver};
use crate::support::{Reply, TestApp, on_both_databases};

on_both_databases!(an_owner_reads_what_an_integration_wrote_through_the_api);

/// A label as an owner might type it, with characters HTML would take for markup.
const LABEL: &str = "Boutique ERP <sync> & co";
/// The activity page's tab of the writes made by API keys.
const TAB: &str = ".tabs a[href='/console/activity/writes']";

async fn patch(app: &TestApp, key: &str, path: &str, body: &Value) -> Reply {
    app.send(app.patch_request(path, key, body, None)).await
}

/// The text of each cell of the page's rows, top to bottom.
async fn rows(browser: &Browser) -> Vec<Vec<String>> {
    let mut texts = Vec::new();
    for row in browser
        .client
        .find_all(Locator::Css("#api-writes tbody tr"))
        .await
        .unwrap()
    {
        let mut cells = Vec::new();
        for cell in row.find_all(Locator::Css("td")).await.unwrap() {
            cells.push(cell.text().await.unwrap());
        }
        texts.push(cells);
    }
    texts
}

async fn an_owner_reads_what_an_integration_wrote_through_the_api(app: TestApp) {
    let Some(driver) = chromedriver() else {
        return;
    };
    let demo = shop_app::demo::prepare(&app.services).await.unwrap();
    let mut browser = Browser::start(driver, app.backend).await;
    browser
        .client
        .goto(&app.url("/console/login"))
        .await
        .unwrap();
    browser.type_into("#email", demo.owner_email.as_str()).await;
    browser.type_into("#password", &demo.owner_password).await;
    browser.click("#sign-in").await;
    browser.arrive("/console").await;

    // Nothing written yet: the activity's second tab.
    let nav = "nav a[href='/console/activity']";
    browser.wait_for(nav).await;
    browser.click(nav).await;
    browser.arrive("/console/activity").await;
    browser.click(TAB).await;
    browser.arrive("/console/activity/writes").await;
    assert!(browser.source().await.contains("Nothing yet"));

    browser.click("nav a[href='/console/keys']").await;
    browser.arrive("/console/keys").await;
    browser.type_into("#label", LABEL).await;
    browser.click("#scope-clients-write").await;
    browser.click("#scope-loyalty-write").await;
    browser.click("#create-key").await;
    let field = browser
        .client
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css("#new-key"))
        .await
        .unwrap();
    let key = field.prop("value").await.unwrap().expect("the key");
    let prefix = key[9..17].to_owned();

    let created = app
        .send(app.post_request(
            "/api/v2/clients",
            &key,
            &json!({"name": "Ana Martin", "email": "ana@example.com"}),
            None,
        ))
        .await;
    assert_eq!(created.status, 201, "{}", created.text);
    let client = created.json()["data"]["id"].as_str().unwrap().to_owned();
    let path = format!("/api/v2/clients/{client}");
    let body = json!({"email": "ana.martin@example.com", "billing": {"city": "Lyon"}});
    let patched = patch(&app, &key, &path, &body).await;
    assert_eq!(patched.status, 200, "{}", patched.text);
    let credited = app
        .send(app.post_request(
            &format!("/api/v2/clients/{client}/loyalty/adjustments"),
            &key,
            &json!({"points": 120, "reason": "web order 42"}),
            None,
        ))
        .await;
    assert!(credited.status < 300, "{}", credited.text);
    let listed = app.get("/api/v1/products?limit=1", &demo.key).await.json();
    let product = listed["data"][0]["id"].as_str().unwrap().to_owned();
    let renamed = patch(
        &app,
        &demo.key,
        &format!("/api/v2/products/{product}"),
        &json!({"name": "Lampe Aurore"}),
    )
    .await;
    assert_eq!(renamed.status, 200, "{}", renamed.text);

    browser.click("#done").await;
    browser.arrive("/console/keys").await;
    browser.click("nav a[href='/console/activity']").await;
    browser.arrive("/console/activity").await;
    browser.click(TAB).await;
    browser.arrive("/console/activity/writes").await;
    let shown = rows(&browser).await;
    let ours = format!("{LABEL} {prefix}");
    let demo_key = format!("demo {}", demo.key.get(9..17).unwrap());
    let expected = [
        (
            demo_key.as_str(),
            "Product updated",
            product.as_str(),
            "name",
        ),
        (
            ours.as_str(),
            "Points adjusted",
            client.as_str(),
            "+120 points (0 → 120) · web order 42",
        ),
        (
            ours.as_str(),
            "Client updated",
            client.as_str(),
            "email, billing.city",
        ),
        (
            ours.as_str(),
            "Client created",
            client.as_str(),
            "name, email, billing.country",
        ),
    ];
    assert_eq!(shown.len(), expected.len(), "{shown:?}");
    for (cells, (by, what, resource, changed)) in shown.iter().zip(expected) {
        assert!(cells[0].ends_with(" UTC"), "{cells:?}");
        assert_eq!(
            (cells[1].as_str(), cells[2].as_str(), cells[3].as_str()),
            (by, what, resource),
            "{shown:?}"
        );
        assert_eq!(cells[4], changed, "{shown:?}");
    }
    browser.shot("api-writes").await;

    browser.client.set_window_size(390, 844).await.unwrap();
    browser.client.refresh().await.unwrap();
    browser.arrive("/console/activity/writes").await;
    browser.shot("api-writes-on-a-phone").await;
    browser.client.clone().close().await.unwrap();
}
