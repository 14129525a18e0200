//! Page sizes and opaque keyset cursors (spec §8).
//!
//! A cursor names the last row of the previous page by its sort key, never by an offset, so
//! rows inserted while a client pages cannot shift what it sees. It is base64url text holding
//! the list it belongs to, the key, and a checksum: a garbled, truncated or edited cursor, or
//! one from another list, is refused as a validation error instead of silently restarting.
//! The checksum detects tampering but is not a secret: the key only holds values the caller
//! has already seen.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};

use crate::Timestamp;
use crate::checkpoint::checkpoint;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PageLimit(u8);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("must be an integer between 1 and 100")]
pub struct InvalidLimit;

impl PageLimit {
    pub const MAX: u8 = 100;
    pub const PRODUCTS_DEFAULT: PageLimit = PageLimit(20);
    pub const ORDERS_DEFAULT: PageLimit = PageLimit(20);
    pub const CLIENTS_DEFAULT: PageLimit = PageLimit(20);
    pub const STOCK_DEFAULT: PageLimit = PageLimit(50);

    pub fn new(value: i64) -> Result<Self, InvalidLimit> {
        u8::try_from(value)
            .ok()
            .filter(|v| (1..=Self::MAX).contains(v))
            .map(Self)
            .ok_or(InvalidLimit)
    }

    /// Decimal digits only: `"20"`, not `"+20"`, `"2e1"` or `"20.0"`.
    pub fn parse(text: &str) -> Result<Self, InvalidLimit> {
        if text.is_empty() || text.len() > 3 || !text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(InvalidLimit);
        }
        text.parse::<i64>()
            .map_err(|_| InvalidLimit)
            .and_then(Self::new)
    }

    pub const fn get(self) -> usize {
        self.0 as usize
    }
}

/// The list a cursor belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CursorKind {
    Products,
    Orders,
    Stock,
    Clients,
    /// The console's activity page (stock movements and tracking switches).
    Activity,
    /// The console's page of the writes made by API keys (`crate::api_write`).
    ApiWrites,
    /// Orders, clients and stock walked since a time (`updatedSince`, [`crate::sync`]).
    OrdersChanged,
    ClientsChanged,
    StockChanged,
    /// Webhook endpoints, deliveries and events (API v2).
    WebhookEndpoints,
    WebhookDeliveries,
    WebhookEvents,
}

impl CursorKind {
    const fn tag(self) -> &'static str {
        match self {
            CursorKind::Products => "p",
            CursorKind::Orders => "o",
            CursorKind::Stock => "s",
            CursorKind::Clients => "c",
            CursorKind::Activity => "a",
            CursorKind::ApiWrites => "aw",
            CursorKind::OrdersChanged => "oc",
            CursorKind::ClientsChanged => "cc",
            CursorKind::StockChanged => "sc",
            CursorKind::WebhookEndpoints => "we",
            CursorKind::WebhookDeliveries => "wd",
            CursorKind::WebhookEvents => "wv",
        }
    }
}

const VERSION: &str = "1";
const SEPARATOR: char = '|';
const CHECKSUM_BYTES: usize = 6;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("is not a cursor returned by this list; start again without it")]
pub struct InvalidCursor;

/// The sort key of the last row of a page, as strings. Each list names its own key and
/// converts it to and from these parts; parts never contain the separator (ids and numbers
/// cannot).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cursor {
    kind: CursorKind,
    parts: Vec<String>,
}

impl Cursor {
    pub fn new(kind: CursorKind, parts: Vec<String>) -> Self {
        Self { kind, parts }
    }

    pub fn parts(&self) -> &[String] {
        &self.parts
    }

    fn checksum(body: &str) -> String {
        let digest = Sha256::digest(body.as_bytes());
        crate::hex::to_lower_hex(&digest[..CHECKSUM_BYTES])
    }

    pub fn encode(&self) -> String {
        let mut body = format!("{VERSION}{SEPARATOR}{}", self.kind.tag());
        for part in &self.parts {
            body.push(SEPARATOR);
            body.push_str(part);
        }
        let checksum = Self::checksum(&body);
        URL_SAFE_NO_PAD.encode(format!("{body}{SEPARATOR}{checksum}"))
    }

    pub fn decode(text: &str, expected: CursorKind) -> Result<Self, InvalidCursor> {
        let bytes = URL_SAFE_NO_PAD
            .decode(text.as_bytes())
            .map_err(|_| InvalidCursor)?;
        let decoded = String::from_utf8(bytes).map_err(|_| InvalidCursor)?;
        let (body, checksum) = decoded.rsplit_once(SEPARATOR).ok_or(InvalidCursor)?;
        if Self::checksum(body) != checksum {
            return Err(InvalidCursor);
        }
        let mut fields = body.split(SEPARATOR);
        if fields.next() != Some(VERSION) || fields.next() != Some(expected.tag()) {
            return Err(InvalidCursor);
        }
        Ok(Self {
            kind: expected,
            parts: fields.map(str::to_owned).collect(),
        })
    }
}

/// One page of a keyset-paginated list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub has_more: bool,
    pub next_cursor: Option<String>,
    pub limit: PageLimit,
    /// The checkpoint of an API list page (`checkpoint.rs`); `None` elsewhere.
    pub synced_at: Option<Timestamp>,
}

impl<T> Page<T> {
    /// Builds a page from `limit + 1` rows fetched in list order: the extra row only tells
    /// that there is more, and the cursor names the last row kept.
    pub fn from_overfetch(
        mut rows: Vec<T>,
        limit: PageLimit,
        cursor_of: impl Fn(&T) -> Cursor,
    ) -> Self {
        let has_more = rows.len() > limit.get();
        rows.truncate(limit.get());
        let next_cursor = if has_more {
            rows.last().map(|last| cursor_of(last).encode())
        } else {
            None
        };
        Self {
            items: rows,
            has_more,
            next_cursor,
            limit,
            synced_at: None,
        }
    }

    /// The page of an API list whose read started at `read_started`, with its checkpoint.
    pub fn read_at(self, read_started: Timestamp) -> Self {
        Self {
            synced_at: Some(checkpoint(read_started)),
            ..self
        }
    }

    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Page<U> {
        Page {
            items: self.items.into_iter().map(f).collect(),
            has_more: self.has_more,
            next_cursor: self.next_cursor,
            limit: self.limit,
            synced_at: self.synced_at,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_bounds() {
        assert_eq!(PageLimit::parse("1").unwrap().get(), 1);
        assert_eq!(PageLimit::parse("100").unwrap().get(), 100);
        for bad in [
            "0",
            "101",
            "-1",
            "abc",
            "",
            "+5",
            "2e1",
            "20.0",
            "0100",
            "99999999999",
        ] {
            assert_eq!(PageLimit::parse(bad), Err(InvalidLimit), "{bad}");
        }
    }

    #[test]
    fn cursor_round_trips_and_is_url_safe() {
        let cursor = Cursor::new(
            CursorKind::Orders,
            vec!["1732181400000".into(), "ord_1".into()],
        );
        let text = cursor.encode();
        assert!(
            text.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        );
        assert_eq!(Cursor::decode(&text, CursorKind::Orders), Ok(cursor));
    }

    #[test]
    fn cursor_of_another_list_is_refused() {
        let text = Cursor::new(CursorKind::Products, vec!["p1".into()]).encode();
        assert_eq!(Cursor::decode(&text, CursorKind::Stock), Err(InvalidCursor));
    }

    #[test]
    fn tampered_or_garbled_cursors_are_refused() {
        let text = Cursor::new(CursorKind::Products, vec!["prod_1".into()]).encode();
        let forged = URL_SAFE_NO_PAD.encode("1|p|prod_9|000000000000");
        let mut flipped = text.clone().into_bytes();
        flipped[3] = if flipped[3] == b'A' { b'B' } else { b'A' };
        let flipped = String::from_utf8(flipped).unwrap();
        for bad in [
            forged.as_str(),
            flipped.as_str(),
            &text[..text.len() - 2],
            "",
            "!!!",
            "Zm9v",
        ] {
            assert_eq!(
                Cursor::decode(bad, CursorKind::Products),
                Err(InvalidCursor),
                "{bad}"
            );
        }
    }

    #[test]
    fn page_from_overfetch_keeps_limit_rows_and_points_at_the_last() {
        let limit = PageLimit::new(2).unwrap();
        let cursor_of = |n: &i32| Cursor::new(CursorKind::Products, vec![n.to_string()]);
        let page = Page::from_overfetch(vec![1, 2, 3], limit, cursor_of);
        assert_eq!(page.items, vec![1, 2]);
        assert!(page.has_more);
        let next =
            Cursor::decode(page.next_cursor.as_deref().unwrap(), CursorKind::Products).unwrap();
        assert_eq!(next.parts(), ["2"]);

        let last = Page::from_overfetch(vec![1, 2], limit, cursor_of);
        assert!(!last.has_more);
        assert_eq!(last.next_cursor, None);
    }
}
