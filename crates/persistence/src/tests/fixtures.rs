//! Domain values for the tests, with defaults that each test overrides where it matters.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use shop_domain::Timestamp;
use shop_domain::api_key::{ApiKey, KeyPrefix};
use shop_domain::catalogue::{BrandRef, CategoryRef, Product, Variant};
use shop_domain::client::{Billing, Client, ClientConfidential, ClientLoyalty};
use shop_domain::color::HexColor;
use shop_domain::id::{
    BrandId, CategoryId, ClientId, MovementId, OrderId, OrderItemId, ProductId, ShopId, SpinId,
    TicketId, TierId, VariantId,
};
use shop_domain::import::{
    GivenStamps, ImportedClient, ImportedEvent, ImportedOrder, ImportedProduct, ShopImport,
};
use shop_domain::loyalty::{LotteryTicket, LoyaltyTier, Spin};
use shop_domain::money::Cents;
use shop_domain::order::{
    Order, OrderConfidential, OrderItem, OrderSource, OrderStatus, PaymentStatus,
};
use shop_domain::scope::ScopeSet;
use shop_domain::shop::{Shop, ShopSlug, SubscriptionStatus};
use shop_domain::stock::{AdjustmentReason, IdempotencyKey, StockDelta};
use shop_domain::tax_rate::TaxRate;
use shop_domain::webhook::NewEvent;
use shop_ports::port::{
    AdjustmentCommand, ApiKeyStore, EventRenderer, IdGenerator, IdempotencyClaim, ImportRepository,
    ShopStore,
};

use crate::{Database, Outbox};

pub fn at(millis: i64) -> Timestamp {
    Timestamp::from_millis(millis)
}

pub fn shop(id: &str, slug: &str) -> Shop {
    Shop {
        id: ShopId::parse(id).unwrap(),
        slug: ShopSlug::parse(slug).unwrap(),
        name: format!("Shop {id}"),
        public_api_in_plan: true,
        subscription: SubscriptionStatus::Active,
    }
}

/// Shops `shop_a` and `shop_b`, stored.
pub async fn two_shops(db: &Database) -> (Shop, Shop) {
    let a = shop("shop_a", "boutique-a");
    let b = shop("shop_b", "boutique-b");
    db.insert_shop(&a, at(1)).await.unwrap();
    db.insert_shop(&b, at(1)).await.unwrap();
    (a, b)
}

pub fn key(prefix: &str, shop: &Shop, created_at: i64) -> ApiKey {
    ApiKey {
        prefix: KeyPrefix::parse(prefix).unwrap(),
        shop_id: shop.id.clone(),
        label: format!("key {prefix}"),
        scopes: ScopeSet::parse_list("products:read,stock:write").unwrap(),
        secret_hash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA".into(),
        created_at: at(created_at),
        expires_at: Some(at(created_at + 1_000_000)),
        revoked_at: None,
        last_used_at: None,
    }
}

pub fn variant(id: &str, order: i32) -> Variant {
    Variant {
        id: VariantId::parse(id).unwrap(),
        label: format!("Variant {id}"),
        sku: Some(format!("SKU-{id}")),
        barcode: Some(format!("37000{order}")),
        swatch_color: Some(HexColor::parse("#a1b2c3").unwrap()),
        price: Cents(1_250),
        stock: 4,
        low_stock_threshold: 2,
        is_default: order == 0,
        active: true,
        order,
        tracked: true,
    }
}

/// A product with one variant `<id>-v0`, no category or brand.
pub fn product(id: &str) -> Product {
    Product {
        id: ProductId::parse(id).unwrap(),
        name: format!("Product {id}"),
        product_type: "simple".into(),
        ean: Some("3760000000017".into()),
        sku: Some(format!("REF-{id}")),
        price: Cents(2_500),
        list_price: Cents(2_900),
        compare_at_price: Some(Cents(3_000)),
        promo_active: true,
        tax_rate: TaxRate::parse("5.50").unwrap(),
        active: true,
        track_stock: true,
        tags: vec!["wool".into(), "winter".into()],
        photos: vec!["https://cdn.example/p.jpg".into()],
        category: None,
        brand: None,
        variants: vec![variant(&format!("{id}-v0"), 0)],
        created_at: at(0),
        updated_at: at(0),
    }
}

/// The product with stock tracking off, on the product and every variant, as the import
/// reader builds a product whose `trackStock` is false.
pub fn untracked(mut product: Product) -> Product {
    product.track_stock = false;
    for variant in &mut product.variants {
        variant.tracked = false;
    }
    product
}

pub fn category(id: &str, name: &str) -> Option<CategoryRef> {
    Some(CategoryRef {
        id: CategoryId::parse(id).unwrap(),
        name: name.into(),
    })
}

pub fn brand(id: &str, name: &str) -> Option<BrandRef> {
    Some(BrandRef {
        id: BrandId::parse(id).unwrap(),
        name: name.into(),
    })
}

pub fn tier(id: &str, min_points: i64) -> LoyaltyTier {
    LoyaltyTier {
        id: TierId::parse(id).unwrap(),
        name: format!("Tier {id}"),
        min_points_lifetime: min_points,
        color: HexColor::parse("#C0C0C0").unwrap(),
    }
}

/// As read from a file that gives no timestamps.
pub fn imported(product: Product) -> ImportedProduct {
    ImportedProduct {
        product,
        stamps: GivenStamps::default(),
    }
}

/// As read from a file that gives both timestamps: the stored product carries exactly these.
pub fn imported_at(product: Product, created_at: i64, updated_at: i64) -> ImportedProduct {
    ImportedProduct {
        product,
        stamps: GivenStamps {
            created_at: Some(at(created_at)),
            updated_at: Some(at(updated_at)),
        },
    }
}

/// Stores products (the import is the catalogue's only write path).
pub async fn store_products(db: &Database, shop: &Shop, products: Vec<ImportedProduct>) {
    let data = ShopImport {
        products,
        ..ShopImport::default()
    };
    store(db, shop, data).await;
}

/// A client with every field set, no private note.
pub fn client(id: &str, name: &str) -> Client {
    Client {
        id: ClientId::parse(id).unwrap(),
        name: name.into(),
        display_name: Some(format!("{name} (display)")),
        phone: None,
        email: None,
        billing: Billing {
            company: Some("Acme SARL".into()),
            vat_number: Some("FR12345678901".into()),
            address: Some("1 rue de la Paix".into()),
            city: Some("Paris".into()),
            postal_code: Some("75002".into()),
            country: "FR".into(),
        },
        birth_date: Some("1990-04-17".into()),
        loyalty: ClientLoyalty {
            points: 120,
            expires_at: Some(at(9_000_000)),
            points_lifetime: 450,
            points_all_time: 600,
            tier_achieved_at: Some(at(4_000)),
        },
        receipt_by_email: true,
        tags: vec!["vip".into()],
        created_at: at(0),
        updated_at: at(0),
    }
}

/// As read from a file: stamped with `created_at` and `updated_at`, with its private fields.
pub fn imported_client(client: Client, at_ms: i64, private: ClientConfidential) -> ImportedClient {
    ImportedClient {
        client,
        confidential: private,
        stamps: GivenStamps {
            created_at: Some(at(at_ms)),
            updated_at: Some(at(at_ms)),
        },
    }
}

/// A line of product `product`, variant `<product>-v0`.
pub fn item(id: &str, product: &str) -> OrderItem {
    OrderItem {
        id: OrderItemId::parse(id).unwrap(),
        product_id: ProductId::parse(product).unwrap(),
        variant_id: VariantId::parse(format!("{product}-v0")).unwrap(),
        product_name: format!("Product {product}"),
        unit_price: Cents(1_250),
        quantity: 2,
        total: Cents(2_500),
        tax_rate: TaxRate::parse("20.00").unwrap(),
        tax_amount: Cents(417),
    }
}

/// A paid, completed point-of-sale order created (and updated) at `created_at`, without
/// items or client.
pub fn order(id: &str, created_at: i64) -> Order {
    Order {
        id: OrderId::parse(id).unwrap(),
        order_number: created_at,
        source: OrderSource::Pos,
        status: OrderStatus::Completed,
        payment_status: PaymentStatus::Paid,
        subtotal: Cents(2_500),
        discount_amount: Cents(0),
        tax_amount: Cents(417),
        total: Cents(2_500),
        payment_method: Some("card".into()),
        paid_at: Some(at(created_at)),
        client_id: None,
        items: vec![],
        created_at: at(created_at),
        updated_at: at(created_at),
    }
}

/// As read from a file that gives the order's own timestamps.
pub fn imported_order(order: Order, private: OrderConfidential) -> ImportedOrder {
    let stamps = GivenStamps {
        created_at: Some(order.created_at),
        updated_at: Some(order.updated_at),
    };
    ImportedOrder {
        order,
        confidential: private,
        stamps,
    }
}

pub fn ticket(id: &str, client: &str, created_at: i64) -> LotteryTicket {
    LotteryTicket {
        id: TicketId::parse(id).unwrap(),
        client_id: ClientId::parse(client).unwrap(),
        order_id: None,
        created_at: at(created_at),
    }
}

pub fn spin(id: &str, client: &str, created_at: i64) -> Spin {
    Spin {
        id: SpinId::parse(id).unwrap(),
        client_id: ClientId::parse(client).unwrap(),
        order_id: None,
        won: true,
        prize_label: Some("Bougie".into()),
        prize_type: Some("product".into()),
        created_at: at(created_at),
    }
}

/// As read from a file that gives the event's creation time.
pub fn imported_event<T: Clone>(event: T, created_at: i64) -> ImportedEvent<T> {
    ImportedEvent {
        event,
        created_at: Some(at(created_at)),
    }
}

/// Stores whatever the file holds, at `now` = 5000; a row given an `updatedAt` then carries it.
pub async fn store(db: &Database, shop: &Shop, data: ShopImport) {
    let given = GivenUpdates::of(&data);
    db.import(&shop.id, data, at(5_000)).await.unwrap();
    given.backdate(db).await;
}

/// The `updatedAt` each row of a file gives. The import stamps every row it writes with its
/// own time (`resolve_stamps`: a given one would hide the change from syncs); these tests want
/// rows at chosen times, so they write them over the import's, as a test-only shortcut.
struct GivenUpdates {
    products: Vec<(String, i64)>,
    clients: Vec<(String, i64)>,
    orders: Vec<(String, i64)>,
}

impl GivenUpdates {
    fn of(data: &ShopImport) -> Self {
        let given = |id: &str, stamps: &GivenStamps| {
            stamps
                .updated_at
                .map(|updated_at| (id.to_owned(), updated_at.millis()))
        };
        Self {
            products: data
                .products
                .iter()
                .filter_map(|p| given(p.product.id.as_str(), &p.stamps))
                .collect(),
            clients: data
                .clients
                .iter()
                .filter_map(|c| given(c.client.id.as_str(), &c.stamps))
                .collect(),
            orders: data
                .orders
                .iter()
                .filter_map(|o| given(o.order.id.as_str(), &o.stamps))
                .collect(),
        }
    }

    async fn backdate(self, db: &Database) {
        use diesel::prelude::*;
        use diesel_async::RunQueryDsl;

        use crate::database::with_conn;
        use crate::schema::{clients, orders, products};

        let written: Result<(), crate::error::DbError> = with_conn!(db, |conn| {
            async {
                for (id, millis) in &self.products {
                    diesel::update(products::table.filter(products::id.eq(id)))
                        .set(products::updated_at_ms.eq(millis))
                        .execute(&mut *conn)
                        .await?;
                }
                for (id, millis) in &self.clients {
                    diesel::update(clients::table.filter(clients::id.eq(id)))
                        .set(clients::updated_at_ms.eq(millis))
                        .execute(&mut *conn)
                        .await?;
                }
                for (id, millis) in &self.orders {
                    diesel::update(orders::table.filter(orders::id.eq(id)))
                        .set(orders::updated_at_ms.eq(millis))
                        .execute(&mut *conn)
                        .await?;
                }
                Ok::<(), diesel::result::Error>(())
            }
            .await
        });
        written.unwrap();
    }
}

/// Shop `shop_a`'s two API keys and shop `shop_b`'s one.
pub const KEY_A: &str = "0a1b2c3d";
pub const KEY_A2: &str = "1b2c3d4e";
pub const KEY_B: &str = "2c3d4e5f";

/// [`two_shops`] with their API keys ([`KEY_A`], [`KEY_A2`], [`KEY_B`]) stored: movements and
/// idempotency records name the key that made them.
pub async fn keyed_shops(db: &Database) -> (Shop, Shop) {
    let (a, b) = two_shops(db).await;
    for (prefix, shop) in [(KEY_A, &a), (KEY_A2, &a), (KEY_B, &b)] {
        db.insert_key(&key(prefix, shop, 1)).await.unwrap();
    }
    (a, b)
}

/// An adjustment of `variant` by `delta` at `at_ms`, made with [`KEY_A`] (or [`KEY_B`] for
/// `shop_b`), without an idempotency key. Each gets a movement id of its own, as the use case
/// gives it.
pub fn adjustment(shop: &Shop, variant: &str, delta: i64, at_ms: i64) -> AdjustmentCommand {
    static MOVEMENTS: AtomicUsize = AtomicUsize::new(0);
    let n = MOVEMENTS.fetch_add(1, Ordering::Relaxed);
    let prefix = if shop.id.as_str() == "shop_b" {
        KEY_B
    } else {
        KEY_A
    };
    AdjustmentCommand {
        shop: shop.id.clone(),
        variant_id: VariantId::parse(variant).ok(),
        delta: StockDelta::new(delta).unwrap(),
        reason: AdjustmentReason::parse("inventaire").unwrap(),
        key_prefix: KeyPrefix::parse(prefix).unwrap(),
        movement_id: MovementId::parse(format!("mv-{n:06}")).unwrap(),
        at: at(at_ms),
        idempotency: None,
    }
}

/// The same adjustment under an idempotency key, with a 24 h retention.
pub fn with_key(mut command: AdjustmentCommand, key: &str, fingerprint: &str) -> AdjustmentCommand {
    command.idempotency = Some(IdempotencyClaim {
        key: IdempotencyKey::parse(key).unwrap(),
        fingerprint: fingerprint.into(),
        expired_before: command.at.plus_millis(-24 * 3_600 * 1_000),
    });
    command
}

/// The body names the event and its resource: enough to tell which event a claim sends.
struct TypeAndResource;

impl EventRenderer for TypeAndResource {
    fn render(&self, event: &NewEvent) -> String {
        format!(
            r#"{{"id":"{}","type":"{}","resource":"{}"}}"#,
            event.id,
            event.event_type.as_str(),
            event.resource_key()
        )
    }
}

struct Counter(AtomicUsize);

impl IdGenerator for Counter {
    fn new_id(&self) -> String {
        format!("{:08}", self.0.fetch_add(1, Ordering::Relaxed))
    }
}

/// The database, its writes appending their events to the outbox.
pub fn with_outbox(db: &Database) -> Database {
    db.clone().with_outbox(Outbox::new(
        Arc::new(TypeAndResource),
        Arc::new(Counter(AtomicUsize::new(0))),
    ))
}
