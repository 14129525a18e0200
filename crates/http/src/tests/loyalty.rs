use std::collections::BTreeSet;

use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use serde_json::json;
use shop_domain::Timestamp;
use shop_domain::color::HexColor;
use shop_domain::id::{ClientId, OrderId, SpinId, TicketId, TierId};
use shop_domain::loyalty::{LotteryTicket, LoyaltyTier, Spin};
use shop_ports::port::MockLoyaltyRepository;

use super::clients::{full_client, holding};
use super::{TestApi, get, keys, shop};

fn at(text: &str) -> Timestamp {
    Timestamp::parse_rfc3339(text).unwrap()
}

fn tier(id: &str, name: &str, min: i64, color: &str) -> LoyaltyTier {
    LoyaltyTier {
        id: TierId::parse(id).unwrap(),
        name: name.into(),
        min_points_lifetime: min,
        color: HexColor::parse(color).unwrap(),
    }
}

fn client_id() -> ClientId {
    ClientId::parse("cli_7").unwrap()
}

fn ticket(id: &str, order: Option<&str>, when: &str) -> LotteryTicket {
    LotteryTicket {
        id: TicketId::parse(id).unwrap(),
        client_id: client_id(),
        order_id: order.map(|order| OrderId::parse(order).unwrap()),
        created_at: at(when),
    }
}

fn spin(id: &str, won: bool, order: Option<&str>, when: &str) -> Spin {
    Spin {
        id: SpinId::parse(id).unwrap(),
        client_id: client_id(),
        order_id: order.map(|order| OrderId::parse(order).unwrap()),
        won,
        prize_label: won.then(|| "Café offert".to_owned()),
        prize_type: won.then(|| "gift".to_owned()),
        created_at: at(when),
    }
}

/// The shop's tiers (unsorted, as a store may return them) and the client's activity.
fn loyalty_of(
    tiers: Vec<LoyaltyTier>,
    tickets: Vec<LotteryTicket>,
    spins: Vec<Spin>,
) -> MockLoyaltyRepository {
    let mut repository = MockLoyaltyRepository::new();
    repository
        .expect_tiers()
        .withf(|shop, _| shop.as_str() == "shop_1")
        .returning(move |_, _| Ok(tiers.clone()));
    repository
        .expect_recent_tickets()
        .withf(|shop, client, limit, _| {
            shop.as_str() == "shop_1" && client.as_str() == "cli_7" && *limit == 10
        })
        .returning(move |_, _, _, _| Ok(tickets.clone()));
    repository
        .expect_recent_spins()
        .withf(|shop, client, limit, _| {
            shop.as_str() == "shop_1" && client.as_str() == "cli_7" && *limit == 10
        })
        .returning(move |_, _, _, _| Ok(spins.clone()));
    repository
}

fn three_tiers() -> Vec<LoyaltyTier> {
    vec![
        tier("gold", "Or", 2_000, "#ffd700"),
        tier("bronze", "Bronze", 100, "#cd7f32"),
        tier("silver", "Argent", 500, "#c0c0c0"),
    ]
}

/// `full_client` has 875 lifetime points: silver, a quarter of the way to gold.
fn api_with(repository: MockLoyaltyRepository) -> TestApi {
    TestApi::new()
        .clients(holding("shop_1", full_client("cli_7")))
        .loyalty(repository)
}

#[actix_web::test]
async fn the_summary_has_exactly_the_spec_fields_and_types() {
    let repository = loyalty_of(
        three_tiers(),
        vec![
            ticket("t2", Some("ord_2"), "2026-11-20T18:00:00Z"),
            ticket("t1", None, "2026-11-01T08:00:00.001Z"),
        ],
        vec![
            spin("s2", true, Some("ord_2"), "2026-11-20T18:00:01Z"),
            spin("s1", false, None, "2026-11-01T08:00:00Z"),
        ],
    );
    let reply = api_with(repository)
        .send(get("/api/v1/clients/cli_7/loyalty"))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
    let body = reply.json();
    assert_eq!(keys(&body), BTreeSet::from(["data"]));
    assert_eq!(
        body["data"],
        json!({
            "clientId": "cli_7",
            "points": 120,
            "pointsLifetime": 875,
            "pointsAllTime": 1020,
            "tier": {
                "current": {
                    "id": "silver",
                    "name": "Argent",
                    "minPointsLifetime": 500,
                    "color": "#C0C0C0",
                    "achievedAt": "2026-06-01T12:00:00.500Z"
                },
                "next": {
                    "id": "gold",
                    "name": "Or",
                    "minPointsLifetime": 2000,
                    "pointsToNext": 1125
                },
                "progress": 0.25
            },
            "recentLotteryTickets": [
                {"id": "t2", "orderId": "ord_2", "createdAt": "2026-11-20T18:00:00.000Z"},
                {"id": "t1", "orderId": null, "createdAt": "2026-11-01T08:00:00.001Z"}
            ],
            "recentSpins": [
                {
                    "id": "s2",
                    "orderId": "ord_2",
                    "won": true,
                    "prizeLabel": "Café offert",
                    "prizeType": "gift",
                    "createdAt": "2026-11-20T18:00:01.000Z"
                },
                {
                    "id": "s1",
                    "orderId": null,
                    "won": false,
                    "prizeLabel": null,
                    "prizeType": null,
                    "createdAt": "2026-11-01T08:00:00.000Z"
                }
            ]
        })
    );
    let summary = &body["data"];
    assert_eq!(
        keys(summary),
        BTreeSet::from([
            "clientId",
            "points",
            "pointsLifetime",
            "pointsAllTime",
            "tier",
            "recentLotteryTickets",
            "recentSpins"
        ])
    );
    assert_eq!(
        keys(&summary["tier"]),
        BTreeSet::from(["current", "next", "progress"])
    );
    assert!(summary["tier"]["progress"].is_f64());
}

#[actix_web::test]
async fn a_shop_without_tiers_has_null_tiers_and_zero_progress() {
    let reply = api_with(loyalty_of(vec![], vec![], vec![]))
        .send(get("/api/v1/clients/cli_7/loyalty"))
        .await;
    let summary = &reply.json()["data"];
    assert_eq!(
        summary["tier"],
        json!({"current": null, "next": null, "progress": 0.0})
    );
    assert_eq!(summary["recentLotteryTickets"], json!([]));
    assert_eq!(summary["recentSpins"], json!([]));
}

#[actix_web::test]
async fn below_the_first_tier_there_is_only_a_next_one() {
    let tiers = vec![tier("vip", "VIP", 3_500, "#000000")];
    let reply = api_with(loyalty_of(tiers, vec![], vec![]))
        .send(get("/api/v1/clients/cli_7/loyalty"))
        .await;
    assert_eq!(
        reply.json()["data"]["tier"],
        json!({
            "current": null,
            "next": {"id": "vip", "name": "VIP", "minPointsLifetime": 3500, "pointsToNext": 2625},
            "progress": 0.25
        })
    );
}

#[actix_web::test]
async fn at_the_top_tier_there_is_no_next_one() {
    let tiers = vec![tier("bronze", "Bronze", 100, "#cd7f32")];
    let reply = api_with(loyalty_of(tiers, vec![], vec![]))
        .send(get("/api/v1/clients/cli_7/loyalty"))
        .await;
    let tier = &reply.json()["data"]["tier"];
    assert_eq!(tier["current"]["id"], "bronze");
    assert!(tier["next"].is_null());
    assert_eq!(tier["progress"], json!(1.0));
}

#[actix_web::test]
async fn a_loyalty_key_reads_the_summary_without_clients_read() {
    let reply = TestApi::with_key(shop(), "loyalty:read")
        .clients(holding("shop_1", full_client("cli_7")))
        .loyalty(loyalty_of(three_tiers(), vec![], vec![]))
        .send(get("/api/v1/clients/cli_7/loyalty"))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
    assert_eq!(reply.json()["data"]["clientId"], "cli_7");
}

#[actix_web::test]
async fn a_clients_key_cannot_read_loyalty() {
    for uri in [
        "/api/v1/clients/cli_7/loyalty",
        "/api/v1/clients/cli_7/loyalty?bogus=1",
        "/api/v1/clients/nope/loyalty",
    ] {
        let reply = TestApi::with_key(shop(), "clients:read,orders:read")
            .send(get(uri))
            .await;
        let error = reply.error(StatusCode::FORBIDDEN, "INSUFFICIENT_SCOPE");
        assert_eq!(
            error["message"], "This API key lacks the scope loyalty:read.",
            "{uri}"
        );
        let anonymous = TestApi::new().send(TestRequest::get().uri(uri)).await;
        anonymous.error(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    }
}

/// The loyalty store is never asked (its mock has no expectations): the client is looked up
/// first, in the caller's shop.
#[actix_web::test]
async fn unknown_foreign_and_impossible_clients_are_the_same_404() {
    let expected = br#"{"error":{"code":"NOT_FOUND","message":"No client has this id."}}"#;
    for uri in [
        "/api/v1/clients/cli_404/loyalty",
        "/api/v1/clients/cli_7/loyalty",
        "/api/v1/clients/a%20b/loyalty",
    ] {
        let reply = TestApi::new()
            .clients(holding("shop_2", full_client("cli_7")))
            .send(get(uri))
            .await;
        reply.error(StatusCode::NOT_FOUND, "NOT_FOUND");
        assert_eq!(reply.body, &expected[..], "{uri}");
    }
}

#[actix_web::test]
async fn the_summary_takes_no_parameters() {
    let reply = TestApi::new()
        .send(get("/api/v1/clients/cli_7/loyalty?limit=5"))
        .await;
    assert_eq!(reply.detail_fields(), ["limit"]);
}
