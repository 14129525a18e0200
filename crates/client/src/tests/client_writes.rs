//! API v2's client writes against the scripted server: the headers and bodies sent, what a
//! 409 and a 412 decode to, and which lost answers are retried.

use std::time::Duration;

use super::{FakeServer, Reply, TAG_1, TAG_2, precondition_failed, recording_client, tagged};
use crate::{ApiError, Client, ClientDraft, ClientPatch, ErrorCode, Patch, RetryReason};

fn client(id: &str, display_name: &str, tags: &str) -> String {
    format!(
        r#"{{"data":{{"id":"{id}","name":"Ana","displayName":"{display_name}","phone":null,"email":null,
        "billing":{{"company":null,"vatNumber":null,"address":null,"city":null,"postalCode":null,"country":"FR"}},
        "birthDate":null,"loyalty":{{"points":0,"expiresAt":null,"pointsLifetime":0,"pointsAllTime":0,
        "tierAchievedAt":null}},"receiptByEmail":false,"tags":{tags},
        "createdAt":"2026-01-01T00:00:00.000Z","updatedAt":"2026-11-25T10:30:00.000Z"}}}}"#
    )
}

#[tokio::test]
async fn a_create_sends_its_key_on_every_attempt_and_reads_the_tag_and_replay() {
    let server = FakeServer::start(vec![
        // Created, but the answer is lost.
        Reply::Drop,
        Reply::Http(
            201,
            vec![
                ("ETag", TAG_1.to_owned()),
                ("Location", "/api/v2/clients/cli_1".to_owned()),
                ("Idempotent-Replayed", "true".to_owned()),
            ],
            client("cli_1", "Ana", "[]"),
        ),
    ])
    .await;
    let (api, events) = recording_client(&server);
    let draft = ClientDraft {
        email: Some("ana@example.com".to_owned()),
        ..ClientDraft::new("Ana")
    };
    let written = api.create_client(&draft).await.unwrap();
    assert_eq!(written.data.id, "cli_1");
    assert_eq!(written.etag.as_deref(), Some(TAG_1));
    assert!(written.replayed);
    let key = written.idempotency_key.unwrap();
    assert!(uuid::Uuid::parse_str(&key).is_ok(), "{key}");

    let seen = server.seen();
    assert_eq!(seen.len(), 2);
    for request in &seen {
        assert_eq!(
            (request.method.as_str(), request.target.as_str()),
            ("POST", "/api/v2/clients")
        );
        assert_eq!(request.header("idempotency-key"), Some(key.as_str()));
        assert_eq!(request.header("content-type"), Some("application/json"));
        assert_eq!(request.header("if-match"), None);
        assert_eq!(
            request.body,
            r#"{"name":"Ana","email":"ana@example.com","receiptByEmail":false,"tags":[]}"#
        );
    }
    assert_eq!(events.lock().unwrap()[0].reason, RetryReason::Transport);
    assert_eq!(
        events.lock().unwrap()[0].idempotency_key.as_deref(),
        Some(key.as_str())
    );

    assert!(matches!(
        api.create_client_with_key(&draft, "not a key").await,
        Err(ApiError::Invalid(_))
    ));
    assert_eq!(server.seen().len(), 2, "an invalid key is never sent");
}

#[tokio::test]
async fn a_conflict_names_the_holder_of_the_email() {
    let server = FakeServer::start(vec![Reply::Http(
        409,
        vec![("Idempotent-Replayed", "true".to_owned())],
        r#"{"error":{"code":"CONFLICT","message":"Another resource of the shop already holds this value.",
        "details":[{"field":"email","message":"is already the e-mail of another client of the shop (without regard to case)","holderId":"c1"}]}}"#
            .to_owned(),
    )])
    .await;
    let (api, events) = recording_client(&server);
    let draft = ClientDraft {
        email: Some("MARIE.DUPONT@example.com".to_owned()),
        ..ClientDraft::new("Marie bis")
    };
    let error = api
        .create_client_with_key(&draft, "signup-2")
        .await
        .unwrap_err();
    assert_eq!(error.code(), Some(&ErrorCode::Conflict));
    assert_eq!(error.status(), Some(409));
    assert_eq!(error.conflict_holder(), Some("c1"));
    match error {
        ApiError::Api { details, .. } => {
            assert_eq!(details.len(), 1);
            assert_eq!(details[0].field, "email");
            assert_eq!(details[0].holder_id.as_deref(), Some("c1"));
        }
        other => panic!("{other:?}"),
    }
    assert!(events.lock().unwrap().is_empty(), "a refusal is no retry");
}

#[tokio::test]
async fn a_patch_is_a_merge_patch_with_if_match_and_a_stale_tag_tells_the_current_one() {
    let server = FakeServer::start(vec![
        tagged(200, TAG_2, client("c1", "Marie", "[]")),
        precondition_failed(TAG_2),
    ])
    .await;
    let (api, events) = recording_client(&server);
    let patch = ClientPatch {
        display_name: Patch::Set("Marie".to_owned()),
        phone: Patch::Clear,
        ..ClientPatch::default()
    };
    let written = api.update_client("c1", &patch, Some(TAG_1)).await.unwrap();
    assert_eq!(written.data.display_name.as_deref(), Some("Marie"));
    assert_eq!(written.etag.as_deref(), Some(TAG_2));
    assert!(!written.replayed);
    assert_eq!(written.idempotency_key, None);

    let error = api
        .update_client("c1", &patch, Some(TAG_1))
        .await
        .unwrap_err();
    assert!(
        matches!(&error, ApiError::PreconditionFailed { current_etag: Some(tag), maybe_applied: false, .. } if tag == TAG_2),
        "{error:?}"
    );
    assert_eq!(error.code(), Some(&ErrorCode::PreconditionFailed));
    assert_eq!(error.status(), Some(412));
    assert_eq!(error.current_etag(), Some(TAG_2));

    let seen = server.seen();
    for request in &seen {
        assert_eq!(
            (request.method.as_str(), request.target.as_str()),
            ("PATCH", "/api/v2/clients/c1")
        );
        assert_eq!(
            request.header("content-type"),
            Some("application/merge-patch+json")
        );
        assert_eq!(request.header("if-match"), Some(TAG_1));
        assert_eq!(request.header("idempotency-key"), None);
        assert_eq!(request.body, r#"{"displayName":"Marie","phone":null}"#);
    }
    assert!(events.lock().unwrap().is_empty(), "a 412 is not retried");
}

#[tokio::test]
async fn a_lost_patch_answer_is_retried_and_a_refused_conditional_retry_may_have_applied() {
    let server = FakeServer::start(vec![
        // Unconditional: the retry applies the same merge patch, which is harmless.
        Reply::Drop,
        tagged(200, TAG_2, client("c1", "Marie", "[]")),
        // Conditional: the first attempt applied, its answer lost; the retry is refused.
        Reply::Drop,
        precondition_failed(TAG_2),
    ])
    .await;
    let (api, events) = recording_client(&server);
    let patch = ClientPatch {
        display_name: Patch::Set("Marie".to_owned()),
        ..ClientPatch::default()
    };
    let written = api.update_client("c1", &patch, None).await.unwrap();
    assert_eq!(written.etag.as_deref(), Some(TAG_2));
    let error = api
        .update_client("c1", &patch, Some(TAG_1))
        .await
        .unwrap_err();
    assert!(
        matches!(
            &error,
            ApiError::PreconditionFailed {
                maybe_applied: true,
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(error.current_etag(), Some(TAG_2));
    let seen = server.seen();
    assert_eq!(seen.len(), 4);
    assert_eq!(seen[0].header("if-match"), None);
    assert_eq!(seen[1].header("if-match"), None);
    assert_eq!(seen[2].header("if-match"), Some(TAG_1));
    assert_eq!(
        seen[3].header("if-match"),
        Some(TAG_1),
        "the same tag again"
    );
    let reasons: Vec<RetryReason> = events.lock().unwrap().iter().map(|e| e.reason).collect();
    assert_eq!(reasons, [RetryReason::Transport, RetryReason::Transport]);
}

#[tokio::test]
async fn modify_client_reads_again_and_reapplies_its_change_after_a_412() {
    let server = FakeServer::start(vec![
        tagged(200, TAG_1, client("c1", "Ana", r#"["web"]"#)),
        precondition_failed(TAG_2),
        // Another writer added "b2b" meanwhile.
        tagged(200, TAG_2, client("c1", "Ana", r#"["web","b2b"]"#)),
        tagged(
            200,
            "\"33333333333333333333333333333333\"",
            client("c1", "Ana", r#"["web","b2b","vip"]"#),
        ),
        // The next call finds "vip" there: nothing to write.
        tagged(
            200,
            "\"33333333333333333333333333333333\"",
            client("c1", "Ana", r#"["web","b2b","vip"]"#),
        ),
    ])
    .await;
    let (api, _) = recording_client(&server);
    let add_vip = |current: &crate::models::Client| {
        if current.tags.iter().any(|tag| tag == "vip") {
            return ClientPatch::default();
        }
        let mut tags = current.tags.clone();
        tags.push("vip".to_owned());
        ClientPatch {
            tags: Some(tags),
            ..ClientPatch::default()
        }
    };
    let written = api.modify_client("c1", add_vip).await.unwrap();
    assert_eq!(written.data.tags, ["web", "b2b", "vip"]);
    let unchanged = api.modify_client("c1", add_vip).await.unwrap();
    assert_eq!(unchanged.data, written.data);
    assert_eq!(unchanged.etag, written.etag);

    let seen = server.seen();
    let calls: Vec<(&str, &str, Option<&str>)> = seen
        .iter()
        .map(|s| (s.method.as_str(), s.body.as_str(), s.header("if-match")))
        .collect();
    assert_eq!(
        calls,
        [
            ("GET", "", None),
            ("PATCH", r#"{"tags":["web","vip"]}"#, Some(TAG_1)),
            ("GET", "", None),
            ("PATCH", r#"{"tags":["web","b2b","vip"]}"#, Some(TAG_2)),
            ("GET", "", None),
        ]
    );
    assert!(
        seen.iter()
            .all(|s| s.target.starts_with("/api/v2/clients/c1"))
    );
}

#[tokio::test]
async fn modify_client_gives_up_on_a_client_that_keeps_changing() {
    let mut script = Vec::new();
    for _ in 0..5 {
        script.push(tagged(200, TAG_1, client("c1", "Ana", "[]")));
        script.push(precondition_failed(TAG_2));
    }
    let server = FakeServer::start(script).await;
    let api = Client::builder(&server.base_url, "k")
        .retry_backoff(Duration::from_millis(1))
        .build()
        .unwrap();
    let mut asked = 0;
    let error = api
        .modify_client("c1", |_| {
            asked += 1;
            ClientPatch {
                display_name: Patch::Set(format!("Ana {asked}")),
                ..ClientPatch::default()
            }
        })
        .await
        .unwrap_err();
    assert_eq!(error.code(), Some(&ErrorCode::PreconditionFailed));
    assert_eq!(asked, 5);
    assert_eq!(server.seen().len(), 10);
}
