//! `POST /api/v2/products`, `PATCH /api/v2/products/{id}`, `POST …/{id}/variants` and `PATCH
//! …/{id}/variants/{variantId}` (issue 35): an ERP keeps the catalogue and its prices, safe to
//! retry (a create under an `Idempotency-Key`, a patch under `If-Match`).

use std::sync::Arc;

use shop_domain::catalogue::Product;
use shop_domain::catalogue::write::{NewProduct, NewVariant, ProductPatch, VariantPatch};
use shop_domain::id::{ApiWriteId, BrandId, CategoryId, ProductId, VariantId};
use shop_domain::stock::{IDEMPOTENCY_RETENTION_MILLIS, IdempotencyKey};

use super::Principal;
use crate::StoreError;
use crate::port::{
    AddVariantCommand, Clock, CreateProductCommand, IdGenerator, IdempotencyClaim,
    PatchProductCommand, PatchVariantCommand, Precondition, ProductPostOutcome,
    ProductWriteContext, ProductWriteResult, ProductWriter,
};

/// A product as a write left it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProductWritten {
    pub product: Product,
    /// The first answer to the same `Idempotency-Key`, repeated: nothing changed this time.
    pub replayed: bool,
}

/// Why a write of a product changed nothing. `replayed`: the refusal repeats the first
/// answer to its idempotency key.
#[derive(Debug, thiserror::Error)]
pub enum ProductWriteError {
    #[error("the shop has no such product")]
    ProductNotFound,
    #[error("the product has no such variant")]
    VariantNotFound,
    /// `If-Match` does not hold: the product as it is now, whose entity tag the answer gives.
    #[error("the product changed since the version the condition names")]
    PreconditionFailed(Box<Product>),
    #[error("another product or variant of the shop holds the code of {member}")]
    Conflict {
        member: String,
        holder: String,
        replayed: bool,
    },
    #[error("{member} names nothing of the shop")]
    UnknownReference { member: String },
    #[error("{member} {message}")]
    Refused { member: String, message: String },
    #[error("the idempotency key was used with a different request")]
    KeyReused,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl ProductWriteError {
    pub const fn replayed(&self) -> bool {
        match self {
            Self::Conflict { replayed, .. } => *replayed,
            _ => false,
        }
    }
}

pub struct ProductEditor {
    writer: Arc<dyn ProductWriter>,
    ids: Arc<dyn IdGenerator>,
    clock: Arc<dyn Clock>,
}

impl ProductEditor {
    pub fn new(
        writer: Arc<dyn ProductWriter>,
        ids: Arc<dyn IdGenerator>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self { writer, ids, clock }
    }

    pub async fn create(
        &self,
        caller: &Principal,
        product: NewProduct,
        idempotency_key: Option<IdempotencyKey>,
    ) -> Result<ProductWritten, ProductWriteError> {
        let context = self.context(caller)?;
        let idempotency = self.claim(idempotency_key, product.fingerprint(), &context);
        let variant_ids = (0..product.variants().len())
            .map(|_| self.id("var", VariantId::parse))
            .collect::<Result<_, _>>()?;
        let command = CreateProductCommand {
            id: self.id("prd", ProductId::parse)?,
            variant_ids,
            product,
            idempotency,
            context,
        };
        posted(self.writer.create_product(&command).await?)
    }

    pub async fn add_variant(
        &self,
        caller: &Principal,
        product_id: ProductId,
        variant: NewVariant,
        idempotency_key: Option<IdempotencyKey>,
    ) -> Result<ProductWritten, ProductWriteError> {
        let context = self.context(caller)?;
        let fingerprint = variant.fingerprint(&product_id);
        let command = AddVariantCommand {
            idempotency: self.claim(idempotency_key, fingerprint, &context),
            variant_id: self.id("var", VariantId::parse)?,
            product_id,
            variant,
            context,
        };
        posted(self.writer.add_variant(&command).await?)
    }

    pub async fn patch(
        &self,
        caller: &Principal,
        id: ProductId,
        patch: ProductPatch,
        precondition: Option<Precondition<Product>>,
    ) -> Result<Product, ProductWriteError> {
        let command = PatchProductCommand {
            context: self.context(caller)?,
            id,
            patch,
            precondition,
        };
        written(self.writer.patch_product(&command).await?, false).map(|w| w.product)
    }

    pub async fn patch_variant(
        &self,
        caller: &Principal,
        product_id: ProductId,
        variant_id: VariantId,
        patch: VariantPatch,
        precondition: Option<Precondition<Product>>,
    ) -> Result<Product, ProductWriteError> {
        let command = PatchVariantCommand {
            context: self.context(caller)?,
            product_id,
            variant_id,
            patch,
            precondition,
        };
        written(self.writer.patch_variant(&command).await?, false).map(|w| w.product)
    }

    fn context(&self, caller: &Principal) -> Result<ProductWriteContext, StoreError> {
        Ok(ProductWriteContext {
            shop: caller.shop.id.clone(),
            key_prefix: caller.key_prefix.clone(),
            write_id: self.id("wrt", ApiWriteId::parse)?,
            new_category_id: self.id("cat", CategoryId::parse)?,
            new_brand_id: self.id("brd", BrandId::parse)?,
            at: self.clock.now(),
        })
    }

    fn claim(
        &self,
        key: Option<IdempotencyKey>,
        fingerprint: String,
        context: &ProductWriteContext,
    ) -> Option<IdempotencyClaim> {
        key.map(|key| IdempotencyClaim {
            key,
            fingerprint,
            expired_before: context.at.plus_millis(-IDEMPOTENCY_RETENTION_MILLIS),
        })
    }

    /// A new id with `prefix` (`prd_…`).
    fn id<T, E: std::error::Error + Send + Sync + 'static>(
        &self,
        prefix: &str,
        parse: impl FnOnce(String) -> Result<T, E>,
    ) -> Result<T, StoreError> {
        parse(format!("{prefix}_{}", self.ids.new_id())).map_err(StoreError::failure)
    }
}

fn posted(outcome: ProductPostOutcome) -> Result<ProductWritten, ProductWriteError> {
    match outcome {
        ProductPostOutcome::Fresh(result) => written(result, false),
        ProductPostOutcome::Replayed(result) => written(result, true),
        ProductPostOutcome::KeyReused => Err(ProductWriteError::KeyReused),
    }
}

fn written(
    result: ProductWriteResult,
    replayed: bool,
) -> Result<ProductWritten, ProductWriteError> {
    match result {
        ProductWriteResult::Written(product) => Ok(ProductWritten {
            product: *product,
            replayed,
        }),
        ProductWriteResult::ProductNotFound => Err(ProductWriteError::ProductNotFound),
        ProductWriteResult::VariantNotFound => Err(ProductWriteError::VariantNotFound),
        ProductWriteResult::PreconditionFailed(current) => {
            Err(ProductWriteError::PreconditionFailed(current))
        }
        ProductWriteResult::Conflict { member, holder } => Err(ProductWriteError::Conflict {
            member,
            holder,
            replayed,
        }),
        ProductWriteResult::UnknownReference { member } => {
            Err(ProductWriteError::UnknownReference { member })
        }
        ProductWriteResult::Refused { member, message } => {
            Err(ProductWriteError::Refused { member, message })
        }
    }
}

#[cfg(test)]
mod tests;
