//! `ProductWriter`: API v2's creates and merge patches of products and their variants (issue
//! 35), each in one transaction with its checks (`write_checks.rs`), its rows (`write.rs`,
//! the import's own statements), its event, its line in the console's activity and, for a
//! `POST`, its idempotency record.
//!
//! **Locks.** A write of an existing product locks its row, then its variants' rows
//! (`WriteLocks::lock_product`), before it reads the product: `If-Match` is then checked on
//! the product as it will be written over, and a stock adjustment of one of its variants
//! waits, so the stock the write carries back is the stock there is. A stock adjustment locks
//! only its variant, so the two never wait for each other crosswise.

use async_trait::async_trait;
use shop_domain::catalogue::Product;
use shop_domain::catalogue::write::{NewProduct, ProductPatch, VariantWriteRefusal};
use shop_domain::id::{ProductId, ShopId};
use shop_domain::webhook::{EventData, EventType, StockCause, stock_entry_of};
use shop_ports::StoreError;
use shop_ports::port::{
    AddVariantCommand, CreateProductCommand, IdempotencyClaim, PatchProductCommand,
    PatchVariantCommand, ProductPostOutcome, ProductWriteContext, ProductWriteResult,
    ProductWriter,
};

use super::write::{ProductWrite, ProductWrites};
use super::write_checks::{
    CatalogueChecks, CheckRefusal, claim_codes, resolve_brand, resolve_category,
};
use super::{CatalogueQueries, Selection};
use crate::database::write_locks::WriteLocks;
use crate::database::{Database, write_transaction};
use crate::error::DbError;
use crate::rows::{ApiWrite, CreateRecorded, WriteAction, WrittenResource};
use crate::stock::adjust::{AdjustQueries, deciding_again};
use crate::webhooks::outbox::{self, OutboxQueries, OutboxWrite};
use crate::write_log::WriteLog;

/// Every statement a product write runs.
pub(crate) trait ProductWriteConnection:
    CatalogueQueries
    + CatalogueChecks
    + ProductWrites
    + WriteLocks
    + WriteLog
    + AdjustQueries
    + OutboxQueries
    + Send
{
}

impl<C> ProductWriteConnection for C where
    C: CatalogueQueries
        + CatalogueChecks
        + ProductWrites
        + WriteLocks
        + WriteLog
        + AdjustQueries
        + OutboxQueries
        + Send
{
}

impl From<CheckRefusal> for ProductWriteResult {
    fn from(refusal: CheckRefusal) -> Self {
        match refusal {
            CheckRefusal::Conflict { member, holder } => Self::Conflict { member, holder },
            CheckRefusal::UnknownReference { member } => Self::UnknownReference { member },
        }
    }
}

async fn create<C: ProductWriteConnection>(
    conn: &mut C,
    command: &CreateProductCommand,
    outbox: Option<&OutboxWrite<'_>>,
) -> Result<ProductPostOutcome, DbError> {
    let context = &command.context;
    if let Some(outcome) = replayed(conn, context, command.idempotency.as_ref(), None).await? {
        return Ok(outcome);
    }
    let result = decide_create(conn, command, outbox).await?;
    record(
        conn,
        context,
        command.idempotency.as_ref(),
        &result,
        command.id.as_str(),
    )
    .await?;
    Ok(ProductPostOutcome::Fresh(result))
}

async fn decide_create<C: ProductWriteConnection>(
    conn: &mut C,
    command: &CreateProductCommand,
    outbox: Option<&OutboxWrite<'_>>,
) -> Result<ProductWriteResult, DbError> {
    let (context, new) = (&command.context, &command.product);
    if let Some(refusal) = claim_codes(conn, &context.shop, &new.code_claims()).await? {
        return Ok(refusal.into());
    }
    let (category, brand) = match references(conn, context, new).await? {
        Ok(resolved) => resolved,
        Err(refusal) => return Ok(refusal.into()),
    };
    if command.variant_ids.len() != new.variants().len() {
        return Err(DbError::Invariant(
            "a create needs one new id per variant".into(),
        ));
    }
    let mut ids = command.variant_ids.iter().cloned();
    let product = new.product(
        command.id.clone(),
        || ids.next().expect("one id per variant, checked above"),
        category,
        brand,
        context.at,
    );
    finish(
        conn,
        context,
        outbox,
        None,
        &product,
        &[],
        WriteAction::Created,
    )
    .await?;
    Ok(ProductWriteResult::Written(Box::new(product)))
}

type Resolved = (
    Option<shop_domain::catalogue::CategoryRef>,
    Option<shop_domain::catalogue::BrandRef>,
);

/// A new product's category and brand.
async fn references<C: ProductWriteConnection>(
    conn: &mut C,
    context: &ProductWriteContext,
    new: &NewProduct,
) -> Result<Result<Resolved, CheckRefusal>, DbError> {
    let category = match &new.category {
        None => None,
        Some(reference) => {
            match resolve_category(conn, &context.shop, reference, &context.new_category_id).await?
            {
                Ok(category) => Some(category),
                Err(refusal) => return Ok(Err(refusal)),
            }
        }
    };
    let brand = match &new.brand {
        None => None,
        Some(reference) => {
            match resolve_brand(conn, &context.shop, reference, &context.new_brand_id).await? {
                Ok(brand) => Some(brand),
                Err(refusal) => return Ok(Err(refusal)),
            }
        }
    };
    Ok(Ok((category, brand)))
}

async fn add_variant<C: ProductWriteConnection>(
    conn: &mut C,
    command: &AddVariantCommand,
    outbox: Option<&OutboxWrite<'_>>,
) -> Result<ProductPostOutcome, DbError> {
    let context = &command.context;
    let claim = command.idempotency.as_ref();
    if let Some(outcome) = replayed(conn, context, claim, Some(&command.product_id)).await? {
        return Ok(outcome);
    }
    let result = decide_add(conn, command, outbox).await?;
    record(conn, context, claim, &result, command.variant_id.as_str()).await?;
    Ok(ProductPostOutcome::Fresh(result))
}

async fn decide_add<C: ProductWriteConnection>(
    conn: &mut C,
    command: &AddVariantCommand,
    outbox: Option<&OutboxWrite<'_>>,
) -> Result<ProductWriteResult, DbError> {
    let context = &command.context;
    let Some(current) = locked(conn, &context.shop, &command.product_id).await? else {
        return Ok(ProductWriteResult::ProductNotFound);
    };
    let added = match command.variant.add_to(&current, command.variant_id.clone()) {
        Ok(added) => added,
        Err(refusal) => return Ok(refused(&refusal)),
    };
    if let Some(refusal) = claim_codes(conn, &context.shop, &command.variant.code_claims()).await? {
        return Ok(refusal.into());
    }
    let mut next = added.product;
    next.updated_at = context.at.stamp_after(current.updated_at);
    let changed = ["variants"];
    finish(
        conn,
        context,
        outbox,
        Some(&current),
        &next,
        &changed,
        WriteAction::Updated,
    )
    .await?;
    Ok(ProductWriteResult::Written(Box::new(next)))
}

async fn patch_product<C: ProductWriteConnection>(
    conn: &mut C,
    command: &PatchProductCommand,
    outbox: Option<&OutboxWrite<'_>>,
) -> Result<ProductWriteResult, DbError> {
    let context = &command.context;
    let Some(current) = locked(conn, &context.shop, &command.id).await? else {
        return Ok(ProductWriteResult::ProductNotFound);
    };
    if let Some(precondition) = &command.precondition
        && !precondition.holds(&current)
    {
        return Ok(ProductWriteResult::PreconditionFailed(Box::new(current)));
    }
    let patch = &command.patch;
    let mut next = patch.apply(&current);
    match patched_references(conn, context, patch, &mut next).await? {
        Ok(()) => {}
        Err(refusal) => return Ok(refusal.into()),
    }
    let changed = ProductPatch::changed_members(&current, &next);
    if changed.is_empty() {
        return Ok(ProductWriteResult::Written(Box::new(current)));
    }
    if let Some(refusal) = claim_codes(conn, &context.shop, &patch.code_claims(&current)).await? {
        return Ok(refusal.into());
    }
    next.updated_at = context.at.stamp_after(current.updated_at);
    finish(
        conn,
        context,
        outbox,
        Some(&current),
        &next,
        &changed,
        WriteAction::Updated,
    )
    .await?;
    Ok(ProductWriteResult::Written(Box::new(next)))
}

/// A patch's `category` and `brand`: `null` removes one, a reference is resolved.
async fn patched_references<C: ProductWriteConnection>(
    conn: &mut C,
    context: &ProductWriteContext,
    patch: &ProductPatch,
    next: &mut Product,
) -> Result<Result<(), CheckRefusal>, DbError> {
    let shop = &context.shop;
    if let Some(reference) = &patch.category {
        next.category = match reference {
            None => None,
            Some(reference) => {
                match resolve_category(conn, shop, reference, &context.new_category_id).await? {
                    Ok(category) => Some(category),
                    Err(refusal) => return Ok(Err(refusal)),
                }
            }
        };
    }
    if let Some(reference) = &patch.brand {
        next.brand = match reference {
            None => None,
            Some(reference) => {
                match resolve_brand(conn, shop, reference, &context.new_brand_id).await? {
                    Ok(brand) => Some(brand),
                    Err(refusal) => return Ok(Err(refusal)),
                }
            }
        };
    }
    Ok(Ok(()))
}

async fn patch_variant<C: ProductWriteConnection>(
    conn: &mut C,
    command: &PatchVariantCommand,
    outbox: Option<&OutboxWrite<'_>>,
) -> Result<ProductWriteResult, DbError> {
    let context = &command.context;
    let Some(current) = locked(conn, &context.shop, &command.product_id).await? else {
        return Ok(ProductWriteResult::ProductNotFound);
    };
    if let Some(precondition) = &command.precondition
        && !precondition.holds(&current)
    {
        return Ok(ProductWriteResult::PreconditionFailed(Box::new(current)));
    }
    let patched = match command.patch.apply(&current, &command.variant_id) {
        Ok(patched) => patched,
        Err(refusal) => return Ok(refused(&refusal)),
    };
    if patched.changes_nothing() {
        return Ok(ProductWriteResult::Written(Box::new(current)));
    }
    let before = current
        .variants
        .iter()
        .find(|variant| variant.id == command.variant_id)
        .ok_or_else(|| DbError::Invariant("a patched variant is gone".into()))?;
    let claims = command.patch.code_claims(before);
    if let Some(refusal) = claim_codes(conn, &context.shop, &claims).await? {
        return Ok(refusal.into());
    }
    let mut next = patched.product;
    next.updated_at = context.at.stamp_after(current.updated_at);
    let changed: Vec<String> = patched
        .changed
        .iter()
        .map(|member| format!("variants.{}.{member}", command.variant_id))
        .collect();
    let changed: Vec<&str> = changed.iter().map(String::as_str).collect();
    finish(
        conn,
        context,
        outbox,
        Some(&current),
        &next,
        &changed,
        WriteAction::Updated,
    )
    .await?;
    Ok(ProductWriteResult::Written(Box::new(next)))
}

fn refused(refusal: &VariantWriteRefusal) -> ProductWriteResult {
    match refusal {
        VariantWriteRefusal::UnknownVariant => ProductWriteResult::VariantNotFound,
        other => ProductWriteResult::Refused {
            member: other
                .member_problem()
                .map_or_else(|| "variants".to_owned(), |problem| problem.path),
            message: other.to_string(),
        },
    }
}

/// The shop's product, locked with its variants; `None` when the shop has none such.
async fn locked<C: ProductWriteConnection>(
    conn: &mut C,
    shop: &ShopId,
    id: &ProductId,
) -> Result<Option<Product>, DbError> {
    if !conn.lock_product(shop, id).await? {
        return Ok(None);
    }
    load(conn, shop, id).await
}

async fn load<C: ProductWriteConnection>(
    conn: &mut C,
    shop: &ShopId,
    id: &ProductId,
) -> Result<Option<Product>, DbError> {
    let mut found = conn
        .load_products(shop, Selection::Ids(std::slice::from_ref(id)))
        .await?;
    Ok(found.pop())
}

/// The product's rows, the activity's line and the events: a `stock.updated` for each
/// variant whose stock entry changed (what it shows: the product's name, the variant's label,
/// codes or active flag; a new variant), then the product's own. The entries changed are
/// stamped with the product's new stamp: past the product's last, which no entry of it is
/// ever stamped after, so an entry's `updatedAt` strictly increases too.
async fn finish<C: ProductWriteConnection>(
    conn: &mut C,
    context: &ProductWriteContext,
    outbox: Option<&OutboxWrite<'_>>,
    before: Option<&Product>,
    product: &Product,
    changed: &[&str],
    action: WriteAction,
) -> Result<(), DbError> {
    let shop = &context.shop;
    let rows = ProductWrite::new(shop, product, before, product.updated_at)?;
    conn.write_product(shop, &rows).await?;
    conn.log_write(&ApiWrite {
        id: &context.write_id,
        shop,
        key_prefix: &context.key_prefix,
        resource: WrittenResource::Product,
        resource_id: product.id.as_str(),
        action,
        changed,
        at: context.at,
    })
    .await?;
    if let Some(outbox) = outbox {
        let mut events = Vec::new();
        for (variant, write) in product.variants.iter().zip(&rows.variants) {
            if write.entry_changed {
                let entry = stock_entry_of(product, variant, product.updated_at);
                let cause = StockCause::Product;
                let data = EventData::Stock { entry, cause };
                events.push(outbox.event(EventType::StockUpdated, product.updated_at, data)?);
            }
        }
        let created = action == WriteAction::Created;
        events.push(outbox.product(created, product.clone())?);
        outbox::append(conn, outbox, shop, &events).await?;
    }
    Ok(())
}

/// The first answer under a live record of the key, if any: the product as it is now (the
/// one the record names, or `variant_of`, the one a variant was added to), or the same
/// conflict.
async fn replayed<C: ProductWriteConnection>(
    conn: &mut C,
    context: &ProductWriteContext,
    claim: Option<&IdempotencyClaim>,
    variant_of: Option<&ProductId>,
) -> Result<Option<ProductPostOutcome>, DbError> {
    let Some(claim) = claim else {
        return Ok(None);
    };
    let Some(record) = conn.live_record(&context.key_prefix, claim).await? else {
        return Ok(None);
    };
    if record.fingerprint != claim.fingerprint {
        return Ok(Some(ProductPostOutcome::KeyReused));
    }
    let first = match CreateRecorded::of(&record)? {
        CreateRecorded::Created(recorded) => {
            let id = match variant_of {
                Some(product) => product.clone(),
                None => ProductId::parse(recorded.as_str())
                    .map_err(|e| DbError::corrupt("idempotency_records", &recorded, e))?,
            };
            let found = load(conn, &context.shop, &id).await?.ok_or_else(|| {
                DbError::Invariant(format!("a record names product {id}, not in this shop"))
            })?;
            ProductWriteResult::Written(Box::new(found))
        }
        CreateRecorded::Conflict { member, holder } => {
            ProductWriteResult::Conflict { member, holder }
        }
    };
    Ok(Some(ProductPostOutcome::Replayed(first)))
}

/// Records a `POST`'s written product (`resource`: the product's or the added variant's id)
/// or conflict under its key; the other refusals are decided again by a retry.
async fn record<C: ProductWriteConnection>(
    conn: &mut C,
    context: &ProductWriteContext,
    claim: Option<&IdempotencyClaim>,
    result: &ProductWriteResult,
    resource: &str,
) -> Result<(), DbError> {
    let Some(claim) = claim else {
        return Ok(());
    };
    let recorded = match result {
        ProductWriteResult::Written(_) => CreateRecorded::Created(resource.to_owned()),
        ProductWriteResult::Conflict { member, holder } => CreateRecorded::Conflict {
            member: member.clone(),
            holder: holder.clone(),
        },
        _ => return Ok(()),
    };
    conn.insert_record(&recorded.row(&context.key_prefix, claim, context.at))
        .await
}

#[async_trait]
impl ProductWriter for Database {
    async fn create_product(
        &self,
        command: &CreateProductCommand,
    ) -> Result<ProductPostOutcome, StoreError> {
        let outcome =
            deciding_again(move || async move { write_transaction!(self, create(command)) })
                .await?;
        self.remember_write(&command.context.key_prefix).await;
        Ok(outcome)
    }

    async fn add_variant(
        &self,
        command: &AddVariantCommand,
    ) -> Result<ProductPostOutcome, StoreError> {
        let outcome =
            deciding_again(move || async move { write_transaction!(self, add_variant(command)) })
                .await?;
        self.remember_write(&command.context.key_prefix).await;
        Ok(outcome)
    }

    async fn patch_product(
        &self,
        command: &PatchProductCommand,
    ) -> Result<ProductWriteResult, StoreError> {
        let result = write_transaction!(self, patch_product(command))?;
        self.remember_write(&command.context.key_prefix).await;
        Ok(result)
    }

    async fn patch_variant(
        &self,
        command: &PatchVariantCommand,
    ) -> Result<ProductWriteResult, StoreError> {
        let result = write_transaction!(self, patch_variant(command))?;
        self.remember_write(&command.context.key_prefix).await;
        Ok(result)
    }
}
