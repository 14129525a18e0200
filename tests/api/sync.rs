//! Incremental sync (`updatedSince` on orders, clients and stock; `pageInfo.syncedAt`): what a
//! mirror sees when the shop changes through `shop-api import` and API adjustments while it
//! pages, and what an unchanged re-import leaves alone.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use serde_json::{Value, json};

use crate::fixtures::{sales, stock};
use crate::support::{TestApp, on_both_databases};

on_both_databases!(
    a_sync_sees_every_change_made_while_paging_and_nothing_older,
    the_checkpoint_of_a_run_catches_what_the_run_could_not_see,
    an_unchanged_reimport_moves_no_order,
    an_unchanged_reimport_moves_no_client,
    an_unchanged_reimport_moves_no_stock_entry,
    updated_since_is_checked_and_keeps_its_own_cursor,
);

/// The three synced lists: path (with the filters a mirror uses), and each item's id field.
const LISTS: [(&str, &str); 3] = [
    ("/api/v1/orders", "id"),
    ("/api/v1/clients", "id"),
    ("/api/v1/stock?trackedOnly=false", "variantId"),
];

async fn seeded(app: &TestApp) -> String {
    app.create_shop("atelier").await;
    app.import("atelier", &sales()).await;
    app.import("atelier", &stock()).await;
    app.create_key("atelier", "orders:read,clients:read,stock:read,stock:write")
        .await
}

fn url(list: &str, query: &str) -> String {
    let separator = if list.contains('?') { '&' } else { '?' };
    format!("{list}{separator}{query}")
}

/// One run: pages of `limit` items to the end; after the first page, `between` runs (the
/// changes made while the mirror pages). Returns the items in the order received and the
/// first page's `syncedAt`.
async fn run(
    app: &TestApp,
    key: &str,
    list: &str,
    since: Option<&str>,
    between: impl AsyncFnOnce(),
) -> (Vec<Value>, String) {
    let mut between = Some(between);
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    let mut checkpoint = None;
    loop {
        let mut query = String::from("limit=2");
        if let Some(since) = since {
            query.push_str(&format!("&updatedSince={since}"));
        }
        if let Some(cursor) = &cursor {
            query.push_str(&format!("&cursor={cursor}"));
        }
        let reply = app.get(&url(list, &query), key).await;
        assert_eq!(reply.status, 200, "{list}: {}", reply.text);
        let page = reply.json();
        checkpoint.get_or_insert_with(|| {
            page["pageInfo"]["syncedAt"]
                .as_str()
                .expect("every page has syncedAt")
                .to_owned()
        });
        items.extend(page["data"].as_array().unwrap().iter().cloned());
        if let Some(between) = between.take() {
            between().await;
        }
        match page["pageInfo"]["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    (items, checkpoint.unwrap())
}

fn ids(items: &[Value], field: &str) -> BTreeSet<String> {
    items
        .iter()
        .map(|item| item[field].as_str().unwrap().to_owned())
        .collect()
}

fn latest_updated_at(items: &[Value]) -> String {
    items
        .iter()
        .map(|item| item["updatedAt"].as_str().unwrap().to_owned())
        .max()
        .unwrap()
}

/// The changes a mirror must see, made through the import (an order paid and completed, a
/// client's e-mail, a ticket for another client, a variant's stock and label) and the API
/// (an adjustment).
async fn change_the_shop(app: &TestApp, key: &str, round: usize) {
    let mut sales = sales();
    let order = &mut sales["orders"].as_array_mut().unwrap()[1];
    assert_eq!(order["id"], "o2");
    order["status"] = json!("completed");
    order["paymentStatus"] = json!("paid");
    let client = &mut sales["clients"].as_array_mut().unwrap()[1];
    assert_eq!(client["id"], "c2");
    client["email"] = json!("lucas.martin@example.org");
    sales["lotteryTickets"]
        .as_array_mut()
        .unwrap()
        .push(json!({"id": format!("t_new_{round}"), "clientId": "c3", "orderId": null}));
    app.import("atelier", &sales).await;
    let mut stock = stock();
    let variants = stock["products"][0]["variants"].as_array_mut().unwrap();
    assert_eq!(variants[1]["id"], "v_low");
    variants[1]["stock"] = json!(40);
    assert_eq!(variants[3]["id"], "v_off");
    variants[3]["label"] = json!("Vert d'eau");
    app.import("atelier", &stock).await;
    let adjusted = app
        .adjust(
            key,
            &json!({"variantId": "v_ok", "quantity": -1, "reason": "sale"}),
            None,
        )
        .await;
    assert_eq!(adjusted.status, 201, "{}", adjusted.text);
}

fn changed_ids(list: &str) -> BTreeSet<String> {
    let ids: &[&str] = match list {
        "/api/v1/orders" => &["o2"],
        "/api/v1/clients" => &["c2", "c3"],
        _ => &["v_low", "v_off", "v_ok"],
    };
    ids.iter().map(|id| (*id).to_owned()).collect()
}

async fn a_sync_sees_every_change_made_while_paging_and_nothing_older(app: TestApp) {
    let key = seeded(&app).await;
    for (round, (list, field)) in LISTS.into_iter().enumerate() {
        let (everything, _) = run(&app, &key, list, None, async || {}).await;
        // A checkpoint past every stored row: the next run must list exactly what changes.
        let past_seed = after_millis(&latest_updated_at(&everything));
        tokio::time::sleep(Duration::from_millis(5)).await;
        // Changes land while a run from that checkpoint pages (two items a page).
        let (first_pages, _) = run(&app, &key, list, Some(&past_seed), async || {
            change_the_shop(&app, &key, round).await;
        })
        .await;
        let (second, _) = run(&app, &key, list, Some(&past_seed), async || {}).await;
        assert_eq!(ids(&second, field), changed_ids(list), "{list}");
        for item in first_pages.iter().chain(&second) {
            assert!(
                item["updatedAt"].as_str().unwrap() >= past_seed.as_str(),
                "{list}: older than the checkpoint: {item}"
            );
        }
        // By updatedAt, then id.
        let order: Vec<(String, String)> = second
            .iter()
            .map(|item| {
                (
                    item["updatedAt"].as_str().unwrap().to_owned(),
                    item[field].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        let mut sorted = order.clone();
        sorted.sort();
        assert_eq!(order, sorted, "{list}");
        // Back to the fixtures, so that the next list's changes are changes again.
        app.import("atelier", &sales()).await;
        app.import("atelier", &stock()).await;
    }
}

/// `2026-11-25T10:00:00.123Z` plus one millisecond, in the API's rendering.
fn after_millis(instant: &str) -> String {
    let at = time::OffsetDateTime::parse(instant, &time::format_description::well_known::Rfc3339)
        .unwrap()
        + time::Duration::milliseconds(1);
    let format = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
    );
    at.format(&format).unwrap()
}

async fn the_checkpoint_of_a_run_catches_what_the_run_could_not_see(app: TestApp) {
    let key = seeded(&app).await;
    for (round, (list, field)) in LISTS.into_iter().enumerate() {
        // The first run's changes land after its first page: what it had already read is
        // stale, and the next run, from the first page's syncedAt, brings the new state.
        let (_, checkpoint) = run(&app, &key, list, None, async || {
            change_the_shop(&app, &key, round).await;
        })
        .await;
        let (next, _) = run(&app, &key, list, Some(&checkpoint), async || {}).await;
        let seen = ids(&next, field);
        for id in changed_ids(list) {
            assert!(seen.contains(&id), "{list}: {id} missed from {checkpoint}");
        }
        for item in &next {
            assert!(item["updatedAt"].as_str().unwrap() >= checkpoint.as_str());
        }
        let reply = app
            .get(&url(list, &format!("updatedSince={checkpoint}")), &key)
            .await;
        let page = reply.json();
        let latest = |id: &str| {
            page["data"]
                .as_array()
                .unwrap()
                .iter()
                .find(|item| item[field] == id)
                .cloned()
        };
        match list {
            "/api/v1/orders" => assert_eq!(latest("o2").unwrap()["status"], "completed"),
            "/api/v1/clients" => {
                assert_eq!(latest("c2").unwrap()["email"], "lucas.martin@example.org")
            }
            _ => assert_eq!(latest("v_low").unwrap()["stock"], 40),
        }
        app.import("atelier", &sales()).await;
        app.import("atelier", &stock()).await;
    }
}

async fn an_unchanged_reimport_moves_no_order(app: TestApp) {
    unchanged_reimport_moves_nothing(app, LISTS[0]).await;
}

async fn an_unchanged_reimport_moves_no_client(app: TestApp) {
    unchanged_reimport_moves_nothing(app, LISTS[1]).await;
}

async fn an_unchanged_reimport_moves_no_stock_entry(app: TestApp) {
    unchanged_reimport_moves_nothing(app, LISTS[2]).await;
}

/// Every item's `updatedAt` in `list` is the same after re-importing the same files, and after
/// a file that differs only by the `updatedAt` it gives (the stamp is the server's).
async fn unchanged_reimport_moves_nothing(app: TestApp, (list, field): (&str, &str)) {
    let key = seeded(&app).await;
    let stamps = async || {
        let reply = app.get(&url(list, "limit=100"), &key).await;
        reply.json()["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|item| {
                (
                    item[field].as_str().unwrap().to_owned(),
                    item["updatedAt"].as_str().unwrap().to_owned(),
                )
            })
            .collect::<BTreeMap<_, _>>()
    };
    let before = stamps().await;
    assert!(before.len() >= 3, "{list}: {before:?}");
    tokio::time::sleep(Duration::from_millis(5)).await;
    app.import("atelier", &sales()).await;
    app.import("atelier", &stock()).await;
    assert_eq!(stamps().await, before, "{list}");
    let mut restamped = sales();
    restamped["orders"][0]["updatedAt"] = json!("2020-01-01T00:00:00.000Z");
    restamped["clients"][0]["updatedAt"] = json!("2020-01-01T00:00:00.000Z");
    restamped["products"][0]["updatedAt"] = json!("2020-01-01T00:00:00.000Z");
    app.import("atelier", &restamped).await;
    assert_eq!(stamps().await, before, "{list}");
}

async fn updated_since_is_checked_and_keeps_its_own_cursor(app: TestApp) {
    let key = seeded(&app).await;
    for (list, _) in LISTS {
        for bad in ["yesterday", "2026-11-25T10:00:00", "2026-13-01"] {
            let reply = app
                .get(&url(list, &format!("updatedSince={bad}")), &key)
                .await;
            assert_eq!(reply.status, 400, "{list} {bad}");
            assert_eq!(reply.error_code(), "VALIDATION_ERROR");
            assert_eq!(reply.detail_fields(), ["updatedSince"]);
        }
        // A date is its first instant (UTC); one in the future lists nothing.
        let reply = app.get(&url(list, "updatedSince=2000-01-01"), &key).await;
        assert_eq!(reply.status, 200, "{}", reply.text);
        assert!(!reply.json()["data"].as_array().unwrap().is_empty());
        let reply = app.get(&url(list, "updatedSince=2999-01-01"), &key).await;
        assert_eq!(reply.json()["data"], json!([]));
        // A cursor of the usual walk is refused with updatedSince, and the other way round.
        let usual = app.get(&url(list, "limit=1"), &key).await.json();
        let usual_cursor = usual["pageInfo"]["nextCursor"].as_str().unwrap().to_owned();
        let changed = app
            .get(&url(list, "limit=1&updatedSince=2000-01-01"), &key)
            .await
            .json();
        let changed_cursor = changed["pageInfo"]["nextCursor"]
            .as_str()
            .unwrap()
            .to_owned();
        let reply = app
            .get(
                &url(
                    list,
                    &format!("updatedSince=2000-01-01&cursor={usual_cursor}"),
                ),
                &key,
            )
            .await;
        assert_eq!(reply.status, 400, "{list}");
        assert_eq!(reply.detail_fields(), ["cursor"]);
        let reply = app
            .get(&url(list, &format!("cursor={changed_cursor}")), &key)
            .await;
        assert_eq!(reply.status, 400, "{list}");
        assert_eq!(reply.detail_fields(), ["cursor"]);
    }
    // It combines with the list's other filters.
    let reply = app
        .get(
            "/api/v1/orders?updatedSince=2000-01-01&status=completed",
            &key,
        )
        .await;
    let statuses: BTreeSet<String> = reply.json()["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|order| order["status"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(statuses, BTreeSet::from(["completed".to_owned()]));
}
