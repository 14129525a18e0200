//! What one delivering instance may still take on in a turn of its loop: which of the queue's
//! due pairs it claims, given the claims it holds (an attempt in flight, waiting in the
//! instance for a slot of its endpoint, or ended and not recorded yet).

use std::collections::{HashMap, HashSet};

use shop_domain::id::WebhookEndpointId;

use super::DueWork;

/// An instance's room for new claims: at most `total` more, at most `per_endpoint` held for any
/// one endpoint, and never a second claim of a pair it holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClaimRoom {
    /// Claims it may still take in all.
    pub total: usize,
    /// The bound of claims held for one endpoint.
    pub per_endpoint: usize,
    /// Its claims held, per endpoint.
    pub in_flight: HashMap<WebhookEndpointId, usize>,
    /// The pairs it holds.
    pub held: HashSet<DueWork>,
}

impl ClaimRoom {
    /// No room: a turn that only records what ended.
    pub fn none() -> Self {
        Self::default()
    }

    pub fn is_empty(&self) -> bool {
        self.total == 0 || self.per_endpoint == 0
    }

    /// The endpoints at their bound: their heads are not worth reading.
    pub fn full_endpoints(&self) -> impl Iterator<Item = &WebhookEndpointId> {
        self.in_flight
            .iter()
            .filter(|(_, busy)| **busy >= self.per_endpoint)
            .map(|(endpoint, _)| endpoint)
    }

    /// Of `due`, in the queue's order, the pairs to claim: each once, none held already,
    /// within both bounds.
    pub fn select(&self, due: impl IntoIterator<Item = DueWork>) -> Vec<DueWork> {
        let mut taken: Vec<DueWork> = Vec::new();
        let mut seen: HashSet<DueWork> = HashSet::new();
        let mut per_endpoint: HashMap<WebhookEndpointId, usize> = self.in_flight.clone();
        for work in due {
            if taken.len() == self.total {
                break;
            }
            let busy = per_endpoint.entry(work.endpoint_id.clone()).or_default();
            if *busy >= self.per_endpoint || self.held.contains(&work) || seen.contains(&work) {
                continue;
            }
            *busy += 1;
            seen.insert(work.clone());
            taken.push(work);
        }
        taken
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn work(endpoint: &str, resource: &str) -> DueWork {
        DueWork {
            endpoint_id: WebhookEndpointId::parse(endpoint).unwrap(),
            resource: resource.into(),
        }
    }

    #[test]
    fn a_pair_is_taken_once_and_never_while_held() {
        let room = ClaimRoom {
            total: 10,
            per_endpoint: 10,
            held: HashSet::from([work("we_1", "stock:a")]),
            ..ClaimRoom::default()
        };
        let due = [
            work("we_1", "stock:a"),
            work("we_1", "stock:b"),
            work("we_1", "stock:b"),
            work("we_2", "stock:a"),
        ];
        assert_eq!(
            room.select(due),
            vec![work("we_1", "stock:b"), work("we_2", "stock:a")]
        );
    }

    #[test]
    fn an_endpoint_at_its_bound_leaves_the_room_to_the_others() {
        let room = ClaimRoom {
            total: 3,
            per_endpoint: 2,
            in_flight: HashMap::from([(WebhookEndpointId::parse("we_slow").unwrap(), 1)]),
            ..ClaimRoom::default()
        };
        let due = [
            work("we_slow", "stock:a"),
            work("we_slow", "stock:b"),
            work("we_fast", "stock:a"),
            work("we_fast", "stock:b"),
            work("we_fast", "stock:c"),
        ];
        assert_eq!(
            room.select(due),
            vec![
                work("we_slow", "stock:a"),
                work("we_fast", "stock:a"),
                work("we_fast", "stock:b"),
            ]
        );
        assert!(
            ClaimRoom::none()
                .select([work("we_1", "stock:a")])
                .is_empty()
        );
    }

    #[test]
    fn the_head_of_an_endpoint_at_its_bound_is_not_worth_reading() {
        let slow = WebhookEndpointId::parse("we_slow").unwrap();
        let fast = WebhookEndpointId::parse("we_fast").unwrap();
        let room = ClaimRoom {
            total: 8,
            per_endpoint: 2,
            in_flight: HashMap::from([(slow.clone(), 2), (fast.clone(), 1)]),
            ..ClaimRoom::default()
        };
        assert_eq!(room.full_endpoints().collect::<Vec<_>>(), vec![&slow]);
    }
}
