//! API v2's product writes (issue 35, scope `products:write`): `POST /api/v2/products` and `POST
//! …/{id}/variants` under an `Idempotency-Key`, `PATCH /api/v2/products/{id}` and `PATCH
//! …/{id}/variants/{variantId}` as JSON Merge Patches with `If-Match`. Every one answers the
//! whole product with its `ETag`; a variant has no tag of its own, so its patch is conditional
//! on its product's. The requests are sent, retried and answered as every v2 write is
//! (`v2_writes.rs`).

use serde::Serialize;

use crate::client::{Client, checked_id, new_idempotency_key};
use crate::error::ApiError;
use crate::merge_patch::Patch;
use crate::models::Product;
use crate::v2_writes::{MergePatch, Written};

/// A product's category or brand as a write names it: one of the shop's by its id, or by its
/// name (matched without regard to case, created when the shop has none). Sent as `{"id": …}`
/// or `{"name": …}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Reference {
    /// An id of the shop's (an unknown one is refused at `category.id` or `brand.id`).
    Id(String),
    /// 1 to 200 characters once trimmed.
    Name(String),
}

/// A new product with its variants, as `POST /api/v2/products` takes it: `name`, `price_cents`,
/// `tax_rate` and 1 to 100 variants are required; a member left `None` (or a list left empty)
/// is not sent, and the server's default applies (`productType` `simple`, `listPriceCents` =
/// `priceCents`, no promotion, active, no codes, category or brand).
///
/// ```
/// use shop_api_client::{ProductDraft, Reference, VariantDraft};
///
/// let draft = ProductDraft {
///     sku: Some("MUG-01".to_owned()),
///     category: Some(Reference::Name("Kitchen".to_owned())),
///     ..ProductDraft::new(
///         "Mug Atelier",
///         1200,
///         "20.00",
///         vec![VariantDraft { sku: Some("MUG-01-B".to_owned()), ..VariantDraft::new("Blue") }],
///     )
/// };
/// assert_eq!(
///     serde_json::to_string(&draft).unwrap(),
///     r#"{"name":"Mug Atelier","priceCents":1200,"taxRate":"20.00","variants":[{"label":"Blue","sku":"MUG-01-B"}],"sku":"MUG-01","category":{"name":"Kitchen"}}"#
/// );
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProductDraft {
    /// 1 to 200 characters once trimmed.
    pub name: String,
    /// 0 to 10^12.
    pub price_cents: i64,
    /// A decimal string with two decimals, `"0.00"` to `"100.00"`.
    pub tax_rate: String,
    /// 1 to 100; the first is the default unless one says `is_default`. New variants have
    /// stock 0 and tracking off: stock moves only by adjustments.
    pub variants: Vec<VariantDraft>,
    /// 1 to 64 characters; `simple` when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub product_type: Option<String>,
    /// Unique in the shop with the variants' barcodes (`409`, see
    /// [`ApiError::conflict_holder`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ean: Option<String>,
    /// Unique in the shop with the variants' SKUs (`409`, see [`ApiError::conflict_holder`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sku: Option<String>,
    /// `price_cents` when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list_price_cents: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compare_at_price_cents: Option<i64>,
    /// `false` when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub promo_active: Option<bool>,
    /// `true` when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active: Option<bool>,
    /// At most 50 of at most 50 characters.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// At most 20 absolute `https` URLs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub photos: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<Reference>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub brand: Option<Reference>,
}

impl ProductDraft {
    /// A product with only its required members.
    pub fn new(
        name: impl Into<String>,
        price_cents: i64,
        tax_rate: impl Into<String>,
        variants: Vec<VariantDraft>,
    ) -> Self {
        Self {
            name: name.into(),
            price_cents,
            tax_rate: tax_rate.into(),
            variants,
            ..Self::default()
        }
    }
}

/// A new variant, of a [`ProductDraft`] or added by [`Client::add_variant`]: only `label` is
/// required; a member left `None` is not sent.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VariantDraft {
    /// 1 to 200 characters once trimmed.
    pub label: String,
    /// Unique in the shop with the products' SKUs (`409`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sku: Option<String>,
    /// Unique in the shop with the products' EANs (`409`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub barcode: Option<String>,
    /// `#RRGGBB` (stored in upper case).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub swatch_color: Option<String>,
    /// The product's price when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price_cents: Option<i64>,
    /// 0 when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub low_stock_threshold: Option<i64>,
    /// `Some(true)` makes it the product's one default variant.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_default: Option<bool>,
    /// `true` when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active: Option<bool>,
    /// Display position, 0 to 10,000; its index (an added one: after the last) when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub order: Option<i32>,
}

impl VariantDraft {
    /// A variant with only a label.
    pub fn new(label: impl Into<String>) -> Self {
        Self {
            label: label.into(),
            ..Self::default()
        }
    }
}

/// A JSON Merge Patch of a product (`PATCH /api/v2/products/{id}`): each member is left as it
/// is ([`Patch::Keep`], or `None`, the default), cleared ([`Patch::Clear`], for the members that
/// may be `null`) or replaced. Variants have their own patch ([`VariantPatch`]); the stock moves
/// only by adjustments. Archiving is `active: Some(false)`.
///
/// ```
/// use shop_api_client::{Patch, ProductPatch, Reference};
///
/// let patch = ProductPatch {
///     price_cents: Some(1350),
///     ean: Patch::Clear,
///     brand: Patch::Set(Reference::Id("brd_1".to_owned())),
///     ..Default::default()
/// };
/// assert_eq!(
///     serde_json::to_string(&patch).unwrap(),
///     r#"{"ean":null,"priceCents":1350,"brand":{"id":"brd_1"}}"#
/// );
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProductPatch {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub product_type: Option<String>,
    #[serde(skip_serializing_if = "Patch::is_keep")]
    pub ean: Patch<String>,
    #[serde(skip_serializing_if = "Patch::is_keep")]
    pub sku: Patch<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price_cents: Option<i64>,
    /// Does not follow `price_cents`: set both to move both.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list_price_cents: Option<i64>,
    #[serde(skip_serializing_if = "Patch::is_keep")]
    pub compare_at_price_cents: Patch<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub promo_active: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tax_rate: Option<String>,
    /// `Some(false)` archives the product: nothing is ever deleted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active: Option<bool>,
    /// Replaces every tag (`Some(vec![])` removes them all).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    /// Replaces every photo.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub photos: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Patch::is_keep")]
    pub category: Patch<Reference>,
    #[serde(skip_serializing_if = "Patch::is_keep")]
    pub brand: Patch<Reference>,
}

impl ProductPatch {
    /// Whether it changes nothing (its body is `{}`).
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

impl MergePatch for ProductPatch {
    fn is_empty(&self) -> bool {
        ProductPatch::is_empty(self)
    }
}

/// A JSON Merge Patch of one variant (`PATCH /api/v2/products/{id}/variants/{variantId}`),
/// member by member as [`ProductPatch`]; its stock and tracking are not written here.
///
/// ```
/// use shop_api_client::{Patch, VariantPatch};
///
/// let patch = VariantPatch {
///     is_default: Some(true),
///     barcode: Patch::Clear,
///     ..Default::default()
/// };
/// assert_eq!(serde_json::to_string(&patch).unwrap(), r#"{"barcode":null,"isDefault":true}"#);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VariantPatch {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(skip_serializing_if = "Patch::is_keep")]
    pub sku: Patch<String>,
    #[serde(skip_serializing_if = "Patch::is_keep")]
    pub barcode: Patch<String>,
    #[serde(skip_serializing_if = "Patch::is_keep")]
    pub swatch_color: Patch<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price_cents: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub low_stock_threshold: Option<i64>,
    /// `Some(true)` moves the product's default here; `Some(false)` on the only default is
    /// refused (`400` at `isDefault`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_default: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub order: Option<i32>,
}

impl VariantPatch {
    /// Whether it changes nothing (its body is `{}`).
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

impl MergePatch for VariantPatch {
    fn is_empty(&self) -> bool {
        VariantPatch::is_empty(self)
    }
}

const PRODUCTS: &str = "products";
const VARIANTS: &str = "variants";

impl Client {
    /// `POST /api/v2/products`: creates a product with its variants (scope `products:write`)
    /// and answers it as `GET /api/v2/products/{id}` shows it, with its `ETag`.
    ///
    /// As [`Client::create_client`], a fresh `Idempotency-Key` is sent again on every retry
    /// of this call, so a lost answer never makes two products; to make a retry after a
    /// restart safe too, use [`Client::create_product_with_key`] with a key of your own (your
    /// ERP's article id, say).
    ///
    /// A SKU, EAN or barcode another product or variant of the shop holds is refused with
    /// [`ErrorCode::Conflict`](crate::ErrorCode::Conflict), whose holder
    /// [`ApiError::conflict_holder`] gives.
    pub async fn create_product(&self, draft: &ProductDraft) -> Result<Written<Product>, ApiError> {
        self.create_product_with_key(draft, &new_idempotency_key())
            .await
    }

    /// [`Client::create_product`] with your own `Idempotency-Key` (as
    /// [`Client::create_client_with_key`]'s): the same key with the same draft replays the
    /// first answer (the same product, as it now is, with `replayed` set; or the same `409`),
    /// with another draft it is refused with
    /// [`ErrorCode::IdempotencyKeyReused`](crate::ErrorCode::IdempotencyKeyReused).
    pub async fn create_product_with_key(
        &self,
        draft: &ProductDraft,
        idempotency_key: &str,
    ) -> Result<Written<Product>, ApiError> {
        self.create_v2(&[PRODUCTS], draft, idempotency_key).await
    }

    /// `PATCH /api/v2/products/{id}`: applies `patch` and answers the product as it now is,
    /// with its new `ETag`; a patch that changes nothing writes nothing.
    ///
    /// With `if_match`, the patch applies only if the product (its variants and their stock
    /// included) is still that version, else [`ApiError::PreconditionFailed`] carries the
    /// current tag; retries as [`Client::update_client`]'s. [`Client::modify_product`] is the
    /// read-modify-write loop around it.
    pub async fn update_product(
        &self,
        id: &str,
        patch: &ProductPatch,
        if_match: Option<&str>,
    ) -> Result<Written<Product>, ApiError> {
        self.patch_v2(&[PRODUCTS, checked_id(id)?], patch, if_match)
            .await
    }

    /// `POST /api/v2/products/{id}/variants`: adds a variant (stock 0, tracking off, after the
    /// last unless it gives its `order`) and answers the whole product with its new `ETag`.
    /// Under a fresh `Idempotency-Key` sent again on every retry, as
    /// [`Client::create_product`]; see [`Client::add_variant_with_key`].
    pub async fn add_variant(
        &self,
        product_id: &str,
        draft: &VariantDraft,
    ) -> Result<Written<Product>, ApiError> {
        self.add_variant_with_key(product_id, draft, &new_idempotency_key())
            .await
    }

    /// [`Client::add_variant`] with your own `Idempotency-Key`: the same key with the same
    /// variant adds it once, and replays the product as it now is.
    pub async fn add_variant_with_key(
        &self,
        product_id: &str,
        draft: &VariantDraft,
        idempotency_key: &str,
    ) -> Result<Written<Product>, ApiError> {
        self.create_v2(
            &[PRODUCTS, checked_id(product_id)?, VARIANTS],
            draft,
            idempotency_key,
        )
        .await
    }

    /// `PATCH /api/v2/products/{id}/variants/{variantId}`: applies `patch` to one variant and
    /// answers the whole product with its new `ETag`.
    ///
    /// `if_match` is the PRODUCT's `ETag` (from a read or any write of the product or of one
    /// of its variants): a variant has none of its own, and any change of the product, of
    /// another variant or of a stock makes the tag stale ([`ApiError::PreconditionFailed`]).
    /// [`Client::modify_variant`] is the read-modify-write loop around it.
    pub async fn update_variant(
        &self,
        product_id: &str,
        variant_id: &str,
        patch: &VariantPatch,
        if_match: Option<&str>,
    ) -> Result<Written<Product>, ApiError> {
        self.patch_v2(&variant_path(product_id, variant_id)?, patch, if_match)
            .await
    }

    /// A read-modify-write of one product that loses no concurrent change, as
    /// [`Client::modify_client`]: reads the product with its `ETag`, asks `change` for the
    /// patch to make on what it is, sends it with `If-Match`, and on `412` reads and asks
    /// again, up to 5 times. An empty patch writes nothing and answers the product as read.
    ///
    /// ```no_run
    /// use shop_api_client::{ApiError, Client, ProductPatch};
    ///
    /// # async fn run(client: Client) -> Result<(), ApiError> {
    /// // 10% off, on the price as it is when the change lands.
    /// let written = client
    ///     .modify_product("prd_1", |current| ProductPatch {
    ///         price_cents: Some(current.price_cents * 9 / 10),
    ///         ..Default::default()
    ///     })
    ///     .await?;
    /// println!("{} cents, tag {:?}", written.data.price_cents, written.etag);
    /// # Ok(()) }
    /// ```
    pub async fn modify_product(
        &self,
        id: &str,
        change: impl FnMut(&Product) -> ProductPatch,
    ) -> Result<Written<Product>, ApiError> {
        let path = [PRODUCTS, checked_id(id)?];
        self.modify_v2(&path, &path, change).await
    }

    /// [`Client::modify_product`] for one variant: `change` sees the whole product (find the
    /// variant in `variants`) and its patch is sent to the variant under the product's tag.
    pub async fn modify_variant(
        &self,
        product_id: &str,
        variant_id: &str,
        change: impl FnMut(&Product) -> VariantPatch,
    ) -> Result<Written<Product>, ApiError> {
        let write = variant_path(product_id, variant_id)?;
        self.modify_v2(&write[..2], &write, change).await
    }
}

/// `products/{id}/variants/{variantId}`, whose first two segments are the product's path.
fn variant_path<'a>(product_id: &'a str, variant_id: &'a str) -> Result<[&'a str; 4], ApiError> {
    Ok([
        PRODUCTS,
        checked_id(product_id)?,
        VARIANTS,
        checked_id(variant_id)?,
    ])
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_draft_sends_what_it_sets_and_references_by_id_or_name() {
        let bare = ProductDraft::new("Mug", 1200, "20.00", vec![VariantDraft::new("U")]);
        assert_eq!(
            serde_json::to_value(&bare).unwrap(),
            json!({"name": "Mug", "priceCents": 1200, "taxRate": "20.00",
                   "variants": [{"label": "U"}]})
        );
        let full = ProductDraft {
            product_type: Some("variable".to_owned()),
            ean: Some("3700000000017".to_owned()),
            sku: Some("MUG".to_owned()),
            list_price_cents: Some(1500),
            compare_at_price_cents: Some(1800),
            promo_active: Some(true),
            active: Some(false),
            tags: vec!["gift".to_owned()],
            photos: vec!["https://cdn.example.com/mug.jpg".to_owned()],
            category: Some(Reference::Name("Cuisine".to_owned())),
            brand: Some(Reference::Id("brd_1".to_owned())),
            ..ProductDraft::new(
                "Mug",
                1200,
                "5.50",
                vec![VariantDraft {
                    sku: Some("MUG-B".to_owned()),
                    barcode: Some("3700000000024".to_owned()),
                    swatch_color: Some("#0000ff".to_owned()),
                    price_cents: Some(1250),
                    low_stock_threshold: Some(3),
                    is_default: Some(true),
                    active: Some(true),
                    order: Some(2),
                    ..VariantDraft::new("Bleu")
                }],
            )
        };
        assert_eq!(
            serde_json::to_value(&full).unwrap(),
            json!({
                "name": "Mug", "priceCents": 1200, "taxRate": "5.50", "productType": "variable",
                "ean": "3700000000017", "sku": "MUG", "listPriceCents": 1500,
                "compareAtPriceCents": 1800, "promoActive": true, "active": false,
                "tags": ["gift"], "photos": ["https://cdn.example.com/mug.jpg"],
                "category": {"name": "Cuisine"}, "brand": {"id": "brd_1"},
                "variants": [{"label": "Bleu", "sku": "MUG-B", "barcode": "3700000000024",
                              "swatchColor": "#0000ff", "priceCents": 1250,
                              "lowStockThreshold": 3, "isDefault": true, "active": true,
                              "order": 2}]
            })
        );
    }

    #[test]
    fn a_patch_member_is_absent_null_or_its_value() {
        let cleared = ProductPatch {
            ean: Patch::Clear,
            sku: Patch::Clear,
            compare_at_price_cents: Patch::Clear,
            category: Patch::Clear,
            brand: Patch::Clear,
            ..ProductPatch::default()
        };
        assert_eq!(
            serde_json::to_value(&cleared).unwrap(),
            json!({"ean": null, "sku": null, "compareAtPriceCents": null,
                   "category": null, "brand": null})
        );
        let set = ProductPatch {
            name: Some("Mug".to_owned()),
            product_type: Some("simple".to_owned()),
            sku: Patch::Set("MUG-2".to_owned()),
            price_cents: Some(1),
            list_price_cents: Some(2),
            compare_at_price_cents: Patch::Set(3),
            promo_active: Some(false),
            tax_rate: Some("20.00".to_owned()),
            active: Some(false),
            tags: Some(vec![]),
            photos: Some(vec![]),
            category: Patch::Set(Reference::Id("cat_1".to_owned())),
            ..ProductPatch::default()
        };
        assert_eq!(
            serde_json::to_value(&set).unwrap(),
            json!({"name": "Mug", "productType": "simple", "sku": "MUG-2", "priceCents": 1,
                   "listPriceCents": 2, "compareAtPriceCents": 3, "promoActive": false,
                   "taxRate": "20.00", "active": false, "tags": [], "photos": [],
                   "category": {"id": "cat_1"}})
        );
        let variant = VariantPatch {
            label: Some("Rouge".to_owned()),
            sku: Patch::Clear,
            barcode: Patch::Set("3700000000031".to_owned()),
            swatch_color: Patch::Clear,
            price_cents: Some(900),
            low_stock_threshold: Some(0),
            is_default: Some(false),
            active: Some(true),
            order: Some(0),
        };
        assert_eq!(
            serde_json::to_value(&variant).unwrap(),
            json!({"label": "Rouge", "sku": null, "barcode": "3700000000031",
                   "swatchColor": null, "priceCents": 900, "lowStockThreshold": 0,
                   "isDefault": false, "active": true, "order": 0})
        );
        assert_eq!(
            serde_json::to_string(&ProductPatch::default()).unwrap(),
            "{}"
        );
        assert_eq!(
            serde_json::to_string(&VariantPatch::default()).unwrap(),
            "{}"
        );
    }

    #[test]
    fn an_empty_patch_is_one_that_changes_nothing() {
        assert!(MergePatch::is_empty(&ProductPatch::default()));
        assert!(MergePatch::is_empty(&VariantPatch::default()));
        assert!(
            !ProductPatch {
                brand: Patch::Clear,
                ..ProductPatch::default()
            }
            .is_empty()
        );
        assert!(
            !VariantPatch {
                swatch_color: Patch::Clear,
                ..VariantPatch::default()
            }
            .is_empty()
        );
    }
}
