//! The OpenAPI 3.1 documents of API v1 and v2, generated from the code, and the pages that
//! serve them.
//!
//! - The document is derived by utoipa from the handlers' `#[utoipa::path]` attributes, the
//!   response DTOs (`ToSchema`), the parameter descriptions (`params`), the responses of each
//!   operation (`responses`) and the other schemas (`schemas`). It is rendered once per process
//!   ([`openapi_json`]): pretty-printed, every object's keys sorted, so that the same code gives
//!   the same bytes. `docs/openapi.json` is a copy; a test fails when they differ.
//! - v2's document is v1's under `/api/v2` (the same operations, answered by the same
//!   handlers), with every scope a v2 key can hold ([`into_v2`]); `docs/openapi-v2.json` is its
//!   copy.
//! - `GET /api/v1/openapi.json` and `GET /api/v2/openapi.json` serve them and `GET /docs/`
//!   renders either with Swagger UI, whose files are compiled into the binary
//!   (`utoipa-swagger-ui`'s `vendored` feature): the page loads nothing from elsewhere. None
//!   needs a key or counts against a budget.
//!
//! **Architecture invariant:** the document says what the server does. Every status an
//! operation can answer is listed with its body and headers, and a header is `required` only
//! where it is always sent; the conformance fuzzing in CI holds the server to it.

use std::sync::LazyLock;

use actix_web::http::header::{self, ContentType};
use actix_web::{HttpResponse, web};
use serde_json::Value;
use shop_domain::scope::Scope;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};
use utoipa_swagger_ui::{Config, SwaggerUi};

use crate::api_version::ApiVersion;
use crate::dto::schemas;
use crate::dto::webhook::{
    CreatedWebhookEndpointDto, DeliveryDto, LoggedEventDto, QueuedDto, StockEvent, TestEventDto,
    WebhookEndpointDto, WebhookSecretDto,
};
use crate::handlers::{
    clients, events, loyalty, me, orders, product_writes, products, responses, stock, webhooks,
};

/// Where v1's document is served.
pub const DOCUMENT_PATH: &str = ApiVersion::V1.document_path();
/// Where v2's document is served.
pub const DOCUMENT_V2_PATH: &str = ApiVersion::V2.document_path();
/// Where the human docs page is served (`/docs` redirects to it).
pub const DOCS_PATH: &str = "/docs/";

/// The name of the security scheme every operation requires (also spelt out in
/// `#[openapi(security(...))]`, which takes only a literal).
const BEARER: &str = "bearerAuth";

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Shop public REST API",
        version = "1.0.0",
        description = include_str!("openapi/description.md"),
    ),
    paths(
        me::show,
        products::list,
        products::show,
        orders::list,
        orders::show,
        stock::list,
        stock::adjust,
        clients::list,
        clients::show,
        loyalty::show,
    ),
    components(schemas(
        crate::dto::me::MeDto,
        crate::dto::product::ProductDto,
        crate::dto::order::OrderDto,
        crate::dto::stock::StockEntryDto,
        crate::dto::stock::StockAdjustmentDto,
        crate::dto::client::ClientDto,
        crate::dto::loyalty::LoyaltySummaryDto,
        crate::dto::page::PageInfoDto,
        crate::error::Envelope,
        schemas::AdjustmentBody,
        schemas::ActiveFilter,
        schemas::DateOrInstant,
        schemas::OrderSource,
        schemas::OrderStatus,
        schemas::PaymentStatus,
    )),
    modifiers(&SharedParts),
    security(("bearerAuth" = [])),
    tags(
        (name = "key", description = "The API key and its shop."),
        (name = "products", description = "Products and their variants."),
        (name = "orders", description = "Orders of every source, with their lines."),
        (name = "stock", description = "Stock per variant, and the one write: adjustments."),
        (name = "clients", description = "Identified clients and their loyalty data."),
    ),
)]
struct ApiDoc;

/// What API v2 adds to v1's operations (issue 34), merged into v2's document only.
#[derive(OpenApi)]
#[openapi(
    paths(
        webhooks::list,
        webhooks::create,
        webhooks::show,
        webhooks::update,
        webhooks::delete,
        webhooks::rotate_secret,
        webhooks::send_test,
        webhooks::deliveries,
        webhooks::retry,
        webhooks::recover,
        events::list,
        loyalty::adjust_points,
        clients::create,
        clients::update,
        product_writes::create,
        product_writes::update,
        product_writes::add_variant,
        product_writes::update_variant,
    ),
    components(schemas(
        crate::error::ConflictEnvelope,
        crate::error::ConflictIssue,
        schemas::ProductCreateBody,
        schemas::ProductPatchBody,
        schemas::VariantCreateBody,
        schemas::VariantPatchBody,
        schemas::ClientCreateBody,
        schemas::ClientPatchBody,
        crate::dto::loyalty::PointsAdjustmentDto,
        schemas::PointsAdjustmentBody,
        WebhookEndpointDto,
        CreatedWebhookEndpointDto,
        WebhookSecretDto,
        TestEventDto,
        QueuedDto,
        DeliveryDto,
        LoggedEventDto,
        StockEvent,
        crate::dto::event::CauseDto,
        schemas::EventSubscription,
        schemas::EventTypeName,
        schemas::EndpointStatusName,
        schemas::DisabledReasonName,
        schemas::DeliveryStatusName,
        schemas::WebhookEndpointCreationBody,
        schemas::WebhookEndpointChangeBody,
        schemas::WebhookRecoveryBody,
    )),
    tags(
        (name = "webhooks", description = "The shop's webhook endpoints, their secrets and deliveries (v2)."),
        (name = "events", description = "The shop's event log, as webhook receivers are sent it (v2)."),
        (name = "loyalty", description = "Clients' loyalty points: credits and debits (v2)."),
    ),
)]
struct V2Additions;

/// What the derive cannot say: the bearer scheme and the shared responses; and no license
/// (the derive copies the crate's `UNLICENSED`, which is not an SPDX identifier and says
/// nothing about the API).
struct SharedParts;

impl Modify for SharedParts {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        openapi.info.license = None;
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            BEARER,
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("svc_live_<8 hex>_<64 hex>")
                    .description(Some(
                        "An API key of the shop, `svc_live_<8-hex prefix>_<64-hex secret>`, \
                         created by the shop owner with a label and scopes; the secret is shown \
                         once. Send it as `Authorization: Bearer <key>`.",
                    ))
                    .build(),
            ),
        );
        for (name, response) in responses::components() {
            components.responses.insert(name.to_owned(), response);
        }
    }
}

static DOCUMENT: LazyLock<String> = LazyLock::new(|| render(ApiVersion::V1));
static DOCUMENT_V2: LazyLock<String> = LazyLock::new(|| render(ApiVersion::V2));

/// The OpenAPI document served at `GET /api/v1/openapi.json`, byte for byte: pretty JSON with
/// sorted keys and a final newline. Rendered once per process.
pub fn openapi_json() -> String {
    DOCUMENT.clone()
}

/// The same for `GET /api/v2/openapi.json`.
pub fn openapi_v2_json() -> String {
    DOCUMENT_V2.clone()
}

fn document_of(version: ApiVersion) -> &'static str {
    match version {
        ApiVersion::V1 => DOCUMENT.as_str(),
        ApiVersion::V2 => DOCUMENT_V2.as_str(),
    }
}

/// Renders the documents now rather than on the first request (a broken document then stops
/// the server at startup, not mid-traffic).
pub(crate) fn prepare() {
    LazyLock::force(&DOCUMENT);
    LazyLock::force(&DOCUMENT_V2);
}

fn render(version: ApiVersion) -> String {
    // Serializing utoipa's plain data structures cannot fail; a failure would be a bug in the
    // definitions, which the committed-document test catches before any release.
    let mut document =
        serde_json::to_value(ApiDoc::openapi()).expect("the OpenAPI document serializes to JSON");
    if version == ApiVersion::V2 {
        document = into_v2(document);
    }
    finish(&mut document);
    let mut text =
        serde_json::to_string_pretty(&document).expect("a JSON value serializes to text");
    text.push('\n');
    text
}

/// v1's document as v2 serves it: every path and every mention of one under `/api/v2`, the
/// version `2.0.0`, a description that says what v2 is, and every scope a key can hold; then
/// the operations v2 adds ([`V2Additions`]).
fn into_v2(v1: Value) -> Value {
    let text = serde_json::to_string(&v1).expect("a JSON value serializes to text");
    let mut document: Value =
        serde_json::from_str(&text.replace(ApiVersion::V1.prefix(), ApiVersion::V2.prefix()))
            .expect("replacing a path in JSON strings keeps the JSON valid");
    document["info"]["version"] = Value::from("2.0.0");
    let description = document["info"]["description"].as_str().unwrap_or_default();
    document["info"]["description"] =
        Value::from(format!("{}\n{description}", include_str!("openapi/v2.md")));
    document["components"]["schemas"]["Scope"]["enum"] =
        Scope::ALL.iter().map(|scope| scope.as_str()).collect();
    let synced_at = &mut document["components"]["schemas"]["PageInfo"]["properties"]["syncedAt"];
    synced_at["type"] = serde_json::json!(["string", "null"]);
    let described = synced_at["description"].as_str().unwrap_or_default();
    synced_at["description"] = Value::from(format!(
        "{described}\n`null` on the lists v2 adds (webhook endpoints, deliveries, events), which \
         take no `updatedSince`."
    ));
    add(
        &mut document,
        serde_json::to_value(V2Additions::openapi()).expect("the additions serialize to JSON"),
    );
    conditional_reads(&mut document);
    write_links(&mut document);
    merge_write_bodies(&mut document);
    document
}

/// v2's reads of one product or one client answer with a strong `ETag`, and `304` to an
/// `If-None-Match` that holds it (issue 35, `crate::etag`); v1's do not.
fn conditional_reads(document: &mut Value) {
    let etag = serde_json::json!({
        "description": "The representation's strong entity tag: it changes with every change to \
                        what the body shows (a product's variants and stock, a client's \
                        loyalty). Send it back in `If-None-Match` to be answered `304` while \
                        nothing changed.",
        "required": true,
        "schema": {"type": "string", "pattern": "^\"[0-9a-f]{32}\"$"}
    });
    let if_none_match = serde_json::json!({
        "name": "If-None-Match",
        "in": "header",
        "required": false,
        "description": "Entity tags (`ETag`) the client holds, comma-separated, or `*`: when one \
                        is the current one, the answer is `304 Not Modified` with no body.",
        "schema": {"type": "string"}
    });
    for path in ["/api/v2/products/{id}", "/api/v2/clients/{id}"] {
        let operation = &mut document["paths"][path]["get"];
        if let Some(parameters) = operation["parameters"].as_array_mut() {
            parameters.push(if_none_match.clone());
        }
        let ok = &mut operation["responses"]["200"];
        ok["headers"]["ETag"] = etag.clone();
        let extension = responses::REQUIRED_HEADERS_EXTENSION;
        let mut not_modified = serde_json::json!({
            "description": "`If-None-Match` holds the current `ETag`: nothing changed since; no \
                            body. A `304` counts against the read budget like a `200`.",
            "headers": ok["headers"].clone(),
            extension: ok[extension].clone()
        });
        not_modified["headers"]["ETag"] = etag.clone();
        operation["responses"]["304"] = not_modified;
    }
}

/// OpenAPI links from each v2 write's answer to the operations on what it wrote (create → get
/// → patch), so that a client generator, and schemathesis's stateful phase, can follow them.
fn write_links(document: &mut Value) {
    let id = "$response.body#/data/id";
    let links = |operations: &[(&str, &str)]| {
        let mut links = serde_json::Map::new();
        for (name, operation) in operations {
            links.insert(
                (*name).to_owned(),
                serde_json::json!({
                    "operationId": operation,
                    "parameters": {"id": id},
                    "description": "The resource this answer shows, by its `id`."
                }),
            );
        }
        Value::Object(links)
    };
    let product = [
        ("GetProduct", "getProduct"),
        ("UpdateProduct", "updateProduct"),
        ("AddVariant", "addVariant"),
    ];
    let client = [
        ("GetClient", "getClient"),
        ("UpdateClient", "updateClient"),
        ("AdjustPoints", "adjustClientPoints"),
    ];
    for (path, method, status, operations) in [
        ("/api/v2/products", "post", "201", &product[..]),
        ("/api/v2/products/{id}", "patch", "200", &product[..]),
        (
            "/api/v2/products/{id}/variants",
            "post",
            "201",
            &product[..],
        ),
        ("/api/v2/clients", "post", "201", &client[..]),
        ("/api/v2/clients/{id}", "patch", "200", &client[..]),
    ] {
        document["paths"][path][method]["responses"][status]["links"] = links(operations);
    }
}

/// The write bodies share their members through `#[serde(flatten)]`, which utoipa writes as an
/// `allOf` of the shared part and the body's own: two closed objects that no value satisfies
/// both of. Each body becomes one closed object with every member, and the shared parts,
/// referenced by nothing else, are dropped.
fn merge_write_bodies(document: &mut Value) {
    const SHARED: [&str; 3] = ["ClientContact", "ProductFields", "VariantFields"];
    let Some(schemas) = document
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    let shared: Vec<(String, Value)> = SHARED
        .iter()
        .filter_map(|name| {
            schemas
                .remove(*name)
                .map(|schema| (format!("#/components/schemas/{name}"), schema))
        })
        .collect();
    for schema in schemas.values_mut() {
        let Some(parts) = schema.get("allOf").and_then(Value::as_array).cloned() else {
            continue;
        };
        let mut properties = serde_json::Map::new();
        let mut required: Vec<Value> = Vec::new();
        let mut merged = true;
        for part in &parts {
            let part = match part.get("$ref").and_then(Value::as_str) {
                Some(reference) => match shared.iter().find(|(name, _)| name == reference) {
                    Some((_, schema)) => schema,
                    None => {
                        merged = false;
                        break;
                    }
                },
                None => part,
            };
            if let Some(own) = part.get("properties").and_then(Value::as_object) {
                properties.extend(own.clone());
            }
            if let Some(own) = part.get("required").and_then(Value::as_array) {
                required.extend(own.iter().cloned());
            }
        }
        if !merged {
            continue;
        }
        let object = schema.as_object_mut().expect("a schema is an object");
        object.remove("allOf");
        object.insert("type".into(), Value::from("object"));
        object.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            object.insert("required".into(), Value::Array(required));
        }
        object.insert("additionalProperties".into(), Value::Bool(false));
    }
}

/// Adds `more`'s paths, schemas and tags to `document`; a schema both name is v1's, and a path
/// both have gets `more`'s methods beside v1's (`POST /clients` beside `GET /clients`).
fn add(document: &mut Value, more: Value) {
    for pointer in ["/paths", "/components/schemas"] {
        let added = more.pointer(pointer).and_then(Value::as_object).cloned();
        let target = document.pointer_mut(pointer).and_then(Value::as_object_mut);
        if let (Some(added), Some(target)) = (added, target) {
            for (name, value) in added {
                match (target.get_mut(&name), value) {
                    (Some(Value::Object(methods)), Value::Object(more_methods))
                        if pointer == "/paths" =>
                    {
                        for (method, operation) in more_methods {
                            methods.entry(method).or_insert(operation);
                        }
                    }
                    (Some(_), _) => {}
                    (None, value) => {
                        target.insert(name, value);
                    }
                }
            }
        }
    }
    if let (Some(Value::Array(tags)), Some(Value::Array(more_tags))) =
        (document.get_mut("tags"), more.get("tags"))
    {
        tags.extend(more_tags.iter().cloned());
    }
}

/// Marks the headers each response always carries as `required` (utoipa's `Header` cannot),
/// then sorts every object's keys, so that the output does not depend on whether serde_json
/// keeps insertion order in this build.
fn finish(document: &mut Value) {
    let extension = responses::REQUIRED_HEADERS_EXTENSION;
    // Every response object: those of each operation, and the shared ones.
    let mut response_maps = Vec::new();
    for (section, value) in document.as_object_mut().into_iter().flatten() {
        match section.as_str() {
            "paths" => {
                let operations = value
                    .as_object_mut()
                    .into_iter()
                    .flat_map(|paths| paths.values_mut())
                    .filter_map(Value::as_object_mut)
                    .flat_map(|item| item.values_mut());
                response_maps
                    .extend(operations.filter_map(|operation| operation.get_mut("responses")));
            }
            "components" => response_maps.extend(value.get_mut("responses")),
            _ => {}
        }
    }
    let responses = response_maps
        .into_iter()
        .filter_map(Value::as_object_mut)
        .flat_map(|map| map.values_mut())
        .filter_map(Value::as_object_mut);
    for response in responses {
        let Some(Value::Array(required)) = response.remove(extension) else {
            continue;
        };
        let Some(headers) = response.get_mut("headers").and_then(Value::as_object_mut) else {
            continue;
        };
        for name in required.iter().filter_map(Value::as_str) {
            if let Some(header) = headers.get_mut(name).and_then(Value::as_object_mut) {
                header.insert("required".into(), Value::Bool(true));
            }
        }
    }
    sort_keys(document);
}

fn sort_keys(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.sort_keys();
            map.values_mut().for_each(sort_keys);
        }
        Value::Array(items) => items.iter_mut().for_each(sort_keys),
        _ => {}
    }
}

/// `GET /api/v1/openapi.json` and `GET /api/v2/openapi.json`, without authentication or rate
/// limiting. Registered before the API's scopes, which would otherwise answer them (a scope
/// does not hand unknown paths back).
pub(crate) fn configure_documents(config: &mut web::ServiceConfig) {
    for version in ApiVersion::ALL {
        config.service(
            web::resource(version.document_path())
                .route(web::get().to(serve_document))
                .route(web::head().to(serve_document)),
        );
    }
}

/// The docs page, `/docs/`. Registered after the API's scope: its `{_:.*}` path is a regular
/// expression, which the router would otherwise run for every API request on its way to the
/// scope (docs/performance-log.md, "Routes without a regular expression in the way").
pub(crate) fn configure_docs_page(config: &mut web::ServiceConfig) {
    config
        .service(web::resource("/docs").route(web::get().to(redirect_to_docs)))
        .service(
            SwaggerUi::new(format!("{DOCS_PATH}{{_:.*}}")).config(
                Config::new([DOCUMENT_PATH, DOCUMENT_V2_PATH])
                    // No request to the public validator: the page loads nothing from elsewhere.
                    .validator_url("none"),
            ),
        );
}

async fn serve_document(version: ApiVersion) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(ContentType::json())
        .body(document_of(version))
}

/// Swagger UI's page loads its files relative to its own URL, which must end with `/`.
async fn redirect_to_docs() -> HttpResponse {
    HttpResponse::PermanentRedirect()
        .insert_header((header::LOCATION, DOCS_PATH))
        .finish()
}

#[cfg(test)]
mod tests;
