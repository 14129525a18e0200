//! The demo shop: a realistic catalogue loaded through the import path, a fresh key, and an
//! owner of the shop with a fresh password for the console.

use serde_json::{Value, json};
use shop_domain::api_key::PresentedKey;
use shop_domain::owner::{OwnerEmail, Password};
use shop_domain::scope::ScopeSet;
use shop_domain::shop::{ShopSlug, SubscriptionStatus};
use shop_ports::usecase::{NewKey, NewShop, OwnerAdminError, ShopAdminError};

mod customers;

use crate::adapters::UuidV7Ids;
use crate::import_file;
use crate::services::Services;

pub const DEMO_SLUG: &str = "demo";
pub const DEMO_OWNER_EMAIL: &str = "owner@demo.example";

/// What `demo` prints: shown once, kept nowhere.
pub struct DemoAccess {
    /// A fresh full-scope key.
    pub key: String,
    pub owner_email: OwnerEmail,
    /// A fresh random password of the demo shop's owner.
    pub owner_password: String,
}

/// Creates the demo shop and its catalogue unless the database already holds it, then
/// returns a fresh full-scope key and its owner's e-mail with a fresh password.
pub async fn prepare(services: &Services) -> anyhow::Result<DemoAccess> {
    let slug = ShopSlug::parse(DEMO_SLUG)?;
    match services.shops.find(&slug).await {
        Ok(_) => tracing::info!("the demo shop exists; keeping its data"),
        Err(ShopAdminError::UnknownShop(_)) => {
            services
                .shops
                .create(NewShop {
                    slug: slug.clone(),
                    name: "Maison Lumière (demo)".to_owned(),
                    public_api_in_plan: true,
                    subscription: SubscriptionStatus::Active,
                })
                .await?;
            let data = import_file::parse(&catalogue().to_string(), &UuidV7Ids)
                .map_err(|problems| anyhow::anyhow!("demo data is invalid: {problems:?}"))?;
            let report = services.import.run(&slug, data).await?;
            tracing::info!(summary = %crate::cli::describe(&report), "created the demo shop");
        }
        Err(other) => return Err(other.into()),
    }
    let created = services
        .keys
        .create(NewKey {
            shop: slug.clone(),
            label: "demo".to_owned(),
            scopes: ScopeSet::all(),
            expires_at: None,
        })
        .await?;
    let (owner_email, owner_password) = owner(services, &slug).await?;
    Ok(DemoAccess {
        key: PresentedKey::reveal(&created.full_key),
        owner_email,
        owner_password,
    })
}

/// The demo shop's owner, created the first time, with a new random password every time
/// (which ends the sessions the previous one opened).
async fn owner(services: &Services, slug: &ShopSlug) -> anyhow::Result<(OwnerEmail, String)> {
    let email = OwnerEmail::parse(DEMO_OWNER_EMAIL)?;
    let typed = random_password()?;
    let password = Password::new(&typed)?;
    match services.owners.create(slug, email.clone(), &password).await {
        Ok(_) => {}
        Err(OwnerAdminError::EmailTaken(_)) => {
            services.owners.set_password(&email, &password).await?;
        }
        Err(other) => return Err(other.into()),
    }
    Ok((email, typed))
}

/// 20 characters drawn uniformly from 56 without look-alikes (no 0/O, 1/l/I): 116 bits.
fn random_password() -> anyhow::Result<String> {
    const ALPHABET: &[u8; 56] = b"abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    // Bytes from 224 up are drawn again, so that every character is equally likely.
    const UNBIASED_BELOW: u8 = 224;
    let mut password = String::with_capacity(20);
    while password.len() < 20 {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("no OS randomness: {e}"))?;
        password.extend(
            bytes
                .iter()
                .filter(|byte| **byte < UNBIASED_BELOW)
                .map(|byte| char::from(ALPHABET[usize::from(*byte) % ALPHABET.len()]))
                .take(20 - password.len()),
        );
    }
    Ok(password)
}

const CATEGORIES: [(&str, &str); 5] = [
    ("cat_home", "Maison"),
    ("cat_kitchen", "Cuisine"),
    ("cat_textile", "Textile"),
    ("cat_stationery", "Papeterie"),
    ("cat_beauty", "Beauté"),
];
const BRANDS: [(&str, &str); 4] = [
    ("brand_atelier", "Atelier Nord"),
    ("brand_loire", "Tissages de Loire"),
    ("brand_papier", "Papier & Co"),
    ("brand_savon", "Savonnerie du Port"),
];
const ITEMS: [&str; 12] = [
    "Bougie parfumée",
    "Mug en grès",
    "Plaid en laine",
    "Carnet ligné",
    "Savon à l'huile d'olive",
    "Torchon en lin",
    "Vase en verre",
    "Coussin velours",
    "Stylo plume",
    "Bol à thé",
    "Diffuseur d'ambiance",
    "Tablier de cuisine",
];
const FINISHES: [&str; 5] = ["naturel", "bleu nuit", "terracotta", "sauge", "ivoire"];
const SIZES: [&str; 5] = ["XS", "S", "M", "L", "XL"];
const SWATCHES: [&str; 5] = ["#E8DCC8", "#1B2A4A", "#C4622D", "#9CAF88", "#FFFFF0"];

const PRODUCTS: usize = 48;

/// 48 products: every fifth one inactive, every seventh untracked, a few with many variants,
/// some inactive variants, promotions, and products without EAN, category or brand.
pub fn catalogue() -> Value {
    let tiers = json!([
        {"id": "tier_bronze", "name": "Bronze", "minPointsLifetime": 0, "color": "#CD7F32"},
        {"id": "tier_silver", "name": "Argent", "minPointsLifetime": 500, "color": "#C0C0C0"},
        {"id": "tier_gold", "name": "Or", "minPointsLifetime": 2000, "color": "#FFD700"},
    ]);
    let products: Vec<Value> = (0..PRODUCTS).map(product).collect();
    let mut data = json!({"loyaltyTiers": tiers, "products": products});
    customers::add(&mut data);
    data
}

fn product(n: usize) -> Value {
    let item = ITEMS[n % ITEMS.len()];
    let finish = FINISHES[(n / ITEMS.len()) % FINISHES.len()];
    let price = 590 + (n as i64 * 370) % 6_000;
    let variant_count = match n % 9 {
        0 => 5,
        4 => 8,
        _ => 1 + n % 3,
    };
    let variants: Vec<Value> = (0..variant_count)
        .map(|v| {
            let label = if variant_count >= 5 { SIZES[v % SIZES.len()].to_owned() } else { FINISHES[(n + v) % FINISHES.len()].to_owned() };
            json!({
                "id": format!("demo_var_{n:03}_{v}"),
                "label": if v >= SIZES.len() { format!("{label} (long)") } else { label },
                "sku": format!("MLU-{n:03}-{v}"),
                "barcode": format!("376{:010}", n * 10 + v),
                "swatchColor": if n.is_multiple_of(2) { Value::from(SWATCHES[(n + v) % SWATCHES.len()]) } else { Value::Null },
                "priceCents": price + v as i64 * 100,
                "stock": ((n * 7 + v * 3) % 25) as i64 - 2,
                "lowStockThreshold": 3,
                "isDefault": v == 0,
                "active": !(v > 0 && (n + v).is_multiple_of(6)),
                "order": v,
            })
        })
        .collect();
    let (category_id, category_name) = CATEGORIES[n % CATEGORIES.len()];
    let (brand_id, brand_name) = BRANDS[n % BRANDS.len()];
    let promo = n % 6 == 1;
    json!({
        "id": format!("demo_prod_{n:03}"),
        "name": format!("{item} {finish}"),
        "productType": if variant_count > 1 { "variable" } else { "simple" },
        "ean": if n % 8 == 3 { Value::Null } else { Value::from(format!("376{:010}", n * 10)) },
        "sku": format!("MLU-{n:03}"),
        "priceCents": if promo { price * 8 / 10 } else { price },
        "listPriceCents": price,
        "compareAtPriceCents": if promo { Value::from(price) } else { Value::Null },
        "promoActive": promo,
        "taxRate": if n % 10 == 9 { "5.50" } else { "20.00" },
        "active": n % 5 != 4,
        "trackStock": n % 7 != 6,
        "tags": if n.is_multiple_of(3) { json!(["nouveauté"]) } else { json!([]) },
        "photos": [format!("https://cdn.example.com/demo/{n:03}.jpg")],
        "category": if n % 11 == 10 { Value::Null } else { json!({"id": category_id, "name": category_name}) },
        "brand": if n % 4 == 3 { Value::Null } else { json!({"id": brand_id, "name": brand_name}) },
        "variants": variants,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_catalogue_imports_and_covers_every_case() {
        let import = import_file::parse(&catalogue().to_string(), &UuidV7Ids).unwrap();
        let products: Vec<_> = import.products.iter().map(|p| &p.product).collect();
        assert!(products.len() >= 40);
        assert!(products.iter().filter(|p| p.variants.len() >= 5).count() >= 3);
        assert!(products.iter().any(|p| !p.active));
        assert!(products.iter().any(|p| !p.track_stock));
        assert!(
            products
                .iter()
                .any(|p| p.variants.iter().any(|v| !v.active))
        );
        assert!(
            products
                .iter()
                .any(|p| p.category.is_none() && p.brand.is_some())
        );
        assert_eq!(import.tiers.len(), 3);
        assert!(import.clients.len() >= 50);
        assert!(import.orders.len() >= 200);
        let orders: Vec<_> = import.orders.iter().map(|o| &o.order).collect();
        use shop_domain::order::{OrderSource, OrderStatus, PaymentStatus};
        assert!(
            OrderSource::ALL
                .iter()
                .all(|s| orders.iter().any(|o| o.source == *s))
        );
        assert!(
            OrderStatus::ALL
                .iter()
                .all(|s| orders.iter().any(|o| o.status == *s))
        );
        assert!(
            PaymentStatus::ALL
                .iter()
                .all(|s| orders.iter().any(|o| o.payment_status == *s))
        );
        assert!(!import.lottery_tickets.is_empty() && !import.spins.is_empty());
    }
}
