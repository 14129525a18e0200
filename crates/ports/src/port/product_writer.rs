use async_trait::async_trait;
use shop_domain::Timestamp;
use shop_domain::api_key::KeyPrefix;
use shop_domain::catalogue::Product;
use shop_domain::catalogue::write::{NewProduct, NewVariant, ProductPatch, VariantPatch};
use shop_domain::id::{ApiWriteId, BrandId, CategoryId, ProductId, ShopId, VariantId};

use crate::StoreError;
use crate::port::{IdempotencyClaim, Precondition};

/// What every write of a product carries besides its own request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProductWriteContext {
    pub shop: ShopId,
    /// The API key that writes, recorded with the write (the console's activity).
    pub key_prefix: KeyPrefix,
    /// The id of the write in the console's activity, if it changes anything.
    pub write_id: ApiWriteId,
    /// The ids a category or a brand named by a new name gets.
    pub new_category_id: CategoryId,
    pub new_brand_id: BrandId,
    pub at: Timestamp,
}

/// `POST /products`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CreateProductCommand {
    pub context: ProductWriteContext,
    pub id: ProductId,
    /// The new variants' ids, in the body's order.
    pub variant_ids: Vec<VariantId>,
    pub product: NewProduct,
    pub idempotency: Option<IdempotencyClaim>,
}

/// `POST /products/{id}/variants`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AddVariantCommand {
    pub context: ProductWriteContext,
    pub product_id: ProductId,
    pub variant_id: VariantId,
    pub variant: NewVariant,
    pub idempotency: Option<IdempotencyClaim>,
}

/// `PATCH /products/{id}`.
#[derive(Clone, Debug)]
pub struct PatchProductCommand {
    pub context: ProductWriteContext,
    pub id: ProductId,
    pub patch: ProductPatch,
    /// On the product as the write finds it; `None`: unconditional.
    pub precondition: Option<Precondition<Product>>,
}

/// `PATCH /products/{id}/variants/{variantId}`: its condition is on the whole product.
#[derive(Clone, Debug)]
pub struct PatchVariantCommand {
    pub context: ProductWriteContext,
    pub product_id: ProductId,
    pub variant_id: VariantId,
    pub patch: VariantPatch,
    pub precondition: Option<Precondition<Product>>,
}

/// What a write of a product came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProductWriteResult {
    /// The product as now stored, all its variants included (on a replay, as it is now). A
    /// write that changed nothing wrote nothing.
    Written(Box<Product>),
    /// The shop has no such product (another shop's is not found either).
    ProductNotFound,
    /// The product has no such variant.
    VariantNotFound,
    /// The precondition does not hold on the product as it is (given here).
    PreconditionFailed(Box<Product>),
    /// `member`'s code (a SKU, a barcode) is held by another product or variant, `holder`.
    Conflict { member: String, holder: String },
    /// `member` (`category.id`, `brand.id`) names no category or brand of the shop.
    UnknownReference { member: String },
    /// The product as it is refuses the write (its only default variant made not default, a
    /// 101st variant): `message` says why of `member`.
    Refused { member: String, message: String },
}

/// What a write under an `Idempotency-Key` came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProductPostOutcome {
    Fresh(ProductWriteResult),
    /// The key was used before with the same request: its first result, nothing changed.
    Replayed(ProductWriteResult),
    /// The key was used before with a different request: nothing changed.
    KeyReused,
}

#[cfg_attr(feature = "mocks", mockall::automock)]
#[async_trait]
pub trait ProductWriter: Send + Sync {
    /// In ONE transaction: replay or refuse per a live idempotency record; otherwise claim the
    /// product's codes (a SKU or barcode another product or variant of the shop holds is a
    /// `Conflict`; concurrent writes claiming one code check one after the other), resolve its
    /// category and brand (an id the shop has, or a name found without regard to case or
    /// created), insert it with its variants, append `product.created`, record the write for
    /// the activity and the result under the key.
    async fn create_product(
        &self,
        command: &CreateProductCommand,
    ) -> Result<ProductPostOutcome, StoreError>;

    /// As a create, on the product (`ProductNotFound`) locked with its variants: the variant
    /// added (moving the default when it asks), the product's `updatedAt` moved,
    /// `product.updated`.
    async fn add_variant(
        &self,
        command: &AddVariantCommand,
    ) -> Result<ProductPostOutcome, StoreError>;

    /// In ONE transaction that concurrent writes of the product (and stock adjustments of its
    /// variants) wait for: find and lock the product, check the precondition on it as it is,
    /// apply the patch; if anything changed, claim its new codes, resolve a new category or
    /// brand, write it with its `updatedAt` moved forward to `at`, append `product.updated`
    /// and record the write for the activity.
    async fn patch_product(
        &self,
        command: &PatchProductCommand,
    ) -> Result<ProductWriteResult, StoreError>;

    /// As a product's patch, of one of its variants (`VariantNotFound`); the default variant
    /// moves when the patch makes this one the default.
    async fn patch_variant(
        &self,
        command: &PatchVariantCommand,
    ) -> Result<ProductWriteResult, StoreError>;
}
