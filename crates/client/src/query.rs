//! The query parameters of the list endpoints. Every field is optional (`None`: the API's
//! default); build them with `..Default::default()`.

use time::format_description::well_known::Rfc3339;
use time::{Date, OffsetDateTime};

use crate::models::{OrderSource, OrderStatus, PaymentStatus};

/// `GET /products`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProductQuery {
    /// Start after this `nextCursor` (a stream resumes from it).
    pub cursor: Option<String>,
    /// Page size, 1 to 100 (default 20).
    pub limit: Option<u32>,
    /// Search over name, EAN, SKU and the variants' SKU and barcode.
    pub q: Option<String>,
    /// A category id (`category.id`).
    pub category: Option<String>,
    /// A brand id (`brand.id`).
    pub brand: Option<String>,
    pub product_type: Option<String>,
    /// Active products by default.
    pub active: Option<ActiveFilter>,
    /// Products updated at or after this instant (inclusive, millisecond precision).
    pub updated_since: Option<OffsetDateTime>,
}

/// The `active` filter of `GET /products`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ActiveFilter {
    Active,
    Inactive,
    /// Both, with inactive variants listed too.
    All,
}

/// `GET /orders` (newest first; with `updated_since`, by `updatedAt` ascending).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OrderQuery {
    pub cursor: Option<String>,
    /// Page size, 1 to 100 (default 20).
    pub limit: Option<u32>,
    pub status: Option<OrderStatus>,
    pub payment_status: Option<PaymentStatus>,
    pub source: Option<OrderSource>,
    pub client_id: Option<String>,
    /// Orders created at or after this bound.
    pub date_from: Option<DateBound>,
    /// Orders created at or before this bound (a whole UTC day for a [`DateBound::Day`]).
    pub date_to: Option<DateBound>,
    /// Orders updated at or after this instant (inclusive, millisecond precision).
    pub updated_since: Option<OffsetDateTime>,
}

/// A bound of `dateFrom` / `dateTo`: an instant or a whole UTC day.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DateBound {
    Instant(OffsetDateTime),
    Day(Date),
}

impl From<OffsetDateTime> for DateBound {
    fn from(at: OffsetDateTime) -> Self {
        Self::Instant(at)
    }
}

impl From<Date> for DateBound {
    fn from(day: Date) -> Self {
        Self::Day(day)
    }
}

/// `GET /clients` (by id; with `updated_since`, by `updatedAt` ascending).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientQuery {
    pub cursor: Option<String>,
    /// Page size, 1 to 100 (default 20).
    pub limit: Option<u32>,
    /// Search over name, display name, e-mail and phone.
    pub q: Option<String>,
    /// Clients updated at or after this instant (inclusive, millisecond precision).
    pub updated_since: Option<OffsetDateTime>,
}

/// `GET /stock` (by variant id; with `updated_since`, by `updatedAt` ascending).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StockQuery {
    pub cursor: Option<String>,
    /// Page size, 1 to 100 (default 50).
    pub limit: Option<u32>,
    pub product_id: Option<String>,
    /// Search over product name, EAN, SKU, the variant's SKU and barcode.
    pub q: Option<String>,
    pub low_stock_only: Option<bool>,
    /// `true` by default; `false` adds the variants without stock tracking.
    pub tracked_only: Option<bool>,
    /// Entries whose stock moved, or whose tracking was switched, at or after this instant
    /// (inclusive, millisecond precision).
    pub updated_since: Option<OffsetDateTime>,
}

pub(crate) type Params = Vec<(&'static str, String)>;

/// A list query: its filters as query parameters (without the cursor), and its cursor.
pub(crate) trait ListQuery {
    const PATH: &'static str;
    fn cursor(&self) -> Option<&str>;
    fn filters(&self) -> Params;
}

fn push(params: &mut Params, name: &'static str, value: Option<impl ToString>) {
    if let Some(value) = value {
        params.push((name, value.to_string()));
    }
}

pub(crate) fn rfc3339(at: OffsetDateTime) -> String {
    // Formatting an OffsetDateTime as RFC 3339 fails only for years outside 0..=9999 or
    // offsets with seconds; fall back to UTC, and let the server refuse what is still odd.
    at.format(&Rfc3339)
        .or_else(|_| at.to_offset(time::UtcOffset::UTC).format(&Rfc3339))
        .unwrap_or_default()
}

impl DateBound {
    fn to_param(self) -> String {
        match self {
            Self::Instant(at) => rfc3339(at),
            Self::Day(day) => format!(
                "{:04}-{:02}-{:02}",
                day.year(),
                u8::from(day.month()),
                day.day()
            ),
        }
    }
}

impl ActiveFilter {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Active => "true",
            Self::Inactive => "false",
            Self::All => "all",
        }
    }
}

impl ListQuery for ProductQuery {
    const PATH: &'static str = "products";
    fn cursor(&self) -> Option<&str> {
        self.cursor.as_deref()
    }
    fn filters(&self) -> Params {
        let mut params = Params::new();
        push(&mut params, "limit", self.limit);
        push(&mut params, "q", self.q.as_ref());
        push(&mut params, "category", self.category.as_ref());
        push(&mut params, "brand", self.brand.as_ref());
        push(&mut params, "productType", self.product_type.as_ref());
        push(&mut params, "active", self.active.map(ActiveFilter::as_str));
        push(&mut params, "updatedSince", self.updated_since.map(rfc3339));
        params
    }
}

impl ListQuery for OrderQuery {
    const PATH: &'static str = "orders";
    fn cursor(&self) -> Option<&str> {
        self.cursor.as_deref()
    }
    fn filters(&self) -> Params {
        let mut params = Params::new();
        push(&mut params, "limit", self.limit);
        push(&mut params, "status", self.status.map(OrderStatus::as_str));
        push(
            &mut params,
            "paymentStatus",
            self.payment_status.map(PaymentStatus::as_str),
        );
        push(&mut params, "source", self.source.map(OrderSource::as_str));
        push(&mut params, "clientId", self.client_id.as_ref());
        push(
            &mut params,
            "dateFrom",
            self.date_from.map(DateBound::to_param),
        );
        push(&mut params, "dateTo", self.date_to.map(DateBound::to_param));
        push(&mut params, "updatedSince", self.updated_since.map(rfc3339));
        params
    }
}

impl ListQuery for ClientQuery {
    const PATH: &'static str = "clients";
    fn cursor(&self) -> Option<&str> {
        self.cursor.as_deref()
    }
    fn filters(&self) -> Params {
        let mut params = Params::new();
        push(&mut params, "limit", self.limit);
        push(&mut params, "q", self.q.as_ref());
        push(&mut params, "updatedSince", self.updated_since.map(rfc3339));
        params
    }
}

impl ListQuery for StockQuery {
    const PATH: &'static str = "stock";
    fn cursor(&self) -> Option<&str> {
        self.cursor.as_deref()
    }
    fn filters(&self) -> Params {
        let mut params = Params::new();
        push(&mut params, "limit", self.limit);
        push(&mut params, "productId", self.product_id.as_ref());
        push(&mut params, "q", self.q.as_ref());
        push(&mut params, "lowStockOnly", self.low_stock_only);
        push(&mut params, "trackedOnly", self.tracked_only);
        push(&mut params, "updatedSince", self.updated_since.map(rfc3339));
        params
    }
}

#[cfg(test)]
mod tests {
    use time::macros::{date, datetime};

    use super::*;

    #[test]
    fn defaults_send_no_parameter() {
        assert!(ProductQuery::default().filters().is_empty());
        assert!(OrderQuery::default().filters().is_empty());
        assert!(ClientQuery::default().filters().is_empty());
        assert!(StockQuery::default().filters().is_empty());
    }

    #[test]
    fn parameters_use_the_api_names_and_spellings() {
        let products = ProductQuery {
            cursor: Some("abc".into()),
            limit: Some(7),
            product_type: Some("simple".into()),
            active: Some(ActiveFilter::All),
            updated_since: Some(datetime!(2026-01-01 10:00:00.5 +02:00)),
            ..Default::default()
        };
        assert_eq!(products.cursor(), Some("abc"));
        assert_eq!(
            products.filters(),
            [
                ("limit", "7".to_owned()),
                ("productType", "simple".to_owned()),
                ("active", "all".to_owned()),
                ("updatedSince", "2026-01-01T10:00:00.5+02:00".to_owned()),
            ]
        );
        let orders = OrderQuery {
            status: Some(OrderStatus::Completed),
            payment_status: Some(PaymentStatus::Paid),
            source: Some(OrderSource::ClickCollect),
            date_from: Some(date!(2026 - 11 - 01).into()),
            date_to: Some(datetime!(2026-11-15 23:00 UTC).into()),
            updated_since: Some(datetime!(2026-11-25 10:00:00.125 UTC)),
            ..Default::default()
        };
        assert_eq!(
            orders.filters(),
            [
                ("status", "completed".to_owned()),
                ("paymentStatus", "paid".to_owned()),
                ("source", "click-collect".to_owned()),
                ("dateFrom", "2026-11-01".to_owned()),
                ("dateTo", "2026-11-15T23:00:00Z".to_owned()),
                ("updatedSince", "2026-11-25T10:00:00.125Z".to_owned()),
            ]
        );
        let clients = ClientQuery {
            q: Some("marie".into()),
            updated_since: Some(datetime!(2026-11-25 12:00 +02:00)),
            ..Default::default()
        };
        assert_eq!(
            clients.filters(),
            [
                ("q", "marie".to_owned()),
                ("updatedSince", "2026-11-25T12:00:00+02:00".to_owned()),
            ]
        );
        let stock = StockQuery {
            low_stock_only: Some(true),
            tracked_only: Some(false),
            updated_since: Some(datetime!(2026-11-25 10:00 UTC)),
            ..Default::default()
        };
        assert_eq!(
            stock.filters(),
            [
                ("lowStockOnly", "true".to_owned()),
                ("trackedOnly", "false".to_owned()),
                ("updatedSince", "2026-11-25T10:00:00Z".to_owned()),
            ]
        );
    }
}
