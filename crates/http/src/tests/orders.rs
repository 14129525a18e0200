use std::collections::BTreeSet;

use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use serde_json::json;
use shop_domain::Timestamp;
use shop_domain::catalogue::product_cursor;
use shop_domain::client::client_cursor;
use shop_domain::id::{ClientId, OrderId, OrderItemId, ProductId, VariantId};
use shop_domain::money::Cents;
use shop_domain::order::{
    Order, OrderItem, OrderSource, OrderStatus, PaymentStatus, order_cursor, order_cursor_position,
};
use shop_domain::tax_rate::TaxRate;
use shop_ports::StoreError;
use shop_ports::port::MockOrderRepository;

use super::{TestApi, get, keys, shop};

const ORDER_KEYS: [&str; 16] = [
    "id",
    "orderNumber",
    "source",
    "status",
    "paymentStatus",
    "subtotalCents",
    "discountAmountCents",
    "taxAmountCents",
    "totalCents",
    "paymentMethod",
    "paidAt",
    "customer",
    "clientId",
    "items",
    "createdAt",
    "updatedAt",
];

const ITEM_KEYS: [&str; 10] = [
    "id",
    "productId",
    "variantId",
    "productName",
    "unitPriceCents",
    "quantity",
    "totalCents",
    "taxRate",
    "taxAmountCents",
    "refunded",
];

const ALL_STATUSES: &str = "must be one of pending, preparing, ready, completed, cancelled";

fn at(text: &str) -> Timestamp {
    Timestamp::parse_rfc3339(text).unwrap()
}

/// A paid click-and-collect order of a known client, with two lines.
fn full_order(id: &str) -> Order {
    let item = |n: i64, rate: &str| OrderItem {
        id: OrderItemId::parse(format!("{id}_i{n}")).unwrap(),
        product_id: ProductId::parse(format!("prod_{n}")).unwrap(),
        variant_id: VariantId::parse(format!("prod_{n}_v1")).unwrap(),
        product_name: format!("Écharpe {n}"),
        unit_price: Cents(1_250),
        quantity: n,
        total: Cents(1_250 * n),
        tax_rate: TaxRate::parse(rate).unwrap(),
        tax_amount: Cents(208 * n),
    };
    Order {
        id: OrderId::parse(id).unwrap(),
        order_number: 1_042,
        source: OrderSource::ClickCollect,
        status: OrderStatus::Completed,
        payment_status: PaymentStatus::Paid,
        subtotal: Cents(3_750),
        discount_amount: Cents(250),
        tax_amount: Cents(583),
        total: Cents(3_500),
        payment_method: Some("card".into()),
        paid_at: Some(at("2026-11-21T09:31:00.250Z")),
        client_id: Some(ClientId::parse("cli_7").unwrap()),
        items: vec![item(1, "20.00"), item(2, "5.50")],
        created_at: at("2026-11-21T09:30:00Z"),
        updated_at: at("2026-11-21T10:00:00.123+01:00"),
    }
}

/// An unpaid anonymous order: every optional value absent.
fn bare_order(id: &str) -> Order {
    let mut order = full_order(id);
    order.source = OrderSource::Pos;
    order.status = OrderStatus::Pending;
    order.payment_status = PaymentStatus::Pending;
    order.payment_method = None;
    order.paid_at = None;
    order.client_id = None;
    order.items.truncate(1);
    order
}

/// Orders `n` minutes apart, newest first as the repository returns them.
fn orders(ids: &[&str]) -> Vec<Order> {
    ids.iter()
        .zip(0_i64..)
        .map(|(id, n)| {
            let mut order = full_order(id);
            order.created_at = order.created_at.plus_millis(-60_000 * n);
            order
        })
        .collect()
}

fn listing_of(orders: Vec<Order>) -> MockOrderRepository {
    let mut repository = MockOrderRepository::new();
    repository
        .expect_list_orders()
        .returning(move |_, _, _| Ok(orders.clone()));
    repository
}

/// A repository holding `order` for the shop `owner` only.
fn holding(owner: &'static str, order: Order) -> MockOrderRepository {
    let mut repository = MockOrderRepository::new();
    repository
        .expect_find_order()
        .returning(move |shop, id, _| {
            Ok((shop.as_str() == owner && *id == order.id).then(|| order.clone()))
        });
    repository
}

#[actix_web::test]
async fn an_order_has_exactly_the_spec_fields_and_types() {
    let reply = TestApi::new()
        .orders(holding("shop_1", full_order("ord_1")))
        .send(get("/api/v1/orders/ord_1"))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
    let body = reply.json();
    assert_eq!(keys(&body), BTreeSet::from(["data"]));
    let order = &body["data"];
    assert_eq!(
        *order,
        json!({
            "id": "ord_1",
            "orderNumber": 1042,
            "source": "click-collect",
            "status": "completed",
            "paymentStatus": "paid",
            "subtotalCents": 3750,
            "discountAmountCents": 250,
            "taxAmountCents": 583,
            "totalCents": 3500,
            "paymentMethod": "card",
            "paidAt": "2026-11-21T09:31:00.250Z",
            "customer": null,
            "clientId": "cli_7",
            "items": [
                {
                    "id": "ord_1_i1",
                    "productId": "prod_1",
                    "variantId": "prod_1_v1",
                    "productName": "Écharpe 1",
                    "unitPriceCents": 1250,
                    "quantity": 1,
                    "totalCents": 1250,
                    "taxRate": "20.00",
                    "taxAmountCents": 208,
                    "refunded": null
                },
                {
                    "id": "ord_1_i2",
                    "productId": "prod_2",
                    "variantId": "prod_2_v1",
                    "productName": "Écharpe 2",
                    "unitPriceCents": 1250,
                    "quantity": 2,
                    "totalCents": 2500,
                    "taxRate": "5.50",
                    "taxAmountCents": 416,
                    "refunded": null
                }
            ],
            "createdAt": "2026-11-21T09:30:00.000Z",
            "updatedAt": "2026-11-21T09:00:00.123Z"
        })
    );
}

/// The exact key sets, so that no future field (above all a confidential one) can slip in.
#[actix_web::test]
async fn an_order_has_no_field_beyond_the_spec() {
    let reply = TestApi::new()
        .orders(holding("shop_1", full_order("ord_1")))
        .send(get("/api/v1/orders/ord_1"))
        .await;
    let order = &reply.json()["data"];
    assert_eq!(keys(order), BTreeSet::from(ORDER_KEYS));
    for item in order["items"].as_array().unwrap() {
        assert_eq!(keys(item), BTreeSet::from(ITEM_KEYS));
    }
    let text = String::from_utf8_lossy(&reply.body).to_lowercase();
    for hidden in [
        "signature",
        "cumulativetotalttcsnapshot",
        "internalnote",
        "paymentintent",
        "intent",
    ] {
        assert!(!text.contains(hidden), "{hidden} in {text}");
    }
}

#[actix_web::test]
async fn absent_values_are_null_never_missing() {
    let reply = TestApi::new()
        .orders(holding("shop_1", bare_order("ord_2")))
        .send(get("/api/v1/orders/ord_2"))
        .await;
    let order = &reply.json()["data"];
    assert_eq!(keys(order), BTreeSet::from(ORDER_KEYS));
    for field in ["paymentMethod", "paidAt", "customer", "clientId"] {
        assert!(order[field].is_null(), "{field}: {order}");
    }
    assert_eq!(
        (&order["source"], &order["status"], &order["paymentStatus"]),
        (&json!("pos"), &json!("pending"), &json!("pending"))
    );
    assert!(order["items"][0]["refunded"].is_null());
}

#[actix_web::test]
async fn list_wraps_orders_with_page_info() {
    let reply = TestApi::new()
        .orders(listing_of(orders(&["o3", "o2", "o1"])))
        .send(get("/api/v1/orders?limit=2"))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
    let body = reply.json();
    assert_eq!(keys(&body), BTreeSet::from(["data", "pageInfo"]));
    let data = body["data"].as_array().unwrap();
    assert_eq!(data.len(), 2);
    assert_eq!(keys(&data[0]), BTreeSet::from(ORDER_KEYS));
    assert_eq!(data[1]["id"], "o2");
    let page_info = &body["pageInfo"];
    assert_eq!(
        keys(page_info),
        BTreeSet::from(["hasMore", "nextCursor", "limit", "syncedAt"])
    );
    assert_eq!(page_info["hasMore"], true);
    assert_eq!(page_info["limit"], 2);
    let cursor = page_info["nextCursor"].as_str().unwrap();
    let (created_at, id) = order_cursor_position(cursor).unwrap();
    assert_eq!(id.as_str(), "o2");
    assert_eq!(created_at.to_rfc3339(), "2026-11-21T09:29:00.000Z");
}

#[actix_web::test]
async fn the_last_page_has_a_null_cursor_and_the_default_limit() {
    let mut repository = MockOrderRepository::new();
    repository
        .expect_list_orders()
        .withf(|shop, query, _| shop.as_str() == "shop_1" && query.limit.get() == 20)
        .times(1)
        .returning(|_, _, _| Ok(orders(&["o1"])));
    let reply = TestApi::new()
        .orders(repository)
        .send(get("/api/v1/orders"))
        .await;
    assert_eq!(
        reply.json()["pageInfo"],
        json!({"hasMore": false, "nextCursor": null, "limit": 20, "syncedAt": "2023-11-14T22:12:20.000Z"})
    );
}

#[actix_web::test]
async fn every_parameter_reaches_the_query() {
    let position = at("2026-11-21T09:30:00.123Z");
    let cursor = order_cursor(position, &OrderId::parse("o9").unwrap()).encode();
    let mut repository = MockOrderRepository::new();
    repository
        .expect_list_orders()
        .withf(move |shop, query, _| {
            shop.as_str() == "shop_1"
                && query.status == Some(OrderStatus::Ready)
                && query.payment_status == Some(PaymentStatus::Refunded)
                && query.source == Some(OrderSource::ClickCollect)
                && query.client_id.as_ref().map(ClientId::as_str) == Some("cli_7")
                && query.created_from == Some(at("2026-11-01T00:00:00Z"))
                && query.created_to == Some(at("2026-11-30T23:59:59.999Z"))
                && query.before == Some((position, OrderId::parse("o9").unwrap()))
                && query.limit.get() == 5
        })
        .times(1)
        .returning(|_, _, _| Ok(vec![]));
    let uri = format!(
        "/api/v1/orders?status=ready&paymentStatus=refunded&source=click-collect\
         &clientId=cli_7&dateFrom=2026-11-01&dateTo=2026-11-30&cursor={cursor}&limit=5"
    );
    let reply = TestApi::new().orders(repository).send(get(&uri)).await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
    assert_eq!(reply.json()["data"], json!([]));
}

#[actix_web::test]
async fn instants_are_accepted_as_date_bounds() {
    let mut repository = MockOrderRepository::new();
    repository
        .expect_list_orders()
        .withf(|_, query, _| {
            query.created_from == Some(at("2026-11-21T08:00:00Z"))
                && query.created_to == Some(at("2026-11-21T09:00:00Z"))
        })
        .times(1)
        .returning(|_, _, _| Ok(vec![]));
    let uri = "/api/v1/orders?dateFrom=2026-11-21T09:00:00%2B01:00&dateTo=2026-11-21T09:00:00Z";
    let reply = TestApi::new().orders(repository).send(get(uri)).await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
}

#[actix_web::test]
async fn one_day_is_a_valid_range() {
    let mut repository = MockOrderRepository::new();
    repository
        .expect_list_orders()
        .withf(|_, query, _| {
            query.created_from == Some(at("2026-11-21T00:00:00Z"))
                && query.created_to == Some(at("2026-11-21T23:59:59.999Z"))
        })
        .times(1)
        .returning(|_, _, _| Ok(vec![]));
    let reply = TestApi::new()
        .orders(repository)
        .send(get("/api/v1/orders?dateFrom=2026-11-21&dateTo=2026-11-21"))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
}

#[actix_web::test]
async fn an_unknown_status_lists_the_allowed_values() {
    let reply = TestApi::new()
        .send(get("/api/v1/orders?status=shipped"))
        .await;
    let error = reply.error(StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert_eq!(
        error["details"],
        json!([{"field": "status", "message": ALL_STATUSES}])
    );
}

#[actix_web::test]
async fn every_state_filter_names_its_allowed_values() {
    let reply = TestApi::new()
        .send(get(
            "/api/v1/orders?paymentStatus=PAID&source=click_collect&status=",
        ))
        .await;
    let error = reply.error(StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert_eq!(
        error["details"],
        json!([
            {"field": "status", "message": ALL_STATUSES},
            {"field": "paymentStatus", "message": "must be one of pending, paid, refunded"},
            {"field": "source", "message": "must be one of pos, click-collect, online"}
        ])
    );
}

#[actix_web::test]
async fn date_from_after_date_to_is_refused() {
    for (from, to) in [
        ("2026-11-22", "2026-11-21"),
        ("2026-11-21T10:00:00Z", "2026-11-21T09:59:59.999Z"),
        ("2026-11-22T00:00:00Z", "2026-11-21"),
    ] {
        let reply = TestApi::new()
            .send(get(&format!("/api/v1/orders?dateFrom={from}&dateTo={to}")))
            .await;
        let error = reply.error(StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
        assert_eq!(
            error["details"],
            json!([{"field": "dateFrom", "message": "must not be after dateTo"}]),
            "{from} {to}"
        );
    }
}

#[actix_web::test]
async fn a_reversed_range_is_reported_with_the_other_problems() {
    let reply = TestApi::new()
        .send(get(
            "/api/v1/orders?dateTo=2026-11-01&status=shipped&dateFrom=2026-11-02&limit=0",
        ))
        .await;
    assert_eq!(
        reply.detail_fields(),
        ["limit", "status", "dateFrom"],
        "{:?}",
        reply.body
    );
    let details = reply.json()["error"]["details"].clone();
    assert_eq!(details[2]["message"], "must not be after dateTo");
}

#[actix_web::test]
async fn bad_dates_are_refused_and_no_range_is_checked() {
    for bad in [
        "2026-11-31",
        "21/11/2026",
        "2026-11-21T09:30",
        "2026-11-21T09:30:00",
        "today",
        "",
    ] {
        let reply = TestApi::new()
            .send(get(&format!("/api/v1/orders?dateFrom={bad}&dateTo={bad}")))
            .await;
        assert_eq!(reply.detail_fields(), ["dateFrom", "dateTo"], "{bad}");
        let details = reply.json()["error"]["details"].clone();
        assert_eq!(
            details[0]["message"],
            "expected an RFC 3339 instant (2026-11-21T09:30:00Z) or a date (2026-11-21)"
        );
    }
}

#[actix_web::test]
async fn every_bad_value_is_reported_at_once() {
    let uri = "/api/v1/orders?cursor=garbage&limit=101&status=shipped&paymentStatus=x\
               &source=POS&clientId=a%2Fb&dateFrom=yesterday&dateTo=tomorrow";
    let reply = TestApi::new().send(get(uri)).await;
    assert_eq!(
        reply.detail_fields(),
        [
            "cursor",
            "limit",
            "status",
            "paymentStatus",
            "source",
            "clientId",
            "dateFrom",
            "dateTo"
        ]
    );
    for issue in reply.json()["error"]["details"].as_array().unwrap() {
        assert_eq!(keys(issue), BTreeSet::from(["field", "message"]));
        assert!(!issue["message"].as_str().unwrap().is_empty());
    }
}

#[actix_web::test]
async fn unknown_and_repeated_parameters_are_named() {
    let reply = TestApi::new()
        .send(get(
            "/api/v1/orders?customerId=c1&status=ready&status=paid&q=x",
        ))
        .await;
    let error = reply.error(StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert_eq!(
        error["details"],
        json!([
            {"field": "customerId", "message": "is not a known parameter"},
            {"field": "q", "message": "is not a known parameter"},
            {"field": "status", "message": "must be given at most once"}
        ])
    );
}

#[actix_web::test]
async fn a_cursor_of_another_list_or_tampered_is_refused() {
    let cursor = order_cursor(at("2026-11-21T09:30:00Z"), &OrderId::parse("o9").unwrap()).encode();
    let truncated = &cursor[..cursor.len() - 2];
    let of_products = product_cursor(&ProductId::parse("o9").unwrap()).encode();
    let of_clients = client_cursor(&ClientId::parse("o9").unwrap()).encode();
    for bad in [
        truncated,
        of_products.as_str(),
        of_clients.as_str(),
        "Zm9v",
        "",
    ] {
        let reply = TestApi::new()
            .send(get(&format!("/api/v1/orders?cursor={bad}")))
            .await;
        let error = reply.error(StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
        assert_eq!(
            error["details"],
            json!([{
                "field": "cursor",
                "message": "is not a cursor returned by this list; start again without it"
            }]),
            "{bad}"
        );
    }
}

#[actix_web::test]
async fn unknown_foreign_and_impossible_ids_are_the_same_404() {
    let expected = br#"{"error":{"code":"NOT_FOUND","message":"No order has this id."}}"#;
    let foreign = full_order("ord_other");
    for uri in [
        "/api/v1/orders/ord_404",
        "/api/v1/orders/ord_other",
        "/api/v1/orders/not%20an%20id",
    ] {
        let reply = TestApi::new()
            .orders(holding("shop_2", foreign.clone()))
            .send(get(uri))
            .await;
        reply.error(StatusCode::NOT_FOUND, "NOT_FOUND");
        assert_eq!(reply.body, &expected[..], "{uri}");
    }
}

#[actix_web::test]
async fn an_order_takes_no_parameters() {
    let reply = TestApi::new()
        .send(get("/api/v1/orders/ord_1?expand=items"))
        .await;
    assert_eq!(reply.detail_fields(), ["expand"]);
}

#[actix_web::test]
async fn orders_need_orders_read_before_any_validation() {
    for uri in [
        "/api/v1/orders",
        "/api/v1/orders?status=shipped&bogus=1",
        "/api/v1/orders/ord_1",
        "/api/v1/orders/ord_1?bogus=1",
    ] {
        let unscoped = TestApi::with_key(shop(), "products:read,clients:read,loyalty:read")
            .send(get(uri))
            .await;
        let error = unscoped.error(StatusCode::FORBIDDEN, "INSUFFICIENT_SCOPE");
        assert_eq!(
            error["message"], "This API key lacks the scope orders:read.",
            "{uri}"
        );
        let anonymous = TestApi::new().send(TestRequest::get().uri(uri)).await;
        anonymous.error(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    }
}

#[actix_web::test]
async fn orders_read_alone_is_enough() {
    let reply = TestApi::with_key(shop(), "orders:read")
        .orders(listing_of(vec![]))
        .send(get("/api/v1/orders"))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
}

#[actix_web::test]
async fn head_is_routed_like_get() {
    let request = get("/api/v1/orders/ord_1").method(actix_web::http::Method::HEAD);
    let reply = TestApi::new()
        .orders(holding("shop_1", full_order("ord_1")))
        .send(request)
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.header("content-type"), Some("application/json"));
}

#[actix_web::test]
async fn an_unreachable_database_is_a_503() {
    let mut repository = MockOrderRepository::new();
    repository
        .expect_list_orders()
        .returning(|_, _, _| Err(StoreError::Unavailable("pool timed out".into())));
    let reply = TestApi::new()
        .orders(repository)
        .send(get("/api/v1/orders"))
        .await;
    reply.error(StatusCode::SERVICE_UNAVAILABLE, "SERVICE_UNAVAILABLE");
    assert_eq!(reply.header("retry-after"), Some("1"));
}
