use serde_json::json;

use crate::orders::seeded;
use crate::support::{TestApp, on_both_databases};

on_both_databases!(
    the_loyalty_summary_is_exactly_the_spec_shape,
    tickets_and_spins_are_capped_at_the_ten_latest,
    each_endpoint_needs_its_own_scope,
);

async fn the_loyalty_summary_is_exactly_the_spec_shape(app: TestApp) {
    let key = seeded(&app, "loyalty:read").await;
    let reply = app.get("/api/v1/clients/c1/loyalty", &key).await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    let data = reply.json()["data"].clone();
    assert_eq!(
        (
            data["clientId"].clone(),
            data["points"].clone(),
            data["pointsLifetime"].clone(),
            data["pointsAllTime"].clone()
        ),
        (json!("c1"), json!(120), json!(875), json!(885))
    );
    assert_eq!(
        data["tier"],
        json!({
            "current": {"id": "tier_silver", "name": "Argent", "minPointsLifetime": 500, "color": "#C0C0C0",
                        "achievedAt": "2026-02-01T10:00:00.000Z"},
            "next": {"id": "tier_gold", "name": "Or", "minPointsLifetime": 2000, "pointsToNext": 1125},
            "progress": 0.25
        })
    );
    let keys: Vec<&String> = data.as_object().unwrap().keys().collect();
    let mut keys: Vec<&str> = keys.into_iter().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "clientId",
            "points",
            "pointsAllTime",
            "pointsLifetime",
            "recentLotteryTickets",
            "recentSpins",
            "tier"
        ]
    );

    let top = app.get("/api/v1/clients/c3/loyalty", &key).await.json()["data"]["tier"].clone();
    assert_eq!(
        (
            top["current"]["id"].clone(),
            top["next"].clone(),
            top["progress"].clone()
        ),
        (json!("tier_gold"), json!(null), json!(1.0))
    );
    let below = app.get("/api/v1/clients/c2/loyalty", &key).await.json()["data"]["tier"].clone();
    assert_eq!(
        (
            below["current"].clone(),
            below["next"]["pointsToNext"].clone(),
            below["progress"].clone()
        ),
        (json!(null), json!(400), json!(0.2))
    );
}

async fn tickets_and_spins_are_capped_at_the_ten_latest(app: TestApp) {
    let key = seeded(&app, "loyalty:read").await;
    let data = app.get("/api/v1/clients/c1/loyalty", &key).await.json()["data"].clone();
    let tickets = data["recentLotteryTickets"].as_array().unwrap();
    let spins = data["recentSpins"].as_array().unwrap();
    assert_eq!(
        (tickets.len(), spins.len()),
        (10, 10),
        "13 tickets and 12 spins are stored"
    );
    let ticket_ids: Vec<&str> = tickets.iter().map(|t| t["id"].as_str().unwrap()).collect();
    // Tickets come two per day: equal instants are ordered by id, descending.
    assert_eq!(
        ticket_ids,
        [
            "t12", "t11", "t10", "t09", "t08", "t07", "t06", "t05", "t04", "t03"
        ]
    );
    assert_eq!(
        tickets[0],
        json!({"id": "t12", "orderId": "o1", "createdAt": "2026-03-07T08:00:00.000Z"})
    );
    assert_eq!(tickets[1]["orderId"], json!(null));
    assert_eq!(
        spins[0],
        json!({"id": "s11", "orderId": "o1", "won": false, "prizeLabel": null, "prizeType": null, "createdAt": "2026-03-12T09:00:00.000Z"})
    );
    assert_eq!(spins[2]["prizeLabel"], "Bougie");
    let empty = app.get("/api/v1/clients/c2/loyalty", &key).await.json()["data"].clone();
    assert_eq!(
        (
            empty["recentLotteryTickets"].clone(),
            empty["recentSpins"].clone()
        ),
        (json!([]), json!([]))
    );
}

async fn each_endpoint_needs_its_own_scope(app: TestApp) {
    let clients_only = seeded(&app, "clients:read").await;
    let loyalty_only = app.create_key("atelier", "loyalty:read").await;
    let orders_only = app.create_key("atelier", "orders:read").await;
    let forbidden = |reply: crate::support::Reply| (reply.status, reply.error_code());
    let insufficient = (403, "INSUFFICIENT_SCOPE".to_owned());
    assert_eq!(
        forbidden(app.get("/api/v1/clients/c1/loyalty", &clients_only).await),
        insufficient
    );
    assert_eq!(
        forbidden(app.get("/api/v1/clients", &loyalty_only).await),
        insufficient
    );
    assert_eq!(
        forbidden(app.get("/api/v1/clients/c1", &loyalty_only).await),
        insufficient
    );
    assert_eq!(
        forbidden(app.get("/api/v1/orders", &loyalty_only).await),
        insufficient
    );
    assert_eq!(
        forbidden(app.get("/api/v1/orders/o1", &clients_only).await),
        insufficient
    );
    assert_eq!(
        forbidden(app.get("/api/v1/clients", &orders_only).await),
        insufficient
    );
    assert_eq!(
        app.get("/api/v1/clients/c1/loyalty", &loyalty_only)
            .await
            .status,
        200
    );
    assert_eq!(
        app.get("/api/v1/clients/c1", &clients_only).await.status,
        200
    );
    assert_eq!(app.get("/api/v1/orders/o1", &orders_only).await.status, 200);
}
