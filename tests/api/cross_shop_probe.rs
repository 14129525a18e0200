//! Cross-shop probe: shop A's key asks for every resource of shop B through every endpoint,
//! and each answer must be exactly the answer to an unknown value of the same shape: status,
//! headers (less the per-request ones) and body, byte for byte. Lists filtered by one of shop
//! B's values (a client, a product, a category, a search term) answer what the same filter
//! with an unknown value answers. The endpoints and their inputs are read from
//! `docs/openapi.json`, so that a new endpoint or filter fails this test until it is probed
//! here (or declared to carry no shop data).

use std::collections::BTreeSet;

use reqwest::Method;
use serde_json::{Value, json};

use crate::fixtures;
use crate::support::{Reply, TestApp, on_both_databases};

on_both_databases!(another_shops_data_answers_exactly_like_unknown_data);

const SHOP_A: &str = "alpha";
const SHOP_B: &str = "beta";
const SCOPES: &str = "products:read,orders:read,stock:read,stock:write,clients:read,loyalty:read";

/// Headers that differ between any two requests: the date, the request id and the rate-limit
/// counters.
const PER_REQUEST_HEADERS: [&str; 5] = [
    "date",
    "x-request-id",
    "ratelimit",
    "x-ratelimit-remaining",
    "x-ratelimit-reset",
];

/// Inputs that hold no value of a shop's data: positions, sizes, flags, states, dates and the
/// adjustment's amount and text. (A cursor is a position in the caller's own list, checksummed
/// and bound to that list.)
const NOT_SHOP_DATA: [&str; 13] = [
    "cursor",
    "limit",
    "active",
    "updatedSince",
    "lowStockOnly",
    "trackedOnly",
    "status",
    "paymentStatus",
    "source",
    "dateFrom",
    "dateTo",
    "quantity",
    "reason",
];

/// An OpenAPI operation: method and path template.
type Operation = (&'static str, &'static str);

/// Shop B: a small shop of every kind of resource, whose every value is unlike shop A's, so
/// that a leak would show as a difference.
fn shop_b() -> Value {
    json!({
        "loyaltyTiers": [{"id": "tier_beta_gold", "name": "Beta Or", "minPointsLifetime": 100, "color": "#112233"}],
        "products": [
            {"id": "prod_beta_lamp", "name": "Lampe Zéphyr", "productType": "luminaire", "ean": "4006381333931",
             "sku": "ZEP-LAMP", "priceCents": 8900, "taxRate": "20.00", "trackStock": true,
             "category": {"id": "cat_beta_light", "name": "Luminaires"}, "brand": {"id": "brand_beta_zephyr", "name": "Zéphyr"},
             "variants": [
                 {"id": "var_beta_lamp_white", "label": "Blanc", "sku": "ZEP-LAMP-W", "barcode": "4006381333948",
                  "priceCents": 8900, "stock": 5},
                 {"id": "var_beta_lamp_black", "label": "Noir", "sku": "ZEP-LAMP-B", "barcode": "4006381333955",
                  "priceCents": 8900, "stock": 2, "active": false}
             ]},
            {"id": "prod_beta_bulb", "name": "Ampoule Zéphyr", "priceCents": 900, "taxRate": "20.00", "trackStock": false,
             "variants": [{"id": "var_beta_bulb", "label": "E27", "sku": "ZEP-BULB", "barcode": "4006381333962",
                           "priceCents": 900, "stock": 40}]}
        ],
        "clients": [
            {"id": "client_beta_ines", "name": "Inès Zéphyrine", "phone": "05 49 88 77 66", "email": "ines@beta.example"},
            {"id": "client_beta_yann", "name": "Yann Zéphyrin", "phone": "+33 5 49 11 22 33", "email": "yann@beta.example"}
        ],
        "orders": [
            {"id": "order_beta_1", "orderNumber": 1, "source": "online", "status": "completed", "paymentStatus": "paid",
             "totalCents": 8900, "clientId": "client_beta_ines",
             "items": [{"id": "item_beta_1", "productId": "prod_beta_lamp", "variantId": "var_beta_lamp_white",
                        "productName": "Lampe Zéphyr", "unitPriceCents": 8900, "quantity": 1, "taxRate": "20.00"}]},
            {"id": "order_beta_2", "orderNumber": 2, "source": "pos", "status": "pending", "paymentStatus": "pending",
             "totalCents": 900, "items": []}
        ],
        "lotteryTickets": [{"id": "ticket_beta_1", "clientId": "client_beta_ines", "orderId": "order_beta_1"}],
        "spins": [{"id": "spin_beta_1", "clientId": "client_beta_ines", "orderId": "order_beta_1", "won": false}]
    })
}

/// The Idempotency-Key under which shop B adjusted `variant`.
fn b_idempotency_key(variant: &str) -> String {
    format!("beta-erp-{variant}")
}

/// A value of the same shape that names nothing: each ASCII letter moved 13 places, each digit
/// 5. One to one, so that two of shop B's values never share a twin (two twins sharing an
/// Idempotency-Key would turn the second into a replay).
fn unknown_like(value: &str) -> String {
    const LOWER: &[u8; 26] = b"abcdefghijklmnopqrstuvwxyz";
    const UPPER: &[u8; 26] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    const DIGITS: &[u8; 10] = b"0123456789";
    let moved = |alphabet: &[u8], c: char, by: usize| {
        let at = alphabet.iter().position(|&a| char::from(a) == c)?;
        Some(char::from(alphabet[(at + by) % alphabet.len()]))
    };
    value
        .chars()
        .map(|c| {
            moved(LOWER, c, 13)
                .or_else(|| moved(UPPER, c, 13))
                .or_else(|| moved(DIGITS, c, 5))
                .unwrap_or(c)
        })
        .collect()
}

#[derive(Clone, Debug)]
struct Request {
    method: Method,
    path: String,
    query: Vec<(&'static str, String)>,
    body: Option<Value>,
    idempotency_key: Option<String>,
}

impl Request {
    fn get(path: String, query: &[(&'static str, String)]) -> Self {
        Self {
            method: Method::GET,
            path,
            query: query.to_vec(),
            body: None,
            idempotency_key: None,
        }
    }

    fn adjust(variant: String, idempotency_key: Option<String>) -> Self {
        Self {
            method: Method::POST,
            path: "/api/v1/stock/adjustments".to_owned(),
            query: Vec::new(),
            body: Some(json!({"variantId": variant, "quantity": 1, "reason": "probe"})),
            idempotency_key,
        }
    }

    /// The request itself and, for a read, the same as HEAD.
    fn with_head(&self) -> Vec<Self> {
        let mut all = vec![self.clone()];
        if self.method == Method::GET {
            all.push(Self {
                method: Method::HEAD,
                ..self.clone()
            });
        }
        all
    }

    async fn send(&self, app: &TestApp, key: &str) -> Reply {
        let mut request = app
            .client()
            .request(self.method.clone(), app.url(&self.path))
            .bearer_auth(key);
        if !self.query.is_empty() {
            request = request.query(&self.query);
        }
        if let Some(body) = &self.body {
            request = request
                .header("Content-Type", "application/json")
                .body(body.to_string());
        }
        if let Some(idempotency_key) = &self.idempotency_key {
            request = request.header("Idempotency-Key", idempotency_key);
        }
        app.send(request).await
    }
}

/// One question asked twice: with shop B's values, and with unknown values of the same shape.
struct Probe {
    operation: Operation,
    /// The operation's inputs that carry shop B's values.
    inputs: &'static [&'static str],
    foreign: Request,
    unknown: Request,
}

#[derive(Default)]
struct Probes(Vec<Probe>);

impl Probes {
    /// `build` makes the request from a function that turns each of shop B's values into the
    /// value to send.
    fn add(
        &mut self,
        operation: Operation,
        inputs: &'static [&'static str],
        build: impl Fn(&dyn Fn(&str) -> String) -> Request,
    ) {
        self.0.push(Probe {
            operation,
            inputs,
            foreign: build(&|value| value.to_owned()),
            unknown: build(&unknown_like),
        });
    }
}

fn list<'a>(value: &'a Value, field: &str) -> &'a [Value] {
    value[field]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// The non-null string values of `fields` in `value`.
fn texts(value: &Value, fields: &[&str]) -> Vec<String> {
    fields
        .iter()
        .filter_map(|field| value[*field].as_str().map(str::to_owned))
        .collect()
}

/// Every question about shop B's data that shop A's key can ask.
fn probes(b: &Value) -> Probes {
    let mut p = Probes::default();
    p.add(("GET", "/api/v1/me"), &[], |_| {
        Request::get("/api/v1/me".to_owned(), &[])
    });
    let products_search = |p: &mut Probes, term: &str| {
        p.add(("GET", "/api/v1/products"), &["q"], |v| {
            Request::get(
                "/api/v1/products".to_owned(),
                &[("active", "all".to_owned()), ("q", v(term))],
            )
        });
        p.add(("GET", "/api/v1/stock"), &["q"], |v| {
            Request::get(
                "/api/v1/stock".to_owned(),
                &[("trackedOnly", "false".to_owned()), ("q", v(term))],
            )
        });
    };
    for product in list(b, "products") {
        let id = product["id"].as_str().unwrap();
        p.add(("GET", "/api/v1/products/{id}"), &["id"], |v| {
            Request::get(format!("/api/v1/products/{}", v(id)), &[])
        });
        p.add(("GET", "/api/v1/stock"), &["productId"], |v| {
            Request::get(
                "/api/v1/stock".to_owned(),
                &[("trackedOnly", "false".to_owned()), ("productId", v(id))],
            )
        });
        for term in texts(product, &["name", "ean", "sku"]) {
            products_search(&mut p, &term);
        }
        let filters: [(&'static [&'static str], Option<&str>); 3] = [
            (&["productType"], product["productType"].as_str()),
            (&["category"], product["category"]["id"].as_str()),
            (&["brand"], product["brand"]["id"].as_str()),
        ];
        for (input, value) in filters {
            let Some(value) = value else { continue };
            p.add(("GET", "/api/v1/products"), input, |v| {
                Request::get(
                    "/api/v1/products".to_owned(),
                    &[("active", "all".to_owned()), (input[0], v(value))],
                )
            });
        }
        for variant in list(product, "variants") {
            let id = variant["id"].as_str().unwrap();
            p.add(("POST", "/api/v1/stock/adjustments"), &["variantId"], |v| {
                Request::adjust(v(id), None)
            });
            p.add(
                ("POST", "/api/v1/stock/adjustments"),
                &["variantId", "Idempotency-Key"],
                |v| Request::adjust(v(id), Some(v(&b_idempotency_key(id)))),
            );
            for term in texts(variant, &["sku", "barcode"]) {
                products_search(&mut p, &term);
            }
        }
    }
    for order in list(b, "orders") {
        let id = order["id"].as_str().unwrap();
        p.add(("GET", "/api/v1/orders/{id}"), &["id"], |v| {
            Request::get(format!("/api/v1/orders/{}", v(id)), &[])
        });
    }
    for client in list(b, "clients") {
        let id = client["id"].as_str().unwrap();
        p.add(("GET", "/api/v1/clients/{id}"), &["id"], |v| {
            Request::get(format!("/api/v1/clients/{}", v(id)), &[])
        });
        p.add(("GET", "/api/v1/clients/{id}/loyalty"), &["id"], |v| {
            Request::get(format!("/api/v1/clients/{}/loyalty", v(id)), &[])
        });
        p.add(("GET", "/api/v1/orders"), &["clientId"], |v| {
            Request::get("/api/v1/orders".to_owned(), &[("clientId", v(id))])
        });
        for term in texts(client, &["name", "email", "phone"]) {
            p.add(("GET", "/api/v1/clients"), &["q"], |v| {
                Request::get("/api/v1/clients".to_owned(), &[("q", v(&term))])
            });
        }
    }
    p
}

/// Every operation of the OpenAPI document, with the inputs that could carry shop data: its
/// parameters and the properties of its JSON body.
fn documented_inputs() -> Vec<(String, String, BTreeSet<String>)> {
    let doc: Value = serde_json::from_str(include_str!("../../docs/openapi.json")).unwrap();
    let mut operations = Vec::new();
    for (path, methods) in doc["paths"].as_object().unwrap() {
        for (method, operation) in methods.as_object().unwrap() {
            if method == "parameters" {
                continue;
            }
            let mut inputs: BTreeSet<String> = list(operation, "parameters")
                .iter()
                .map(|parameter| parameter["name"].as_str().unwrap().to_owned())
                .collect();
            let mut body = &operation["requestBody"]["content"]["application/json"]["schema"];
            if let Some(reference) = body["$ref"].as_str() {
                let name = reference.trim_start_matches("#/components/schemas/");
                body = &doc["components"]["schemas"][name];
            }
            inputs.extend(
                body["properties"]
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(k, _)| k.clone()),
            );
            inputs.retain(|input| !NOT_SHOP_DATA.contains(&input.as_str()));
            operations.push((method.to_uppercase(), path.clone(), inputs));
        }
    }
    operations
}

fn assert_every_documented_input_is_probed(probes: &Probes) {
    let documented = documented_inputs();
    assert!(documented.len() >= 10, "{documented:?}");
    for (method, path, inputs) in &documented {
        let of_operation: Vec<&Probe> = probes
            .0
            .iter()
            .filter(|p| p.operation == (method.as_str(), path.as_str()))
            .collect();
        assert!(!of_operation.is_empty(), "{method} {path} is never probed");
        for input in inputs {
            assert!(
                of_operation
                    .iter()
                    .any(|p| p.inputs.contains(&input.as_str())),
                "{method} {path}: input {input} is never given one of shop B's values \
                 (probe it, or list it in NOT_SHOP_DATA if it cannot hold shop data)"
            );
        }
    }
    for probe in &probes.0 {
        let (method, path) = probe.operation;
        assert!(
            documented.iter().any(|(m, p, _)| m == method && p == path),
            "{method} {path} is not in docs/openapi.json"
        );
    }
}

/// What a client can observe of an answer, less what differs between any two requests.
fn observable(reply: &Reply) -> (u16, Vec<(String, String)>, String) {
    let mut headers: Vec<(String, String)> = reply
        .headers
        .iter()
        .filter(|(name, _)| !PER_REQUEST_HEADERS.contains(&name.as_str()))
        .map(|(name, value)| {
            let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
            (name.to_string(), value)
        })
        .collect();
    headers.sort();
    (
        reply.status,
        headers,
        fixtures::with_synced_at_blanked(&reply.text),
    )
}

async fn another_shops_data_answers_exactly_like_unknown_data(app: TestApp) {
    app.create_shop(SHOP_A).await;
    app.import(SHOP_A, &fixtures::sales()).await;
    app.import(SHOP_A, &fixtures::stock()).await;
    let key_a = app.create_key(SHOP_A, SCOPES).await;
    let b = shop_b();
    app.create_shop(SHOP_B).await;
    app.import(SHOP_B, &b).await;
    let key_b = app.create_key(SHOP_B, SCOPES).await;
    // Shop B's idempotency keys exist before A tries them: an adjustment of each variant (the
    // untracked one is refused, and that refusal is recorded too), and one more for later.
    let b_variants: Vec<&str> = list(&b, "products")
        .iter()
        .flat_map(|product| list(product, "variants"))
        .map(|variant| variant["id"].as_str().unwrap())
        .collect();
    for variant in &b_variants {
        let body = json!({"variantId": variant, "quantity": 2, "reason": "inventaire"});
        let reply = app
            .adjust(&key_b, &body, Some(&b_idempotency_key(variant)))
            .await;
        assert!(matches!(reply.status, 201 | 422), "{}", reply.text);
    }
    let b_later = json!({"variantId": "var_beta_lamp_white", "quantity": 3, "reason": "retour"});
    let b_first = app.adjust(&key_b, &b_later, Some("beta-erp-later")).await;
    assert_eq!(b_first.status, 201, "{}", b_first.text);
    let b_stock_before = app.get("/api/v1/stock?trackedOnly=false", &key_b).await;

    let probes = probes(&b);
    assert_every_documented_input_is_probed(&probes);
    let mut requests = 0;
    for probe in &probes.0 {
        for (foreign, unknown) in probe
            .foreign
            .with_head()
            .iter()
            .zip(probe.unknown.with_head())
        {
            let foreign_reply = foreign.send(&app, &key_a).await;
            let unknown_reply = unknown.send(&app, &key_a).await;
            requests += 2;
            assert!(
                matches!(foreign_reply.status, 200 | 404),
                "{foreign:?}: {} {}",
                foreign_reply.status,
                foreign_reply.text
            );
            assert_eq!(
                observable(&foreign_reply),
                observable(&unknown_reply),
                "{foreign:?} is answered unlike {unknown:?}"
            );
        }
    }
    let me = app.get("/api/v1/me", &key_a).await;
    assert!(!me.text.contains(SHOP_B), "{}", me.text);

    // Idempotency keys belong to the API key: shop B's key names a new adjustment for shop A,
    // and shop B's own replay is untouched.
    let a_body = json!({"variantId": "v_ok", "quantity": 3, "reason": "retour"});
    let a_reply = app.adjust(&key_a, &a_body, Some("beta-erp-later")).await;
    assert_eq!(a_reply.status, 201, "{}", a_reply.text);
    assert_eq!(a_reply.header("idempotent-replayed"), None);
    assert_eq!(a_reply.json()["data"]["variantId"], "v_ok");
    let b_again = app.adjust(&key_b, &b_later, Some("beta-erp-later")).await;
    assert_eq!(b_again.header("idempotent-replayed"), Some("true"));
    assert_eq!(b_again.text, b_first.text);
    let b_stock_after = app.get("/api/v1/stock?trackedOnly=false", &key_b).await;
    assert_eq!(
        fixtures::with_synced_at_blanked(&b_stock_after.text),
        fixtures::with_synced_at_blanked(&b_stock_before.text),
        "shop B's stock moved"
    );

    eprintln!(
        "cross-shop probe [{:?}]: {requests} requests ({} questions, GET also as HEAD) over {} \
         operations; shop B: {} products, {} variants, {} orders, {} clients; 0 differences",
        app.backend,
        probes.0.len(),
        documented_inputs().len(),
        list(&b, "products").len(),
        b_variants.len(),
        list(&b, "orders").len(),
        list(&b, "clients").len(),
    );
}
