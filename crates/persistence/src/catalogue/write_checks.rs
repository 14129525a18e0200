//! What an API v2 write of a product checks against the rest of the shop's catalogue, inside
//! its transaction: who holds a code it claims, and which category or brand a reference names.
//!
//! Codes have no unique index (imported rows may share one, and stay readable and
//! patchable); a write claims each new code with a value lock (`WriteLocks::lock_value`)
//! before it looks for a holder, so two writes claiming one code check one after the other.

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::catalogue::write::{CatalogueReference, CodeClaim, CodeKind, CodeOwner};
use shop_domain::catalogue::{BrandRef, CategoryRef};
use shop_domain::id::{BrandId, CategoryId, ShopId};
use shop_domain::text::fold_case;

use crate::database::impl_for_each_backend;
use crate::database::write_locks::WriteLocks;
use crate::error::DbError;
use crate::schema::{brands, categories, products, variants};

/// The statements of the checks, implemented for both backends' connections.
pub(crate) trait CatalogueChecks {
    /// The id of a product or variant of the shop, other than `owner`, that holds `value` as
    /// a code of `kind` (a product's `sku` or a variant's; a product's `ean` or a variant's
    /// `barcode`).
    fn code_holder(
        &mut self,
        shop: &ShopId,
        kind: CodeKind,
        value: &str,
        owner: Option<&CodeOwner>,
    ) -> impl Future<Output = Result<Option<String>, DbError>> + Send;

    /// The shop's categories (or brands) as `(id, name)`: a shop has few, and a name is
    /// matched on them without regard to case by the domain's fold (SQLite's `lower()` folds
    /// ASCII only).
    fn categories(
        &mut self,
        shop: &ShopId,
    ) -> impl Future<Output = Result<Vec<(String, String)>, DbError>> + Send;

    fn brands(
        &mut self,
        shop: &ShopId,
    ) -> impl Future<Output = Result<Vec<(String, String)>, DbError>> + Send;
}

impl_for_each_backend! {
    impl CatalogueChecks {
        async fn code_holder(
            &mut self,
            shop: &ShopId,
            kind: CodeKind,
            value: &str,
            owner: Option<&CodeOwner>,
        ) -> Result<Option<String>, DbError> {
            let (own_product, own_variant) = match owner {
                Some(CodeOwner::Product(id)) => (id.as_str(), ""),
                Some(CodeOwner::Variant(id)) => ("", id.as_str()),
                None => ("", ""),
            };
            // One statement per table and kind: a boxed filter would keep none prepared.
            let held_by_product = match kind {
                CodeKind::Sku => products::table
                    .filter(products::shop_id.eq(shop.as_str()))
                    .filter(products::sku.eq(value))
                    .filter(products::id.ne(own_product))
                    .select(products::id)
                    .order(products::id.asc())
                    .first::<String>(&mut *self)
                    .await
                    .optional()?,
                CodeKind::Barcode => products::table
                    .filter(products::shop_id.eq(shop.as_str()))
                    .filter(products::ean.eq(value))
                    .filter(products::id.ne(own_product))
                    .select(products::id)
                    .order(products::id.asc())
                    .first::<String>(&mut *self)
                    .await
                    .optional()?,
            };
            if held_by_product.is_some() {
                return Ok(held_by_product);
            }
            Ok(match kind {
                CodeKind::Sku => variants::table
                    .filter(variants::shop_id.eq(shop.as_str()))
                    .filter(variants::sku.eq(value))
                    .filter(variants::id.ne(own_variant))
                    .select(variants::id)
                    .order(variants::id.asc())
                    .first::<String>(self)
                    .await
                    .optional()?,
                CodeKind::Barcode => variants::table
                    .filter(variants::shop_id.eq(shop.as_str()))
                    .filter(variants::barcode.eq(value))
                    .filter(variants::id.ne(own_variant))
                    .select(variants::id)
                    .order(variants::id.asc())
                    .first::<String>(self)
                    .await
                    .optional()?,
            })
        }

        async fn categories(&mut self, shop: &ShopId) -> Result<Vec<(String, String)>, DbError> {
            Ok(categories::table
                .filter(categories::shop_id.eq(shop.as_str()))
                .select((categories::id, categories::name))
                .order(categories::id.asc())
                .load(self)
                .await?)
        }

        async fn brands(&mut self, shop: &ShopId) -> Result<Vec<(String, String)>, DbError> {
            Ok(brands::table
                .filter(brands::shop_id.eq(shop.as_str()))
                .select((brands::id, brands::name))
                .order(brands::id.asc())
                .load(self)
                .await?)
        }
    }
}

/// A refusal found by the checks, as the write answers it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CheckRefusal {
    /// `member`'s code is held by `holder`.
    Conflict { member: String, holder: String },
    /// `member` names no category or brand of the shop.
    UnknownReference { member: String },
}

/// Claims every code in `claims` (in one order, so that two writes never wait for each other
/// crosswise) and answers the first one another row holds.
pub(crate) async fn claim_codes<C: CatalogueChecks + WriteLocks + Send>(
    conn: &mut C,
    shop: &ShopId,
    claims: &[CodeClaim],
) -> Result<Option<CheckRefusal>, DbError> {
    let mut ordered: Vec<&CodeClaim> = claims.iter().collect();
    ordered.sort_by(|a, b| (namespace(a.kind), &a.value).cmp(&(namespace(b.kind), &b.value)));
    for claim in &ordered {
        conn.lock_value(shop, namespace(claim.kind), &claim.value)
            .await?;
    }
    for claim in claims {
        let holder = conn
            .code_holder(shop, claim.kind, &claim.value, claim.owner.as_ref())
            .await?;
        if let Some(holder) = holder {
            return Ok(Some(CheckRefusal::Conflict {
                member: claim.path.clone(),
                holder,
            }));
        }
    }
    Ok(None)
}

fn namespace(kind: CodeKind) -> &'static str {
    match kind {
        CodeKind::Sku => "catalogue.sku",
        CodeKind::Barcode => "catalogue.barcode",
    }
}

/// Which of the shop's rows a reference names, as `(id, name)`: an id it has (else
/// `UnknownReference` at `{path}.id`), or the row whose name is the reference's without regard
/// to case, else a new row `(new_id, name)` (claimed by name, so that two writes naming one new
/// category create it once).
async fn resolve<C: WriteLocks + Send>(
    conn: &mut C,
    shop: &ShopId,
    path: &'static str,
    reference: &CatalogueReference,
    existing: Vec<(String, String)>,
    new_id: &str,
) -> Result<Result<(String, String), CheckRefusal>, DbError> {
    match reference {
        CatalogueReference::Id(id) => Ok(existing
            .into_iter()
            .find(|(held, _)| held == id)
            .ok_or_else(|| CheckRefusal::UnknownReference {
                member: format!("{path}.id"),
            })),
        CatalogueReference::Name(name) => {
            let folded = fold_case(name);
            conn.lock_value(shop, path, &folded).await?;
            let found = existing
                .into_iter()
                .find(|(_, held)| fold_case(held) == folded);
            Ok(Ok(
                found.unwrap_or_else(|| (new_id.to_owned(), name.clone()))
            ))
        }
    }
}

pub(crate) async fn resolve_category<C: CatalogueChecks + WriteLocks + Send>(
    conn: &mut C,
    shop: &ShopId,
    reference: &CatalogueReference,
    new_id: &CategoryId,
) -> Result<Result<CategoryRef, CheckRefusal>, DbError> {
    let existing = conn.categories(shop).await?;
    let resolved = resolve(conn, shop, "category", reference, existing, new_id.as_str()).await?;
    Ok(resolved.and_then(|(id, name)| {
        let id = CategoryId::parse(id.as_str()).map_err(|_| CheckRefusal::UnknownReference {
            member: "category.id".into(),
        })?;
        Ok(CategoryRef { id, name })
    }))
}

pub(crate) async fn resolve_brand<C: CatalogueChecks + WriteLocks + Send>(
    conn: &mut C,
    shop: &ShopId,
    reference: &CatalogueReference,
    new_id: &BrandId,
) -> Result<Result<BrandRef, CheckRefusal>, DbError> {
    let existing = conn.brands(shop).await?;
    let resolved = resolve(conn, shop, "brand", reference, existing, new_id.as_str()).await?;
    Ok(resolved.and_then(|(id, name)| {
        let id = BrandId::parse(id.as_str()).map_err(|_| CheckRefusal::UnknownReference {
            member: "brand.id".into(),
        })?;
        Ok(BrandRef { id, name })
    }))
}
