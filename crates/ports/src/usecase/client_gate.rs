//! How much of one costly kind of work may be under way at once, in all and per client.
//!
//! Three kinds go through a gate of their own:
//! - an API key's secret verifications (`usecase::authenticate`): argon2 is the one costly step
//!   of authentication, and keys already verified never reach it (the cache answers them). The
//!   failure budgets bound how many verifications a client or a key may cause in a minute; the
//!   gate bounds how many can pile up at once, so that a burst is refused at the door instead
//!   of queueing without end, and a key verified for the first time from a quiet address waits
//!   behind a few verifications at most, never behind a flood;
//! - the console's sign-ins (`usecase::owner_sessions`), which verify a password with the same
//!   argon2 settings, for the same reasons, through a gate of the same size;
//! - key lookups for a client whose budget of failures is spent: it is still looked up (its key
//!   may be another integration behind the same NAT), but one lookup at a time and a few a
//!   second, so that its flood cannot keep the store busy for every other request.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use shop_domain::Timestamp;
use shop_domain::client_address::ClientAddress;

pub struct ClientGate {
    max_in_flight: usize,
    max_per_client: usize,
    /// How often one client may be admitted, if it is paced at all.
    pace: Option<Pace>,
    state: Mutex<InFlight>,
}

/// A client admitted once per `interval_millis` on average, `burst` times in a row at most
/// (the generic cell rate algorithm: one instant per client, no window of timestamps).
#[derive(Clone, Copy)]
struct Pace {
    interval_millis: i64,
    burst: i64,
}

struct InFlight {
    total: usize,
    per_client: HashMap<ClientAddress, Share>,
    /// The number of clients at which those with nothing left to remember are forgotten next:
    /// doubled after each pass, so that many clients cost a pass now and then, not one per
    /// admission.
    prune_at: usize,
}

#[derive(Clone, Copy)]
struct Share {
    in_flight: usize,
    /// When the client's next admission is on time: each admission pushes it one interval
    /// beyond the later of itself and the moment it came.
    next_due: i64,
}

/// A client not let through, and when it would be: the gate's answer to put in a
/// `Retry-After`, so that a client that waits that long is not refused again for nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refused {
    pub retry_after_millis: i64,
}

/// A piece of work let through; leaving the gate when dropped.
pub struct Admission<'a> {
    gate: &'a ClientGate,
    client: ClientAddress,
}

impl ClientGate {
    const PRUNE_AT_LEAST: usize = 1_024;
    /// How long a full gate keeps a client waiting at most: the work it holds (an argon2
    /// verification, a key lookup) lasts tens of milliseconds, so a place is free within a
    /// second.
    const FREE_WITHIN_MILLIS: i64 = 1_000;

    /// Verifications: 64 under way in all, one per client. A newcomer waits, per active client
    /// ahead of it, one argon2 verification's CPU divided by the cores (see
    /// docs/performance-log.md, "argon2 verification").
    pub fn for_verifications() -> Self {
        Self::new(64, 1)
    }

    /// Lookups for clients over their failure budget: one under way per client, five in a
    /// row then ten a second (back to back, a flood's lookups would keep a pooled connection
    /// and a blocking thread busy all the time: docs/RELIABILITY.md), four in all, half of the
    /// store's default pool.
    pub fn for_lookups_over_budget() -> Self {
        Self::new(4, 1).paced(Duration::from_millis(100), 5)
    }

    pub fn new(max_in_flight: usize, max_per_client: usize) -> Self {
        Self {
            max_in_flight: max_in_flight.max(1),
            max_per_client: max_per_client.max(1),
            pace: None,
            state: Mutex::new(InFlight {
                total: 0,
                per_client: HashMap::new(),
                prune_at: Self::PRUNE_AT_LEAST,
            }),
        }
    }

    /// Admits one client once per `interval` on average, `burst` times in a row at most.
    pub fn paced(mut self, interval: Duration, burst: u32) -> Self {
        self.pace = Some(Pace {
            interval_millis: i64::try_from(interval.as_millis()).unwrap_or(i64::MAX),
            burst: i64::from(burst.max(1)),
        });
        self
    }

    /// A place for `client` at `now`; refused when the gate or the client's share of it is
    /// full, or the client is ahead of its pace, with the wait after which it would be let
    /// through: its next admission's due time if it is ahead of its pace, else (or if that
    /// is sooner) the bound on the work under way.
    pub fn admit(&self, client: &ClientAddress, now: Timestamp) -> Result<Admission<'_>, Refused> {
        let now = now.millis();
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let share = state.per_client.get(client).copied();
        let in_flight = share.map_or(0, |share| share.in_flight);
        let due = share.map_or(now, |share| share.next_due.max(now));
        // Admitted when its due time is at most a burst's worth of intervals ahead.
        let ahead_by = self.pace.map_or(0, |pace| {
            due.saturating_sub(now)
                .saturating_sub(pace.interval_millis.saturating_mul(pace.burst - 1))
        });
        let full = state.total >= self.max_in_flight || in_flight >= self.max_per_client;
        if full || ahead_by > 0 {
            let busy = if full { Self::FREE_WITHIN_MILLIS } else { 0 };
            return Err(Refused {
                retry_after_millis: ahead_by.max(busy),
            });
        }
        if state.per_client.len() >= state.prune_at {
            // Idle and back on time: nothing left to remember.
            state
                .per_client
                .retain(|_, share| share.in_flight > 0 || share.next_due > now);
            state.prune_at = (state.per_client.len() * 2).max(Self::PRUNE_AT_LEAST);
        }
        state.total += 1;
        let next_due = due.saturating_add(self.pace.map_or(0, |pace| pace.interval_millis));
        state.per_client.insert(
            client.clone(),
            Share {
                in_flight: in_flight + 1,
                next_due,
            },
        );
        Ok(Admission {
            gate: self,
            client: client.clone(),
        })
    }

    /// Pieces of work under way now.
    #[cfg(test)]
    fn in_flight(&self) -> usize {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .total
    }
}

impl Drop for Admission<'_> {
    fn drop(&mut self) {
        let gate = self.gate;
        let mut state = gate.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.total = state.total.saturating_sub(1);
        if let Some(share) = state.per_client.get_mut(&self.client) {
            share.in_flight = share.in_flight.saturating_sub(1);
            // A paced gate remembers the client until it is back on time (pruned later).
            if share.in_flight == 0 && gate.pace.is_none() {
                state.per_client.remove(&self.client);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(ip: &str) -> ClientAddress {
        ClientAddress::of(ip.parse().unwrap())
    }

    fn at(millis: i64) -> Timestamp {
        Timestamp::from_millis(millis)
    }

    #[test]
    fn a_flooding_client_takes_its_share_and_leaves_room_for_others() {
        let gate = ClientGate::new(4, 2);
        let flood = client("203.0.113.1");
        let first = gate.admit(&flood, at(0));
        let second = gate.admit(&flood, at(0));
        assert!(first.is_ok() && second.is_ok());
        assert!(gate.admit(&flood, at(0)).is_err(), "over its share");
        let quiet = gate.admit(&client("198.51.100.2"), at(0));
        assert!(quiet.is_ok(), "a quiet client still gets in");
        let other = gate.admit(&client("198.51.100.3"), at(0));
        assert!(other.is_ok());
        assert!(
            gate.admit(&client("198.51.100.4"), at(0)).is_err(),
            "the gate is full"
        );
        drop(first);
        assert!(
            gate.admit(&flood, at(0)).is_ok(),
            "a place left is taken again"
        );
    }

    #[test]
    fn leaving_empties_the_gate() {
        let gate = ClientGate::new(2, 1);
        {
            let _a = gate.admit(&client("192.0.2.1"), at(0));
            let _b = gate.admit(&client("192.0.2.2"), at(0));
            assert_eq!(gate.in_flight(), 2);
        }
        assert_eq!(gate.in_flight(), 0);
        assert!(gate.state.lock().unwrap().per_client.is_empty());
    }

    #[test]
    fn a_paced_gate_admits_a_burst_then_one_client_at_its_pace() {
        let gate = ClientGate::new(4, 1).paced(Duration::from_millis(100), 3);
        let flood = client("203.0.113.1");
        for _ in 0..3 {
            assert!(gate.admit(&flood, at(1_000)).is_ok(), "within the burst");
        }
        assert!(gate.admit(&flood, at(1_000)).is_err(), "beyond the burst");
        assert!(gate.admit(&flood, at(1_050)).is_err(), "ahead of its pace");
        assert!(
            gate.admit(&client("198.51.100.2"), at(1_050)).is_ok(),
            "another client is not held to it"
        );
        assert!(gate.admit(&flood, at(1_100)).is_ok(), "one interval later");
        assert!(gate.admit(&flood, at(1_100)).is_err());
        assert!(
            gate.admit(&flood, at(1_500)).is_ok(),
            "back on time: a burst again"
        );
        assert!(gate.admit(&flood, at(1_500)).is_ok());
    }

    #[test]
    fn a_refusal_says_when_the_client_would_be_let_through() {
        let gate = ClientGate::new(4, 1).paced(Duration::from_millis(100), 5);
        let flood = client("203.0.113.1");
        for _ in 0..5 {
            drop(gate.admit(&flood, at(10_000)));
        }
        let Err(refused) = gate.admit(&flood, at(10_030)) else {
            panic!("ahead of its pace");
        };
        assert_eq!(
            refused.retry_after_millis, 70,
            "not a window, one interval at most"
        );
        assert!(gate.admit(&flood, at(10_099)).is_err(), "1 ms too early");
        assert!(gate.admit(&flood, at(10_100)).is_ok(), "due as announced");

        // A full gate has no pace to tell: its work is done within a second.
        let unpaced = ClientGate::new(1, 1);
        let _held = unpaced.admit(&flood, at(0));
        assert_eq!(
            unpaced.admit(&client("198.51.100.2"), at(0)).err(),
            Some(Refused {
                retry_after_millis: 1_000
            })
        );
    }

    #[test]
    fn a_paced_gate_forgets_clients_back_on_time() {
        let gate = ClientGate::new(4, 1).paced(Duration::from_millis(100), 5);
        for n in 0..ClientGate::PRUNE_AT_LEAST as u32 {
            let address = std::net::Ipv4Addr::from(0x0a00_0000 + n);
            drop(gate.admit(&ClientAddress::of(address.into()), at(0)));
        }
        let remembered = || gate.state.lock().unwrap().per_client.len();
        assert_eq!(remembered(), ClientGate::PRUNE_AT_LEAST);
        drop(gate.admit(&client("198.51.100.2"), at(500)));
        assert_eq!(remembered(), 1, "only the newcomer is left");
    }
}
