use std::collections::BTreeSet;
use std::path::PathBuf;

use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use serde_json::Value;

use super::*;
use crate::tests::TestApi;

/// `docs/openapi.json` (v1) or `docs/openapi-v2.json`, from this crate's directory.
fn committed_path(version: ApiVersion) -> PathBuf {
    let file = match version {
        ApiVersion::V1 => "openapi.json",
        ApiVersion::V2 => "openapi-v2.json",
    };
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs")
        .join(file)
}

fn document() -> Value {
    serde_json::from_str(&openapi_json()).expect("the document is JSON")
}

fn document_v2() -> Value {
    serde_json::from_str(&openapi_v2_json()).expect("the v2 document is JSON")
}

/// The operations v2 adds to v1's (issue 34).
const V2_OPERATIONS: [(&str, &str); 18] = [
    ("get", "/api/v2/webhook-endpoints"),
    ("post", "/api/v2/webhook-endpoints"),
    ("get", "/api/v2/webhook-endpoints/{id}"),
    ("patch", "/api/v2/webhook-endpoints/{id}"),
    ("delete", "/api/v2/webhook-endpoints/{id}"),
    ("post", "/api/v2/webhook-endpoints/{id}/secret/rotate"),
    ("post", "/api/v2/webhook-endpoints/{id}/test"),
    ("get", "/api/v2/webhook-endpoints/{id}/deliveries"),
    (
        "post",
        "/api/v2/webhook-endpoints/{id}/deliveries/{deliveryId}/retry",
    ),
    ("post", "/api/v2/webhook-endpoints/{id}/recover"),
    ("get", "/api/v2/events"),
    ("post", "/api/v2/clients/{id}/loyalty/adjustments"),
    ("post", "/api/v2/clients"),
    ("patch", "/api/v2/clients/{id}"),
    ("post", "/api/v2/products"),
    ("patch", "/api/v2/products/{id}"),
    ("post", "/api/v2/products/{id}/variants"),
    ("patch", "/api/v2/products/{id}/variants/{variantId}"),
];

/// `(method, path, operation)` of every operation.
fn operations(document: &Value) -> Vec<(String, String, Value)> {
    let mut found = Vec::new();
    for (path, item) in document["paths"].as_object().into_iter().flatten() {
        for (method, operation) in item.as_object().into_iter().flatten() {
            found.push((method.clone(), path.clone(), operation.clone()));
        }
    }
    found
}

fn operation(document: &Value, method: &str, path: &str) -> Value {
    document["paths"][path][method].clone()
}

#[test]
fn the_committed_documents_are_the_generated_ones() {
    for version in ApiVersion::ALL {
        assert_committed(version, document_of(version));
    }
}

fn assert_committed(version: ApiVersion, generated: &str) {
    let path = committed_path(version);
    if std::env::var("UPDATE_OPENAPI").is_ok_and(|value| value == "1") {
        std::fs::write(&path, generated).expect("docs/ is writable");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed != generated {
        let line = committed
            .lines()
            .zip(generated.lines())
            .position(|(old, new)| old != new)
            .unwrap_or_else(|| committed.lines().count().min(generated.lines().count()));
        panic!(
            "{} is not the document the server serves at {} (first difference at line {}). If \
             the API change is intended, regenerate it and review the diff:\n\n    \
             UPDATE_OPENAPI=1 cargo test -p shop-http openapi\n",
            path.display(),
            version.document_path(),
            line + 1
        );
    }
}

#[test]
fn the_document_is_openapi_3_1_with_the_ten_operations_of_the_spec() {
    let document = document();
    assert_eq!(document["openapi"], "3.1.0");
    assert_eq!(document["info"]["version"], "1.0.0");
    let found: BTreeSet<(String, String)> = operations(&document)
        .into_iter()
        .map(|(method, path, _)| (method, path))
        .collect();
    let expected: BTreeSet<(String, String)> = [
        ("get", "/api/v1/me"),
        ("get", "/api/v1/products"),
        ("get", "/api/v1/products/{id}"),
        ("get", "/api/v1/orders"),
        ("get", "/api/v1/orders/{id}"),
        ("get", "/api/v1/stock"),
        ("post", "/api/v1/stock/adjustments"),
        ("get", "/api/v1/clients"),
        ("get", "/api/v1/clients/{id}"),
        ("get", "/api/v1/clients/{id}/loyalty"),
    ]
    .into_iter()
    .map(|(method, path)| (method.to_owned(), path.to_owned()))
    .collect();
    assert_eq!(found, expected);
}

#[test]
fn every_operation_is_secured_and_answers_every_common_status_in_json() {
    for document in [document(), document_v2()] {
        every_operation_is_secured(&document);
    }
}

fn every_operation_is_secured(document: &Value) {
    let document = document.clone();
    assert_eq!(
        document["security"],
        serde_json::json!([{ "bearerAuth": [] }])
    );
    let scheme = &document["components"]["securitySchemes"]["bearerAuth"];
    assert_eq!(scheme["type"], "http");
    assert_eq!(scheme["scheme"], "bearer");
    assert!(
        scheme["description"]
            .as_str()
            .is_some_and(|text| text.contains("svc_live_")),
        "{scheme}"
    );
    let mut ids = BTreeSet::new();
    for (method, path, operation) in operations(&document) {
        assert!(ids.insert(operation["operationId"].to_string()), "{path}");
        assert!(
            operation["tags"]
                .as_array()
                .is_some_and(|tags| tags.len() == 1)
        );
        let responses = operation["responses"].as_object().expect("responses");
        for status in ["400", "401", "403", "414", "429", "500", "503"] {
            assert!(
                responses.contains_key(status),
                "{method} {path}: no {status}"
            );
        }
        for (status, response) in responses {
            let response = resolve(&document, response);
            assert_eq!(
                response["headers"]["X-Request-Id"]["required"], true,
                "{method} {path} {status}"
            );
            // A deletion's 204 and a conditional read's 304 are the answers without a body.
            if status == "204" {
                assert_eq!((method.as_str(), response.get("content")), ("delete", None));
                continue;
            }
            if status == "304" {
                assert_eq!((method.as_str(), response.get("content")), ("get", None));
                continue;
            }
            let content = response["content"].as_object().expect("a body");
            let types: Vec<&String> = content.keys().collect();
            assert_eq!(types, ["application/json"], "{method} {path} {status}");
        }
    }
}

fn resolve<'a>(document: &'a Value, value: &'a Value) -> &'a Value {
    match value["$ref"].as_str() {
        Some(reference) => document
            .pointer(reference.trim_start_matches('#'))
            .unwrap_or_else(|| panic!("dangling {reference}")),
        None => value,
    }
}

#[test]
fn every_reference_resolves() {
    fn visit(document: &Value, value: &Value) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(reference)) = map.get("$ref") {
                    assert!(
                        document
                            .pointer(reference.trim_start_matches('#'))
                            .is_some(),
                        "dangling {reference}"
                    );
                }
                map.values().for_each(|value| visit(document, value));
            }
            Value::Array(items) => items.iter().for_each(|value| visit(document, value)),
            _ => {}
        }
    }
    for document in [document(), document_v2()] {
        visit(&document, &document);
    }
}

#[test]
fn rate_limit_headers_are_required_only_where_always_sent() {
    let document = document();
    let adjust = operation(&document, "post", "/api/v1/stock/adjustments");
    for status in ["201", "400", "403", "404", "413", "422"] {
        let headers = &adjust["responses"][status]["headers"];
        assert_eq!(headers["RateLimit"]["required"], true, "{status}");
        // Only what the idempotency record stores is replayed: 201, 404, 422.
        let replayable = ["201", "404", "422"].contains(&status);
        assert_eq!(
            headers.get("Idempotent-Replayed").is_some(),
            replayable,
            "{status}"
        );
        assert!(headers["Idempotent-Replayed"].get("required").is_none());
    }
    let shared = &document["components"]["responses"];
    // A 401 never describes a budget; a 429 or a 5xx may come before the key is known.
    assert!(shared["Unauthorized"]["headers"].get("RateLimit").is_none());
    assert_eq!(
        shared["Unauthorized"]["headers"]["WWW-Authenticate"]["required"],
        true
    );
    for name in ["RateLimited", "InternalError", "ServiceUnavailable"] {
        assert!(
            shared[name]["headers"]["RateLimit"]
                .get("required")
                .is_none(),
            "{name}"
        );
    }
    for name in ["RateLimited", "ServiceUnavailable"] {
        assert_eq!(
            shared[name]["headers"]["Retry-After"]["required"], true,
            "{name}"
        );
    }
    let show = operation(&document, "get", "/api/v1/products/{id}");
    assert!(
        show["responses"]["404"]["headers"]["RateLimit"]
            .get("required")
            .is_none()
    );
    let unfinished = openapi_json().contains(responses::REQUIRED_HEADERS_EXTENSION);
    assert!(!unfinished, "the working extension must not be served");
}

#[test]
fn every_response_property_is_required_because_nulls_are_never_omitted() {
    for document in [document(), document_v2()] {
        every_property_is_required(&document);
    }
}

fn every_property_is_required(document: &Value) {
    let schemas = document["components"]["schemas"]
        .as_object()
        .expect("schemas");
    for (name, schema) in schemas {
        let Some(properties) = schema["properties"].as_object() else {
            continue;
        };
        let required: BTreeSet<&str> = schema["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        for property in properties.keys() {
            // The members serde leaves out when empty, and those a request may leave out.
            let optional = match name.as_str() {
                "ErrorBody" => property == "details",
                "StockCause" => property != "kind",
                "WebhookEndpointCreation" => property == "description",
                // Bodies of writes: a create needs its name only, a merge patch nothing.
                "WebhookEndpointChange"
                | "ClientPatch"
                | "BillingWrite"
                | "ProductPatch"
                | "VariantPatch" => true,
                "ClientCreate" => property != "name",
                "ProductCreate" => {
                    !["name", "priceCents", "taxRate", "variants"].contains(&property.as_str())
                }
                "VariantCreate" => property != "label",
                _ => false,
            };
            assert_eq!(
                required.contains(property.as_str()),
                !optional,
                "{name}.{property}"
            );
        }
        assert_eq!(schema["additionalProperties"], false, "{name}");
    }
}

/// The parameters each list documents are exactly those its handler accepts.
#[test]
fn list_parameters_are_the_ones_the_handlers_parse() {
    let document = document();
    let v2 = document_v2();
    for (document, path, accepted) in [
        (&document, "/api/v1/products", products::LIST_PARAMETERS),
        (&document, "/api/v1/orders", orders::LIST_PARAMETERS),
        (&document, "/api/v1/stock", stock::LIST_PARAMETERS),
        (&document, "/api/v1/clients", clients::LIST_PARAMETERS),
        (&v2, "/api/v2/webhook-endpoints", webhooks::LIST_PARAMETERS),
        (
            &v2,
            "/api/v2/webhook-endpoints/{id}/deliveries",
            webhooks::DELIVERY_PARAMETERS,
        ),
        (&v2, "/api/v2/events", events::LIST_PARAMETERS),
    ] {
        let parameters = operation(document, "get", path)["parameters"].clone();
        let documented: Vec<&str> = parameters
            .as_array()
            .into_iter()
            .flatten()
            .filter(|parameter| parameter["in"] != "path")
            .map(|parameter| {
                assert_eq!(parameter["in"], "query", "{path}");
                assert_eq!(parameter["required"], false, "{path}");
                parameter["name"].as_str().expect("a name")
            })
            .collect();
        assert_eq!(documented, accepted, "{path}");
    }
    // `/me` takes none; the detail paths only their `{id}`.
    assert!(
        operation(&document, "get", "/api/v1/me")
            .get("parameters")
            .is_none()
    );
}

#[test]
fn limits_and_defaults_are_those_of_the_spec() {
    let document = document();
    let parameter = |path: &str, name: &str| -> Value {
        let operation = operation(&document, "get", path);
        let found = operation["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|parameter| parameter["name"] == name)
            .cloned();
        let found = found.unwrap_or_else(|| panic!("{path} has no {name}"));
        resolve(&document, &found["schema"]).clone()
    };
    for (path, default) in [
        ("/api/v1/products", 20),
        ("/api/v1/orders", 20),
        ("/api/v1/clients", 20),
        ("/api/v1/stock", 50),
    ] {
        let limit = parameter(path, "limit");
        assert_eq!(limit["type"], "integer");
        assert_eq!(limit["minimum"], 1, "{path}");
        assert_eq!(limit["maximum"], 100, "{path}");
        assert_eq!(limit["default"], default, "{path}");
    }
    let active = parameter("/api/v1/products", "active");
    assert_eq!(active["enum"], serde_json::json!(["true", "false", "all"]));
    assert_eq!(active["default"], "true");
    assert_eq!(parameter("/api/v1/stock", "trackedOnly")["default"], true);
    assert_eq!(
        parameter("/api/v1/stock", "lowStockOnly")["type"],
        "boolean"
    );
    assert_eq!(
        parameter("/api/v1/orders", "source")["enum"],
        serde_json::json!(["pos", "click-collect", "online"])
    );
    let body = &document["components"]["schemas"]["StockAdjustmentRequest"];
    assert_eq!(body["additionalProperties"], false);
    assert_eq!(body["properties"]["reason"]["maxLength"], 500);
}

#[actix_web::test]
async fn the_document_is_served_without_a_key_the_same_every_time() {
    let requests = vec![
        TestRequest::get().uri(DOCUMENT_PATH),
        TestRequest::get().uri(DOCUMENT_PATH),
    ];
    let replies = TestApi::new().send_all(requests).await;
    for reply in &replies {
        assert_eq!(reply.status, StatusCode::OK);
        assert_eq!(reply.header("content-type"), Some("application/json"));
        assert_eq!(reply.body, openapi_json().as_bytes());
        // Not rate-limited: no key, no budget.
        assert!(reply.header("ratelimit").is_none());
        assert!(reply.header("x-request-id").is_some());
    }
    let document: Value = replies[0].json();
    assert_eq!(document["openapi"], "3.1.0");
    assert_eq!(operations(&document).len(), 10);
}

#[actix_web::test]
async fn the_docs_page_and_its_files_come_from_the_binary() {
    let replies = TestApi::new()
        .send_all(vec![
            TestRequest::get().uri("/docs"),
            TestRequest::get().uri(DOCS_PATH),
            TestRequest::get().uri("/docs/swagger-ui-bundle.js"),
            TestRequest::get().uri("/docs/swagger-ui.css"),
            TestRequest::get().uri("/docs/swagger-initializer.js"),
            TestRequest::get().uri("/docs/no-such-file.js"),
        ])
        .await;
    let [redirect, page, bundle, css, initializer, missing] = &replies[..] else {
        panic!("one reply per request");
    };
    assert_eq!(redirect.status, StatusCode::PERMANENT_REDIRECT);
    assert_eq!(redirect.header("location"), Some(DOCS_PATH));

    assert_eq!(page.status, StatusCode::OK);
    assert!(
        page.header("content-type")
            .is_some_and(|t| t.starts_with("text/html"))
    );
    let html = String::from_utf8_lossy(&page.body);
    assert!(html.contains("swagger-ui-bundle.js"), "{html}");
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "{html}"
    );

    assert_eq!(bundle.status, StatusCode::OK);
    assert!(
        bundle
            .header("content-type")
            .is_some_and(|t| t.contains("javascript")),
        "{:?}",
        bundle.header("content-type")
    );
    assert!(
        bundle.body.len() > 100_000,
        "the Swagger UI bundle is served whole"
    );
    assert_eq!(css.status, StatusCode::OK);
    assert!(
        css.header("content-type")
            .is_some_and(|t| t.starts_with("text/css"))
    );

    let script = String::from_utf8_lossy(&initializer.body);
    // Both versions are offered, v1 first (the page opens on it).
    let v1 = script.find(&format!("\"url\": \"{DOCUMENT_PATH}\""));
    let v2 = script.find(&format!("\"url\": \"{DOCUMENT_V2_PATH}\""));
    assert!(v1.zip(v2).is_some_and(|(v1, v2)| v1 < v2), "{script}");
    assert!(script.contains("\"validatorUrl\": \"none\""), "{script}");

    missing.error(StatusCode::NOT_FOUND, "NOT_FOUND");
}

#[actix_web::test]
async fn the_api_keeps_answering_around_the_docs_routes() {
    let replies = TestApi::new()
        .send_all(vec![
            TestRequest::get().uri("/api/v1/me"),
            TestRequest::post().uri(DOCUMENT_PATH),
            TestRequest::get().uri("/api/v1/openapi"),
        ])
        .await;
    replies[0].error(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    replies[1].error(StatusCode::METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED");
    replies[2].error(StatusCode::NOT_FOUND, "NOT_FOUND");
}

#[test]
fn v2s_document_is_v1s_operations_under_api_v2_with_every_scope() {
    let v1 = document();
    let v2: Value = serde_json::from_str(&openapi_v2_json()).expect("the v2 document is JSON");
    assert_eq!(v2["openapi"], "3.1.0");
    assert_eq!(v2["info"]["version"], "2.0.0");
    let under_v2: Vec<(String, String, Value)> = operations(&v1)
        .into_iter()
        .map(|(method, path, operation)| {
            (method, path.replacen("/api/v1/", "/api/v2/", 1), operation)
        })
        .collect();
    let found = operations(&v2);
    assert_eq!(found.len(), under_v2.len() + V2_OPERATIONS.len());
    for (method, path, operation) in under_v2 {
        let served = &v2["paths"][&path][&method];
        assert_eq!(
            served["operationId"], operation["operationId"],
            "{method} {path}"
        );
        // v2's reads of one product or client add `If-None-Match` (issue 35), and only it.
        let mut parameters = served["parameters"].clone();
        if let Some(list) = parameters.as_array_mut() {
            list.retain(|parameter| parameter["name"] != "If-None-Match");
        }
        assert_eq!(parameters, operation["parameters"], "{method} {path}");
    }
    assert!(!openapi_v2_json().contains("/api/v1/"));
    let scopes = |document: &Value| document["components"]["schemas"]["Scope"]["enum"].clone();
    assert_eq!(scopes(&v1).as_array().map(Vec::len), Some(10));
    let v2_scopes = scopes(&v2);
    assert_eq!(v2_scopes.as_array().map(Vec::len), Some(12));
    assert!(
        v2_scopes
            .as_array()
            .is_some_and(|all| all.contains(&Value::from("webhooks:read")))
    );
}

#[test]
fn v2s_own_operations_are_the_webhooks_events_and_writes_and_v1s_document_has_none() {
    let v2 = document_v2();
    let v1_under_v2: BTreeSet<(String, String)> = operations(&document())
        .into_iter()
        .map(|(method, path, _)| (method, path.replacen("/api/v1/", "/api/v2/", 1)))
        .collect();
    let own: BTreeSet<(String, String)> = operations(&v2)
        .into_iter()
        .map(|(method, path, _)| (method, path))
        .filter(|operation| !v1_under_v2.contains(operation))
        .collect();
    let expected: BTreeSet<(String, String)> = V2_OPERATIONS
        .iter()
        .map(|(method, path)| ((*method).to_owned(), (*path).to_owned()))
        .collect();
    assert_eq!(own, expected);
    let v1 = openapi_json();
    for absent in ["webhook", "WebhookEndpoint", "\"Event\"", "webhooks:write"] {
        assert!(!v1.contains(absent), "{absent}");
    }
    let tags: Vec<&str> = v2["tags"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|tag| tag["name"].as_str())
        .collect();
    assert!(
        tags.ends_with(&["webhooks", "events", "loyalty"]),
        "{tags:?}"
    );
    let synced_at = &v2["components"]["schemas"]["PageInfo"]["properties"]["syncedAt"];
    assert_eq!(synced_at["type"], serde_json::json!(["string", "null"]));
}

#[test]
fn v2s_reads_of_one_product_or_client_are_conditional_and_v1s_are_not() {
    let v1 = document();
    let v2 = document_v2();
    for resource in ["products", "clients"] {
        let read = &v2["paths"][format!("/api/v2/{resource}/{{id}}")]["get"];
        let names: Vec<&Value> = read["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|parameter| &parameter["name"])
            .collect();
        assert!(names.contains(&&Value::from("If-None-Match")), "{resource}");
        for status in ["200", "304"] {
            assert_eq!(
                read["responses"][status]["headers"]["ETag"]["required"], true,
                "{resource} {status}"
            );
        }
        assert!(read["responses"]["304"].get("content").is_none());
        let v1_read = &v1["paths"][format!("/api/v1/{resource}/{{id}}")]["get"];
        assert!(v1_read["responses"].get("304").is_none());
        assert!(v1_read["responses"]["200"]["headers"].get("ETag").is_none());
    }
}

#[test]
fn v2s_writes_document_their_bodies_and_the_secret_only_where_it_is_shown() {
    let v2 = document_v2();
    let schemas = &v2["components"]["schemas"];
    assert!(
        schemas["WebhookEndpoint"]["properties"]
            .get("secret")
            .is_none()
    );
    for shown in ["CreatedWebhookEndpoint", "WebhookSecret"] {
        assert_eq!(
            schemas[shown]["properties"]["secret"]["pattern"], "^whsec_[A-Za-z0-9+/]{43}=$",
            "{shown}"
        );
    }
    let mut holding_secret: Vec<&str> = schemas
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(_, schema)| schema["properties"].get("secret").is_some())
        .map(|(name, _)| name.as_str())
        .collect();
    holding_secret.sort_unstable();
    assert_eq!(holding_secret, ["CreatedWebhookEndpoint", "WebhookSecret"]);
    for (method, path, body) in [
        (
            "post",
            "/api/v2/webhook-endpoints",
            "WebhookEndpointCreation",
        ),
        (
            "patch",
            "/api/v2/webhook-endpoints/{id}",
            "WebhookEndpointChange",
        ),
        (
            "post",
            "/api/v2/webhook-endpoints/{id}/recover",
            "WebhookRecovery",
        ),
    ] {
        let request = &operation(&v2, method, path)["requestBody"]["content"]["application/json"];
        assert_eq!(
            request["schema"]["$ref"],
            format!("#/components/schemas/{body}"),
            "{method} {path}"
        );
    }
    let create = operation(&v2, "post", "/api/v2/webhook-endpoints");
    let statuses: BTreeSet<&str> = create["responses"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(status, _)| status.as_str())
        .collect();
    for status in ["201", "400", "403", "413", "422"] {
        assert!(statuses.contains(status), "{status}");
    }
    let event_types = &schemas["EventType"]["enum"];
    assert!(
        event_types
            .as_array()
            .is_some_and(|types| types.contains(&Value::from("ping")))
    );
}

#[actix_web::test]
async fn v2s_document_is_served_without_a_key() {
    let replies = TestApi::new()
        .send_all(vec![TestRequest::get().uri(DOCUMENT_V2_PATH)])
        .await;
    assert_eq!(replies[0].status, StatusCode::OK);
    assert_eq!(replies[0].body, openapi_v2_json().as_bytes());
    assert!(replies[0].header("ratelimit").is_none());
}
