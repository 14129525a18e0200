//! The import file format: one JSON object in the API's own output shapes (spec §2 names).
//!
//! Every problem is reported with its JSON path (`products[3].variants[0].priceCents: expected
//! an integer`), all at once, so that a file is fixed in one round. Unknown fields are refused
//! rather than ignored, because a misspelt field would otherwise be lost silently; computed
//! output fields (`stockQuantity`) are accepted and ignored, so that API output re-imports.

mod clients;
mod loyalty;
mod orders;
mod reader;

use serde_json::Value;
use shop_domain::Timestamp;
use shop_domain::catalogue::{BrandRef, CategoryRef, Product, Variant};
use shop_domain::color::HexColor;
use shop_domain::id::{BrandId, CategoryId, ProductId, TierId, VariantId};
use shop_domain::import::{ImportProblem, ImportedProduct, ShopImport};
use shop_domain::loyalty::LoyaltyTier;

use shop_domain::tax_rate::TaxRate;
use shop_ports::port::IdGenerator;

use reader::{Object, Reader};

const MAX_NAME_LEN: usize = 500;

const TOP_LEVEL: &[&str] = &[
    "loyaltyTiers",
    "products",
    "clients",
    "orders",
    "lotteryTickets",
    "spins",
];
const TIER_FIELDS: &[&str] = &["id", "name", "minPointsLifetime", "color"];
const PRODUCT_FIELDS: &[&str] = &[
    "id",
    "name",
    "productType",
    "ean",
    "sku",
    "priceCents",
    "listPriceCents",
    "compareAtPriceCents",
    "promoActive",
    "taxRate",
    "active",
    "trackStock",
    "tags",
    "photos",
    "category",
    "brand",
    "variants",
    "createdAt",
    "updatedAt",
];
const PRODUCT_COMPUTED: &[&str] = &["stockQuantity"];
const VARIANT_FIELDS: &[&str] = &[
    "id",
    "label",
    "sku",
    "barcode",
    "swatchColor",
    "priceCents",
    "stock",
    "lowStockThreshold",
    "isDefault",
    "active",
    "order",
];

/// Parses a whole file. Ids missing from the file are drawn from `ids`.
pub fn parse(text: &str, ids: &dyn IdGenerator) -> Result<ShopImport, Vec<ImportProblem>> {
    let root: Value = serde_json::from_str(text)
        .map_err(|e| vec![ImportProblem::new("$", format!("not valid JSON ({e})"))])?;
    let mut reader = Reader::new(ids);
    let import = read_root(&mut reader, &root);
    reader.finish(import)
}

fn read_root(reader: &mut Reader<'_>, root: &Value) -> ShopImport {
    let Some(object) = reader.object(root, "") else {
        return ShopImport::default();
    };
    object.refuse_unknown(reader, TOP_LEVEL, &[]);
    ShopImport {
        tiers: read_all(reader, &object, "loyaltyTiers", read_tier),
        products: read_all(reader, &object, "products", read_product),
        clients: read_all(reader, &object, "clients", clients::read_client),
        orders: read_all(reader, &object, "orders", orders::read_order),
        lottery_tickets: read_all(reader, &object, "lotteryTickets", loyalty::read_ticket),
        spins: read_all(reader, &object, "spins", loyalty::read_spin),
    }
}

fn read_all<T>(
    reader: &mut Reader<'_>,
    object: &Object<'_>,
    key: &str,
    read: impl Fn(&mut Reader<'_>, &str, &Value) -> Option<T>,
) -> Vec<T> {
    object
        .items(reader, key)
        .into_iter()
        .filter_map(|(path, value)| read(reader, &path, value))
        .collect()
}

fn read_tier(reader: &mut Reader<'_>, path: &str, value: &Value) -> Option<LoyaltyTier> {
    let tier = reader.object(value, path)?;
    tier.refuse_unknown(reader, TIER_FIELDS, &[]);
    let id = tier.id(reader, TierId::parse);
    let name = tier.label(reader, "name", 100);
    let min_points_lifetime = tier
        .required_int(reader, "minPointsLifetime")
        .filter(|points| {
            *points >= 0 || {
                reader.problem(tier.path("minPointsLifetime"), "must not be negative");
                false
            }
        });
    let color = tier.required_parsed(reader, "color", HexColor::parse);
    Some(LoyaltyTier {
        id: id?,
        name: name?,
        min_points_lifetime: min_points_lifetime?,
        color: color?,
    })
}

fn read_product(reader: &mut Reader<'_>, path: &str, value: &Value) -> Option<ImportedProduct> {
    let object = reader.object(value, path)?;
    object.refuse_unknown(reader, PRODUCT_FIELDS, PRODUCT_COMPUTED);
    let id = object.id(reader, ProductId::parse);
    let name = object.label(reader, "name", MAX_NAME_LEN);
    let price = object.required_amount(reader, "priceCents");
    let list_price = object.optional_amount(reader, "listPriceCents");
    let compare_at_price = object.optional_amount(reader, "compareAtPriceCents");
    let tax_rate = object.required_parsed(reader, "taxRate", TaxRate::parse);
    let category = object
        .reference(reader, "category", CategoryId::parse)
        .map(|(id, name)| CategoryRef { id, name });
    let brand = object
        .reference(reader, "brand", BrandId::parse)
        .map(|(id, name)| BrandRef { id, name });
    let variants: Vec<Option<Variant>> = object
        .items(reader, "variants")
        .into_iter()
        .enumerate()
        .map(|(index, (path, value))| read_variant(reader, &path, value, index))
        .collect();
    let mut product = Product {
        id: id?,
        name: name?,
        product_type: object
            .optional_string(reader, "productType")
            .unwrap_or_else(|| "simple".to_owned()),
        ean: object.optional_string(reader, "ean"),
        sku: object.optional_string(reader, "sku"),
        price: price?,
        list_price: list_price.unwrap_or(price?),
        compare_at_price,
        promo_active: object.optional_bool(reader, "promoActive").unwrap_or(false),
        tax_rate: tax_rate?,
        active: object.optional_bool(reader, "active").unwrap_or(true),
        track_stock: object.optional_bool(reader, "trackStock").unwrap_or(true),
        tags: object.string_list(reader, "tags"),
        photos: object.string_list(reader, "photos"),
        category,
        brand,
        variants: variants.into_iter().collect::<Option<Vec<_>>>()?,
        created_at: Timestamp::from_millis(0),
        updated_at: Timestamp::from_millis(0),
    };
    // A file's `trackStock` is the tracking of every variant it writes (a variant's own is
    // switched in the console). Set here, once read: the fields are read in the file format's
    // order, which is the order of the problems reported.
    for variant in &mut product.variants {
        variant.tracked = product.track_stock;
    }
    let stamps = object.stamps(reader);
    Some(ImportedProduct { product, stamps })
}

fn read_variant(
    reader: &mut Reader<'_>,
    path: &str,
    value: &Value,
    index: usize,
) -> Option<Variant> {
    let object: Object<'_> = reader.object(value, path)?;
    object.refuse_unknown(reader, VARIANT_FIELDS, &[]);
    let id = object.id(reader, VariantId::parse);
    let label = object.label(reader, "label", MAX_NAME_LEN);
    let price = object.required_amount(reader, "priceCents");
    let low_stock_threshold = object
        .optional_amount(reader, "lowStockThreshold")
        .and_then(|threshold| {
            object.within_stock_range(reader, "lowStockThreshold", threshold.get())
        });
    let order = match object.optional_int(reader, "order") {
        Some(order) => i32::try_from(order).ok().filter(|o| *o >= 0).or_else(|| {
            reader.problem(
                object.path("order"),
                "must be an integer from 0 to 2147483647",
            );
            None
        }),
        None => i32::try_from(index).ok(),
    };
    Some(Variant {
        id: id?,
        label: label?,
        sku: object.optional_string(reader, "sku"),
        barcode: object.optional_string(reader, "barcode"),
        swatch_color: object.optional_parsed(reader, "swatchColor", HexColor::parse),
        price: price?,
        stock: object.optional_stock(reader, "stock").unwrap_or(0),
        low_stock_threshold: low_stock_threshold.unwrap_or(0),
        is_default: object.optional_bool(reader, "isDefault").unwrap_or(false),
        active: object.optional_bool(reader, "active").unwrap_or(true),
        order: order?,
        // Its product's `trackStock`, set by `read_product`.
        tracked: true,
    })
}

#[cfg(test)]
mod tests;
