use serde_json::json;

use crate::fixtures::{IMPORT_TIME, stamped_by_the_import};
use crate::orders::{assert_no_secret, seeded};
use crate::support::{Reply, TestApp, on_both_databases};

on_both_databases!(
    clients_have_the_exact_fields_and_no_private_ones,
    client_search_by_name_email_and_any_phone_spelling,
    clients_page_by_id_and_refuse_bad_parameters,
    clients_of_another_shop_are_not_found,
);

fn ids(reply: &Reply) -> Vec<String> {
    assert_eq!(reply.status, 200, "{}", reply.text);
    reply.json()["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_owned())
        .collect()
}

async fn clients_have_the_exact_fields_and_no_private_ones(app: TestApp) {
    let key = seeded(&app, "clients:read").await;
    let detail = app.get("/api/v1/clients/c1", &key).await;
    assert_no_secret(&detail);
    assert_eq!(
        stamped_by_the_import(detail.json(), "/data/updatedAt"),
        json!({"data": {
            "id": "c1", "name": "Marie Dupont", "displayName": null, "phone": "06 12 34 56 78",
            "email": "marie.dupont@example.com",
            "billing": {"company": null, "vatNumber": null, "address": "1 rue Haute", "city": "Nantes", "postalCode": "44000", "country": "FR"},
            "birthDate": "1990-04-17",
            "loyalty": {"points": 120, "expiresAt": null, "pointsLifetime": 875, "pointsAllTime": 885,
                        "tierAchievedAt": "2026-02-01T10:00:00.000Z"},
            "receiptByEmail": true, "tags": ["fidèle"],
            "createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": IMPORT_TIME
        }})
    );
    let list = app.get("/api/v1/clients", &key).await;
    assert_no_secret(&list);
    assert_eq!(list.json()["data"][0], detail.json()["data"]);
}

async fn client_search_by_name_email_and_any_phone_spelling(app: TestApp) {
    let key = seeded(&app, "clients:read").await;
    let cases: &[(&str, &[&str])] = &[
        ("dupont", &["c1"]),
        ("MARIE", &["c1"]),
        ("%C3%A9lodie", &["c3"]), // "élodie" matches "Élodie"
        ("example.org", &["c2"]),
        ("06 12 34", &["c1"]),
        ("%2B33 6 12 34 56 78", &["c1"]), // "+33 6 12 34 56 78"
        ("0612345678", &["c1"]),
        ("12.34.56", &["c1"]),
        ("07-98-76", &["c2"]),
        ("%2B33144556677", &["c3"]),
        ("0144", &["c3"]),
        ("nobody", &[]),
    ];
    for (q, expected) in cases {
        assert_eq!(
            ids(&app.get(&format!("/api/v1/clients?q={q}"), &key).await),
            *expected,
            "q={q}"
        );
    }
    // A lone "0" is not a phone search (it would match every number); it still searches text.
    assert_eq!(
        ids(&app.get("/api/v1/clients?q=0", &key).await),
        Vec::<String>::new()
    );
    assert_eq!(
        ids(&app.get("/api/v1/clients?q=", &key).await),
        ["c1", "c2", "c3"]
    );
}

async fn clients_page_by_id_and_refuse_bad_parameters(app: TestApp) {
    let key = seeded(&app, "clients:read").await;
    let first = app.get("/api/v1/clients?limit=2", &key).await;
    assert_eq!(ids(&first), ["c1", "c2"]);
    assert_eq!(first.json()["pageInfo"]["limit"], 2);
    let cursor = first.json()["pageInfo"]["nextCursor"]
        .as_str()
        .unwrap()
        .to_owned();
    let second = app
        .get(&format!("/api/v1/clients?limit=2&cursor={cursor}"), &key)
        .await;
    assert_eq!(ids(&second), ["c3"]);
    assert_eq!(second.json()["pageInfo"]["hasMore"], false);

    for (query, field) in [
        ("limit=0", "limit"),
        ("cursor=nope", "cursor"),
        ("status=x", "status"),
        ("q=a&q=b", "q"),
    ] {
        let reply = app.get(&format!("/api/v1/clients?{query}"), &key).await;
        assert_eq!(
            (reply.status, reply.detail_fields()),
            (400, vec![field.to_owned()]),
            "{query}"
        );
    }
    let long = "a".repeat(101);
    assert_eq!(
        app.get(&format!("/api/v1/clients?q={long}"), &key)
            .await
            .detail_fields(),
        ["q"]
    );
    assert_eq!(
        app.get("/api/v1/clients/c1?x=1", &key)
            .await
            .detail_fields(),
        ["x"]
    );
}

async fn clients_of_another_shop_are_not_found(app: TestApp) {
    let key = seeded(&app, "clients:read,loyalty:read").await;
    app.create_shop("voisin").await;
    app.import(
        "voisin",
        &json!({"clients": [{"id": "c_theirs", "name": "Voisine Dupont"}]}),
    )
    .await;
    let unknown = app.get("/api/v1/clients/c_nowhere", &key).await;
    assert_eq!(unknown.status, 404);
    assert_eq!(
        app.get("/api/v1/clients/c_theirs", &key).await.text,
        unknown.text
    );
    let unknown_loyalty = app.get("/api/v1/clients/c_nowhere/loyalty", &key).await;
    assert_eq!(unknown_loyalty.status, 404);
    assert_eq!(
        app.get("/api/v1/clients/c_theirs/loyalty", &key).await.text,
        unknown_loyalty.text
    );
    assert_eq!(
        ids(&app.get("/api/v1/clients?q=dupont", &key).await),
        ["c1"]
    );
}
