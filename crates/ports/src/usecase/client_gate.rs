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

/// A piece of work let through; leaving the gate when dropped.
pub struct Admission<'a> {
    gate: &'a ClientGate,
    client: ClientAddress,
}

impl ClientGate {
    const PRUNE_AT_LEAST: usize = 1_024;

    /// Verifications: 64 under way in all, one per client. A newcomer waits, per active client
    /// ahead of it, one argon2 verification's CPU divided by the cores (see docs/PERFORMANCE.md,
    /// "Figures behind design choices in the code", "argon2 verification").
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

    /// A place for `client` at `now`, or `None` when the gate or the client's share of it is
    /// full, or the client is ahead of its pace.
    pub fn admit(&self, client: &ClientAddress, now: Timestamp) -> Option<Admission<'_>> {
        let now = now.millis();
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let share = state.per_client.get(client).copied();
        let in_flight = share.map_or(0, |share| share.in_flight);
        let due = share.map_or(now, |share| share.next_due.max(now));
        let ahead = self.pace.is_some_and(|pace| {
            due.saturating_sub(now) > pace.interval_millis.saturating_mul(pace.burst - 1)
        });
        if state.total >= self.max_in_flight || in_flight >= self.max_per_client || ahead {
            return None;
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
        Some(Admission {
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
        assert!(first.is_some() && second.is_some());
        assert!(gate.admit(&flood, at(0)).is_none(), "over its share");
        let quiet = gate.admit(&client("198.51.100.2"), at(0));
        assert!(quiet.is_some(), "a quiet client still gets in");
        let other = gate.admit(&client("198.51.100.3"), at(0));
        assert!(other.is_some());
        assert!(
            gate.admit(&client("198.51.100.4"), at(0)).is_none(),
            "the gate is full"
        );
        drop(first);
        assert!(
            gate.admit(&flood, at(0)).is_some(),
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
            assert!(gate.admit(&flood, at(1_000)).is_some(), "within the burst");
        }
        assert!(gate.admit(&flood, at(1_000)).is_none(), "beyond the burst");
        assert!(gate.admit(&flood, at(1_050)).is_none(), "ahead of its pace");
        assert!(
            gate.admit(&client("198.51.100.2"), at(1_050)).is_some(),
            "another client is not held to it"
        );
        assert!(
            gate.admit(&flood, at(1_100)).is_some(),
            "one interval later"
        );
        assert!(gate.admit(&flood, at(1_100)).is_none());
        assert!(
            gate.admit(&flood, at(1_500)).is_some(),
            "back on time: a burst again"
        );
        assert!(gate.admit(&flood, at(1_500)).is_some());
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
