//! API v2's client writes through the typed client (`shop-api-client`) against the real server:
//! idempotent creates and their replays, merge patches made conditional by the tag a write
//! hands back, a stale tag's 412 with the current one, the read-modify-write loop, and the
//! 409 that names the e-mail's holder.

use shop_api_client::{
    ApiError, BillingDraft, BillingPatch, Client, ClientDraft, ClientPatch, Conditional, ErrorCode,
    Patch,
};
use time::macros::date;

use crate::orders::seeded;
use crate::support::{TestApp, on_both_databases};

on_both_databases!(
    a_create_under_a_key_is_replayed_and_decodes_every_member,
    a_patch_carries_the_tag_of_the_create_and_a_stale_tag_gets_the_current_one,
    modify_client_keeps_a_concurrent_change,
    a_taken_email_names_its_holder,
);

const SCOPES: &str = "clients:write,clients:read";

fn client_of(app: &TestApp, key: &str) -> Client {
    Client::new(app.url(""), key).unwrap()
}

fn full_draft() -> ClientDraft {
    ClientDraft {
        display_name: Some("Ana".to_owned()),
        phone: Some("+33 6 11 22 33 44".to_owned()),
        email: Some("Ana.Martin@Example.com".to_owned()),
        billing: Some(BillingDraft {
            company: Some("Atelier Martin".to_owned()),
            vat_number: Some("FR40123456789".to_owned()),
            address: Some("1 rue de la Paix".to_owned()),
            city: Some("Lyon".to_owned()),
            postal_code: Some("69001".to_owned()),
            country: Some("be".to_owned()),
        }),
        birth_date: Some(date!(1990 - 05 - 17)),
        receipt_by_email: true,
        tags: vec!["web".to_owned(), "vip".to_owned(), "web".to_owned()],
        ..ClientDraft::new(" Ana Martin ")
    }
}

async fn a_create_under_a_key_is_replayed_and_decodes_every_member(app: TestApp) {
    let key = seeded(&app, SCOPES).await;
    let api = client_of(&app, &key);
    let first = api
        .create_client_with_key(&full_draft(), "signup-1")
        .await
        .unwrap();
    assert!(!first.replayed);
    assert_eq!(first.idempotency_key.as_deref(), Some("signup-1"));
    let created = &first.data;
    assert!(created.id.starts_with("cli_"), "{}", created.id);
    assert_eq!(
        (
            created.name.as_str(),
            created.display_name.as_deref(),
            created.phone.as_deref(),
            created.email.as_deref(),
            created.birth_date,
            created.receipt_by_email,
            created.tags.clone(),
        ),
        (
            "Ana Martin",
            Some("Ana"),
            Some("+33 6 11 22 33 44"),
            Some("Ana.Martin@Example.com"),
            Some(date!(1990 - 05 - 17)),
            true,
            vec!["web".to_owned(), "vip".to_owned()],
        )
    );
    assert_eq!(created.billing.country, "BE");
    assert_eq!(created.billing.postal_code.as_deref(), Some("69001"));
    assert_eq!(created.loyalty.points, 0);
    assert_eq!(created.created_at, created.updated_at);
    let tag = first.etag.clone().expect("a create answers its ETag");
    assert_eq!(tag.len(), 34, "a strong tag: {tag}");
    assert!(tag.starts_with('"') && tag.ends_with('"'), "{tag}");

    // The same key and draft: the same client, replayed; nothing more is created.
    let again = api
        .create_client_with_key(&full_draft(), "signup-1")
        .await
        .unwrap();
    assert!(again.replayed);
    assert_eq!(again.data, first.data);
    assert_eq!(again.etag, first.etag);
    // The create's tag is the read's: a conditional read right after costs nothing.
    assert_eq!(
        api.client_if_changed(&created.id, Some(&tag))
            .await
            .unwrap(),
        Conditional::NotModified
    );
    // Another draft under the key is refused.
    let reused = api
        .create_client_with_key(&ClientDraft::new("Nina"), "signup-1")
        .await
        .unwrap_err();
    assert_eq!(reused.code(), Some(&ErrorCode::IdempotencyKeyReused));

    // Without a key of ours, each call gets its own: two calls, two clients.
    let one = api.create_client(&ClientDraft::new("Bo")).await.unwrap();
    let two = api.create_client(&ClientDraft::new("Bo")).await.unwrap();
    assert_ne!(one.idempotency_key, two.idempotency_key);
    assert_ne!(one.data.id, two.data.id);
    assert_eq!(
        (
            one.data.email,
            one.data.billing.country.as_str(),
            one.data.tags.len()
        ),
        (None, "FR", 0)
    );
}

async fn a_patch_carries_the_tag_of_the_create_and_a_stale_tag_gets_the_current_one(app: TestApp) {
    let key = seeded(&app, SCOPES).await;
    let api = client_of(&app, &key);
    let created = api.create_client(&full_draft()).await.unwrap();
    let id = created.data.id.clone();
    let created_tag = created.etag.unwrap();

    let patch = ClientPatch {
        display_name: Patch::Set("Ana M.".to_owned()),
        phone: Patch::Clear,
        birth_date: Patch::Clear,
        billing: Some(BillingPatch {
            city: Patch::Set("Paris".to_owned()),
            company: Patch::Clear,
            ..BillingPatch::default()
        }),
        ..ClientPatch::default()
    };
    let patched = api
        .update_client(&id, &patch, Some(&created_tag))
        .await
        .unwrap();
    let client = &patched.data;
    assert_eq!(client.display_name.as_deref(), Some("Ana M."));
    assert_eq!((client.phone.as_deref(), client.birth_date), (None, None));
    assert_eq!(
        (
            client.billing.city.as_deref(),
            client.billing.company.as_deref(),
            client.billing.address.as_deref(),
            client.billing.country.as_str(),
        ),
        (Some("Paris"), None, Some("1 rue de la Paix"), "BE"),
        "billing merges member by member"
    );
    assert_eq!(
        (client.name.as_str(), client.email.as_deref()),
        ("Ana Martin", Some("Ana.Martin@Example.com")),
        "what the patch does not name stays"
    );
    let current_tag = patched.etag.clone().unwrap();
    assert_ne!(current_tag, created_tag);
    assert_eq!(api.client(&id).await.unwrap(), patched.data);

    // The create's tag is stale now: refused, with the current tag, and nothing changes.
    let stale = api
        .update_client(
            &id,
            &ClientPatch {
                name: Some("Someone else".to_owned()),
                ..ClientPatch::default()
            },
            Some(&created_tag),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(
            &stale,
            ApiError::PreconditionFailed {
                maybe_applied: false,
                ..
            }
        ),
        "{stale:?}"
    );
    assert_eq!(stale.code(), Some(&ErrorCode::PreconditionFailed));
    assert_eq!(stale.status(), Some(412));
    assert_eq!(stale.current_etag(), Some(current_tag.as_str()));
    assert_eq!(api.client(&id).await.unwrap().name, "Ana Martin");

    // With the current tag it applies; without one, whatever is current is patched.
    let renamed = api
        .update_client(
            &id,
            &ClientPatch {
                name: Some("Ana Martin-Roux".to_owned()),
                ..ClientPatch::default()
            },
            stale.current_etag(),
        )
        .await
        .unwrap();
    assert_eq!(renamed.data.name, "Ana Martin-Roux");
    let unconditional = api
        .update_client(
            &id,
            &ClientPatch {
                tags: Some(vec![]),
                receipt_by_email: Some(false),
                ..ClientPatch::default()
            },
            None,
        )
        .await
        .unwrap();
    assert_eq!(
        (
            unconditional.data.tags.len(),
            unconditional.data.receipt_by_email
        ),
        (0, false)
    );
    // An empty patch changes nothing, not even the tag.
    let nothing = api
        .update_client(&id, &ClientPatch::default(), unconditional.etag.as_deref())
        .await
        .unwrap();
    assert_eq!(nothing.data, unconditional.data);
    assert_eq!(nothing.etag, unconditional.etag);

    let missing = api
        .update_client("nobody", &ClientPatch::default(), None)
        .await
        .unwrap_err();
    assert_eq!(missing.code(), Some(&ErrorCode::NotFound));
}

async fn modify_client_keeps_a_concurrent_change(app: TestApp) {
    let key = seeded(&app, SCOPES).await;
    let api = client_of(&app, &key);
    let other = client_of(&app, &key);
    let mut calls = 0;
    let written = api
        .modify_client("c2", |current| {
            calls += 1;
            if calls == 1 {
                // Another program writes between this read and the patch; the patch made
                // on the first read must not undo it.
                tokio::task::block_in_place(|| {
                    tokio::runtime::Handle::current().block_on(async {
                        other
                            .update_client(
                                "c2",
                                &ClientPatch {
                                    tags: Some(vec!["b2b".to_owned()]),
                                    ..ClientPatch::default()
                                },
                                None,
                            )
                            .await
                            .unwrap();
                    });
                });
            }
            let mut tags = current.tags.clone();
            tags.push("vip".to_owned());
            ClientPatch {
                tags: Some(tags),
                ..ClientPatch::default()
            }
        })
        .await
        .unwrap();
    assert_eq!(calls, 2, "the 412 made it read again");
    assert_eq!(written.data.tags, ["b2b", "vip"]);
    assert_eq!(api.client("c2").await.unwrap().tags, ["b2b", "vip"]);
    // Nothing left to change: nothing is written, and the tag stays.
    let unchanged = api
        .modify_client("c2", |_| ClientPatch::default())
        .await
        .unwrap();
    assert_eq!(unchanged.etag, written.etag);
}

async fn a_taken_email_names_its_holder(app: TestApp) {
    let key = seeded(&app, SCOPES).await;
    let api = client_of(&app, &key);
    let draft = ClientDraft {
        email: Some("MARIE.DUPONT@example.com".to_owned()),
        ..ClientDraft::new("Marie bis")
    };
    let taken = api.create_client(&draft).await.unwrap_err();
    assert_eq!(
        (taken.status(), taken.code(), taken.conflict_holder()),
        (Some(409), Some(&ErrorCode::Conflict), Some("c1"))
    );
    let ApiError::Api { details, .. } = &taken else {
        panic!("{taken:?}");
    };
    assert_eq!(
        (
            details.len(),
            details[0].field.as_str(),
            details[0].holder_id.as_deref()
        ),
        (1, "email", Some("c1"))
    );
    // A refusal under a key is replayed as a refusal.
    let first = api
        .create_client_with_key(&draft, "signup-2")
        .await
        .unwrap_err();
    let again = api
        .create_client_with_key(&draft, "signup-2")
        .await
        .unwrap_err();
    assert_eq!(first.conflict_holder(), Some("c1"));
    assert_eq!(again.conflict_holder(), Some("c1"));

    let moved = api
        .update_client(
            "c2",
            &ClientPatch {
                email: Patch::Set("Marie.Dupont@Example.COM".to_owned()),
                ..ClientPatch::default()
            },
            None,
        )
        .await
        .unwrap_err();
    assert_eq!(moved.conflict_holder(), Some("c1"));
    assert_eq!(
        api.client("c2").await.unwrap().email.as_deref(),
        Some("lucas@example.org")
    );
    // Its own e-mail in another case is no conflict.
    let own = api
        .update_client(
            "c1",
            &ClientPatch {
                email: Patch::Set("Marie.Dupont@example.com".to_owned()),
                ..ClientPatch::default()
            },
            None,
        )
        .await
        .unwrap();
    assert_eq!(own.data.email.as_deref(), Some("Marie.Dupont@example.com"));
}
