//! The response bodies of the API (spec §2), as plain typed values.
//!
//! Field names are the spec's, in snake case (`priceCents` is [`Product::price_cents`]).
//! Money is in integer cents (`i64`); VAT rates stay decimal strings (`"20.00"`); instants
//! are [`OffsetDateTime`] (the API sends RFC 3339 UTC with milliseconds); a client's birth
//! date is a [`Date`]. A field the API returns as `null` is an `Option`. Unknown fields are
//! ignored, so that additions to the API do not break this crate.

use serde::{Deserialize, Serialize};
use time::{Date, OffsetDateTime};

time::serde::format_description!(pub(crate) iso_date, Date, "[year]-[month]-[day]");

/// `GET /me`: the shop and the key that called.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Me {
    pub shop: Shop,
    pub api_key: ApiKeyInfo,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Shop {
    pub id: String,
    pub name: String,
    pub slug: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct ApiKeyInfo {
    pub label: String,
    /// Scopes such as `products:read` or `stock:write`.
    pub scopes: Vec<String>,
}

/// One page of a list: `{data, pageInfo}` (spec §8).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Page<T> {
    pub data: Vec<T>,
    pub page_info: PageInfo,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageInfo {
    pub has_more: bool,
    /// Pass it as `cursor` for the next page; `None` on the last page.
    pub next_cursor: Option<String>,
    /// The page size applied.
    pub limit: u32,
    /// The checkpoint of a sync run: pass the FIRST page's value as `updatedSince` on the
    /// next run, once this run has reached the last page ([`crate::SyncRun`] does it). The
    /// server's read time minus an overlap, so that a change committed late is not missed.
    /// `None` from a server older than this field.
    #[serde(default, with = "time::serde::rfc3339::option")]
    pub synced_at: Option<OffsetDateTime>,
}

/// A product with its variants.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Product {
    pub id: String,
    pub name: String,
    pub product_type: String,
    pub ean: Option<String>,
    pub sku: Option<String>,
    pub price_cents: i64,
    pub list_price_cents: i64,
    pub compare_at_price_cents: Option<i64>,
    pub promo_active: bool,
    /// A decimal string with two decimals: `"20.00"`, `"5.50"`.
    pub tax_rate: String,
    pub active: bool,
    pub track_stock: bool,
    /// The sum of every variant's stock when the stock is tracked.
    pub stock_quantity: Option<i64>,
    pub tags: Vec<String>,
    /// Photo URLs.
    pub photos: Vec<String>,
    pub category: Option<Category>,
    pub brand: Option<Brand>,
    pub variants: Vec<Variant>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Category {
    pub id: String,
    pub name: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Brand {
    pub id: String,
    pub name: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Variant {
    pub id: String,
    pub label: String,
    pub sku: Option<String>,
    pub barcode: Option<String>,
    /// `#RRGGBB`, upper case.
    pub swatch_color: Option<String>,
    pub price_cents: i64,
    pub stock: i64,
    pub low_stock_threshold: i64,
    pub is_default: bool,
    pub active: bool,
    /// Display position, from 0.
    pub order: i32,
}

/// Where an order was placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OrderSource {
    Pos,
    ClickCollect,
    Online,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OrderStatus {
    Pending,
    Preparing,
    Ready,
    Completed,
    Cancelled,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PaymentStatus {
    Pending,
    Paid,
    Refunded,
}

impl OrderSource {
    /// The API's spelling: `pos`, `click-collect`, `online`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pos => "pos",
            Self::ClickCollect => "click-collect",
            Self::Online => "online",
        }
    }
}

impl OrderStatus {
    /// The API's spelling, e.g. `completed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Preparing => "preparing",
            Self::Ready => "ready",
            Self::Completed => "completed",
            Self::Cancelled => "cancelled",
        }
    }
}

impl PaymentStatus {
    /// The API's spelling, e.g. `paid`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Paid => "paid",
            Self::Refunded => "refunded",
        }
    }
}

/// An order with its lines. The confidential fields of the spec are never sent.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Order {
    pub id: String,
    pub order_number: i64,
    pub source: OrderSource,
    pub status: OrderStatus,
    pub payment_status: PaymentStatus,
    pub subtotal_cents: i64,
    pub discount_amount_cents: i64,
    pub tax_amount_cents: i64,
    pub total_cents: i64,
    /// `None` while unpaid.
    pub payment_method: Option<String>,
    /// `None` while unpaid.
    #[serde(with = "time::serde::rfc3339::option")]
    pub paid_at: Option<OffsetDateTime>,
    /// Always `null` in v1 (the spec defines no shape for it); kept raw.
    pub customer: Option<serde_json::Value>,
    pub client_id: Option<String>,
    pub items: Vec<OrderItem>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderItem {
    pub id: String,
    pub product_id: String,
    pub variant_id: String,
    pub product_name: String,
    pub unit_price_cents: i64,
    pub quantity: i64,
    pub total_cents: i64,
    /// A decimal string with two decimals: `"20.00"`.
    pub tax_rate: String,
    pub tax_amount_cents: i64,
    /// Always `null` in v1 (the spec defines no shape for it); kept raw.
    pub refunded: Option<serde_json::Value>,
}

/// An identified client of the shop. The private note is never sent.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Client {
    pub id: String,
    pub name: String,
    pub display_name: Option<String>,
    pub phone: Option<String>,
    pub email: Option<String>,
    pub billing: Billing,
    #[serde(with = "iso_date::option")]
    pub birth_date: Option<Date>,
    pub loyalty: ClientLoyalty,
    pub receipt_by_email: bool,
    pub tags: Vec<String>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Billing {
    pub company: Option<String>,
    pub vat_number: Option<String>,
    pub address: Option<String>,
    pub city: Option<String>,
    pub postal_code: Option<String>,
    /// Always set (`"FR"` by default).
    pub country: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientLoyalty {
    pub points: i64,
    #[serde(with = "time::serde::rfc3339::option")]
    pub expires_at: Option<OffsetDateTime>,
    pub points_lifetime: i64,
    pub points_all_time: i64,
    /// `None` when the client never reached a tier.
    #[serde(with = "time::serde::rfc3339::option")]
    pub tier_achieved_at: Option<OffsetDateTime>,
}

/// `GET /clients/:id/loyalty`: balance, tiers, latest tickets and spins.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoyaltySummary {
    pub client_id: String,
    pub points: i64,
    pub points_lifetime: i64,
    pub points_all_time: i64,
    pub tier: TierStanding,
    /// The 10 latest, newest first.
    pub recent_lottery_tickets: Vec<LotteryTicket>,
    /// The 10 latest, newest first.
    pub recent_spins: Vec<Spin>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct TierStanding {
    /// `None` below every tier, or when the shop has none.
    pub current: Option<CurrentTier>,
    /// `None` at the top tier, or when the shop has none.
    pub next: Option<NextTier>,
    /// The fraction of the way to the next tier, 0 to 1.
    pub progress: f64,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CurrentTier {
    pub id: String,
    pub name: String,
    pub min_points_lifetime: i64,
    /// `#RRGGBB`, upper case.
    pub color: String,
    #[serde(with = "time::serde::rfc3339::option")]
    pub achieved_at: Option<OffsetDateTime>,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NextTier {
    pub id: String,
    pub name: String,
    pub min_points_lifetime: i64,
    pub points_to_next: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LotteryTicket {
    pub id: String,
    /// `None` when the ticket came from no order.
    pub order_id: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Spin {
    pub id: String,
    pub order_id: Option<String>,
    pub won: bool,
    /// `None` when the spin did not win.
    pub prize_label: Option<String>,
    pub prize_type: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
}

/// One variant's stock (`GET /stock`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StockEntry {
    pub variant_id: String,
    pub product_id: String,
    pub product_name: String,
    pub variant_label: String,
    pub sku: Option<String>,
    pub barcode: Option<String>,
    pub tracked: bool,
    pub stock: i64,
    pub low_stock_threshold: i64,
    pub is_low_stock: bool,
    pub is_out_of_stock: bool,
    pub active: bool,
    /// The last stock movement (adjustment, import) or switch of tracking. `None` from a
    /// server older than this field.
    #[serde(default, with = "time::serde::rfc3339::option")]
    pub updated_at: Option<OffsetDateTime>,
}

/// The result of `POST /stock/adjustments`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StockAdjustment {
    pub variant_id: String,
    pub product_id: String,
    pub previous_stock: i64,
    pub new_stock: i64,
    /// The quantity applied.
    pub delta: i64,
    /// The stock movement recorded; a replay returns the first one.
    pub movement_id: String,
    #[serde(with = "time::serde::rfc3339")]
    pub applied_at: OffsetDateTime,
}

/// A stock adjustment as [`crate::Client::adjust_stock`] returns it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdjustmentOutcome {
    pub adjustment: StockAdjustment,
    /// The `Idempotency-Key` sent (on the first attempt and on every retry).
    pub idempotency_key: String,
    /// The server answered with the first response to this key (`Idempotent-Replayed:
    /// true`): the adjustment had already been applied, by an earlier call or attempt.
    pub replayed: bool,
}

/// `{data: T}`, the wrapper of single objects.
#[derive(Deserialize)]
pub(crate) struct Data<T> {
    pub data: T,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_product_decodes() {
        let json = r##"{"id":"p1","name":"Théière","productType":"variable","ean":null,"sku":"T-1",
            "priceCents":4500,"listPriceCents":5000,"compareAtPriceCents":null,"promoActive":true,
            "taxRate":"20.00","active":true,"trackStock":true,"stockQuantity":10,"tags":["a"],
            "photos":[],"category":{"id":"c","name":"Cuisine"},"brand":null,
            "variants":[{"id":"v","label":"Noir","sku":null,"barcode":null,"swatchColor":"#000000",
            "priceCents":4500,"stock":10,"lowStockThreshold":2,"isDefault":true,"active":true,"order":0}],
            "createdAt":"2026-01-05T10:00:00.000Z","updatedAt":"2026-02-01T08:30:15.250Z","future":1}"##;
        let product: Product = serde_json::from_str(json).unwrap();
        assert_eq!(product.price_cents, 4500);
        assert_eq!(product.variants[0].swatch_color.as_deref(), Some("#000000"));
        assert_eq!(product.updated_at.millisecond(), 250);
        assert_eq!(product.category.unwrap().name, "Cuisine");
    }

    #[test]
    fn an_order_and_a_client_decode_with_enums_and_dates() {
        let order = r#"{"id":"o1","orderNumber":1,"source":"click-collect","status":"ready",
            "paymentStatus":"pending","subtotalCents":900,"discountAmountCents":0,"taxAmountCents":150,
            "totalCents":900,"paymentMethod":null,"paidAt":null,"customer":null,"clientId":null,
            "items":[],"createdAt":"2026-03-10T00:00:00.000Z","updatedAt":"2026-03-10T00:00:00.000Z"}"#;
        let order: Order = serde_json::from_str(order).unwrap();
        assert_eq!(order.source, OrderSource::ClickCollect);
        assert_eq!(order.status, OrderStatus::Ready);
        assert_eq!(order.payment_status, PaymentStatus::Pending);
        assert!(order.paid_at.is_none());

        let client = r#"{"id":"c1","name":"Marie","displayName":null,"phone":null,"email":null,
            "billing":{"company":null,"vatNumber":null,"address":null,"city":null,"postalCode":null,"country":"FR"},
            "birthDate":"1990-04-17","loyalty":{"points":1,"expiresAt":null,"pointsLifetime":2,
            "pointsAllTime":3,"tierAchievedAt":"2026-02-01T10:00:00.000Z"},"receiptByEmail":true,
            "tags":[],"createdAt":"2026-01-01T00:00:00.000Z","updatedAt":"2026-01-02T00:00:00.000Z"}"#;
        let client: Client = serde_json::from_str(client).unwrap();
        let birth = client.birth_date.unwrap();
        assert_eq!(
            (birth.year(), u8::from(birth.month()), birth.day()),
            (1990, 4, 17)
        );
        assert!(client.loyalty.tier_achieved_at.is_some());
    }

    #[test]
    fn synced_at_and_a_stock_entry_updated_at_decode_and_may_be_absent() {
        let info: PageInfo = serde_json::from_str(
            r#"{"hasMore":false,"nextCursor":null,"limit":100,"syncedAt":"2026-11-25T10:00:00.000Z"}"#,
        )
        .unwrap();
        assert_eq!(
            info.synced_at,
            Some(time::macros::datetime!(2026-11-25 10:00 UTC))
        );
        let older: PageInfo =
            serde_json::from_str(r#"{"hasMore":true,"nextCursor":"c","limit":20}"#).unwrap();
        assert_eq!(older.synced_at, None);

        let entry = r#"{"variantId":"v","productId":"p","productName":"n","variantLabel":"l",
            "sku":null,"barcode":null,"tracked":true,"stock":1,"lowStockThreshold":0,
            "isLowStock":false,"isOutOfStock":false,"active":true"#;
        let with: StockEntry = serde_json::from_str(&format!(
            r#"{entry},"updatedAt":"2026-11-25T10:00:00.125Z"}}"#
        ))
        .unwrap();
        assert_eq!(with.updated_at.unwrap().millisecond(), 125);
        let without: StockEntry = serde_json::from_str(&format!("{entry}}}")).unwrap();
        assert_eq!(without.updated_at, None);
    }

    #[test]
    fn enum_spellings_match_serde() {
        for source in [
            OrderSource::Pos,
            OrderSource::ClickCollect,
            OrderSource::Online,
        ] {
            assert_eq!(
                serde_json::to_value(source).unwrap(),
                serde_json::json!(source.as_str())
            );
        }
        for status in [
            OrderStatus::Pending,
            OrderStatus::Preparing,
            OrderStatus::Ready,
            OrderStatus::Completed,
            OrderStatus::Cancelled,
        ] {
            assert_eq!(
                serde_json::to_value(status).unwrap(),
                serde_json::json!(status.as_str())
            );
        }
        for status in [
            PaymentStatus::Pending,
            PaymentStatus::Paid,
            PaymentStatus::Refunded,
        ] {
            assert_eq!(
                serde_json::to_value(status).unwrap(),
                serde_json::json!(status.as_str())
            );
        }
    }
}
