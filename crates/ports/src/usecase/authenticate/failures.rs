//! The budgets of failed authentications, and how a verification is held to them exactly.
//!
//! - A failure that costs no verification (no key, a malformed one, an unknown prefix, a
//!   revoked or expired key) is counted against the client address.
//! - Before a secret is verified for an existing key, a slot is reserved, atomically, in the
//!   budget of that key from this address and in the key's own budget from every address;
//!   if either has none left, the request is refused at once and nothing is verified. The
//!   slots are given back when the secret turns out right. So a burst of any size from one
//!   address runs at most the address's budget of verifications, many addresses guessing one
//!   key at most the key's, and a guesser behind a shared address (a NAT, a proxy) spends
//!   only its own budgets: the other keys used from that address still get verified.
//!
//! A store that cannot answer fails open (see `usecase::reserved_slots`).

use std::sync::Arc;

use shop_domain::api_key::KeyPrefix;
use shop_domain::client_address::ClientAddress;
use shop_domain::rate_limit::{RateBudget, RateStatus};

use crate::port::{Clock, RateLimitStore, RateStoreError};
use crate::usecase::client_gate::Refused;
use crate::usecase::reserved_slots::{FailOpenSlots, ReservedSlots};

/// The budget that refused an authentication.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ThrottledBy {
    /// The client address's failures (with this key, or without any key that exists).
    Client,
    /// The key's wrong secrets, from every address.
    Key,
    /// Too many verifications waiting already (see `ClientGate`).
    Queue,
    /// A client over its budget, looked up more often than its pace allows (see
    /// `ClientGate::for_lookups_over_budget`).
    LookupPace,
}

impl ThrottledBy {
    /// A stable snake_case name, for metric labels.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Client => "auth_failures",
            Self::Key => "key_failures",
            Self::Queue => "verification_queue",
            Self::LookupPace => "lookup_pace",
        }
    }
}

/// A refusal of an authentication attempt before any verification: 429 with `Retry-After`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Throttle {
    pub by: ThrottledBy,
    pub status: RateStatus,
}

impl Throttle {
    /// A gate's refusal: no budget is spent, so its `Retry-After` is the gate's own wait.
    pub(crate) fn at_the_gate(by: ThrottledBy, refused: Refused) -> Self {
        Self {
            by,
            status: RateStatus {
                allowed: false,
                limit: 0,
                remaining: 0,
                reset_after_millis: refused.retry_after_millis,
            },
        }
    }
}

pub struct FailureBudgets {
    slots: FailOpenSlots,
    clock: Arc<dyn Clock>,
    per_client: RateBudget,
    per_key: RateBudget,
}

impl FailureBudgets {
    pub fn new(
        store: Arc<dyn RateLimitStore>,
        clock: Arc<dyn Clock>,
        per_client: RateBudget,
        per_key: RateBudget,
    ) -> Self {
        Self {
            slots: FailOpenSlots::new(store, "failed-authentication budgets unavailable"),
            clock,
            per_client,
            per_key,
        }
    }

    /// Counts a failure that cost no verification against `client`; `Err` when its budget was
    /// spent already (then nothing is counted).
    pub(crate) async fn count_unverified_failure(
        &self,
        client: &ClientAddress,
    ) -> Result<(), Throttle> {
        let counted = self
            .slots
            .store()
            .acquire(&client_bucket(client), self.per_client, self.clock.now())
            .await;
        self.refusal(counted).map_or(Ok(()), Err)
    }

    /// `client`'s budget of failures without a verification, when it is spent: what a
    /// further failure would be refused with. Counts nothing.
    pub(crate) async fn spent_by(&self, client: &ClientAddress) -> Option<Throttle> {
        let status = self
            .slots
            .store()
            .peek(&client_bucket(client), self.per_client, self.clock.now())
            .await;
        self.refusal(status)
    }

    /// The client's refusal if `status` says its budget is spent; a store that cannot answer
    /// refuses nothing.
    fn refusal(&self, status: Result<RateStatus, RateStoreError>) -> Option<Throttle> {
        match status {
            Ok(status) => (!status.allowed).then_some(Throttle {
                by: ThrottledBy::Client,
                status,
            }),
            Err(error) => {
                self.slots.note(&error);
                None
            }
        }
    }

    /// A slot in `client`'s budget for `key` and one in `key`'s own budget, reserved together;
    /// `Err` (with nothing left reserved) when either is spent.
    pub(crate) async fn reserve_verification(
        &self,
        client: &ClientAddress,
        key: &KeyPrefix,
    ) -> Result<ReservedSlots, Throttle> {
        let budgets = [
            (
                client_key_bucket(client, key),
                self.per_client,
                ThrottledBy::Client,
            ),
            (key_bucket(key), self.per_key, ThrottledBy::Key),
        ];
        self.slots
            .reserve_all(budgets, self.clock.now())
            .await
            .map_err(|(by, status)| Throttle { by, status })
    }

    /// The attempt did not fail after all: its slots are free again.
    pub(crate) async fn give_back(&self, reserved: ReservedSlots) {
        self.slots.give_back(reserved).await;
    }
}

fn client_bucket(client: &ClientAddress) -> String {
    format!("ip:{client}:auth-failures")
}

fn client_key_bucket(client: &ClientAddress, key: &KeyPrefix) -> String {
    format!("ip:{client}:key:{key}:auth-failures")
}

fn key_bucket(key: &KeyPrefix) -> String {
    format!("key:{key}:auth-failures")
}

#[cfg(test)]
mod tests {
    use shop_domain::Timestamp;

    use super::*;
    use crate::port::{MockClock, mock_on_real_windows};

    fn budgets(per_client: u32, per_key: u32) -> FailureBudgets {
        let mut clock = MockClock::new();
        clock
            .expect_now()
            .return_const(Timestamp::from_millis(1_000));
        let budget = |limit| RateBudget {
            limit,
            window_millis: 60_000,
        };
        FailureBudgets::new(
            Arc::new(mock_on_real_windows()),
            Arc::new(clock),
            budget(per_client),
            budget(per_key),
        )
    }

    fn client(ip: &str) -> ClientAddress {
        ClientAddress::of(ip.parse().unwrap())
    }

    fn key(prefix: &str) -> KeyPrefix {
        KeyPrefix::parse(prefix).unwrap()
    }

    #[tokio::test]
    async fn a_client_gets_its_budget_of_verifications_for_a_key_and_no_more() {
        let budgets = budgets(3, 100);
        let nat = client("203.0.113.7");
        for _ in 0..3 {
            budgets
                .reserve_verification(&nat, &key("0a0a0a0a"))
                .await
                .unwrap();
        }
        let refused = budgets
            .reserve_verification(&nat, &key("0a0a0a0a"))
            .await
            .unwrap_err();
        assert_eq!(refused.by, ThrottledBy::Client);
        // Behind the same address, another key is verified as before.
        assert!(
            budgets
                .reserve_verification(&nat, &key("0b0b0b0b"))
                .await
                .is_ok()
        );
        assert!(budgets.count_unverified_failure(&nat).await.is_ok());
    }

    #[tokio::test]
    async fn many_clients_together_get_the_key_budget_and_no_more() {
        let budgets = budgets(30, 4);
        for n in 0..4 {
            let address = client(&format!("127.0.0.{}", n + 2));
            budgets
                .reserve_verification(&address, &key("0a0a0a0a"))
                .await
                .unwrap();
        }
        let refused = budgets
            .reserve_verification(&client("127.0.0.9"), &key("0a0a0a0a"))
            .await
            .unwrap_err();
        assert_eq!(refused.by, ThrottledBy::Key);
        assert!(!refused.status.allowed);
        assert_eq!(refused.status.retry_after_seconds(), 60);
        // Other keys are not under attack: verified as before.
        assert!(
            budgets
                .reserve_verification(&client("127.0.0.9"), &key("0b0b0b0b"))
                .await
                .is_ok()
        );
    }

    #[tokio::test]
    async fn a_right_secret_gives_its_slots_back() {
        let budgets = budgets(1, 1);
        let address = client("198.51.100.4");
        for _ in 0..5 {
            let slots = budgets
                .reserve_verification(&address, &key("0a0a0a0a"))
                .await
                .unwrap();
            budgets.give_back(slots).await;
        }
        assert!(
            budgets
                .reserve_verification(&address, &key("0a0a0a0a"))
                .await
                .is_ok()
        );
    }

    #[tokio::test]
    async fn failures_without_a_key_are_counted_per_address() {
        let budgets = budgets(2, 100);
        let address = client("2001:db8:1:2::7");
        assert!(budgets.count_unverified_failure(&address).await.is_ok());
        // Another address of the same /64 is the same client.
        assert!(
            budgets
                .count_unverified_failure(&client("2001:db8:1:2::8"))
                .await
                .is_ok()
        );
        let refused = budgets
            .count_unverified_failure(&address)
            .await
            .unwrap_err();
        assert_eq!(refused.by, ThrottledBy::Client);
        assert!(
            budgets
                .count_unverified_failure(&client("2001:db8:1:3::7"))
                .await
                .is_ok()
        );
    }
}
