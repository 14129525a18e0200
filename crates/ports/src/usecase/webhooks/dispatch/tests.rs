//! The dispatcher against mocked ports: what an attempt sends, and what its answer changes.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use shop_domain::Timestamp;
use shop_domain::id::{DeliveryId, EventId, WebhookEndpointId};
use shop_domain::webhook::{
    DisabledReason, EndpointUrl, NetworkPolicy, RetrySchedule, WebhookSecret, sign,
};

use super::{DispatchSettings, WebhookDispatcher};
use crate::port::{
    AttemptRecord, ClaimedDelivery, DeliveryNext, DueWork, MockClock, MockDeliveryQueue,
    MockIdGenerator, MockRandomTokens, MockWebhookSender, OutgoingDelivery, SentAttempt,
};

const NOW: i64 = 1_790_000_000_250;
const DAY_MS: i64 = 86_400_000;

fn work() -> DueWork {
    DueWork {
        endpoint_id: WebhookEndpointId::parse("we_1").unwrap(),
        resource: "stock:v1".into(),
    }
}

fn secret(byte: u8) -> WebhookSecret {
    WebhookSecret::from_random_bytes([byte; 32])
}

fn claimed(attempt: u32, secrets: Vec<WebhookSecret>) -> ClaimedDelivery {
    ClaimedDelivery {
        delivery_id: DeliveryId::parse("dlv_7_we_1").unwrap(),
        endpoint_id: WebhookEndpointId::parse("we_1").unwrap(),
        resource: "stock:v1".into(),
        url: EndpointUrl::parse("https://hooks.example.com/in", NetworkPolicy::PublicOnly).unwrap(),
        secrets,
        event_id: EventId::parse("evt_7").unwrap(),
        body: r#"{"id":"evt_7"}"#.into(),
        attempt,
        failing_since: None,
    }
}

fn answer(status: Option<u16>, retry_after: Option<&str>) -> SentAttempt {
    SentAttempt {
        status,
        duration: Duration::from_millis(12),
        error: status.is_none().then(|| "could not connect".to_owned()),
        response_excerpt: "ok".into(),
        retry_after: retry_after.map(str::to_owned),
    }
}

struct Run {
    sent: Arc<Mutex<Vec<OutgoingDelivery>>>,
    recorded: Arc<Mutex<Vec<AttemptRecord>>>,
}

/// One attempt of [`work`] with `claim` as what the queue hands out and `reply` as the
/// receiver's answer.
async fn attempt(
    claim: Option<ClaimedDelivery>,
    reply: SentAttempt,
    schedule: RetrySchedule,
) -> Run {
    let sent = Arc::new(Mutex::new(Vec::new()));
    let recorded = Arc::new(Mutex::new(Vec::new()));
    let mut queue = MockDeliveryQueue::new();
    queue
        .expect_claim()
        .returning(move |_, _, _, _| Ok(claim.clone()));
    let kept = recorded.clone();
    queue.expect_record().returning(move |record, _| {
        kept.lock().unwrap().push(record.clone());
        Ok(())
    });
    let mut sender = MockWebhookSender::new();
    let kept = sent.clone();
    sender.expect_send().returning(move |delivery| {
        kept.lock().unwrap().push(delivery.clone());
        reply.clone()
    });
    let mut clock = MockClock::new();
    clock.expect_now().return_const(Timestamp::from_millis(NOW));
    let mut ids = MockIdGenerator::new();
    ids.expect_new_id().returning(|| "instance".into());
    let mut random = MockRandomTokens::new();
    random.expect_random_bytes().returning(|| [0x80; 32]);
    let dispatcher = WebhookDispatcher::new(
        Arc::new(queue),
        Arc::new(sender),
        Arc::new(clock),
        Arc::new(ids),
        Arc::new(random),
        DispatchSettings {
            schedule,
            ..DispatchSettings::default()
        },
    );
    dispatcher.attempt(&work()).await.unwrap();
    Run { sent, recorded }
}

fn configured(text: &str) -> RetrySchedule {
    RetrySchedule::parse(text).unwrap()
}

fn only<T: Clone>(items: &Mutex<Vec<T>>) -> T {
    let items = items.lock().unwrap();
    assert_eq!(items.len(), 1);
    items[0].clone()
}

#[tokio::test]
async fn a_2xx_is_recorded_as_delivered_after_a_post_signed_as_standard_webhooks_says() {
    let run = attempt(
        Some(claimed(1, vec![secret(1)])),
        answer(Some(204), None),
        configured("1s"),
    )
    .await;
    let sent = only(&run.sent);
    assert_eq!(sent.webhook_id, "evt_7");
    assert_eq!(sent.timestamp, NOW / 1000);
    assert_eq!(sent.body, r#"{"id":"evt_7"}"#);
    assert_eq!(
        sent.signature.as_str(),
        sign(&secret(1), "evt_7", NOW / 1000, br#"{"id":"evt_7"}"#)
    );
    let record = only(&run.recorded);
    assert_eq!(record.next, DeliveryNext::Succeeded);
    assert!(record.succeeded);
    assert_eq!(record.attempt_id, "dlv_7_we_1/0001");
    assert_eq!(record.response_status, Some(204));
    assert_eq!(record.disable, None);
}

#[tokio::test]
async fn during_a_rotation_both_secrets_sign_the_new_one_first() {
    let run = attempt(
        Some(claimed(1, vec![secret(2), secret(1)])),
        answer(Some(200), None),
        configured("1s"),
    )
    .await;
    let signature = only(&run.sent).signature;
    let expected = format!(
        "{} {}",
        sign(&secret(2), "evt_7", NOW / 1000, br#"{"id":"evt_7"}"#),
        sign(&secret(1), "evt_7", NOW / 1000, br#"{"id":"evt_7"}"#)
    );
    assert_eq!(signature.as_str(), expected);
}

#[tokio::test]
async fn a_failure_is_tried_again_on_the_configured_schedule_until_it_is_spent() {
    let first = attempt(
        Some(claimed(1, vec![secret(1)])),
        answer(Some(500), None),
        configured("1s,2s"),
    )
    .await;
    assert_eq!(
        only(&first.recorded).next,
        DeliveryNext::RetryAt(Timestamp::from_millis(NOW + 1_000))
    );
    let second = attempt(
        Some(claimed(2, vec![secret(1)])),
        answer(None, None),
        configured("1s,2s"),
    )
    .await;
    let record = only(&second.recorded);
    assert_eq!(
        record.next,
        DeliveryNext::RetryAt(Timestamp::from_millis(NOW + 2_000))
    );
    assert_eq!(record.error.as_deref(), Some("could not connect"));
    let last = attempt(
        Some(claimed(3, vec![secret(1)])),
        answer(Some(500), None),
        configured("1s,2s"),
    )
    .await;
    assert_eq!(only(&last.recorded).next, DeliveryNext::GaveUp);
}

#[tokio::test]
async fn a_429_or_503_is_retried_no_sooner_than_its_retry_after() {
    for status in [429, 503] {
        let run = attempt(
            Some(claimed(1, vec![secret(1)])),
            answer(Some(status), Some("30")),
            configured("1s"),
        )
        .await;
        assert_eq!(
            only(&run.recorded).next,
            DeliveryNext::RetryAt(Timestamp::from_millis(NOW + 30_000))
        );
    }
    // Anywhere else, Retry-After is not the receiver's to set.
    let run = attempt(
        Some(claimed(1, vec![secret(1)])),
        answer(Some(500), Some("30")),
        configured("1s"),
    )
    .await;
    assert_eq!(
        only(&run.recorded).next,
        DeliveryNext::RetryAt(Timestamp::from_millis(NOW + 1_000))
    );
}

#[tokio::test]
async fn a_410_disables_the_endpoint_as_gone_at_once() {
    let run = attempt(
        Some(claimed(1, vec![secret(1)])),
        answer(Some(410), None),
        configured("1s"),
    )
    .await;
    assert_eq!(only(&run.recorded).disable, Some(DisabledReason::Gone));
}

#[tokio::test]
async fn an_endpoint_failing_for_five_days_is_disabled_as_failing() {
    let mut failing = claimed(4, vec![secret(1)]);
    failing.failing_since = Some(Timestamp::from_millis(NOW - 5 * DAY_MS));
    let run = attempt(
        Some(failing),
        answer(Some(500), None),
        configured("1s,1s,1s,1s,1s"),
    )
    .await;
    assert_eq!(only(&run.recorded).disable, Some(DisabledReason::Failing));

    let mut recent = claimed(4, vec![secret(1)]);
    recent.failing_since = Some(Timestamp::from_millis(NOW - 5 * DAY_MS + 1));
    let run = attempt(
        Some(recent),
        answer(Some(500), None),
        configured("1s,1s,1s,1s,1s"),
    )
    .await;
    assert_eq!(only(&run.recorded).disable, None);
}

#[tokio::test]
async fn nothing_claimed_sends_nothing() {
    let run = attempt(None, answer(Some(200), None), configured("1s")).await;
    assert!(run.sent.lock().unwrap().is_empty());
    assert!(run.recorded.lock().unwrap().is_empty());
}
