//! Slots reserved together in several budgets of a rate-limit store, before an attempt whose
//! failure they count (a secret verified, a password checked), and given back if it does not
//! fail. A spent budget refuses the attempt with nothing left reserved.
//!
//! A store that cannot answer fails open, as the API's limits do: rate limiting protects the
//! service and must not take it down (the stores fall back to per-instance windows before it
//! comes to this). Such an attempt goes through uncounted, with a warning in the log.

use std::sync::Arc;

use shop_domain::Timestamp;
use shop_domain::rate_limit::{RateBudget, RateStatus};

use crate::port::{RateLimitStore, RateStoreError, Slot};

/// The slots one attempt holds, to give back if it does not fail.
#[derive(Debug)]
pub(crate) struct ReservedSlots {
    taken: Vec<(String, Slot)>,
}

/// A rate-limit store used for reservations, failing open.
pub(crate) struct FailOpenSlots {
    store: Arc<dyn RateLimitStore>,
    /// What the warning says when the store cannot answer.
    unavailable: &'static str,
}

impl FailOpenSlots {
    pub(crate) fn new(store: Arc<dyn RateLimitStore>, unavailable: &'static str) -> Self {
        Self { store, unavailable }
    }

    pub(crate) fn store(&self) -> &dyn RateLimitStore {
        &*self.store
    }

    /// A slot in each of `budgets` (a bucket, its budget, and what to say if it is the one
    /// spent), reserved in order; a spent one refuses the attempt, and what was reserved
    /// before it is given back. The refusal names the spent budget that frees last (the later
    /// ones are peeked), so that its wait is the one after which the attempt is let through.
    pub(crate) async fn reserve_all<T>(
        &self,
        budgets: impl IntoIterator<Item = (String, RateBudget, T)>,
        now: Timestamp,
    ) -> Result<ReservedSlots, (T, RateStatus)> {
        let mut reserved = ReservedSlots { taken: Vec::new() };
        let mut budgets = budgets.into_iter();
        let mut refused = None;
        for (bucket, budget, refusal) in budgets.by_ref() {
            match self.store.reserve(&bucket, budget, now).await {
                Ok(reservation) => match reservation.slot {
                    Some(slot) => reserved.taken.push((bucket, slot)),
                    None => {
                        refused = Some((refusal, reservation.status));
                        break;
                    }
                },
                Err(error) => self.note(&error),
            }
        }
        let Some(mut longest) = refused else {
            return Ok(reserved);
        };
        self.give_back(reserved).await;
        for (bucket, budget, refusal) in budgets {
            match self.store.peek(&bucket, budget, now).await {
                Ok(status)
                    if !status.allowed
                        && status.reset_after_millis > longest.1.reset_after_millis =>
                {
                    longest = (refusal, status);
                }
                Ok(_) => {}
                Err(error) => self.note(&error),
            }
        }
        Err(longest)
    }

    /// The attempt did not fail after all: its slots are free again.
    pub(crate) async fn give_back(&self, reserved: ReservedSlots) {
        for (bucket, slot) in reserved.taken {
            if let Err(error) = self.store.release(&bucket, &slot).await {
                // The slot then leaves its window on its own.
                self.note(&error);
            }
        }
    }

    pub(crate) fn note(&self, error: &RateStoreError) {
        tracing::warn!(error = %error, "{}; attempt let through", self.unavailable);
    }
}
