use shop_domain::Timestamp;
use shop_domain::client::ClientInput;

use super::*;
use crate::port::{MockClientWriter, MockIdGenerator};

const NOW: i64 = 100 * 86_400_000;

fn caller() -> Principal {
    crate::usecase::test_caller::caller("clients:write")
}

fn editor(writer: MockClientWriter) -> ClientEditor {
    let mut ids = MockIdGenerator::new();
    ids.expect_new_id().returning(|| "7".into());
    let clock = crate::usecase::test_clock::at(Timestamp::from_millis(NOW));
    ClientEditor::new(Arc::new(writer), Arc::new(ids), clock)
}

fn new_client(email: &str) -> NewClient {
    NewClient::try_from(ClientInput {
        name: Some("Ana".into()),
        email: Some(Some(email.into())),
        ..ClientInput::default()
    })
    .unwrap()
}

fn stored(new: &NewClient) -> Client {
    new.client(
        ClientId::parse("cli_7").unwrap(),
        Timestamp::from_millis(NOW),
    )
}

fn key() -> IdempotencyKey {
    IdempotencyKey::parse("signup-42").unwrap()
}

#[tokio::test]
async fn a_create_is_made_in_the_callers_shop_under_a_new_id_and_the_callers_key() {
    let new = new_client("ana@example.com");
    let fingerprint = new.fingerprint();
    let answer = stored(&new);
    let mut writer = MockClientWriter::new();
    writer
        .expect_create_client()
        .withf(move |command| {
            let claim = command.idempotency.as_ref().unwrap();
            command.shop.as_str() == "shop_a"
                && command.id.as_str() == "cli_7"
                && command.key_prefix.as_str() == "0a1b2c3d"
                && command.write_id.as_str() == "wrt_7"
                && command.at.millis() == NOW
                && claim.key.as_str() == "signup-42"
                && claim.fingerprint == fingerprint
                && claim.expired_before.millis() == NOW - 86_400_000
        })
        .times(1)
        .returning(move |_| {
            Ok(CreateClientOutcome::Fresh(CreateClientResult::Created(
                Box::new(answer.clone()),
            )))
        });
    let written = editor(writer)
        .create(&caller(), new.clone(), Some(key()))
        .await
        .unwrap();
    assert_eq!(written.client, stored(&new));
    assert!(!written.replayed);
}

#[tokio::test]
async fn replays_and_refusals_of_a_create_say_so() {
    let new = new_client("ana@example.com");
    let answer = |outcome: CreateClientOutcome| {
        let mut writer = MockClientWriter::new();
        writer
            .expect_create_client()
            .returning(move |_| Ok(outcome.clone()));
        let new = new.clone();
        async move { editor(writer).create(&caller(), new, Some(key())).await }
    };
    let replayed = answer(CreateClientOutcome::Replayed(CreateClientResult::Created(
        Box::new(stored(&new)),
    )))
    .await
    .unwrap();
    assert!(replayed.replayed);
    let holder = ClientId::parse("cli_1").unwrap();
    let taken = answer(CreateClientOutcome::Replayed(
        CreateClientResult::EmailTaken {
            holder: holder.clone(),
        },
    ))
    .await
    .unwrap_err();
    assert!(
        matches!(&taken, ClientWriteError::EmailTaken { holder: h, replayed: true } if *h == holder)
    );
    assert!(taken.replayed());
    let reused = answer(CreateClientOutcome::KeyReused).await.unwrap_err();
    assert!(matches!(reused, ClientWriteError::KeyReused));
    assert!(!reused.replayed());
}

#[tokio::test]
async fn a_patch_carries_its_precondition_to_the_store_and_maps_each_result() {
    let current = stored(&new_client("ana@example.com"));
    let patch = ClientPatch::try_from(ClientInput {
        name: Some("Ana M".into()),
        ..ClientInput::default()
    })
    .unwrap();
    let answer = |result: PatchClientResult| {
        let mut writer = MockClientWriter::new();
        let check = current.clone();
        writer
            .expect_patch_client()
            .withf(move |command| {
                command.shop.as_str() == "shop_a"
                    && command.id.as_str() == "cli_7"
                    && command.at.millis() == NOW
                    && command
                        .precondition
                        .as_ref()
                        .is_some_and(|p| p.holds(&check))
            })
            .times(1)
            .returning(move |_| Ok(result.clone()));
        let (patch, name) = (patch.clone(), current.name.clone());
        async move {
            let only_ana = Precondition::new(move |client: &Client| client.name == name);
            editor(writer)
                .patch(
                    &caller(),
                    ClientId::parse("cli_7").unwrap(),
                    patch,
                    Some(only_ana),
                )
                .await
        }
    };
    let patched = patch.apply(&current);
    assert_eq!(
        answer(PatchClientResult::Patched(Box::new(patched.clone())))
            .await
            .unwrap(),
        patched
    );
    assert!(matches!(
        answer(PatchClientResult::NotFound).await,
        Err(ClientWriteError::NotFound)
    ));
    let failed = answer(PatchClientResult::PreconditionFailed(Box::new(
        current.clone(),
    )))
    .await;
    assert!(matches!(failed, Err(ClientWriteError::PreconditionFailed(now)) if *now == current));
    let taken = answer(PatchClientResult::EmailTaken {
        holder: ClientId::parse("cli_1").unwrap(),
    })
    .await;
    assert!(matches!(
        taken,
        Err(ClientWriteError::EmailTaken {
            replayed: false,
            ..
        })
    ));
}
