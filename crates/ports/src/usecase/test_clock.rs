//! A clock stopped at one instant, for the use cases' tests.

use std::sync::Arc;

use shop_domain::Timestamp;

use crate::port::{Clock, MockClock};

pub(crate) fn at(now: Timestamp) -> Arc<dyn Clock> {
    let mut clock = MockClock::new();
    clock.expect_now().return_const(now);
    Arc::new(clock)
}
