//! The Webhooks page on mocked ports: the endpoints and their status, a secret shown once,
//! the actions behind the session and its token, a deletion behind its confirmation.

use std::sync::{Arc, Mutex};

use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::test::TestRequest;
use shop_domain::Timestamp;
use shop_domain::id::{DeliveryId, EventId, WebhookEndpointId};
use shop_domain::scope::ScopeSet;
use shop_domain::webhook::{
    DeliveryLine, DeliveryStatus, DisabledReason, EndpointHealth, EndpointStatus, EndpointUrl,
    EventSelection, EventType, NetworkPolicy, WebhookEndpoint, WebhookSecret,
};
use shop_ports::port::EndpointCreation;

use super::{HOST, NOW, Ports, call, csrf, get, post, token};

fn endpoint(id: &str, status: EndpointStatus) -> WebhookEndpoint {
    WebhookEndpoint {
        id: WebhookEndpointId::parse(id).unwrap(),
        url: EndpointUrl::parse(
            &format!("https://hooks.example.com/{id}"),
            NetworkPolicy::PublicOnly,
        )
        .unwrap(),
        events: EventSelection::parse(["stock.updated", "order.created"]).unwrap(),
        description: "ERP".into(),
        status,
        created_at: Timestamp::from_millis(NOW - 86_400_000),
        updated_at: Timestamp::from_millis(NOW - 3_600_000),
        health: Default::default(),
    }
}

fn failed_attempt() -> DeliveryLine {
    DeliveryLine {
        id: DeliveryId::parse("dlv_9").unwrap(),
        event_id: EventId::parse("evt_9").unwrap(),
        event_type: EventType::StockUpdated,
        attempt: Some(3),
        status: DeliveryStatus::Failed,
        response_status: Some(500),
        duration_ms: Some(120),
        error: None,
        created_at: Timestamp::from_millis(NOW - 60_000),
        next_attempt_at: None,
    }
}

/// The secret the tests' random bytes make.
fn made_secret() -> String {
    WebhookSecret::from_random_bytes([0x77; 32]).expose()
}

/// The shop's endpoints are these, and each one's deliveries `lines`.
fn listing(ports: &mut Ports, endpoints: Vec<WebhookEndpoint>, lines: Vec<DeliveryLine>) {
    let found = endpoints.clone();
    ports
        .webhooks
        .expect_list_endpoints()
        .withf(|shop, _, _| shop.as_str() == "shop_1")
        .returning(move |_, _, _| Ok(endpoints.clone()));
    ports
        .webhooks
        .expect_get_endpoint()
        .returning(move |_, id| Ok(found.iter().find(|found| found.id == *id).cloned()));
    ports
        .webhooks
        .expect_list_deliveries()
        .returning(move |_, _, query| Ok(Some(lines.iter().take(query.limit).cloned().collect())));
}

/// No port that changes anything may be called.
fn nothing_changes(ports: &mut Ports) {
    let hooks = &mut ports.webhooks;
    hooks.expect_create_endpoint().times(0);
    hooks.expect_update_endpoint().times(0);
    hooks.expect_delete_endpoint().times(0);
    hooks.expect_rotate_secret().times(0);
    hooks.expect_enqueue_ping().times(0);
    hooks.expect_retry_delivery().times(0);
    hooks.expect_recover().times(0);
}

#[actix_web::test]
async fn the_webhooks_page_lists_each_endpoint_with_its_status_and_latest_delivery() {
    let mut ports = Ports::signed_in();
    listing(
        &mut ports,
        vec![
            endpoint("we_1", EndpointStatus::Enabled),
            WebhookEndpoint {
                health: EndpointHealth {
                    failures_in_a_row: 7,
                    last_attempt: Some((Timestamp::from_millis(NOW - 60_000), false)),
                },
                ..endpoint("we_a:b", EndpointStatus::Disabled(DisabledReason::Failing))
            },
        ],
        vec![failed_attempt()],
    );
    let page = call(ports.state(), get("/console/webhooks")).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    for expected in [
        "https://hooks.example.com/we_1",
        "href=\"/console/webhooks/we_a%3Ab\"",
        "data-status=\"enabled\"",
        "data-status=\"disabled\"",
        "failing",
        "order.created",
        "HTTP 500",
        "7 failures in a row",
        "1 endpoint is disabled",
        "aria-current=\"page\">Webhooks",
        // The form to add one, with every subscribable type and the wildcard.
        "id=\"event-every\"",
        "id=\"event-stock-updated\"",
        "name=\"csrf_token\"",
    ] {
        assert!(page.body.contains(expected), "{expected}: {}", page.body);
    }
    assert!(!page.body.contains("value=\"ping\""), "ping is no choice");
}

#[actix_web::test]
async fn a_new_endpoint_shows_its_secret_once_and_the_page_never_does() {
    let mut ports = Ports::signed_in();
    let created = Arc::new(Mutex::new(Vec::<WebhookEndpoint>::new()));
    let stored = Arc::clone(&created);
    ports
        .webhooks
        .expect_create_endpoint()
        .withf(|new| {
            new.shop.as_str() == "shop_1"
                && new.events == EventSelection::Every
                && new.creator_scopes == ScopeSet::all()
                && new.receives.len() == EventType::SUBSCRIBABLE.len()
                && new.description == "Stock sync"
        })
        .times(1)
        .returning(move |new| {
            let endpoint = WebhookEndpoint {
                id: new.id.clone(),
                url: new.url.clone(),
                events: new.events.clone(),
                description: new.description.clone(),
                status: EndpointStatus::Enabled,
                created_at: new.at,
                updated_at: new.at,
                health: Default::default(),
            };
            stored.lock().unwrap().push(endpoint.clone());
            Ok(EndpointCreation::Created(Box::new(endpoint)))
        });
    let listed = Arc::clone(&created);
    ports
        .webhooks
        .expect_list_endpoints()
        .returning(move |_, _, _| Ok(listed.lock().unwrap().clone()));
    ports
        .webhooks
        .expect_list_deliveries()
        .returning(|_, _, _| Ok(Some(vec![])));
    let state = ports.state();

    let page = call(
        state.clone(),
        post(
            "/console/webhooks",
            &[
                ("url", " https://hooks.example.com/shop "),
                ("events", "*"),
                ("description", "Stock sync"),
                ("csrf_token", csrf().as_str()),
            ],
        ),
    )
    .await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    assert_eq!(page.header(header::CACHE_CONTROL), "no-store");
    assert_eq!(
        page.body.matches(&made_secret()).count(),
        1,
        "{}",
        page.body
    );
    assert!(page.body.contains("shown this once"));
    assert!(page.body.contains("href=\"/console/webhooks/we_hook_1\""));

    let list = call(state, get("/console/webhooks")).await;
    assert_eq!(list.status, StatusCode::OK);
    assert!(list.body.contains("https://hooks.example.com/shop"));
    assert!(
        !list.body.contains(&made_secret()),
        "the secret is never listed"
    );
    assert!(!list.body.contains("whsec_"), "{}", list.body);
}

#[actix_web::test]
async fn a_refused_url_is_shown_next_to_its_field_with_what_was_typed() {
    let mut ports = Ports::signed_in();
    nothing_changes(&mut ports);
    listing(&mut ports, vec![], vec![]);
    let page = call(
        ports.state(),
        post(
            "/console/webhooks",
            &[
                ("url", "http://hooks.example.com/<b>"),
                ("description", "ERP"),
                ("csrf_token", csrf().as_str()),
            ],
        ),
    )
    .await;
    assert_eq!(page.status, StatusCode::BAD_REQUEST);
    for expected in [
        "<ul class=\"problems\" id=\"url-problems\"><li>The URL must use https.</li></ul>",
        "<ul class=\"problems\" id=\"events-problems\"><li>Expected at least one event type.</li>",
        "value=\"http://hooks.example.com/&#60;b&#62;\"",
        "aria-describedby=\"url-help url-problems\"",
        "value=\"ERP\"",
    ] {
        assert!(page.body.contains(expected), "{expected}: {}", page.body);
    }
}

#[actix_web::test]
async fn the_shops_last_endpoint_is_said_above_the_form() {
    let mut ports = Ports::signed_in();
    ports
        .webhooks
        .expect_create_endpoint()
        .times(1)
        .returning(|_| Ok(EndpointCreation::LimitReached));
    listing(&mut ports, vec![], vec![]);
    let page = call(
        ports.state(),
        post(
            "/console/webhooks",
            &[
                ("url", "https://hooks.example.com/x"),
                ("events", "stock.updated"),
                ("csrf_token", csrf().as_str()),
            ],
        ),
    )
    .await;
    assert_eq!(page.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(page.body.contains("id=\"limit-reached\""), "{}", page.body);
    assert!(page.body.contains("already has 16 endpoints"));
    assert!(page.body.contains("value=\"https://hooks.example.com/x\""));
}

#[actix_web::test]
async fn every_webhook_form_without_the_session_token_or_from_another_site_changes_nothing() {
    let paths = [
        "/console/webhooks",
        "/console/webhooks/we_1/secret",
        "/console/webhooks/we_1/test",
        "/console/webhooks/we_1/enabled",
        "/console/webhooks/we_1/retry",
        "/console/webhooks/we_1/recover",
        "/console/webhooks/we_1/delete",
    ];
    let fields = [
        ("url", "https://hooks.example.com/x"),
        ("events", "*"),
        ("enabled", "off"),
        ("delivery", "dlv_9"),
        ("since", "2026-01-01T00:00"),
    ];
    let wrong_token = "0".repeat(64);
    for path in paths {
        let requests = [
            post(path, &fields),
            post(
                path,
                &[fields.as_slice(), &[("csrf_token", wrong_token.as_str())]].concat(),
            ),
            post(
                path,
                &[fields.as_slice(), &[("csrf_token", csrf().as_str())]].concat(),
            )
            .insert_header((header::ORIGIN, "https://evil.example")),
        ];
        for request in requests {
            let mut ports = Ports::signed_in();
            nothing_changes(&mut ports);
            let page = call(ports.state(), request).await;
            assert_eq!(page.status, StatusCode::FORBIDDEN, "{path}: {}", page.body);
            assert!(page.body.contains("This form has expired"), "{path}");
        }
    }
}

#[actix_web::test]
async fn the_webhook_pages_without_a_session_send_to_sign_in() {
    for (method, path) in [
        ("GET", "/console/webhooks"),
        ("GET", "/console/webhooks/we_1"),
        ("GET", "/console/webhooks/we_1/delete"),
        ("POST", "/console/webhooks/we_1/delete"),
        ("POST", "/console/webhooks/we_1/secret"),
    ] {
        let mut ports = Ports::signed_out();
        ports.sessions.expect_find_session().returning(|_| Ok(None));
        nothing_changes(&mut ports);
        let request = if method == "GET" {
            TestRequest::get()
        } else {
            TestRequest::post()
        }
        .uri(path)
        .insert_header((header::HOST, HOST))
        .cookie(crate::cookies::session(&token(), false));
        let page = call(ports.state(), request).await;
        assert_eq!(page.status, StatusCode::SEE_OTHER, "{method} {path}");
        assert_eq!(page.header(header::LOCATION), "/console/login");
    }
}

#[actix_web::test]
async fn deleting_an_endpoint_takes_its_confirmation() {
    // The endpoint's page only links to the confirmation.
    let mut ports = Ports::signed_in();
    nothing_changes(&mut ports);
    listing(
        &mut ports,
        vec![endpoint("we_1", EndpointStatus::Enabled)],
        vec![],
    );
    let state = ports.state();
    let page = call(state.clone(), get("/console/webhooks/we_1")).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    assert!(
        page.body
            .contains("href=\"/console/webhooks/we_1/delete\" id=\"delete-endpoint\""),
        "{}",
        page.body
    );
    assert!(
        !page
            .body
            .contains("action=\"/console/webhooks/we_1/delete\"")
    );
    let confirmation = call(state, get("/console/webhooks/we_1/delete")).await;
    assert_eq!(confirmation.status, StatusCode::OK);
    for expected in [
        "Delete this endpoint?",
        "https://hooks.example.com/we_1",
        "action=\"/console/webhooks/we_1/delete\"",
        "id=\"confirm-delete\"",
        csrf().as_str(),
    ] {
        assert!(confirmation.body.contains(expected), "{expected}");
    }

    // Its button deletes it.
    let mut ports = Ports::signed_in();
    ports
        .webhooks
        .expect_delete_endpoint()
        .withf(|shop, id| shop.as_str() == "shop_1" && id.as_str() == "we_1")
        .times(1)
        .returning(|_, _| Ok(true));
    let page = call(
        ports.state(),
        post(
            "/console/webhooks/we_1/delete",
            &[("csrf_token", csrf().as_str())],
        ),
    )
    .await;
    assert_eq!(page.status, StatusCode::SEE_OTHER);
    assert_eq!(
        page.header(header::LOCATION),
        "/console/webhooks?done=deleted"
    );
}

#[actix_web::test]
async fn another_shops_endpoint_is_unknown_to_every_action() {
    let requests = [
        get("/console/webhooks/we_other"),
        get("/console/webhooks/we_other/delete"),
        post(
            "/console/webhooks/we_other/delete",
            &[("csrf_token", csrf().as_str())],
        ),
        post(
            "/console/webhooks/we_other/test",
            &[("csrf_token", csrf().as_str())],
        ),
        post(
            "/console/webhooks/we_other/enabled",
            &[("enabled", "off"), ("csrf_token", csrf().as_str())],
        ),
        post(
            "/console/webhooks/we_other/retry",
            &[("delivery", "dlv_9"), ("csrf_token", csrf().as_str())],
        ),
        post(
            "/console/webhooks/we_other/recover",
            &[
                ("since", "2026-01-01T00:00"),
                ("csrf_token", csrf().as_str()),
            ],
        ),
        post(
            "/console/webhooks/we_other/secret",
            &[("csrf_token", csrf().as_str())],
        ),
    ];
    for request in requests {
        // The store scopes every call by shop and finds nothing.
        let mut ports = Ports::signed_in();
        let hooks = &mut ports.webhooks;
        hooks.expect_get_endpoint().returning(|_, _| Ok(None));
        hooks.expect_delete_endpoint().returning(|_, _| Ok(false));
        hooks.expect_enqueue_ping().returning(|_, _, _| Ok(false));
        hooks
            .expect_update_endpoint()
            .returning(|_, _, _, _| Ok(None));
        hooks
            .expect_retry_delivery()
            .returning(|_, _, _, _| Ok(false));
        hooks.expect_recover().returning(|_, _, _, _| Ok(None));
        hooks.expect_rotate_secret().times(0);
        let page = call(ports.state(), request).await;
        assert_eq!(page.status, StatusCode::NOT_FOUND, "{}", page.body);
        assert!(!page.body.contains("whsec_"));
    }
}

#[actix_web::test]
async fn an_endpoint_is_disabled_and_enabled_and_comes_back_saying_so() {
    for (switch, enabled, done) in [("off", false, "disabled"), ("on", true, "enabled")] {
        let mut ports = Ports::signed_in();
        ports
            .webhooks
            .expect_update_endpoint()
            .withf(move |shop, id, change, at| {
                shop.as_str() == "shop_1"
                    && id.as_str() == "we_1"
                    && change.enabled == Some(enabled)
                    && change.url.is_none()
                    && change.events.is_none()
                    && change.description.is_none()
                    && at.millis() == NOW
            })
            .times(1)
            .returning(|_, _, _, _| Ok(Some(endpoint("we_1", EndpointStatus::Enabled))));
        let page = call(
            ports.state(),
            post(
                "/console/webhooks/we_1/enabled",
                &[("enabled", switch), ("csrf_token", csrf().as_str())],
            ),
        )
        .await;
        assert_eq!(page.status, StatusCode::SEE_OTHER);
        assert_eq!(
            page.header(header::LOCATION),
            format!("/console/webhooks/we_1?done={done}")
        );
    }

    let mut ports = Ports::signed_in();
    listing(
        &mut ports,
        vec![endpoint(
            "we_1",
            EndpointStatus::Disabled(DisabledReason::Manual),
        )],
        vec![],
    );
    let page = call(ports.state(), get("/console/webhooks/we_1?done=disabled")).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(!page.body.contains("id=\"notice\""), "the warning says it");
    for expected in [
        "This endpoint is disabled (manual)",
        "id=\"enable-endpoint\"",
        "name=\"enabled\" value=\"on\"",
    ] {
        assert!(page.body.contains(expected), "{expected}: {}", page.body);
    }
}

#[actix_web::test]
async fn a_test_a_retry_and_a_recovery_reach_the_store_and_come_back() {
    let mut ports = Ports::signed_in();
    let hooks = &mut ports.webhooks;
    hooks
        .expect_enqueue_ping()
        .withf(|shop, id, event| {
            shop.as_str() == "shop_1"
                && id.as_str() == "we_1"
                && event.event_type == EventType::Ping
        })
        .times(1)
        .returning(|_, _, _| Ok(true));
    hooks
        .expect_retry_delivery()
        .withf(|_, id, delivery, _| id.as_str() == "we_1" && delivery.as_str() == "dlv_9")
        .times(1)
        .returning(|_, _, _, _| Ok(true));
    let since = Timestamp::parse_rfc3339("2026-11-25T14:00:00Z").unwrap();
    hooks
        .expect_recover()
        .withf(move |_, id, at, _| id.as_str() == "we_1" && *at == since)
        .times(1)
        .returning(|_, _, _, _| Ok(Some(3)));
    let state = ports.state();
    let token = csrf();
    for (path, fields, location) in [
        ("test", vec![], "/console/webhooks/we_1?done=tested"),
        (
            "retry",
            vec![("delivery", "dlv_9")],
            "/console/webhooks/we_1?done=retried",
        ),
        (
            "recover",
            vec![("since", "2026-11-25T14:00")],
            "/console/webhooks/we_1?done=recovered&count=3",
        ),
    ] {
        let fields = [fields.as_slice(), &[("csrf_token", token.as_str())]].concat();
        let page = call(
            state.clone(),
            post(&format!("/console/webhooks/we_1/{path}"), &fields),
        )
        .await;
        assert_eq!(page.status, StatusCode::SEE_OTHER, "{path}: {}", page.body);
        assert_eq!(page.header(header::LOCATION), location);
    }
}

#[actix_web::test]
async fn a_recovery_without_a_readable_instant_is_refused_beside_its_field() {
    let mut ports = Ports::signed_in();
    nothing_changes(&mut ports);
    listing(
        &mut ports,
        vec![endpoint("we_1", EndpointStatus::Enabled)],
        vec![failed_attempt()],
    );
    let page = call(
        ports.state(),
        post(
            "/console/webhooks/we_1/recover",
            &[("since", "yesterday"), ("csrf_token", csrf().as_str())],
        ),
    )
    .await;
    assert_eq!(page.status, StatusCode::BAD_REQUEST);
    for expected in [
        "id=\"since-problems\"",
        "Enter a date and time such as",
        "value=\"yesterday\"",
        // The rest of the page is there, deliveries included.
        "data-delivery=\"dlv_9\"",
    ] {
        assert!(page.body.contains(expected), "{expected}: {}", page.body);
    }
}

#[actix_web::test]
async fn a_rotated_secret_is_shown_once() {
    let mut ports = Ports::signed_in();
    listing(
        &mut ports,
        vec![endpoint("we_1", EndpointStatus::Enabled)],
        vec![],
    );
    ports
        .webhooks
        .expect_rotate_secret()
        .withf(|shop, id, secret, until, at| {
            shop.as_str() == "shop_1"
                && id.as_str() == "we_1"
                && secret.expose() == made_secret()
                && until.millis() == NOW + 86_400_000
                && at.millis() == NOW
        })
        .times(1)
        .returning(|_, _, _, _, _| Ok(true));
    let state = ports.state();
    let page = call(
        state.clone(),
        post(
            "/console/webhooks/we_1/secret",
            &[("csrf_token", csrf().as_str())],
        ),
    )
    .await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    assert_eq!(page.header(header::CACHE_CONTROL), "no-store");
    assert_eq!(page.body.matches(&made_secret()).count(), 1);
    assert!(page.body.contains("for 24 hours"));

    let again = call(state, get("/console/webhooks/we_1")).await;
    assert!(!again.body.contains("whsec_"));
}

#[actix_web::test]
async fn the_overview_flags_a_disabled_endpoint() {
    let mut ports = Ports::signed_in();
    ports.keys.expect_list_keys().returning(|_| Ok(vec![]));
    listing(
        &mut ports,
        vec![
            endpoint("we_1", EndpointStatus::Enabled),
            endpoint("we_2", EndpointStatus::Disabled(DisabledReason::Failing)),
        ],
        vec![],
    );
    let page = call(ports.state(), get("/console")).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(
        page.body
            .contains("1 webhook endpoint is disabled (failing)"),
        "{}",
        page.body
    );
    assert!(page.body.contains("href=\"/console/webhooks\""));

    let mut ports = Ports::signed_in();
    ports.keys.expect_list_keys().returning(|_| Ok(vec![]));
    listing(
        &mut ports,
        vec![endpoint("we_1", EndpointStatus::Enabled)],
        vec![],
    );
    let page = call(ports.state(), get("/console")).await;
    assert!(!page.body.contains("is disabled"), "{}", page.body);
}

#[actix_web::test]
async fn a_deliveries_link_the_console_did_not_make_is_a_stale_link() {
    let mut ports = Ports::signed_in();
    listing(
        &mut ports,
        vec![endpoint("we_1", EndpointStatus::Enabled)],
        vec![],
    );
    let page = call(ports.state(), get("/console/webhooks/we_1?cursor=garbage")).await;
    assert_eq!(page.status, StatusCode::BAD_REQUEST);
    assert!(
        page.body.contains("This page link is out of date"),
        "{}",
        page.body
    );
}
