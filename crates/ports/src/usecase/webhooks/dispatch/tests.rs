//! The dispatcher against mocked ports: what an attempt sends, and what its answer changes.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use shop_domain::Timestamp;
use shop_domain::id::{DeliveryId, EventId, WebhookEndpointId};
use shop_domain::webhook::{
    DisabledReason, EndpointUrl, NetworkPolicy, RetrySchedule, WebhookSecret, sign,
};

use super::{DispatchSettings, WebhookDispatcher};
use crate::StoreError;
use crate::port::{
    AttemptRecord, ClaimedDelivery, DeliveryNext, DueWork, MockClock, MockDeliveryQueue,
    MockIdGenerator, MockRandomTokens, MockWebhookSender, OutgoingDelivery, SentAttempt, Turn,
    WebhookSender,
};

const NOW: i64 = 1_790_000_000_250;
const DAY_MS: i64 = 86_400_000;

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

fn dispatcher(
    queue: MockDeliveryQueue,
    sender: impl WebhookSender + 'static,
    settings: DispatchSettings,
) -> WebhookDispatcher {
    let mut clock = MockClock::new();
    clock.expect_now().return_const(Timestamp::from_millis(NOW));
    let mut ids = MockIdGenerator::new();
    ids.expect_new_id().returning(|| "instance".into());
    let mut random = MockRandomTokens::new();
    random.expect_random_bytes().returning(|| [0x80; 32]);
    WebhookDispatcher::new(
        Arc::new(queue),
        Arc::new(sender),
        Arc::new(clock),
        Arc::new(ids),
        Arc::new(random),
        settings,
    )
}

/// A sender that keeps what it is handed and answers `reply`.
fn sender_answering(
    reply: SentAttempt,
    sent: &Arc<Mutex<Vec<OutgoingDelivery>>>,
) -> MockWebhookSender {
    let mut sender = MockWebhookSender::new();
    let kept = sent.clone();
    sender.expect_send().returning(move |delivery| {
        kept.lock().unwrap().push(delivery.clone());
        reply.clone()
    });
    sender
}

/// One attempt of `claim`, the receiver answering `reply`.
async fn attempt(claim: ClaimedDelivery, reply: SentAttempt, schedule: RetrySchedule) -> Run {
    let sent = Arc::new(Mutex::new(Vec::new()));
    let dispatcher = dispatcher(
        MockDeliveryQueue::new(),
        sender_answering(reply, &sent),
        DispatchSettings {
            schedule,
            ..DispatchSettings::default()
        },
    );
    let record = dispatcher.deliver(claim).await;
    Run {
        sent,
        recorded: Arc::new(Mutex::new(vec![record])),
    }
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
        claimed(1, vec![secret(1)]),
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
        claimed(1, vec![secret(2), secret(1)]),
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
        claimed(1, vec![secret(1)]),
        answer(Some(500), None),
        configured("1s,2s"),
    )
    .await;
    assert_eq!(
        only(&first.recorded).next,
        DeliveryNext::RetryAt(Timestamp::from_millis(NOW + 1_000))
    );
    let second = attempt(
        claimed(2, vec![secret(1)]),
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
        claimed(3, vec![secret(1)]),
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
            claimed(1, vec![secret(1)]),
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
        claimed(1, vec![secret(1)]),
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
        claimed(1, vec![secret(1)]),
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
        failing,
        answer(Some(500), None),
        configured("1s,1s,1s,1s,1s"),
    )
    .await;
    assert_eq!(only(&run.recorded).disable, Some(DisabledReason::Failing));

    let mut recent = claimed(4, vec![secret(1)]);
    recent.failing_since = Some(Timestamp::from_millis(NOW - 5 * DAY_MS + 1));
    let run = attempt(
        recent,
        answer(Some(500), None),
        configured("1s,1s,1s,1s,1s"),
    )
    .await;
    assert_eq!(only(&run.recorded).disable, None);
}

fn work_on(endpoint: &str, resource: &str) -> DueWork {
    DueWork {
        endpoint_id: WebhookEndpointId::parse(endpoint).unwrap(),
        resource: resource.into(),
    }
}

/// The claim of `work`, sent to a host of its endpoint's own (`we_1`: `we-1.example.com`).
fn claim_of(work: &DueWork) -> ClaimedDelivery {
    let mut claim = claimed(1, vec![secret(1)]);
    claim.endpoint_id = work.endpoint_id.clone();
    claim.resource = work.resource.clone();
    let host = work.endpoint_id.as_str().replace('_', "-");
    claim.url = EndpointUrl::parse(
        &format!("https://{host}.example.com/in"),
        NetworkPolicy::PublicOnly,
    )
    .unwrap();
    claim
}

/// A queue whose housekeeping has nothing to do: no claim left by a previous run, nothing to
/// prune, no retry waiting.
fn queue_without_housekeeping() -> MockDeliveryQueue {
    let mut queue = MockDeliveryQueue::new();
    queue.expect_release_orphaned_claims().returning(|| Ok(0));
    queue.expect_prune().returning(|_| Ok(0));
    queue.expect_next_due().returning(|_| Ok(None));
    queue
}

/// Runs the loop over a queue holding `due`, each turn offering the pairs no turn selected yet
/// (as a queue does), each pair selected by the turn's room claimed unless named in
/// `held_elsewhere`, until `expected` attempts are recorded; returns
/// what was claimed and what was recorded, turn by turn. With `first_record_fails`, the first
/// turn that records anything fails (the database away) and neither records nor claims.
async fn run_over(
    due: Vec<DueWork>,
    held_elsewhere: Vec<DueWork>,
    settings: DispatchSettings,
    expected: usize,
    first_record_fails: bool,
) -> (
    Vec<Vec<DueWork>>,
    Vec<Vec<AttemptRecord>>,
    Vec<OutgoingDelivery>,
) {
    let sent = Arc::new(Mutex::new(Vec::new()));
    let sender = sender_answering(answer(Some(200), None), &sent);
    let (claims, records) = run_sending(
        due,
        held_elsewhere,
        settings,
        expected,
        first_record_fails,
        sender,
    )
    .await;
    let sent = sent.lock().unwrap().clone();
    (claims, records, sent)
}

/// [`run_over`] with the attempts sent by `sender`.
async fn run_sending(
    due: Vec<DueWork>,
    held_elsewhere: Vec<DueWork>,
    settings: DispatchSettings,
    expected: usize,
    first_record_fails: bool,
    sender: impl WebhookSender + 'static,
) -> (Vec<Vec<DueWork>>, Vec<Vec<AttemptRecord>>) {
    let claims = Arc::new(Mutex::new(Vec::new()));
    let records = Arc::new(Mutex::new(Vec::new()));
    let recorded_all = Arc::new(tokio::sync::Notify::new());
    let mut queue = queue_without_housekeeping();
    queue.expect_wait_for_events().returning(|_| ());
    queue.expect_pause().returning(|_| ());
    let mut unselected = due;
    let mut failing = first_record_fails;
    let (kept_claims, kept_records, done) = (claims.clone(), records.clone(), recorded_all.clone());
    queue
        .expect_turn()
        .returning(move |ended, room, instance, now, until| {
            assert_eq!(instance, "worker_instance");
            assert_eq!(
                until.millis() - now.millis(),
                70_000,
                "a claim outlives the four attempts of its slot (10 s each) by 30 s"
            );
            if !ended.is_empty() && std::mem::take(&mut failing) {
                return Err(StoreError::failure("the database is away"));
            }
            if !ended.is_empty() {
                let mut records = kept_records.lock().unwrap();
                records.push(ended.to_vec());
                if records.iter().map(Vec::len).sum::<usize>() >= expected {
                    done.notify_one();
                }
            }
            let due = if room.is_empty() {
                Vec::new()
            } else {
                unselected.clone()
            };
            let nothing_due = due.is_empty();
            let selected = room.select(due);
            unselected.retain(|pair| !selected.contains(pair));
            if !selected.is_empty() {
                kept_claims.lock().unwrap().push(selected.clone());
            }
            Ok(Turn {
                claimed: selected
                    .iter()
                    .filter(|pair| !held_elsewhere.contains(pair))
                    .map(claim_of)
                    .collect(),
                nothing_due,
                contended: false,
            })
        });
    let dispatcher = dispatcher(queue, sender, settings);
    let stop = recorded_all.notified();
    tokio::time::timeout(Duration::from_secs(5), dispatcher.run(stop))
        .await
        .expect("the attempts were recorded");
    let claims = claims.lock().unwrap().clone();
    let records = records.lock().unwrap().clone();
    (claims, records)
}

#[tokio::test]
async fn what_is_due_is_claimed_in_one_batch_sent_once_each_and_recorded() {
    let due = vec![
        work_on("we_1", "stock:v1"),
        work_on("we_1", "stock:v2"),
        work_on("we_2", "stock:v1"),
    ];
    let (claims, records, sent) =
        run_over(due.clone(), vec![], DispatchSettings::default(), 3, false).await;
    assert_eq!(claims, vec![due]);
    assert_eq!(sent.len(), 3);
    let recorded: Vec<(String, String)> = records
        .concat()
        .into_iter()
        .map(|record| (record.endpoint_id.to_string(), record.resource))
        .collect();
    assert_eq!(recorded.len(), 3);
    for pair in [
        ("we_1", "stock:v1"),
        ("we_1", "stock:v2"),
        ("we_2", "stock:v1"),
    ] {
        assert!(
            recorded.contains(&(pair.0.to_owned(), pair.1.to_owned())),
            "{pair:?}"
        );
    }
}

/// A receiver that answers each request after a moment, noting in which order requests to
/// each endpoint started and how many were open at once at most. The moment is a few polls,
/// not a timer: the mocked queue never waits, so the loop would never let a timer fire.
#[derive(Default)]
struct SlowReceiver {
    started: Mutex<Vec<String>>,
    open: Mutex<std::collections::HashMap<String, usize>>,
    most_open: Mutex<std::collections::HashMap<String, usize>>,
}

#[async_trait::async_trait]
impl WebhookSender for Arc<SlowReceiver> {
    async fn send(&self, delivery: &OutgoingDelivery) -> SentAttempt {
        let endpoint = delivery.url.as_str().to_owned();
        self.started.lock().unwrap().push(endpoint.clone());
        {
            let mut open = self.open.lock().unwrap();
            let now_open = open.entry(endpoint.clone()).or_default();
            *now_open += 1;
            let mut most = self.most_open.lock().unwrap();
            let most = most.entry(endpoint.clone()).or_default();
            *most = (*most).max(*now_open);
        }
        for _ in 0..8 {
            one_poll_later().await;
        }
        *self.open.lock().unwrap().get_mut(&endpoint).unwrap() -= 1;
        answer(Some(200), None)
    }
}

/// Pending once, its waker woken at once (tokio's `yield_now` defers the wake to the
/// runtime, which a loop that never waits never reaches).
async fn one_poll_later() {
    let mut polled = false;
    std::future::poll_fn(|cx| {
        if std::mem::replace(&mut polled, true) {
            std::task::Poll::Ready(())
        } else {
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    })
    .await;
}

#[tokio::test]
async fn a_turn_claims_several_rounds_of_an_endpoints_bound_but_sends_at_most_the_bound_at_once() {
    let slow: Vec<DueWork> = (1..=6)
        .map(|n| work_on("we_slow", &format!("stock:v{n}")))
        .collect();
    let fast = work_on("we_fast", "stock:v1");
    let due: Vec<DueWork> = slow.iter().cloned().chain([fast.clone()]).collect();
    let settings = DispatchSettings {
        per_endpoint: 2,
        ..DispatchSettings::default()
    };
    let receiver = Arc::new(SlowReceiver::default());
    let (claims, _) = run_sending(due.clone(), vec![], settings, 7, false, receiver.clone()).await;

    assert_eq!(claims[0], due, "one turn claims all seven");
    let slow_url = "https://we-slow.example.com/in";
    let fast_url = "https://we-fast.example.com/in";
    let most = receiver.most_open.lock().unwrap().clone();
    assert_eq!(
        most[slow_url], 2,
        "the slow receiver got two requests at once at most"
    );
    let started = receiver.started.lock().unwrap().clone();
    assert_eq!(started.len(), 7, "each claim was sent once: {started:?}");
    let fast_at = started.iter().position(|url| url == fast_url).unwrap();
    assert!(
        fast_at <= 2,
        "the other endpoint's attempt did not wait for the slow one's: {started:?}"
    );
}

#[tokio::test]
async fn a_pair_another_instance_holds_is_not_sent() {
    let due = vec![work_on("we_1", "stock:v1"), work_on("we_1", "stock:v2")];
    let (_, records, sent) = run_over(
        due,
        vec![work_on("we_1", "stock:v1")],
        DispatchSettings::default(),
        1,
        false,
    )
    .await;
    assert_eq!(sent.len(), 1);
    let recorded = records.concat();
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0].resource, "stock:v2");
}

#[tokio::test]
async fn attempts_a_failed_turn_could_not_record_are_recorded_by_a_later_one() {
    let due = vec![work_on("we_1", "stock:v1"), work_on("we_1", "stock:v2")];
    let (claims, records, sent) =
        run_over(due.clone(), vec![], DispatchSettings::default(), 2, true).await;
    assert_eq!(claims, vec![due]);
    assert_eq!(
        sent.len(),
        2,
        "each sent once, never again for the failed turn"
    );
    let recorded: Vec<String> = records
        .concat()
        .into_iter()
        .map(|record| record.resource)
        .collect();
    assert_eq!(recorded.len(), 2);
    assert!(recorded.contains(&"stock:v1".to_owned()));
    assert!(recorded.contains(&"stock:v2".to_owned()));
}

/// Two instances read the same head: the one whose claims commit second takes none of the
/// pairs it chose. It must read the queue again at once, past the other's claims, rather than
/// sleep until the poll while the first takes everything.
#[tokio::test]
async fn a_turn_that_lost_its_pairs_to_another_instance_reads_the_queue_again_at_once() {
    let calls = Arc::new(Mutex::new(Vec::new()));
    let recorded_all = Arc::new(tokio::sync::Notify::new());
    let mut queue = queue_without_housekeeping();
    queue.expect_pause().returning(|_| ());
    let waits = calls.clone();
    queue.expect_wait_for_events().returning(move |_| {
        waits.lock().unwrap().push("wait");
    });
    let (turns, done) = (calls.clone(), recorded_all.clone());
    let mut number = 0;
    queue.expect_turn().returning(move |ended, room, _, _, _| {
        number += 1;
        turns.lock().unwrap().push("turn");
        if !ended.is_empty() {
            done.notify_one();
        }
        let (claimed, contended) = match number {
            1 => (Vec::new(), true),
            2 => (
                room.select(vec![work_on("we_1", "stock:v2")])
                    .iter()
                    .map(claim_of)
                    .collect(),
                false,
            ),
            _ => (Vec::new(), false),
        };
        Ok(Turn {
            nothing_due: number > 2,
            claimed,
            contended,
        })
    });
    let sent = Arc::new(Mutex::new(Vec::new()));
    let dispatcher = dispatcher(
        queue,
        sender_answering(answer(Some(200), None), &sent),
        DispatchSettings::default(),
    );
    let stop = recorded_all.notified();
    tokio::time::timeout(Duration::from_secs(5), dispatcher.run(stop))
        .await
        .expect("the attempt was recorded");
    let calls = calls.lock().unwrap().clone();
    assert_eq!(
        calls[..2],
        ["turn", "turn"],
        "no wait between the contended turn and the next: {calls:?}"
    );
    assert_eq!(sent.lock().unwrap().len(), 1);
}
