//! The bodies of API v2's product writes (issue 35), for the OpenAPI document only: they are
//! read by hand (`handlers::products::product_members`), every problem reported at once under
//! its path, and held to `shop_domain::catalogue::write`'s rules, whose bounds these state.

use utoipa::ToSchema;
use utoipa::openapi::schema::{
    AdditionalProperties, ArrayBuilder, ObjectBuilder, OneOfBuilder, Schema, Type,
};

use super::client_write::tags;

/// A new product with its variants.
#[derive(serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(
    as = ProductCreate,
    examples(json!({
        "name": "Mug Atelier", "priceCents": 1200, "taxRate": "20.00", "sku": "MUG-01",
        "category": {"name": "Kitchen"},
        "variants": [{"label": "Blue", "sku": "MUG-01-B"}, {"label": "Red", "sku": "MUG-01-R"}]
    }))
)]
#[expect(
    dead_code,
    reason = "describes the request body for the OpenAPI document only"
)]
pub struct ProductCreateBody {
    /// 1 to 200 characters once trimmed.
    #[schema(min_length = 1, max_length = 200, pattern = r"\S")]
    name: String,
    #[schema(minimum = 0, maximum = 1_000_000_000_000_i64)]
    price_cents: i64,
    /// A decimal string with two decimals, from `0.00` to `100.00`.
    #[schema(pattern = r"^[0-9]{1,3}\.[0-9]{2}$", example = "20.00")]
    tax_rate: String,
    /// 1 to 100 variants; the first is the default unless one says `isDefault`.
    #[schema(min_items = 1, max_items = 100)]
    variants: Vec<VariantCreateBody>,
    #[serde(flatten)]
    fields: ProductFields,
}

/// A JSON Merge Patch (RFC 7396) of a product: a member given replaces the product's, `null`
/// clears a nullable one (`ean`, `sku`, `compareAtPriceCents`, `category`, `brand`); a member
/// left out stays. `variants` is refused: variants have their own paths.
#[derive(serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = ProductPatch, examples(json!({"priceCents": 1350, "active": false})))]
#[expect(
    dead_code,
    reason = "describes the request body for the OpenAPI document only"
)]
pub struct ProductPatchBody {
    #[schema(min_length = 1, max_length = 200, pattern = r"\S")]
    name: Option<String>,
    #[schema(minimum = 0, maximum = 1_000_000_000_000_i64)]
    price_cents: Option<i64>,
    #[schema(pattern = r"^[0-9]{1,3}\.[0-9]{2}$")]
    tax_rate: Option<String>,
    #[serde(flatten)]
    fields: ProductFields,
}

/// The product's members a create and a patch both take, all optional.
#[derive(serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[expect(
    dead_code,
    reason = "describes the request body for the OpenAPI document only"
)]
struct ProductFields {
    /// 1 to 64 characters; `simple` on a new product that gives none.
    #[schema(min_length = 1, max_length = 64, pattern = r"\S")]
    product_type: Option<String>,
    /// At most 64 characters; one namespace with the variants' `barcode`s of the shop
    /// (`409 CONFLICT` names the holder).
    #[schema(max_length = 64, nullable)]
    ean: Option<String>,
    /// At most 64 characters; one namespace with the variants' `sku`s of the shop.
    #[schema(max_length = 64, nullable)]
    sku: Option<String>,
    /// `priceCents` on a new product that gives none.
    #[schema(minimum = 0, maximum = 1_000_000_000_000_i64)]
    list_price_cents: Option<i64>,
    #[schema(minimum = 0, maximum = 1_000_000_000_000_i64, nullable)]
    compare_at_price_cents: Option<i64>,
    promo_active: Option<bool>,
    /// `false` archives the product: nothing is ever deleted.
    active: Option<bool>,
    #[schema(schema_with = tags)]
    tags: Option<Vec<String>>,
    #[schema(schema_with = photos)]
    photos: Option<Vec<String>>,
    #[schema(schema_with = reference)]
    category: Option<serde_json::Value>,
    #[schema(schema_with = reference)]
    brand: Option<serde_json::Value>,
}

/// A new variant (of a new product, or added to one).
#[derive(serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = VariantCreate, examples(json!({"label": "Green", "sku": "MUG-01-G"})))]
#[expect(
    dead_code,
    reason = "describes the request body for the OpenAPI document only"
)]
pub struct VariantCreateBody {
    /// 1 to 200 characters once trimmed.
    #[schema(min_length = 1, max_length = 200, pattern = r"\S")]
    label: String,
    #[serde(flatten)]
    fields: VariantFields,
}

/// A JSON Merge Patch of a variant. Its stock and tracking are not written here.
#[derive(serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = VariantPatch, examples(json!({"priceCents": 1500, "isDefault": true})))]
#[expect(
    dead_code,
    reason = "describes the request body for the OpenAPI document only"
)]
pub struct VariantPatchBody {
    #[schema(min_length = 1, max_length = 200, pattern = r"\S")]
    label: Option<String>,
    #[serde(flatten)]
    fields: VariantFields,
}

#[derive(serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[expect(
    dead_code,
    reason = "describes the request body for the OpenAPI document only"
)]
struct VariantFields {
    /// At most 64 characters; one namespace with the products' `sku`s of the shop.
    #[schema(max_length = 64, nullable)]
    sku: Option<String>,
    /// At most 64 characters; one namespace with the products' `ean`s of the shop.
    #[schema(max_length = 64, nullable)]
    barcode: Option<String>,
    #[schema(pattern = "^#[0-9A-Fa-f]{6}$", nullable)]
    swatch_color: Option<String>,
    /// The product's price when a new variant gives none.
    #[schema(minimum = 0, maximum = 1_000_000_000_000_i64)]
    price_cents: Option<i64>,
    #[schema(minimum = 0, maximum = 1_000_000_000_000_i64)]
    low_stock_threshold: Option<i64>,
    /// `true` moves the product's default to this variant; `false` on the only default is
    /// refused.
    is_default: Option<bool>,
    active: Option<bool>,
    /// Display position, 0 to 10,000.
    #[schema(minimum = 0, maximum = 10_000)]
    order: Option<i64>,
}

/// `photos` as a write takes them.
fn photos() -> Schema {
    let url = ObjectBuilder::new()
        .schema_type(Type::String)
        .max_length(Some(2048))
        .pattern(Some("^https://[^/@:]+"));
    ArrayBuilder::new()
        .items(url)
        .max_items(Some(20))
        .description(Some(
            "At most 20 absolute `https` URLs of at most 2,048 characters, without user or \
             password.",
        ))
        .into()
}

/// A category or a brand: by the shop's `id`, or by `name` (matched without regard to case,
/// created when the shop has none); `null` removes it.
fn reference() -> Schema {
    let by = |member: &str, description: &str| {
        ObjectBuilder::new()
            .property(
                member,
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .min_length(Some(1))
                    .max_length(Some(200))
                    .pattern(Some(r"\S")),
            )
            .required(member)
            .additional_properties(Some(AdditionalProperties::FreeForm(false)))
            .description(Some(description))
    };
    OneOfBuilder::new()
        .item(by(
            "id",
            "One of the shop's, by its id (else 400 naming `id`).",
        ))
        .item(by(
            "name",
            "By name, without regard to case; created when the shop has none.",
        ))
        .item(ObjectBuilder::new().schema_type(Type::Null))
        .into()
}
