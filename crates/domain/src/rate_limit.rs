//! Rate limits (spec §8): an exact sliding window per key and class of request.
//!
//! The window keeps the instant of every accepted request of the last `window`: a request is
//! accepted when fewer than `limit` are in it. Unlike fixed windows or weighted
//! approximations, no 60-second interval can ever hold more than `limit` accepted requests.
//! Refused requests are not recorded, so a 429 consumes nothing.

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
    pub const AUTH_FAILURES: RateBudget = RateBudget {
        limit: 30,
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
    accepted: VecDeque<i64>,
}

impl SlidingWindow {
    fn expire(&mut self, budget: RateBudget, now: Timestamp) {
        // A request made at `t` counts while `now < t + window`: it leaves exactly when it
        // turns `window` old.
        while self
            .accepted
            .front()
            .is_some_and(|at| now.millis() - at >= budget.window_millis)
        {
            self.accepted.pop_front();
        }
    }

    fn status(&self, budget: RateBudget, now: Timestamp, allowed: bool) -> RateStatus {
        let used = u32::try_from(self.accepted.len()).unwrap_or(u32::MAX);
        RateStatus {
            allowed,
            limit: budget.limit,
            remaining: budget.limit.saturating_sub(used),
            reset_after_millis: self
                .accepted
                .front()
                .map_or(0, |oldest| oldest + budget.window_millis - now.millis()),
        }
    }

    /// Counts the request if the budget allows it.
    pub fn acquire(&mut self, budget: RateBudget, now: Timestamp) -> RateStatus {
        self.expire(budget, now);
        let allowed = self.accepted.len() < budget.limit as usize;
        if allowed {
            self.accepted.push_back(now.millis());
        }
        self.status(budget, now, allowed)
    }

    /// The budget as it stands, without counting anything.
    pub fn peek(&mut self, budget: RateBudget, now: Timestamp) -> RateStatus {
        self.expire(budget, now);
        let allowed = self.accepted.len() < budget.limit as usize;
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
