//! The delivery workers: a commit's wake-up (or the safety net's poll) finds what is due, each
//! endpoint-and-resource pair is claimed for one attempt, the newest pending event of the
//! resource is signed and sent, and the outcome is recorded. Runs inside `shop-api serve` and
//! in `shop-api deliver`; on PostgreSQL any number of instances share the queue.
//!
//! Bounds: at most `per_endpoint` attempts in flight to one endpoint and `total` in all, so a
//! slow or dead endpoint delays no other. A turn claims up to [`CLAIMS_PER_SLOT`] times those
//! bounds; the claims beyond them wait in the process for a slot of their endpoint
//! (`attempts.rs`). The loop never waits for its slowest attempt: it takes up new work as soon
//! as any attempt ends or a commit wakes it.

mod attempts;

use std::collections::{HashMap, HashSet};
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use futures::future::{Either, select};
use shop_domain::Timestamp;
use shop_domain::id::WebhookEndpointId;
use shop_domain::webhook::delivery::{ATTEMPT_TIMEOUT, attempt_key};
use shop_domain::webhook::{
    AttemptOutcome, DisabledReason, RetrySchedule, SignatureHeader, failing_for_too_long,
    parse_retry_after,
};

use crate::port::{
    AttemptRecord, ClaimRoom, ClaimedDelivery, Clock, DeliveryNext, DeliveryQueue, DueWork,
    IdGenerator, OutgoingDelivery, RandomTokens, SentAttempt, WebhookSender,
};
use attempts::Attempts;

/// The operator's settings of the workers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DispatchSettings {
    /// `WEBHOOK_RETRY_SCHEDULE`, or the default (about three days, jittered).
    pub schedule: RetrySchedule,
    /// `WEBHOOK_DISABLE_AFTER`: an endpoint failing this long is disabled as `failing`.
    pub disable_after: Duration,
    /// `WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT`: attempts in flight to one endpoint at most.
    pub per_endpoint: usize,
    /// Attempts in flight in all at most: room for sixteen endpoints at their bound, so that
    /// a few slow receivers (each attempt up to its timeout) never hold up the others.
    pub total: usize,
    /// The safety net's poll (at most a second): also how a SQLite server sees the events
    /// of an import run by another process.
    pub poll: Duration,
    /// `EVENT_RETENTION_DAYS`.
    pub retention: Duration,
}

impl Default for DispatchSettings {
    fn default() -> Self {
        Self {
            schedule: RetrySchedule::default(),
            disable_after: Duration::from_secs(5 * 24 * 3600),
            per_endpoint: 16,
            total: 256,
            poll: Duration::from_secs(1),
            retention: Duration::from_secs(30 * 24 * 3600),
        }
    }
}

/// How many claims an instance holds per attempt it may have in flight (to one endpoint, and
/// in all). A claim is recorded by the first turn after its attempt ends, so with claims only
/// for its slots an endpoint got at most `per_endpoint` deliveries a turn, however fast its
/// receiver: under a flow of writes the queue fell behind them, and on SQLite, whose turns
/// wait for the writer, by seconds (docs/PERFORMANCE.md, "Webhooks"). The claims beyond the
/// slots wait in the process, each for the attempts ahead of it, so that a receiver still
/// gets at most `per_endpoint` requests at once.
pub const CLAIMS_PER_SLOT: usize = 4;
/// How long a claim outlives the attempts that may come before and with it (each up to its
/// timeout) before another instance may take it over (the instance that made it died).
const CLAIM_MARGIN: Duration = Duration::from_secs(30);
/// How long a turn waits for the attempts still in flight before it starts (`gather`): a fast
/// receiver's answer, and little against a slow one's.
const GATHER: Duration = Duration::from_millis(5);
/// How often delivered events past the retention period are deleted.
const PRUNE_EVERY: Duration = Duration::from_secs(3600);

pub struct WebhookDispatcher {
    queue: Arc<dyn DeliveryQueue>,
    sender: Arc<dyn WebhookSender>,
    clock: Arc<dyn Clock>,
    random: Arc<dyn RandomTokens>,
    /// This instance's name in the claims it makes.
    instance: String,
    settings: DispatchSettings,
}

impl WebhookDispatcher {
    pub fn new(
        queue: Arc<dyn DeliveryQueue>,
        sender: Arc<dyn WebhookSender>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
        random: Arc<dyn RandomTokens>,
        settings: DispatchSettings,
    ) -> Self {
        let instance = format!("worker_{}", ids.new_id());
        Self {
            queue,
            sender,
            clock,
            random,
            instance,
            settings,
        }
    }

    /// Delivers until `stop` resolves, then lets the attempts taken on finish (those waiting
    /// for a slot are sent as slots free) and records them: no claim is left behind.
    ///
    /// Each turn of the loop is one transaction: it records every attempt that ended since
    /// the last turn and claims what is due within the bounds, so that a busy queue costs a
    /// few statements and one commit per batch rather than per delivery, and a pair just
    /// recorded can be claimed again for its newer event at once (see docs/PERFORMANCE.md,
    /// "Webhooks"). The attempts in flight hold no connection, and one task keeps driving
    /// them while it awaits anything else.
    pub async fn run(&self, stop: impl Future<Output = ()>) {
        let mut stop = pin!(stop);
        let mut attempts = Attempts::new(self);
        let mut busy = Busy::default();
        let mut ended = Vec::new();
        let mut pruned_at: Option<Timestamp> = None;
        match self.queue.release_orphaned_claims().await {
            Ok(0) => {}
            Ok(released) => tracing::info!(released, "webhooks: released a previous run's claims"),
            Err(error) => {
                tracing::warn!(%error, "webhooks: releasing a previous run's claims failed")
            }
        }
        loop {
            driving(
                &mut attempts,
                &mut ended,
                self.prune_when_due(&mut pruned_at),
            )
            .await;
            // Whatever ended (during the last turn, or the first attempt of a cohort since):
            // the others, started by the same turn, are a moment behind, and one turn
            // records them all.
            if !ended.is_empty() {
                self.gather(&mut attempts, &mut ended).await;
            }
            let end = self.turn(&mut attempts, &mut ended, &mut busy, true).await;
            // Attempts that ended during the turn are recorded by the next one, at once.
            if !ended.is_empty() && !matches!(end, TurnEnd::Failed) {
                continue;
            }
            let wait = match end {
                TurnEnd::Contended => continue,
                TurnEnd::NothingDue if attempts.is_empty() => {
                    driving(&mut attempts, &mut ended, self.until_next_due()).await
                }
                TurnEnd::NothingDue | TurnEnd::Ran => self.settings.poll,
                // The database is away: the next turn waits for a commit, an attempt's end
                // or the poll, not a moment.
                TurnEnd::Failed => self.settings.poll,
            };
            let wake = pin!(self.queue.wait_for_events(wait));
            if attempts.is_empty() {
                if let Either::Left(_) = select(stop.as_mut(), wake).await {
                    break;
                }
            } else {
                match select(stop.as_mut(), select(attempts.next(), wake)).await {
                    Either::Left(_) => break,
                    Either::Right((Either::Left((Some(record), _)), _)) => ended.push(record),
                    Either::Right(_) => {}
                }
            }
        }
        while let Some(record) = attempts.next().await {
            ended.push(record);
        }
        if let TurnEnd::Failed = self.turn(&mut attempts, &mut ended, &mut busy, false).await {
            // Their claims expire; the pairs are then attempted again.
            tracing::warn!(
                attempts = ended.len(),
                "webhooks: the last attempts could not be recorded"
            );
        }
    }

    /// Before a turn that records what ended (during the last turn, or the first attempt of
    /// a cohort since): a moment for the attempts still in flight, most of them started by
    /// the same turn, to end too. Without it, a turn starts as soon as one attempt ends: it
    /// records that one, finds the others' room still taken, and every cohort costs two
    /// turns, or the batches split in two cohorts of half the bounds, turn after turn (see
    /// docs/PERFORMANCE.md, "Webhooks").
    async fn gather<'a>(&'a self, attempts: &mut Attempts<'a>, ended: &mut Vec<AttemptRecord>) {
        let mut moment = pin!(self.queue.pause(GATHER));
        while !attempts.is_empty() {
            match select(moment.as_mut(), attempts.next()).await {
                Either::Left(_) => return,
                Either::Right((Some(record), _)) => ended.push(record),
                Either::Right((None, _)) => return,
            }
        }
    }

    /// One turn: records what ended and, when `claiming`, claims what is due within the
    /// bounds and starts its attempts. What failed to be recorded is kept for the next turn.
    async fn turn<'a>(
        &'a self,
        attempts: &mut Attempts<'a>,
        ended: &mut Vec<AttemptRecord>,
        busy: &mut Busy,
        claiming: bool,
    ) -> TurnEnd {
        let batch = std::mem::take(ended);
        let room = if claiming {
            busy.room_after(
                &batch,
                self.settings
                    .total
                    .saturating_mul(CLAIMS_PER_SLOT)
                    .saturating_sub(attempts.len()),
                self.settings.per_endpoint.saturating_mul(CLAIMS_PER_SLOT),
            )
        } else {
            ClaimRoom::none()
        };
        if batch.is_empty() && room.is_empty() {
            return TurnEnd::Ran;
        }
        let now = self.clock.now();
        let until = later(now, claim_lifetime());
        let turn = driving(
            attempts,
            ended,
            self.queue.turn(&batch, &room, &self.instance, now, until),
        )
        .await;
        match turn {
            Ok(turn) => {
                for record in &batch {
                    busy.release(&record.pair());
                }
                let (nothing_due, contended) = (turn.nothing_due, turn.contended);
                for claim in &turn.claimed {
                    busy.hold(claim.pair());
                }
                attempts.take_on(turn.claimed);
                if contended {
                    TurnEnd::Contended
                } else if nothing_due {
                    TurnEnd::NothingDue
                } else {
                    TurnEnd::Ran
                }
            }
            Err(error) => {
                tracing::warn!(%error, attempts = batch.len(), "webhooks: a turn of the queue failed");
                let mut kept = batch;
                kept.append(ended);
                *ended = kept;
                TurnEnd::Failed
            }
        }
    }

    /// How long the loop may sleep when nothing is due: until the next retry falls due, at
    /// most the safety net's poll.
    async fn until_next_due(&self) -> Duration {
        let now = self.clock.now();
        match self.queue.next_due(now).await {
            Ok(Some(next)) => {
                let wait = u64::try_from(next.millis_since(now)).unwrap_or(0);
                Duration::from_millis(wait).min(self.settings.poll)
            }
            Ok(None) => self.settings.poll,
            Err(error) => {
                tracing::warn!(%error, "webhooks: reading the queue failed");
                self.settings.poll
            }
        }
    }

    async fn prune_when_due(&self, pruned_at: &mut Option<Timestamp>) {
        let now = self.clock.now();
        let every = i64::try_from(PRUNE_EVERY.as_millis()).unwrap_or(i64::MAX);
        if pruned_at.is_some_and(|at| now.millis() - at.millis() < every) {
            return;
        }
        *pruned_at = Some(now);
        let retention = i64::try_from(self.settings.retention.as_millis()).unwrap_or(i64::MAX);
        let before = Timestamp::from_millis(now.millis().saturating_sub(retention));
        match self.queue.prune(before).await {
            Ok(0) => {}
            Ok(events) => tracing::info!(events, "webhooks: pruned events past retention"),
            Err(error) => tracing::warn!(%error, "webhooks: pruning failed"),
        }
    }

    /// One attempt of a claimed delivery: signed, sent, and what its answer changes.
    pub async fn deliver(&self, claimed: ClaimedDelivery) -> AttemptRecord {
        let sent_at = self.clock.now();
        let timestamp = sent_at.millis().div_euclid(1000);
        let signature = SignatureHeader::new(
            &claimed.secrets,
            claimed.event_id.as_str(),
            timestamp,
            claimed.body.as_bytes(),
        );
        let outgoing = OutgoingDelivery {
            url: claimed.url.clone(),
            webhook_id: claimed.event_id.as_str().to_owned(),
            timestamp,
            signature,
            body: claimed.body.clone(),
        };
        let sent = self.sender.send(&outgoing).await;
        self.decide(&claimed, sent, self.clock.now())
    }

    /// What an attempt's answer changes: the delivery's next step and, after a 410 or too
    /// long a run of failures, the endpoint's status.
    fn decide(
        &self,
        claimed: &ClaimedDelivery,
        sent: SentAttempt,
        now: Timestamp,
    ) -> AttemptRecord {
        let retry_after = sent
            .retry_after
            .as_deref()
            .and_then(|value| parse_retry_after(value, now));
        let outcome = AttemptOutcome::of(sent.status, retry_after);
        let (next, disable) = match outcome {
            AttemptOutcome::Delivered => (DeliveryNext::Succeeded, None),
            AttemptOutcome::Gone => (
                self.retry_or_give_up(claimed.attempt, None, now),
                Some(DisabledReason::Gone),
            ),
            AttemptOutcome::Failed { retry_after } => {
                let failing_since = claimed.failing_since.unwrap_or(now);
                let disable =
                    failing_for_too_long(Some(failing_since), now, self.settings.disable_after)
                        .then_some(DisabledReason::Failing);
                (
                    self.retry_or_give_up(claimed.attempt, retry_after, now),
                    disable,
                )
            }
        };
        AttemptRecord {
            attempt_id: attempt_key(&claimed.delivery_id, claimed.attempt),
            delivery_id: claimed.delivery_id.clone(),
            endpoint_id: claimed.endpoint_id.clone(),
            resource: claimed.resource.clone(),
            attempt: claimed.attempt,
            succeeded: outcome == AttemptOutcome::Delivered,
            response_status: sent.status,
            duration: sent.duration,
            error: sent.error,
            response_excerpt: sent.response_excerpt,
            at: now,
            next,
            disable,
        }
    }

    fn retry_or_give_up(
        &self,
        attempt: u32,
        retry_after: Option<Duration>,
        now: Timestamp,
    ) -> DeliveryNext {
        match self
            .settings
            .schedule
            .wait_after(attempt, self.spread(), retry_after)
        {
            Some(wait) => DeliveryNext::RetryAt(later(now, wait)),
            None => DeliveryNext::GaveUp,
        }
    }

    /// A number in [-1, 1] for the schedule's jitter.
    fn spread(&self) -> f64 {
        let bytes = self.random.random_bytes();
        let draw = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        f64::from(draw) / f64::from(u32::MAX) * 2.0 - 1.0
    }
}

/// What is in flight: the pairs taken, and the attempts to each endpoint.
#[derive(Clone, Default)]
struct Busy {
    taken: HashSet<DueWork>,
    per_endpoint: HashMap<WebhookEndpointId, usize>,
}

/// How a turn ended.
enum TurnEnd {
    /// It ran (or had nothing to do): more may be due once attempts end or events come.
    Ran,
    /// Nothing was due at all: the loop may sleep until the next retry.
    NothingDue,
    /// Another instance took pairs this one chose: the next turn reads the queue again at
    /// once, past that instance's claims.
    Contended,
    /// The queue could not be reached: what ended is kept for the next turn.
    Failed,
}

impl Busy {
    /// The room left once `recorded` is: their pairs and endpoints free again.
    fn room_after(
        &self,
        recorded: &[AttemptRecord],
        total: usize,
        per_endpoint: usize,
    ) -> ClaimRoom {
        let mut after = self.clone();
        for record in recorded {
            after.release(&record.pair());
        }
        ClaimRoom {
            total,
            per_endpoint,
            in_flight: after.per_endpoint,
            held: after.taken,
        }
    }

    fn hold(&mut self, work: DueWork) {
        *self
            .per_endpoint
            .entry(work.endpoint_id.clone())
            .or_default() += 1;
        self.taken.insert(work);
    }

    /// Releases a pair whose attempt was recorded.
    fn release(&mut self, work: &DueWork) {
        if self.taken.remove(work)
            && let Some(busy) = self.per_endpoint.get_mut(&work.endpoint_id)
        {
            *busy = busy.saturating_sub(1);
        }
    }
}

/// Awaits `future` while driving the `attempts`, whose ends are kept in `finished`.
async fn driving<T>(
    attempts: &mut Attempts<'_>,
    finished: &mut Vec<AttemptRecord>,
    future: impl Future<Output = T>,
) -> T {
    let mut future = pin!(future);
    loop {
        if attempts.is_empty() {
            return future.await;
        }
        match select(future.as_mut(), attempts.next()).await {
            Either::Left((value, _)) => return value,
            Either::Right((Some(done), _)) => finished.push(done),
            Either::Right((None, _)) => return future.await,
        }
    }
}

/// How long a turn's claims hold their pairs: the last of an endpoint's claims waits for the
/// attempts of the slots ahead of it, [`CLAIMS_PER_SLOT`] attempts in all, each up to its
/// timeout.
fn claim_lifetime() -> Duration {
    ATTEMPT_TIMEOUT * u32::try_from(CLAIMS_PER_SLOT).unwrap_or(u32::MAX) + CLAIM_MARGIN
}

fn later(now: Timestamp, wait: Duration) -> Timestamp {
    now.plus_millis(i64::try_from(wait.as_millis()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests;
