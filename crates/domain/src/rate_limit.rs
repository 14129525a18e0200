//! Rate limits (spec §8): an exact sliding window per key and class of request.
//!
//! The window keeps the instant of every accepted request of the last `window`: a request is
//! accepted when fewer than `limit` are in it. Unlike fixed windows or weighted
//! approximations, no 60-second interval can ever hold more than `limit` accepted requests.
//! Refused requests are not recorded, so a 429 consumes nothing.
//!
//! Requests of the same millisecond are kept as one entry with a count: the instants are
//! milliseconds anyway, so nothing changes in what is accepted, but a window holds at most one
//! entry per millisecond of its length whatever the limit. With limits raised for a load test
//! (10^9 per minute), one entry per request made the window's memory grow with the request
//! rate (see docs/performance-log.md, "Full runs", "Earlier, in an older session").

use std::collections::VecDeque;

use crate::Timestamp;

/// Which budget a request draws from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RequestClass {
    /// GET, HEAD.
    Read,
    /// POST, PUT, PATCH, DELETE.
    Write,
}

impl RequestClass {
    /// The policy name used in the `RateLimit` headers.
    pub const fn policy_name(self) -> &'static str {
        match self {
            RequestClass::Read => "reads",
            RequestClass::Write => "writes",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateBudget {
    pub limit: u32,
    pub window_millis: i64,
}

impl RateBudget {
    pub const READS: RateBudget = RateBudget {
        limit: 120,
        window_millis: 60_000,
    };
    pub const WRITES: RateBudget = RateBudget {
        limit: 30,
        window_millis: 60_000,
    };
    /// Failed authentications of one client address: those that cost no verification (no
    /// key, a malformed one, an unknown prefix, a revoked or expired key), and, counted
    /// apart for each existing key, its wrong secrets.
    pub const AUTH_FAILURES: RateBudget = RateBudget {
        limit: 30,
        window_millis: 60_000,
    };
    /// Wrong secrets for one existing key, from every address together: two a second at
    /// most, so that many addresses guessing one key make the instance verify no more.
    pub const KEY_FAILURES: RateBudget = RateBudget {
        limit: 120,
        window_millis: 60_000,
    };

    pub const fn window_seconds(self) -> i64 {
        (self.window_millis + 999) / 1_000
    }
}

/// The state of one budget after a request: what the headers say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateStatus {
    pub allowed: bool,
    pub limit: u32,
    pub remaining: u32,
    /// Milliseconds until the oldest counted request leaves the window (a slot frees); 0 when
    /// the window is empty.
    pub reset_after_millis: i64,
}

impl RateStatus {
    /// Whole seconds until a slot frees, rounded up, so that waiting that long is enough.
    pub fn reset_after_seconds(&self) -> i64 {
        (self.reset_after_millis.max(0) + 999) / 1_000
    }

    /// `Retry-After` of a refusal: at least 1 second.
    pub fn retry_after_seconds(&self) -> i64 {
        self.reset_after_seconds().max(1)
    }
}

/// The accepted requests of one key in the current window, oldest first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SlidingWindow {
    /// (instant in milliseconds, requests accepted at that instant), oldest first.
    accepted: VecDeque<(i64, u32)>,
    /// The sum of the counts.
    len: u32,
}

impl SlidingWindow {
    fn expire(&mut self, budget: RateBudget, now: Timestamp) {
        // A request made at `t` counts while `now < t + window`: it leaves exactly when it
        // turns `window` old.
        while let Some(&(at, count)) = self.accepted.front() {
            if now.millis() - at < budget.window_millis {
                break;
            }
            self.accepted.pop_front();
            self.len -= count;
        }
        // A burst can leave a large buffer behind; give most of it back once it is mostly
        // empty, so that an idle key does not keep its busiest minute's memory.
        if self.accepted.capacity() > 64 && self.accepted.len() < self.accepted.capacity() / 4 {
            self.accepted.shrink_to(self.accepted.len() * 2);
        }
    }

    fn record(&mut self, now: Timestamp) {
        match self.accepted.back_mut() {
            Some((at, count)) if *at == now.millis() => *count += 1,
            _ => self.accepted.push_back((now.millis(), 1)),
        }
        self.len += 1;
    }

    fn status(&self, budget: RateBudget, now: Timestamp, allowed: bool) -> RateStatus {
        RateStatus {
            allowed,
            limit: budget.limit,
            remaining: budget.limit.saturating_sub(self.len),
            reset_after_millis: self.accepted.front().map_or(0, |(oldest, _)| {
                oldest + budget.window_millis - now.millis()
            }),
        }
    }

    /// Counts the request if the budget allows it.
    pub fn acquire(&mut self, budget: RateBudget, now: Timestamp) -> RateStatus {
        self.expire(budget, now);
        let allowed = self.len < budget.limit;
        if allowed {
            self.record(now);
        }
        self.status(budget, now, allowed)
    }

    /// Takes back one request counted at `at` (epoch milliseconds), as if it had not come; a
    /// request that has left the window already is not there to take back.
    pub fn release(&mut self, at: i64) {
        // Searched from the newest: a slot is given back moments after it was taken.
        let Some(index) = self
            .accepted
            .iter()
            .rposition(|(instant, _)| *instant == at)
        else {
            return;
        };
        let count = &mut self.accepted[index].1;
        *count -= 1;
        if *count == 0 {
            self.accepted.remove(index);
        }
        self.len -= 1;
    }

    /// The budget as it stands, without counting anything.
    pub fn peek(&mut self, budget: RateBudget, now: Timestamp) -> RateStatus {
        self.expire(budget, now);
        let allowed = self.len < budget.limit;
        self.status(budget, now, allowed)
    }

    pub fn is_empty(&self) -> bool {
        self.accepted.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(millis: i64) -> Timestamp {
        Timestamp::from_millis(millis)
    }

    #[test]
    fn the_120th_read_is_accepted_and_the_121st_refused() {
        let mut window = SlidingWindow::default();
        for n in 0..120 {
            let status = window.acquire(RateBudget::READS, at(n * 100));
            assert!(status.allowed, "request {n}");
            assert_eq!(status.remaining, 119 - n as u32);
        }
        let refused = window.acquire(RateBudget::READS, at(12_000));
        assert!(!refused.allowed);
        assert_eq!(refused.remaining, 0);
        // The oldest (at 0 ms) leaves at 60,000 ms: 48 s from 12,000 ms.
        assert_eq!(refused.reset_after_millis, 48_000);
        assert_eq!(refused.retry_after_seconds(), 48);
    }

    #[test]
    fn a_slot_frees_exactly_when_the_oldest_turns_60_seconds_old() {
        let mut window = SlidingWindow::default();
        for n in 0..30 {
            assert!(window.acquire(RateBudget::WRITES, at(1_000 + n)).allowed);
        }
        assert!(
            !window.acquire(RateBudget::WRITES, at(60_999)).allowed,
            "1 ms too early"
        );
        let freed = window.acquire(RateBudget::WRITES, at(61_000));
        assert!(freed.allowed, "the first request is exactly 60 s old");
        assert!(
            !window.acquire(RateBudget::WRITES, at(61_000)).allowed,
            "only one slot freed"
        );
        assert!(window.acquire(RateBudget::WRITES, at(61_001)).allowed);
    }

    #[test]
    fn a_released_request_frees_its_slot_and_only_its_own() {
        let budget = RateBudget {
            limit: 2,
            window_millis: 1_000,
        };
        let mut window = SlidingWindow::default();
        assert!(window.acquire(budget, at(10)).allowed);
        assert!(window.acquire(budget, at(20)).allowed);
        assert!(!window.acquire(budget, at(30)).allowed);
        window.release(20);
        assert!(
            window.acquire(budget, at(40)).allowed,
            "the slot of 20 was freed"
        );
        window.release(999);
        assert!(
            !window.acquire(budget, at(50)).allowed,
            "an unknown instant frees nothing"
        );
        // 10 and 40 are counted: the oldest leaves at 1,010.
        assert_eq!(window.peek(budget, at(60)).reset_after_millis, 950);
    }

    #[test]
    fn refusals_consume_nothing() {
        let budget = RateBudget {
            limit: 2,
            window_millis: 1_000,
        };
        let mut window = SlidingWindow::default();
        window.acquire(budget, at(0));
        window.acquire(budget, at(10));
        for t in 20..900 {
            assert!(!window.acquire(budget, at(t)).allowed);
        }
        assert!(window.acquire(budget, at(1_000)).allowed);
        assert!(window.acquire(budget, at(1_010)).allowed);
    }

    #[test]
    fn no_interval_of_one_window_ever_holds_more_than_the_limit() {
        let budget = RateBudget {
            limit: 5,
            window_millis: 1_000,
        };
        let mut window = SlidingWindow::default();
        let mut accepted = Vec::new();
        // An irregular stream: bursts and gaps.
        for n in 0..400i64 {
            let t = n * 37 % 5_000 + (n / 137) * 5_000;
            if window.acquire(budget, at(t)).allowed {
                accepted.push(t);
            }
        }
        accepted.sort_unstable();
        for (i, start) in accepted.iter().enumerate() {
            let inside = accepted[i..]
                .iter()
                .take_while(|t| **t < start + 1_000)
                .count();
            assert!(inside <= 5, "{inside} accepted in [{start}, {start}+1s)");
        }
    }

    #[test]
    fn an_empty_window_resets_now_and_retry_is_at_least_one_second() {
        let mut window = SlidingWindow::default();
        let status = window.peek(RateBudget::READS, at(5));
        assert_eq!(
            (
                status.allowed,
                status.remaining,
                status.reset_after_seconds()
            ),
            (true, 120, 0)
        );
        let budget = RateBudget {
            limit: 1,
            window_millis: 60_000,
        };
        window.acquire(budget, at(0));
        let refused = window.acquire(budget, at(59_999));
        assert_eq!(
            (refused.reset_after_millis, refused.retry_after_seconds()),
            (1, 1)
        );
    }

    #[test]
    fn memory_follows_the_window_length_not_the_limit() {
        let budget = RateBudget {
            limit: 1_000_000_000,
            window_millis: 1_000,
        };
        let mut window = SlidingWindow::default();
        // 100 requests in each millisecond of two windows' worth of time.
        for millis in 0..2_000 {
            for _ in 0..100 {
                assert!(window.acquire(budget, at(millis)).allowed);
            }
        }
        assert_eq!(window.accepted.len(), 1_000, "one entry per millisecond");
        // At 2,000 ms the requests of 1,001..=1,999 ms still count.
        let status = window.peek(budget, at(2_000));
        assert_eq!(status.remaining, budget.limit - 99_900);
        assert_eq!(status.reset_after_millis, 1);
        // Once the burst has left the window, its buffer is given back.
        window.acquire(budget, at(10_000));
        assert!(window.accepted.capacity() < 100);
    }

    #[test]
    fn requests_of_one_millisecond_leave_together_and_count_one_by_one() {
        let budget = RateBudget {
            limit: 3,
            window_millis: 1_000,
        };
        let mut window = SlidingWindow::default();
        assert_eq!(window.acquire(budget, at(0)).remaining, 2);
        assert_eq!(window.acquire(budget, at(0)).remaining, 1);
        assert_eq!(window.acquire(budget, at(1)).remaining, 0);
        assert!(!window.acquire(budget, at(999)).allowed);
        let freed = window.acquire(budget, at(1_000));
        assert!(
            freed.allowed,
            "both requests of 0 ms left, one slot taken again"
        );
        assert_eq!(freed.remaining, 1);
        assert!(window.acquire(budget, at(1_000)).allowed);
        assert!(!window.acquire(budget, at(1_000)).allowed);
    }

    #[test]
    fn peek_does_not_count() {
        let budget = RateBudget {
            limit: 1,
            window_millis: 1_000,
        };
        let mut window = SlidingWindow::default();
        for _ in 0..5 {
            assert!(window.peek(budget, at(0)).allowed);
        }
        assert!(window.acquire(budget, at(0)).allowed);
        assert!(!window.peek(budget, at(1)).allowed);
    }
}
