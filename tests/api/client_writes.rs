//! `POST /api/v2/clients` and `PATCH /api/v2/clients/{id}` (issue 35): every member written and
//! read back through v1 and v2, the refusals, unique e-mails, `If-Match` under concurrency,
//! idempotent creates, events and `updatedSince`.

use serde_json::{Value, json};

use crate::orders::seeded;
use crate::support::{Reply, TestApp, on_both_databases};
use crate::webhooks::events;

on_both_databases!(
    a_created_client_shows_every_member_through_v1_and_v2_with_its_event,
    a_merge_patch_changes_what_it_names_and_nothing_else,
    every_bad_member_is_named_by_its_path,
    an_email_is_unique_in_the_shop_without_regard_to_case,
    of_fifty_patches_carrying_one_etag_exactly_one_applies,
    a_retried_create_under_one_key_creates_one_client,
    another_shops_client_is_not_found_and_the_scope_is_required,
);

const SCOPES: &str = "clients:write,clients:read,loyalty:read,webhooks:read";

fn create_request(
    app: &TestApp,
    key: &str,
    body: &Value,
    idempotency_key: Option<&str>,
) -> reqwest::RequestBuilder {
    app.post_request("/api/v2/clients", key, body, idempotency_key)
}

fn patch_request(
    app: &TestApp,
    key: &str,
    id: &str,
    body: &Value,
    if_match: Option<&str>,
) -> reqwest::RequestBuilder {
    app.patch_request(&format!("/api/v2/clients/{id}"), key, body, if_match)
}

async fn create(app: &TestApp, key: &str, body: &Value) -> Reply {
    app.send(create_request(app, key, body, None)).await
}

async fn patch(app: &TestApp, key: &str, id: &str, body: &Value) -> Reply {
    app.send(patch_request(app, key, id, body, None)).await
}

/// The client as `GET /api/{version}/clients/{id}` shows it.
async fn client(app: &TestApp, key: &str, version: &str, id: &str) -> Value {
    let reply = app.get(&format!("/api/{version}/clients/{id}"), key).await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    reply.json()["data"].clone()
}

/// The client's events since the import (whose own `client.created` events are left out).
async fn client_events(app: &TestApp, key: &str, id: &str) -> Vec<(String, Value)> {
    let imported = "2026-01-01T00:00:00.000Z";
    events(app, key)
        .await
        .into_iter()
        .filter(|event| event["data"]["id"] == id)
        .filter(|event| event["type"] == "client.updated" || event["data"]["createdAt"] != imported)
        .map(|event| {
            (
                event["type"].as_str().unwrap().to_owned(),
                event["data"].clone(),
            )
        })
        .collect()
}

fn full_body() -> Value {
    json!({
        "name": " Ana Martin ",
        "displayName": "Ana",
        "phone": "+33 6 11 22 33 44",
        "email": "Ana.Martin@Example.com",
        "billing": {"company": "Atelier Martin", "vatNumber": "FR40123456789",
                    "address": "1 rue de la Paix", "city": "Lyon", "postalCode": "69001",
                    "country": "be"},
        "birthDate": "1990-05-17",
        "receiptByEmail": true,
        "tags": ["web", "vip", "web"]
    })
}

async fn a_created_client_shows_every_member_through_v1_and_v2_with_its_event(app: TestApp) {
    let key = seeded(&app, SCOPES).await;
    let reply = create(&app, &key, &full_body()).await;
    assert_eq!(reply.status, 201, "{}", reply.text);
    let data = reply.json()["data"].clone();
    let id = data["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("cli_"), "{id}");
    assert_eq!(
        reply.header("location"),
        Some(format!("/api/v2/clients/{id}").as_str())
    );
    let created_at = data["createdAt"].clone();
    assert_eq!(
        data,
        json!({
            "id": id, "name": "Ana Martin", "displayName": "Ana", "phone": "+33 6 11 22 33 44",
            "email": "Ana.Martin@Example.com",
            "billing": {"company": "Atelier Martin", "vatNumber": "FR40123456789",
                        "address": "1 rue de la Paix", "city": "Lyon", "postalCode": "69001",
                        "country": "BE"},
            "birthDate": "1990-05-17",
            "loyalty": {"points": 0, "expiresAt": null, "pointsLifetime": 0, "pointsAllTime": 0,
                        "tierAchievedAt": null},
            "receiptByEmail": true, "tags": ["web", "vip"],
            "createdAt": created_at, "updatedAt": created_at
        })
    );
    for version in ["v1", "v2"] {
        assert_eq!(client(&app, &key, version, &id).await, data, "{version}");
    }
    // The answer's tag is the read's: a conditional read right after costs nothing.
    let tag = reply.header("etag").unwrap().to_owned();
    let unchanged = app
        .send(
            app.client()
                .get(app.url(&format!("/api/v2/clients/{id}")))
                .bearer_auth(&key)
                .header("If-None-Match", &tag),
        )
        .await;
    assert_eq!(unchanged.status, 304, "{}", unchanged.text);
    // Found by the v1 phone search in another form, and listed as changed.
    let found = app.get("/api/v1/clients?q=06%2011%2022", &key).await.json();
    assert_eq!(found["data"][0]["id"], json!(id), "{found}");
    let since = created_at.as_str().unwrap();
    let changed = app
        .get(&format!("/api/v1/clients?updatedSince={since}"), &key)
        .await
        .json();
    let ids: Vec<&Value> = changed["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["id"])
        .collect();
    assert_eq!(ids, [&json!(id)]);
    assert_eq!(
        client_events(&app, &key, &id).await,
        [("client.created".to_owned(), data)]
    );

    // Only a name is needed.
    let minimal = create(&app, &key, &json!({"name": "Bo"})).await;
    assert_eq!(minimal.status, 201, "{}", minimal.text);
    let minimal = minimal.json()["data"].clone();
    assert_eq!(
        (
            minimal["email"].clone(),
            minimal["billing"]["country"].clone(),
            minimal["tags"].clone(),
            minimal["receiptByEmail"].clone()
        ),
        (Value::Null, json!("FR"), json!([]), json!(false))
    );
}

async fn a_merge_patch_changes_what_it_names_and_nothing_else(app: TestApp) {
    let key = seeded(&app, SCOPES).await;
    let before = client(&app, &key, "v2", "c1").await;
    let reply = patch(
        &app,
        &key,
        "c1",
        &json!({"displayName": "Marie", "phone": null, "billing": {"city": "Paris"}, "tags": ["b2b"]}),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    let after = reply.json()["data"].clone();
    let mut expected = before.clone();
    expected["displayName"] = json!("Marie");
    expected["phone"] = Value::Null;
    expected["billing"]["city"] = json!("Paris");
    expected["tags"] = json!(["b2b"]);
    expected["updatedAt"] = after["updatedAt"].clone();
    assert_eq!(
        after, expected,
        "loyalty, email and the other billing members stay"
    );
    assert_ne!(after["updatedAt"], before["updatedAt"]);
    assert_eq!(client(&app, &key, "v1", "c1").await, after);
    assert_ne!(reply.header("etag"), None);
    let pushed = client_events(&app, &key, "c1").await;
    assert_eq!(pushed, [("client.updated".to_owned(), after.clone())]);

    // Resending what the client has changes nothing: no `updatedAt`, no event.
    let again = patch(
        &app,
        &key,
        "c1",
        &json!({"displayName": "Marie", "email": "marie.dupont@example.com"}),
    )
    .await;
    assert_eq!(again.status, 200, "{}", again.text);
    assert_eq!(again.json()["data"], after);
    assert_eq!(client_events(&app, &key, "c1").await.len(), 1);

    // `application/json` is a merge patch too; an empty one changes nothing.
    let plain = app
        .send(
            app.client()
                .patch(app.url("/api/v2/clients/c1"))
                .bearer_auth(&key)
                .header("Content-Type", "application/json")
                .body("{}"),
        )
        .await;
    assert_eq!((plain.status, plain.json()["data"].clone()), (200, after));
}

async fn every_bad_member_is_named_by_its_path(app: TestApp) {
    let key = seeded(&app, SCOPES).await;
    let creates = [
        (json!({}), vec!["name"]),
        (json!({"name": "é".repeat(201)}), vec!["name"]),
        (
            json!({"name": "A", "loyalty": {"points": 5}, "id": "c9", "note": "private", "createdAt": "x"}),
            // In the body's order, which `json!` sorts.
            vec!["createdAt", "id", "loyalty", "note"],
        ),
        (
            json!({"name": "A", "billing": {"city": 5, "country": "France", "zip": "1"}}),
            // The form's problems first, then the rules'.
            vec!["billing.city", "billing.zip", "billing.country"],
        ),
        (
            json!({"name": "A", "email": "ana@", "phone": "call me", "birthDate": "1990-02-30"}),
            vec!["phone", "email", "birthDate"],
        ),
        (
            json!({"name": "A", "tags": (0..51).map(|n| n.to_string()).collect::<Vec<_>>()}),
            vec!["tags"],
        ),
        (json!({"name": "A\u{0}"}), vec!["name"]),
        (
            json!({"name": "A", "receiptByEmail": "yes"}),
            vec!["receiptByEmail"],
        ),
    ];
    for (body, fields) in creates {
        let reply = create(&app, &key, &body).await;
        assert_eq!(
            (reply.status, reply.error_code(), reply.detail_fields()),
            (
                400,
                "VALIDATION_ERROR".to_owned(),
                fields.iter().map(|f| f.to_string()).collect()
            ),
            "{body}: {}",
            reply.text
        );
    }
    let patches = [
        (json!({"name": null}), vec!["name"]),
        (json!({"loyalty": null}), vec!["loyalty"]),
        (
            json!({"billing": {"country": null}}),
            vec!["billing.country"],
        ),
        (json!({"billing": null}), vec!["billing"]),
    ];
    for (body, fields) in patches {
        let reply = patch(&app, &key, "c1", &body).await;
        assert_eq!(
            (reply.status, reply.detail_fields()),
            (400, fields.iter().map(|f| f.to_string()).collect()),
            "{body}: {}",
            reply.text
        );
    }
    let duplicated = app
        .send(
            app.client()
                .post(app.url("/api/v2/clients"))
                .bearer_auth(&key)
                .header("Content-Type", "application/json")
                .body(r#"{"name": "A", "billing": {"city": "X", "city": "Y"}}"#),
        )
        .await;
    assert_eq!(
        duplicated.detail_fields(),
        ["billing.city"],
        "{}",
        duplicated.text
    );
    let not_json = app
        .send(create_request(&app, &key, &json!({}), None).body("{"))
        .await;
    assert_eq!(not_json.error_code(), "INVALID_JSON");
    let merge_on_post = app
        .send(
            create_request(&app, &key, &json!({"name": "A"}), None)
                .header("Content-Type", "application/merge-patch+json"),
        )
        .await;
    assert_eq!(merge_on_post.detail_fields(), ["Content-Type"]);
    let bad_tag = app
        .send(patch_request(
            &app,
            &key,
            "c1",
            &json!({"name": "X"}),
            Some("abc"),
        ))
        .await;
    assert_eq!(bad_tag.detail_fields(), ["If-Match"]);
    assert_eq!(
        client(&app, &key, "v1", "c1").await["name"],
        "Marie Dupont",
        "nothing changed"
    );
}

async fn an_email_is_unique_in_the_shop_without_regard_to_case(app: TestApp) {
    let key = seeded(&app, SCOPES).await;
    let taken = create(
        &app,
        &key,
        &json!({"name": "Marie bis", "email": "MARIE.DUPONT@example.com"}),
    )
    .await;
    assert_eq!(
        (taken.status, taken.error_code()),
        (409, "CONFLICT".into()),
        "{}",
        taken.text
    );
    assert_eq!(
        taken.json()["error"]["details"],
        json!([{"field": "email", "message": "is already the e-mail of another client of the shop (without regard to case)",
                "holderId": "c1"}])
    );
    let moved = patch(
        &app,
        &key,
        "c2",
        &json!({"email": "Marie.Dupont@Example.COM"}),
    )
    .await;
    assert_eq!(
        (
            moved.status,
            moved.json()["error"]["details"][0]["holderId"].clone()
        ),
        (409, json!("c1"))
    );
    assert_eq!(
        client(&app, &key, "v1", "c2").await["email"],
        "lucas@example.org"
    );
    // Its own e-mail, in another case, is no conflict.
    let own = patch(
        &app,
        &key,
        "c1",
        &json!({"email": "Marie.Dupont@example.com"}),
    )
    .await;
    assert_eq!(own.status, 200, "{}", own.text);
    // A cleared e-mail is free again.
    let cleared = patch(&app, &key, "c3", &json!({"email": null})).await;
    assert_eq!(cleared.status, 200, "{}", cleared.text);
    let reused = create(
        &app,
        &key,
        &json!({"name": "Élodie bis", "email": "elodie@example.fr"}),
    )
    .await;
    assert_eq!(reused.status, 201, "{}", reused.text);
    // Another shop may have the same e-mail.
    app.create_shop("other").await;
    let other = app.create_key("other", SCOPES).await;
    let elsewhere = create(
        &app,
        &other,
        &json!({"name": "Marie", "email": "marie.dupont@example.com"}),
    )
    .await;
    assert_eq!(elsewhere.status, 201, "{}", elsewhere.text);
    // Twenty creates of one new e-mail at once: one client has it.
    let requests = (0..20)
        .map(|n| {
            create_request(
                &app,
                &key,
                &json!({"name": format!("Twin {n}"), "email": "twin@example.com"}),
                None,
            )
        })
        .collect();
    let statuses: Vec<u16> = app
        .send_all_at_once(requests)
        .await
        .iter()
        .map(|r| r.status)
        .collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 201).count(),
        1,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 409).count(),
        19,
        "{statuses:?}"
    );
}

const PATCHES: usize = 50;

async fn of_fifty_patches_carrying_one_etag_exactly_one_applies(app: TestApp) {
    let key = seeded(&app, SCOPES).await;
    let read = app.get("/api/v2/clients/c2", &key).await;
    let tag = read.header("etag").unwrap().to_owned();
    let requests = (0..PATCHES)
        .map(|n| {
            patch_request(
                &app,
                &key,
                "c2",
                &json!({"displayName": format!("Writer {n}")}),
                Some(&tag),
            )
        })
        .collect();
    let replies = app.send_all_at_once(requests).await;
    let applied: Vec<&Reply> = replies.iter().filter(|r| r.status == 200).collect();
    let refused: Vec<&Reply> = replies.iter().filter(|r| r.status == 412).collect();
    assert_eq!(
        (applied.len(), refused.len()),
        (1, PATCHES - 1),
        "{:?}",
        replies.iter().map(|r| r.status).collect::<Vec<_>>()
    );
    let winner = applied[0];
    let current_tag = winner.header("etag").unwrap();
    for reply in refused {
        assert_eq!(reply.error_code(), "PRECONDITION_FAILED");
        assert_eq!(
            reply.header("etag"),
            Some(current_tag),
            "the 412 tells the current tag"
        );
    }
    let now = client(&app, &key, "v2", "c2").await;
    assert_eq!(now, winner.json()["data"]);
    assert_eq!(client_events(&app, &key, "c2").await.len(), 1);

    // With the current tag the next patch applies; a credit of points changes the tag.
    let next = app
        .send(patch_request(
            &app,
            &key,
            "c2",
            &json!({"displayName": "Lucas"}),
            Some(current_tag),
        ))
        .await;
    assert_eq!(next.status, 200, "{}", next.text);
    let tag = next.header("etag").unwrap().to_owned();
    let credit = app
        .send(app.post_request(
            "/api/v2/clients/c2/loyalty/adjustments",
            &app.create_key("atelier", "loyalty:write").await,
            &json!({"points": 5, "reason": "web"}),
            None,
        ))
        .await;
    assert_eq!(credit.status, 201, "{}", credit.text);
    let stale = app
        .send(patch_request(
            &app,
            &key,
            "c2",
            &json!({"displayName": "L"}),
            Some(&tag),
        ))
        .await;
    assert_eq!(stale.status, 412, "the client's loyalty is part of its tag");
    let any = app
        .send(patch_request(
            &app,
            &key,
            "c2",
            &json!({"displayName": "L"}),
            Some("*"),
        ))
        .await;
    assert_eq!(any.status, 200, "{}", any.text);
}

async fn a_retried_create_under_one_key_creates_one_client(app: TestApp) {
    let key = seeded(&app, &format!("{SCOPES},stock:write")).await;
    let body = json!({"name": "Nina", "email": "nina@example.com"});
    let first = app
        .send(create_request(&app, &key, &body, Some("signup-1")))
        .await;
    assert_eq!(
        (first.status, first.header("idempotent-replayed")),
        (201, None),
        "{}",
        first.text
    );
    let again = app
        .send(create_request(&app, &key, &body, Some("signup-1")))
        .await;
    assert_eq!(
        (again.status, again.header("idempotent-replayed")),
        (201, Some("true"))
    );
    assert_eq!(again.json(), first.json());
    assert_eq!(again.header("location"), first.header("location"));
    let other = app
        .send(create_request(
            &app,
            &key,
            &json!({"name": "Nina B"}),
            Some("signup-1"),
        ))
        .await;
    assert_eq!(
        (other.status, other.error_code()),
        (422, "IDEMPOTENCY_KEY_REUSED".into())
    );
    // A refusal is an answer, replayed too.
    let conflict = json!({"name": "Marie", "email": "marie.dupont@example.com"});
    let refused = app
        .send(create_request(&app, &key, &conflict, Some("signup-2")))
        .await;
    let replayed = app
        .send(create_request(&app, &key, &conflict, Some("signup-2")))
        .await;
    assert_eq!(
        (
            refused.status,
            replayed.status,
            replayed.header("idempotent-replayed")
        ),
        (409, 409, Some("true"))
    );
    // Ten at once under one key: one client.
    let requests = (0..10)
        .map(|_| create_request(&app, &key, &json!({"name": "Burst"}), Some("burst")))
        .collect();
    let mut ids: Vec<Value> = app
        .send_all_at_once(requests)
        .await
        .iter()
        .map(|reply| {
            assert_eq!(reply.status, 201, "{}", reply.text);
            reply.json()["data"]["id"].clone()
        })
        .collect();
    ids.dedup();
    assert_eq!(ids.len(), 1, "{ids:?}");
    let named_burst = app.get("/api/v1/clients?q=burst", &key).await.json();
    assert_eq!(named_burst["data"].as_array().unwrap().len(), 1);
}

async fn another_shops_client_is_not_found_and_the_scope_is_required(app: TestApp) {
    let key = seeded(&app, SCOPES).await;
    app.create_shop("other").await;
    let other = app.create_key("other", SCOPES).await;
    let reply = patch(&app, &other, "c1", &json!({"name": "Stolen"})).await;
    assert_eq!(
        (reply.status, reply.error_code()),
        (404, "NOT_FOUND".into()),
        "{}",
        reply.text
    );
    assert_eq!(
        patch(&app, &key, "nobody", &json!({"name": "X"}))
            .await
            .status,
        404
    );
    assert_eq!(client(&app, &key, "v1", "c1").await["name"], "Marie Dupont");
    let reader = app.create_key("atelier", "clients:read").await;
    for reply in [
        create(&app, &reader, &json!({"name": "X"})).await,
        patch(&app, &reader, "c1", &json!({"name": "X"})).await,
    ] {
        assert_eq!(
            (reply.status, reply.error_code()),
            (403, "INSUFFICIENT_SCOPE".into())
        );
    }
    let v1 = app
        .send(app.post_request("/api/v1/clients", &key, &json!({"name": "X"}), None))
        .await;
    assert_eq!(v1.status, 405, "v1 has no client writes: {}", v1.text);
}
