use std::collections::BTreeSet;

use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use serde_json::json;
use shop_domain::Timestamp;
use shop_domain::client::{Billing, Client, ClientLoyalty, client_cursor, client_cursor_position};
use shop_domain::id::{ClientId, OrderId};
use shop_domain::order::order_cursor;
use shop_ports::port::MockClientRepository;

use super::{TestApi, get, keys, shop};

const CLIENT_KEYS: [&str; 12] = [
    "id",
    "name",
    "displayName",
    "phone",
    "email",
    "billing",
    "birthDate",
    "loyalty",
    "receiptByEmail",
    "tags",
    "createdAt",
    "updatedAt",
];

const BILLING_KEYS: [&str; 6] = [
    "company",
    "vatNumber",
    "address",
    "city",
    "postalCode",
    "country",
];

const LOYALTY_KEYS: [&str; 5] = [
    "points",
    "expiresAt",
    "pointsLifetime",
    "pointsAllTime",
    "tierAchievedAt",
];

fn at(text: &str) -> Timestamp {
    Timestamp::parse_rfc3339(text).unwrap()
}

/// A client with every optional value present.
pub fn full_client(id: &str) -> Client {
    Client {
        id: ClientId::parse(id).unwrap(),
        name: "Marie Curie".into(),
        display_name: Some("Marie".into()),
        phone: Some("+33 6 12 34 56 78".into()),
        email: Some("marie@example.com".into()),
        billing: Billing {
            company: Some("Radium SARL".into()),
            vat_number: Some("FR12345678901".into()),
            address: Some("1 rue Pierre et Marie Curie".into()),
            city: Some("Paris".into()),
            postal_code: Some("75005".into()),
            country: "FR".into(),
        },
        birth_date: Some("1967-11-07".into()),
        loyalty: ClientLoyalty {
            points: 120,
            expires_at: Some(at("2027-11-21T00:00:00Z")),
            points_lifetime: 875,
            points_all_time: 1_020,
            tier_achieved_at: Some(at("2026-06-01T12:00:00.500Z")),
        },
        receipt_by_email: true,
        tags: vec!["vip".into(), "newsletter".into()],
        created_at: at("2025-01-02T03:04:05.006Z"),
        updated_at: at("2026-11-21T09:30:00Z"),
    }
}

/// A client with every optional value absent.
fn bare_client(id: &str) -> Client {
    Client {
        id: ClientId::parse(id).unwrap(),
        name: "Client comptoir".into(),
        display_name: None,
        phone: None,
        email: None,
        billing: Billing {
            country: "FR".into(),
            ..Billing::default()
        },
        birth_date: None,
        loyalty: ClientLoyalty::default(),
        receipt_by_email: false,
        tags: vec![],
        created_at: at("2025-01-02T03:04:05Z"),
        updated_at: at("2025-01-02T03:04:05Z"),
    }
}

fn client_keys() -> BTreeSet<&'static str> {
    BTreeSet::from(CLIENT_KEYS)
}

fn listing_of(clients: Vec<Client>) -> MockClientRepository {
    let mut repository = MockClientRepository::new();
    repository
        .expect_list_clients()
        .returning(move |_, _, _| Ok(clients.clone()));
    repository
}

/// A repository holding `client` for the shop `owner` only (also used by the loyalty tests).
pub fn holding(owner: &'static str, client: Client) -> MockClientRepository {
    let mut repository = MockClientRepository::new();
    repository
        .expect_find_client()
        .returning(move |shop, id, _| {
            Ok((shop.as_str() == owner && *id == client.id).then(|| client.clone()))
        });
    repository
}

#[actix_web::test]
async fn a_client_has_exactly_the_spec_fields_and_types() {
    let reply = TestApi::new()
        .clients(holding("shop_1", full_client("cli_7")))
        .send(get("/api/v1/clients/cli_7"))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
    let body = reply.json();
    assert_eq!(keys(&body), BTreeSet::from(["data"]));
    assert_eq!(
        body["data"],
        json!({
            "id": "cli_7",
            "name": "Marie Curie",
            "displayName": "Marie",
            "phone": "+33 6 12 34 56 78",
            "email": "marie@example.com",
            "billing": {
                "company": "Radium SARL",
                "vatNumber": "FR12345678901",
                "address": "1 rue Pierre et Marie Curie",
                "city": "Paris",
                "postalCode": "75005",
                "country": "FR"
            },
            "birthDate": "1967-11-07",
            "loyalty": {
                "points": 120,
                "expiresAt": "2027-11-21T00:00:00.000Z",
                "pointsLifetime": 875,
                "pointsAllTime": 1020,
                "tierAchievedAt": "2026-06-01T12:00:00.500Z"
            },
            "receiptByEmail": true,
            "tags": ["vip", "newsletter"],
            "createdAt": "2025-01-02T03:04:05.006Z",
            "updatedAt": "2026-11-21T09:30:00.000Z"
        })
    );
}

/// The exact key sets, so that no future field (above all `note` or `anonymousClientId`) can
/// slip in.
#[actix_web::test]
async fn a_client_has_no_field_beyond_the_spec() {
    let reply = TestApi::new()
        .clients(holding("shop_1", full_client("cli_7")))
        .send(get("/api/v1/clients/cli_7"))
        .await;
    let client = &reply.json()["data"];
    assert_eq!(keys(client), client_keys());
    assert_eq!(keys(&client["billing"]), BTreeSet::from(BILLING_KEYS));
    assert_eq!(keys(&client["loyalty"]), BTreeSet::from(LOYALTY_KEYS));
    let text = String::from_utf8_lossy(&reply.body).to_lowercase();
    for hidden in ["note", "anonymous"] {
        assert!(!text.contains(hidden), "{hidden} in {text}");
    }
}

#[actix_web::test]
async fn absent_values_are_null_never_missing() {
    let reply = TestApi::new()
        .clients(holding("shop_1", bare_client("cli_8")))
        .send(get("/api/v1/clients/cli_8"))
        .await;
    let client = &reply.json()["data"];
    assert_eq!(keys(client), client_keys());
    for field in ["displayName", "phone", "email", "birthDate"] {
        assert!(client[field].is_null(), "{field}: {client}");
    }
    assert_eq!(
        client["billing"],
        json!({
            "company": null,
            "vatNumber": null,
            "address": null,
            "city": null,
            "postalCode": null,
            "country": "FR"
        })
    );
    assert_eq!(
        client["loyalty"],
        json!({
            "points": 0,
            "expiresAt": null,
            "pointsLifetime": 0,
            "pointsAllTime": 0,
            "tierAchievedAt": null
        })
    );
    assert_eq!(client["tags"], json!([]));
    assert_eq!(client["receiptByEmail"], false);
}

#[actix_web::test]
async fn list_wraps_clients_with_page_info() {
    let clients = ["c1", "c2", "c3"].map(full_client).to_vec();
    let reply = TestApi::new()
        .clients(listing_of(clients))
        .send(get("/api/v1/clients?limit=2"))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
    let body = reply.json();
    assert_eq!(keys(&body), BTreeSet::from(["data", "pageInfo"]));
    let data = body["data"].as_array().unwrap();
    assert_eq!(data.len(), 2);
    assert_eq!(keys(&data[0]), client_keys());
    let page_info = &body["pageInfo"];
    assert_eq!(
        keys(page_info),
        BTreeSet::from(["hasMore", "nextCursor", "limit", "syncedAt"])
    );
    assert_eq!(page_info["hasMore"], true);
    assert_eq!(page_info["limit"], 2);
    let cursor = page_info["nextCursor"].as_str().unwrap();
    assert_eq!(client_cursor_position(cursor).unwrap().as_str(), "c2");
}

#[actix_web::test]
async fn the_last_page_has_a_null_cursor_and_the_default_limit() {
    let mut repository = MockClientRepository::new();
    repository
        .expect_list_clients()
        .withf(|shop, query, _| {
            shop.as_str() == "shop_1"
                && query.limit.get() == 20
                && query.search.is_none()
                && query.after.is_none()
        })
        .times(1)
        .returning(|_, _, _| Ok(vec![bare_client("c1")]));
    let reply = TestApi::new()
        .clients(repository)
        .send(get("/api/v1/clients"))
        .await;
    assert_eq!(
        reply.json()["pageInfo"],
        json!({"hasMore": false, "nextCursor": null, "limit": 20, "syncedAt": "2023-11-14T22:12:20.000Z"})
    );
}

#[actix_web::test]
async fn every_parameter_reaches_the_query() {
    let cursor = client_cursor(&ClientId::parse("c9").unwrap()).encode();
    let mut repository = MockClientRepository::new();
    repository
        .expect_list_clients()
        .withf(|_, query, _| {
            let search = query.search.as_ref();
            search.map(|s| s.text.as_str()) == Some("+33 6 12")
                && search.and_then(|s| s.phone_digits.as_deref()) == Some("612")
                && query.after.as_ref().map(ClientId::as_str) == Some("c9")
                && query.limit.get() == 50
        })
        .times(1)
        .returning(|_, _, _| Ok(vec![]));
    let uri = format!("/api/v1/clients?q=%2B33+6+12&cursor={cursor}&limit=50");
    let reply = TestApi::new().clients(repository).send(get(&uri)).await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
}

#[actix_web::test]
async fn a_blank_search_is_no_search() {
    let mut repository = MockClientRepository::new();
    repository
        .expect_list_clients()
        .withf(|_, query, _| query.search.is_none())
        .times(1)
        .returning(|_, _, _| Ok(vec![]));
    let reply = TestApi::new()
        .clients(repository)
        .send(get("/api/v1/clients?q=+++"))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
}

#[actix_web::test]
async fn every_bad_value_is_reported_at_once() {
    let long = "x".repeat(101);
    let reply = TestApi::new()
        .send(get(&format!(
            "/api/v1/clients?q={long}&limit=0&cursor=garbage&email=a&limit=5"
        )))
        .await;
    let error = reply.error(StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert_eq!(
        error["details"],
        json!([
            {"field": "email", "message": "is not a known parameter"},
            {"field": "limit", "message": "must be given at most once"},
            {
                "field": "cursor",
                "message": "is not a cursor returned by this list; start again without it"
            },
            {"field": "q", "message": "must be at most 100 characters"}
        ])
    );
}

#[actix_web::test]
async fn a_cursor_of_another_list_is_refused() {
    let of_orders =
        order_cursor(Timestamp::from_millis(0), &OrderId::parse("c9").unwrap()).encode();
    let of_products =
        shop_domain::catalogue::product_cursor(&shop_domain::id::ProductId::parse("c9").unwrap())
            .encode();
    for bad in [of_orders, of_products] {
        let reply = TestApi::new()
            .send(get(&format!("/api/v1/clients?cursor={bad}")))
            .await;
        assert_eq!(reply.detail_fields(), ["cursor"], "{bad}");
    }
}

#[actix_web::test]
async fn limits_outside_1_to_100_are_refused() {
    for bad in ["0", "101", "-1", "abc", "", "1.5"] {
        let reply = TestApi::new()
            .send(get(&format!("/api/v1/clients?limit={bad}")))
            .await;
        assert_eq!(reply.detail_fields(), ["limit"], "{bad}");
    }
}

#[actix_web::test]
async fn unknown_foreign_and_impossible_ids_are_the_same_404() {
    let expected = br#"{"error":{"code":"NOT_FOUND","message":"No client has this id."}}"#;
    for uri in [
        "/api/v1/clients/cli_404",
        "/api/v1/clients/cli_other",
        "/api/v1/clients/a%20b",
    ] {
        let reply = TestApi::new()
            .clients(holding("shop_2", full_client("cli_other")))
            .send(get(uri))
            .await;
        reply.error(StatusCode::NOT_FOUND, "NOT_FOUND");
        assert_eq!(reply.body, &expected[..], "{uri}");
    }
}

#[actix_web::test]
async fn a_client_takes_no_parameters() {
    let reply = TestApi::new()
        .send(get("/api/v1/clients/cli_7?fields=name"))
        .await;
    assert_eq!(reply.detail_fields(), ["fields"]);
}

#[actix_web::test]
async fn a_loyalty_key_cannot_read_clients() {
    for uri in [
        "/api/v1/clients",
        "/api/v1/clients?q=marie",
        "/api/v1/clients?bogus=1",
        "/api/v1/clients/cli_7",
        "/api/v1/clients/cli_7?bogus=1",
    ] {
        let reply = TestApi::with_key(shop(), "loyalty:read")
            .send(get(uri))
            .await;
        let error = reply.error(StatusCode::FORBIDDEN, "INSUFFICIENT_SCOPE");
        assert_eq!(
            error["message"], "This API key lacks the scope clients:read.",
            "{uri}"
        );
        let anonymous = TestApi::new().send(TestRequest::get().uri(uri)).await;
        anonymous.error(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    }
}

#[actix_web::test]
async fn clients_read_alone_is_enough() {
    let reply = TestApi::with_key(shop(), "clients:read")
        .clients(holding("shop_1", full_client("cli_7")))
        .send(get("/api/v1/clients/cli_7"))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
}
