//! The API writes page on mocked ports: each kind of line as an owner reads it, a key's label
//! that holds HTML shown as text, the pager's cursor, and the empty list.

use std::sync::{Arc, Mutex};

use actix_web::http::StatusCode;
use shop_domain::Timestamp;
use shop_domain::api_key::KeyPrefix;
use shop_domain::api_write::{
    ApiWrite, ApiWritePosition, ApiWriteQuery, ResourceWrite, WriteAction, WrittenChange,
    WrittenResource,
};
use shop_domain::id::{ApiWriteId, ClientId, LoyaltyAdjustmentId};
use shop_domain::loyalty::PointsAdjustment;
use shop_domain::pagination::{Cursor, CursorKind};

use super::{NOW, Ports, call, get};
use shop_domain::timeline::TimelineLine;

fn write(
    n: i64,
    resource: WrittenResource,
    action: WriteAction,
    resource_id: &str,
    changed: &[&str],
) -> ApiWrite {
    ApiWrite {
        key_prefix: KeyPrefix::parse("0a1b2c3d").unwrap(),
        key_label: "ERP sync".into(),
        change: WrittenChange::Resource(ResourceWrite {
            id: ApiWriteId::parse(format!("wrt_{n:03}")).unwrap(),
            resource,
            resource_id: resource_id.into(),
            action,
            changed: changed.iter().map(|path| (*path).to_owned()).collect(),
            at: Timestamp::from_millis(NOW - n * 60_000),
        }),
    }
}

fn points(n: i64, key_label: &str, reason: &str) -> ApiWrite {
    ApiWrite {
        key_prefix: KeyPrefix::parse("1b2c3d4e").unwrap(),
        key_label: key_label.into(),
        change: WrittenChange::Points(PointsAdjustment {
            id: LoyaltyAdjustmentId::parse(format!("lpa_{n:03}")).unwrap(),
            client_id: ClientId::parse("cli_ana").unwrap(),
            previous_points: 0,
            new_points: 120,
            delta: 120,
            reason: reason.into(),
            applied_at: Timestamp::from_millis(NOW - n * 60_000),
        }),
    }
}

/// The shop's log answers `lines` (already cut to what the page asked for) and keeps each
/// query it was asked.
fn log(ports: &mut Ports, lines: Vec<ApiWrite>) -> Arc<Mutex<Vec<ApiWriteQuery>>> {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&asked);
    ports
        .api_writes
        .expect_list_api_writes()
        .withf(|shop, _| shop.as_str() == "shop_1")
        .returning(move |_, query| {
            seen.lock().unwrap().push(query.clone());
            Ok(lines.iter().take(query.limit.get() + 1).cloned().collect())
        });
    asked
}

/// The text of the table's row for the line `id`, tags and all.
fn row<'a>(body: &'a str, id: &str) -> &'a str {
    let start = body
        .find(&format!("<tr data-id=\"{id}\">"))
        .unwrap_or_else(|| panic!("no row {id}:\n{body}"));
    let end = body[start..].find("</tr>").unwrap();
    &body[start..start + end]
}

#[actix_web::test]
async fn each_write_shows_its_key_what_it_was_and_which_members_changed() {
    let mut ports = Ports::signed_in();
    log(
        &mut ports,
        vec![
            write(
                1,
                WrittenResource::Client,
                WriteAction::Updated,
                "cli_ana",
                &["email", "billing.city"],
            ),
            points(2, "Caisse", "web order 42"),
            write(
                3,
                WrittenResource::Client,
                WriteAction::Created,
                "cli_ana",
                &["name"],
            ),
            write(
                4,
                WrittenResource::Product,
                WriteAction::Updated,
                "p_mug",
                &[],
            ),
            write(
                5,
                WrittenResource::Product,
                WriteAction::Created,
                "p_cup",
                &["name", "variants"],
            ),
        ],
    );
    let page = call(ports.state(), get("/console/activity/writes")).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    let body = &page.body;
    assert!(
        body.contains(r#"<a href="/console/activity/writes" aria-current="page">API writes</a>"#),
        "{body}"
    );

    let updated = row(body, "wrt_001");
    for shown in [
        "2026-09-21 14:12 UTC",
        "<bdi>ERP sync</bdi> <code class=\"muted\">0a1b2c3d</code>",
        "Client updated",
        "<code><bdi>cli_ana</bdi></code>",
        "<code>email</code>, <code>billing.city</code>",
    ] {
        assert!(updated.contains(shown), "{shown}: {updated}");
    }
    let credited = row(body, "lpa_002");
    for shown in [
        "<bdi>Caisse</bdi> <code class=\"muted\">1b2c3d4e</code>",
        "Points adjusted",
        "<code><bdi>cli_ana</bdi></code>",
        "<span class=\"strong\">+120</span> points",
        "(0 → 120)",
        "<bdi>web order 42</bdi>",
    ] {
        assert!(credited.contains(shown), "{shown}: {credited}");
    }
    assert!(row(body, "wrt_003").contains("Client created"));
    let unchanged = row(body, "wrt_004");
    assert!(unchanged.contains("Product updated") && unchanged.contains(">—</td>"));
    assert!(row(body, "wrt_005").contains("Product created"));
    // Newest first, as the log answered; one page: no pager link.
    let order: Vec<usize> = ["wrt_001", "lpa_002", "wrt_003", "wrt_004", "wrt_005"]
        .iter()
        .map(|id| body.find(&format!("data-id=\"{id}\"")).unwrap())
        .collect();
    assert!(order.is_sorted(), "{order:?}");
    assert!(!body.contains("rel=\"next\"") && !body.contains(">Newest<"));
}

#[actix_web::test]
async fn a_key_label_or_a_reason_holding_html_is_shown_as_text() {
    let mut ports = Ports::signed_in();
    let label = r#"<img src=x onerror="alert(1)"> & co"#;
    let reason = "<script>alert('points')</script>";
    log(&mut ports, vec![points(1, label, reason)]);
    let page = call(ports.state(), get("/console/activity/writes")).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(!page.body.contains("<img") && !page.body.contains("<script>alert"));
    assert!(
        page.body
            .contains("&#60;img src=x onerror=&#34;alert(1)&#34;&#62; &#38; co"),
        "{}",
        page.body
    );
    assert!(
        page.body
            .contains("&#60;script&#62;alert(&#39;points&#39;)&#60;/script&#62;"),
        "{}",
        page.body
    );
}

#[actix_web::test]
async fn the_older_link_carries_the_cursor_of_the_last_line_and_leads_past_it() {
    let lines: Vec<ApiWrite> = (1..=30)
        .map(|n| {
            write(
                n,
                WrittenResource::Client,
                WriteAction::Updated,
                "c",
                &["name"],
            )
        })
        .collect();
    let mut ports = Ports::signed_in();
    let asked = log(&mut ports, lines.clone());
    let first = call(ports.state(), get("/console/activity/writes")).await;
    assert_eq!(first.status, StatusCode::OK);
    assert_eq!(first.body.matches("<tr data-id=").count(), 20);
    assert!(
        !first.body.contains("wrt_021"),
        "the 21st only says there is more"
    );
    let cursor = lines[19].position().cursor().encode();
    let older =
        format!(r#"<a href="/console/activity/writes?cursor={cursor}" rel="next" id="older">"#);
    assert!(first.body.contains(&older), "{}", first.body);
    assert!(!first.body.contains(">Newest<"), "this is the newest page");
    assert_eq!(asked.lock().unwrap()[0], ApiWriteQuery::newest());

    let mut ports = Ports::signed_in();
    let asked = log(&mut ports, lines[20..].to_vec());
    let second = call(
        ports.state(),
        get(&format!("/console/activity/writes?cursor={cursor}")),
    )
    .await;
    assert_eq!(second.status, StatusCode::OK);
    assert_eq!(
        asked.lock().unwrap()[0].before,
        Some(lines[19].position()),
        "the next page starts after the last line shown"
    );
    assert_eq!(second.body.matches("<tr data-id=").count(), 10);
    assert!(
        second
            .body
            .contains(r#"<a href="/console/activity/writes">Newest</a>"#)
    );
    assert!(!second.body.contains("rel=\"next\""));
}

#[actix_web::test]
async fn a_cursor_of_another_list_or_a_garbled_one_is_an_out_of_date_link() {
    let activity = Cursor::new(
        CursorKind::Activity,
        vec![NOW.to_string(), "wrt_001".into()],
    );
    for cursor in [activity.encode(), "not-a-cursor".to_owned()] {
        let mut ports = Ports::signed_in();
        ports.api_writes.expect_list_api_writes().times(0);
        let page = call(
            ports.state(),
            get(&format!("/console/activity/writes?cursor={cursor}")),
        )
        .await;
        assert_eq!(page.status, StatusCode::BAD_REQUEST, "{cursor}");
        assert!(page.body.contains("This page link is out of date"));
    }
    let fine = ApiWritePosition::new(Timestamp::from_millis(NOW), "wrt_001".into());
    assert!(ApiWritePosition::from_cursor(&fine.cursor().encode()).is_ok());
}

#[actix_web::test]
async fn without_writes_the_page_says_what_will_show_here() {
    let mut ports = Ports::signed_in();
    log(&mut ports, Vec::new());
    let page = call(ports.state(), get("/console/activity/writes")).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(
        page.body.contains(
            "Nothing yet: when an integration creates or changes a client or a product, or \
             adjusts a client's points, it shows here."
        ),
        "{}",
        page.body
    );
    assert!(!page.body.contains("<table"));
}
