//! Domain values for the tests, with defaults that each test overrides where it matters.

use shop_domain::Timestamp;
use shop_domain::api_key::{ApiKey, KeyPrefix};
use shop_domain::catalogue::{BrandRef, CategoryRef, Product, Variant};
use shop_domain::color::HexColor;
use shop_domain::id::{BrandId, CategoryId, ProductId, ShopId, TierId, VariantId};
use shop_domain::import::{GivenStamps, ImportedProduct, ShopImport};
use shop_domain::loyalty::LoyaltyTier;
use shop_domain::money::Cents;
use shop_domain::scope::ScopeSet;
use shop_domain::shop::{Shop, ShopSlug, SubscriptionStatus};
use shop_domain::tax_rate::TaxRate;
use shop_ports::port::{ImportRepository, ShopStore};

use crate::Database;

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
        tiers: vec![],
        products,
    };
    db.import(&shop.id, data, at(5_000)).await.unwrap();
}
