//! Incremental sync runs: every item changed since a checkpoint, a page at a time, then the
//! checkpoint of the next run.

use std::fmt;
use std::marker::PhantomData;
use std::str::FromStr;

use serde::de::DeserializeOwned;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::client::Client;
use crate::error::ApiError;
use crate::models::{Client as ShopClient, Order, Page, Product, StockEntry};
use crate::query::{self, ClientQuery, ListQuery, OrderQuery, Params, ProductQuery, StockQuery};

/// The page size when the query sets none: the API's largest, so a run costs the fewest
/// requests of the rate limit.
const SYNC_PAGE_SIZE: u32 = 100;

/// Where a sync run starts: the `updatedSince` of its requests.
///
/// Take it from [`SyncRun::checkpoint`], which is the server's `pageInfo.syncedAt` and so
/// immune to a skewed local clock. Store it as text (`to_string()`, RFC 3339) and restore it
/// with `parse()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Checkpoint(OffsetDateTime);

impl Checkpoint {
    /// A checkpoint at a chosen instant, e.g. to fetch what changed since a known date.
    pub fn new(at: OffsetDateTime) -> Self {
        Self(at)
    }

    pub fn instant(self) -> OffsetDateTime {
        self.0
    }
}

impl fmt::Display for Checkpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The very text sent as `updatedSince`, so a stored checkpoint is what was asked.
        f.write_str(&query::rfc3339(self.0))
    }
}

impl FromStr for Checkpoint {
    type Err = time::error::Parse;

    /// An RFC 3339 instant with its offset, e.g. `2026-11-25T10:00:00.000Z`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        OffsetDateTime::parse(text.trim(), &Rfc3339).map(Self)
    }
}

/// One sync run over a list: the items changed since a checkpoint, a page at a time, and the
/// checkpoint of the next run once the last page has been handed out.
///
/// Call [`SyncRun::next_page`] until it returns `Ok(None)`, apply each page to your copy,
/// then store [`SyncRun::checkpoint`] and pass it to the next run. The checkpoint is the
/// first page's `syncedAt`: the server's read time minus an overlap of a minute, so a change
/// committed late is never missed, and an item may be seen twice (across runs, and within
/// one run when it changes while you page): upsert by id, in the order received.
///
/// A failed page (after the client's own retries on 429, 503 and lost connections) leaves
/// the run where it was: calling `next_page` again asks for the same page.
///
/// ```no_run
/// use shop_api_client::{Checkpoint, Client, OrderQuery};
///
/// # async fn run(client: Client, stored: Option<String>) -> Result<(), Box<dyn std::error::Error>> {
/// let since: Option<Checkpoint> = stored.as_deref().map(str::parse).transpose()?;
/// let mut run = client.sync_orders(OrderQuery::default(), since);
/// while let Some(orders) = run.next_page().await? {
///     for order in orders {
///         // upsert `order` by id: a later page read a later state
///     }
/// }
/// if let Some(next) = run.checkpoint() {
///     // store next.to_string(), now and not before: every change is applied
/// }
/// # Ok(()) }
/// ```
#[must_use = "a sync run sends nothing until `next_page` is called"]
pub struct SyncRun<T> {
    client: Client,
    path: &'static str,
    filters: Params,
    position: Position,
    synced_at: Option<OffsetDateTime>,
    items: PhantomData<fn() -> T>,
}

enum Position {
    First,
    After(String),
    /// The last page was handed out; the caller may still be applying it.
    LastGiven,
    /// `next_page` said `None`: everything was handed out and the caller came back for more.
    Finished,
}

impl<T: DeserializeOwned> SyncRun<T> {
    fn new<Q: ListQuery>(client: &Client, query: &Q) -> Self {
        Self {
            client: client.clone(),
            path: Q::PATH,
            filters: query.filters(),
            position: Position::First,
            synced_at: None,
            items: PhantomData,
        }
    }

    /// The next page of changed items (possibly empty), or `None` once the list is exhausted.
    pub async fn next_page(&mut self) -> Result<Option<Vec<T>>, ApiError> {
        let cursor = match &self.position {
            Position::First => None,
            Position::After(cursor) => Some(cursor.as_str()),
            Position::LastGiven | Position::Finished => {
                self.position = Position::Finished;
                return Ok(None);
            }
        };
        let page: Page<T> = self
            .client
            .list_page(self.path, self.filters.clone(), cursor)
            .await?;
        if matches!(self.position, Position::First) {
            // Later pages carry later instants; taking one of them would skip the changes
            // committed behind the pages already read.
            self.synced_at = page.page_info.synced_at;
        }
        self.position = match page.page_info.next_cursor {
            Some(cursor) => Position::After(cursor),
            None => Position::LastGiven,
        };
        Ok(Some(page.data))
    }

    /// The `updatedSince` of the next run: `Some` only after `next_page` returned `Ok(None)`
    /// (a checkpoint stored before every page is applied loses the changes not yet applied),
    /// and only if the server sends `syncedAt`. Without one, keep the previous checkpoint.
    pub fn checkpoint(&self) -> Option<Checkpoint> {
        match self.position {
            Position::Finished => self.synced_at.map(Checkpoint),
            _ => None,
        }
    }
}

impl<T> fmt::Debug for SyncRun<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SyncRun")
            .field("path", &self.path)
            .field("filters", &self.filters)
            .field("synced_at", &self.synced_at)
            .finish_non_exhaustive()
    }
}

/// The sync runs. In each, `since` replaces `query.updated_since` (`None`: the first run,
/// the whole list), `query.limit` defaults to 100, and `query.cursor` is ignored: a run
/// starts at the first page, whose `syncedAt` is its checkpoint. The other filters apply.
impl Client {
    /// Products changed since `since`, in id order. `query.active` defaults to active
    /// products only; pass [`ActiveFilter::All`](crate::ActiveFilter::All) to see
    /// deactivations too.
    pub fn sync_products(
        &self,
        query: ProductQuery,
        since: Option<Checkpoint>,
    ) -> SyncRun<Product> {
        let query = ProductQuery {
            cursor: None,
            limit: query.limit.or(Some(SYNC_PAGE_SIZE)),
            updated_since: since.map(Checkpoint::instant),
            ..query
        };
        SyncRun::new(self, &query)
    }

    /// Orders changed since `since`, oldest change first (whatever the creation date; the
    /// `date_from` / `date_to` filters still bound the creation date).
    pub fn sync_orders(&self, query: OrderQuery, since: Option<Checkpoint>) -> SyncRun<Order> {
        let query = OrderQuery {
            cursor: None,
            limit: query.limit.or(Some(SYNC_PAGE_SIZE)),
            updated_since: since.map(Checkpoint::instant),
            ..query
        };
        SyncRun::new(self, &query)
    }

    /// Clients changed since `since` (their fields, or their loyalty), oldest change first.
    pub fn sync_clients(
        &self,
        query: ClientQuery,
        since: Option<Checkpoint>,
    ) -> SyncRun<ShopClient> {
        let query = ClientQuery {
            cursor: None,
            limit: query.limit.or(Some(SYNC_PAGE_SIZE)),
            updated_since: since.map(Checkpoint::instant),
            ..query
        };
        SyncRun::new(self, &query)
    }

    /// Stock entries whose stock moved or whose tracking was switched since `since`, oldest
    /// change first. `query.tracked_only` defaults to tracked variants only; pass
    /// `Some(false)` to see a switch of tracking off too.
    pub fn sync_stock(&self, query: StockQuery, since: Option<Checkpoint>) -> SyncRun<StockEntry> {
        let query = StockQuery {
            cursor: None,
            limit: query.limit.or(Some(SYNC_PAGE_SIZE)),
            updated_since: since.map(Checkpoint::instant),
            ..query
        };
        SyncRun::new(self, &query)
    }
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

    #[test]
    fn a_run_can_be_driven_from_a_spawned_task() {
        fn assert_send<T: Send>(_: &T) {}
        let client = Client::new("http://127.0.0.1:9", "k").unwrap();
        let mut run = client.sync_orders(OrderQuery::default(), None);
        // Compiling is the test: the future is never polled, nothing is sent.
        assert_send(&run.next_page());
    }

    #[test]
    fn a_checkpoint_round_trips_through_its_text() {
        let checkpoint: Checkpoint = "2026-11-25T10:00:00.250Z".parse().unwrap();
        assert_eq!(checkpoint.instant(), datetime!(2026-11-25 10:00:00.25 UTC));
        let stored = checkpoint.to_string();
        assert_eq!(stored, "2026-11-25T10:00:00.25Z");
        assert_eq!(stored.parse::<Checkpoint>().unwrap(), checkpoint);

        let offset: Checkpoint = "2026-11-25T12:00:00+02:00\n".parse().unwrap();
        assert_eq!(offset.instant(), datetime!(2026-11-25 10:00 UTC));
        assert_eq!(offset.to_string(), "2026-11-25T12:00:00+02:00");
    }

    #[test]
    fn a_checkpoint_without_time_or_offset_is_refused() {
        for text in ["", "2026-11-25", "2026-11-25T10:00:00", "yesterday"] {
            assert!(text.parse::<Checkpoint>().is_err(), "{text:?}");
        }
    }
}
