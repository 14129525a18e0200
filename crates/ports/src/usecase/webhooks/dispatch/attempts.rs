//! The attempts an instance has taken on: those being sent, at most `per_endpoint` to one
//! endpoint and `total` in all, and the claimed ones waiting in the process for a slot of
//! their endpoint, started in the order they were claimed as the attempts before them end.

use std::collections::{HashMap, VecDeque};
use std::pin::Pin;
use std::task::{Poll, ready};

use futures::future::poll_fn;
use futures::stream::{FuturesUnordered, StreamExt};
use shop_domain::id::WebhookEndpointId;

use super::WebhookDispatcher;
use crate::port::{AttemptRecord, ClaimedDelivery};

/// One attempt being sent, ending with what its answer changes.
type Attempt<'a> = Pin<Box<dyn Future<Output = AttemptRecord> + Send + 'a>>;

pub(super) struct Attempts<'a> {
    dispatcher: &'a WebhookDispatcher,
    sending: FuturesUnordered<Attempt<'a>>,
    sending_to: HashMap<WebhookEndpointId, usize>,
    waiting: HashMap<WebhookEndpointId, VecDeque<ClaimedDelivery>>,
}

impl<'a> Attempts<'a> {
    pub(super) fn new(dispatcher: &'a WebhookDispatcher) -> Self {
        Self {
            dispatcher,
            sending: FuturesUnordered::new(),
            sending_to: HashMap::new(),
            waiting: HashMap::new(),
        }
    }

    /// The claims taken on and not ended yet: being sent or waiting for a slot.
    pub(super) fn len(&self) -> usize {
        self.sending.len() + self.waiting.values().map(VecDeque::len).sum::<usize>()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Takes on a turn's claims: each is sent at once if its endpoint has a free slot, and
    /// waits for one otherwise.
    pub(super) fn take_on(&mut self, claims: impl IntoIterator<Item = ClaimedDelivery>) {
        for claim in claims {
            self.waiting
                .entry(claim.endpoint_id.clone())
                .or_default()
                .push_back(claim);
        }
        self.start_what_fits();
    }

    /// The next attempt to end (`None` when none is taken on); its slot goes to the next
    /// claim waiting for one. Cancel-safe, and `Unpin` for `select`: nothing is awaited once
    /// an attempt has ended.
    pub(super) fn next(&mut self) -> impl Future<Output = Option<AttemptRecord>> + Unpin + '_ {
        poll_fn(move |cx| {
            let ended = ready!(self.sending.poll_next_unpin(cx));
            if let Some(record) = &ended {
                self.slot_freed(&record.endpoint_id);
            }
            Poll::Ready(ended)
        })
    }

    fn slot_freed(&mut self, endpoint: &WebhookEndpointId) {
        if let Some(count) = self.sending_to.get_mut(endpoint) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                self.sending_to.remove(endpoint);
            }
        }
        self.start_what_fits();
    }

    fn start_what_fits(&mut self) {
        let dispatcher: &'a WebhookDispatcher = self.dispatcher;
        let settings = &dispatcher.settings;
        for (endpoint, claims) in &mut self.waiting {
            let sending = self.sending_to.entry(endpoint.clone()).or_default();
            while *sending < settings.per_endpoint && self.sending.len() < settings.total {
                let Some(claim) = claims.pop_front() else {
                    break;
                };
                *sending += 1;
                self.sending.push(Box::pin(dispatcher.deliver(claim)));
            }
            if *sending == 0 {
                self.sending_to.remove(endpoint);
            }
        }
        self.waiting.retain(|_, claims| !claims.is_empty());
    }
}
