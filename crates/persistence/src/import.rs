//! `ImportRepository`: an idempotent upsert of a shop's products and loyalty tiers, all or
//! nothing, in one transaction.
//!
//! Steps: (1) refuse ids that already belong to another shop (ids are global primary keys), or
//! variant ids that belong to another product, writing nothing; (2) load the stored version of
//! every product in the file, let `decide_product_import` choose, and write only the products
//! it says changed (with their category, brand and variants); (3) upsert tiers that differ from
//! the stored ones. Re-importing the same file writes nothing at all.

use std::collections::HashMap;

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::Timestamp;
use shop_domain::catalogue::Product;
use shop_domain::id::{ProductId, ShopId, TierId};
use shop_domain::import::{
    ImportProblem, ProductImportDecision, ShopImport, decide_product_import,
};
use shop_domain::loyalty::LoyaltyTier;
use shop_ports::port::{ImportReport, ImportRepository, ImportStoreError};

use crate::catalogue::{CatalogueQueries, Selection};
use crate::database::{Database, impl_for_each_backend, in_transaction};
use crate::error::DbError;
use crate::rows::{BrandRow, CategoryRow, ProductRow, TierRow, VariantRow};
use crate::schema::{brands, categories, loyalty_tiers, products, variants};

/// Ids per `IN (…)` list: far below SQLite's and PostgreSQL's bind limits.
const IDS_PER_QUERY: usize = 500;

const ANOTHER_SHOP: &str = "belongs to another shop";
const ANOTHER_PRODUCT: &str = "belongs to another product";

/// Why the import transaction rolled back.
#[derive(Debug)]
enum ImportFailure {
    ForeignIds(Vec<ImportProblem>),
    Db(DbError),
}

impl From<DbError> for ImportFailure {
    fn from(error: DbError) -> Self {
        Self::Db(error)
    }
}

impl From<diesel::result::Error> for ImportFailure {
    fn from(error: diesel::result::Error) -> Self {
        Self::Db(error.into())
    }
}

/// Tables whose ids an import file names.
#[derive(Clone, Copy, Debug)]
enum Owned {
    Product,
    Category,
    Brand,
    Tier,
}

/// Every row one product write touches.
struct ProductWrite {
    category: Option<CategoryRow>,
    brand: Option<BrandRow>,
    product: ProductRow,
    variants: Vec<VariantRow>,
}

impl ProductWrite {
    fn new(shop: &ShopId, product: &Product) -> Result<Self, DbError> {
        Ok(Self {
            category: product.category.as_ref().map(|category| CategoryRow {
                id: category.id.as_str().to_owned(),
                shop_id: shop.as_str().to_owned(),
                name: category.name.clone(),
            }),
            brand: product.brand.as_ref().map(|brand| BrandRow {
                id: brand.id.as_str().to_owned(),
                shop_id: shop.as_str().to_owned(),
                name: brand.name.clone(),
            }),
            product: ProductRow::from_domain(shop, product)?,
            variants: product
                .variants
                .iter()
                .map(|variant| VariantRow::from_domain(shop, &product.id, variant))
                .collect(),
        })
    }
}

/// The import's own queries, implemented for both backends' connections.
trait ImportQueries {
    /// `(id, shop_id)` of the given ids that exist, in any shop: the one query that looks
    /// across shops, and it reads only ownership.
    fn owners(
        &mut self,
        table: Owned,
        ids: &[String],
    ) -> impl Future<Output = Result<Vec<(String, String)>, DbError>> + Send;

    /// `(id, shop_id, product_id)` of the given variant ids that exist, in any shop.
    fn variant_owners(
        &mut self,
        ids: &[String],
    ) -> impl Future<Output = Result<Vec<(String, String, String)>, DbError>> + Send;

    fn load_tiers(
        &mut self,
        shop: &ShopId,
        ids: &[String],
    ) -> impl Future<Output = Result<Vec<TierRow>, DbError>> + Send;

    /// Upserts the product's category, brand, row and variants, in that order (foreign keys).
    fn write_product(
        &mut self,
        shop: &ShopId,
        rows: &ProductWrite,
    ) -> impl Future<Output = Result<(), DbError>> + Send;

    fn write_tier(
        &mut self,
        shop: &ShopId,
        row: &TierRow,
    ) -> impl Future<Output = Result<(), DbError>> + Send;
}

/// `ON CONFLICT … DO UPDATE … WHERE predicate`. Spelled out because `FilterDsl`, which gives
/// upserts their `filter`, would make every other `.filter()` call ambiguous if imported.
fn only_in_shop<S, P>(upsert: S, predicate: P) -> diesel::dsl::Filter<S, P>
where
    S: diesel::query_dsl::methods::FilterDsl<P>,
{
    diesel::query_dsl::methods::FilterDsl::filter(upsert, predicate)
}

/// Every upsert updates only a row of the same shop (`ON CONFLICT (id) DO UPDATE … WHERE
/// shop_id = ?`). Step (1) already refused foreign ids; a row claimed by another shop since
/// then updates nothing, and that is reported instead of being counted as written.
fn check_written(written: usize, table: &str, id: &str) -> Result<(), DbError> {
    if written == 1 {
        Ok(())
    } else {
        Err(DbError::Invariant(format!(
            "{table} id {id} was taken by another shop during the import"
        )))
    }
}

impl_for_each_backend! {
    impl ImportQueries {
        async fn owners(
            &mut self,
            table: Owned,
            ids: &[String],
        ) -> Result<Vec<(String, String)>, DbError> {
            let found = match table {
                Owned::Product => {
                    products::table
                        .filter(products::id.eq_any(ids))
                        .select((products::id, products::shop_id))
                        .load(self)
                        .await?
                }
                Owned::Category => {
                    categories::table
                        .filter(categories::id.eq_any(ids))
                        .select((categories::id, categories::shop_id))
                        .load(self)
                        .await?
                }
                Owned::Brand => {
                    brands::table
                        .filter(brands::id.eq_any(ids))
                        .select((brands::id, brands::shop_id))
                        .load(self)
                        .await?
                }
                Owned::Tier => {
                    loyalty_tiers::table
                        .filter(loyalty_tiers::id.eq_any(ids))
                        .select((loyalty_tiers::id, loyalty_tiers::shop_id))
                        .load(self)
                        .await?
                }
            };
            Ok(found)
        }

        async fn variant_owners(
            &mut self,
            ids: &[String],
        ) -> Result<Vec<(String, String, String)>, DbError> {
            Ok(variants::table
                .filter(variants::id.eq_any(ids))
                .select((variants::id, variants::shop_id, variants::product_id))
                .load(self)
                .await?)
        }

        async fn load_tiers(
            &mut self,
            shop: &ShopId,
            ids: &[String],
        ) -> Result<Vec<TierRow>, DbError> {
            Ok(loyalty_tiers::table
                .filter(loyalty_tiers::shop_id.eq(shop.as_str()))
                .filter(loyalty_tiers::id.eq_any(ids))
                .select(TierRow::as_select())
                .load(self)
                .await?)
        }

        async fn write_product(
            &mut self,
            shop: &ShopId,
            rows: &ProductWrite,
        ) -> Result<(), DbError> {
            if let Some(category) = &rows.category {
                let upsert = diesel::insert_into(categories::table)
                    .values(category)
                    .on_conflict(categories::id)
                    .do_update()
                    .set(category);
                let written = only_in_shop(upsert, categories::shop_id.eq(shop.as_str()))
                    .execute(&mut *self)
                    .await?;
                check_written(written, "category", &category.id)?;
            }
            if let Some(brand) = &rows.brand {
                let upsert = diesel::insert_into(brands::table)
                    .values(brand)
                    .on_conflict(brands::id)
                    .do_update()
                    .set(brand);
                let written = only_in_shop(upsert, brands::shop_id.eq(shop.as_str()))
                    .execute(&mut *self)
                    .await?;
                check_written(written, "brand", &brand.id)?;
            }
            let upsert = diesel::insert_into(products::table)
                .values(&rows.product)
                .on_conflict(products::id)
                .do_update()
                .set(&rows.product);
            let written = only_in_shop(upsert, products::shop_id.eq(shop.as_str()))
                .execute(&mut *self)
                .await?;
            check_written(written, "product", &rows.product.id)?;
            for variant in &rows.variants {
                let upsert = diesel::insert_into(variants::table)
                    .values(variant)
                    .on_conflict(variants::id)
                    .do_update()
                    .set(variant);
                let same_owner = variants::shop_id
                    .eq(shop.as_str())
                    .and(variants::product_id.eq(&variant.product_id));
                let written = only_in_shop(upsert, same_owner)
                    .execute(&mut *self)
                    .await?;
                check_written(written, "variant", &variant.id)?;
            }
            Ok(())
        }

        async fn write_tier(
            &mut self,
            shop: &ShopId,
            row: &TierRow,
        ) -> Result<(), DbError> {
            let upsert = diesel::insert_into(loyalty_tiers::table)
                .values(row)
                .on_conflict(loyalty_tiers::id)
                .do_update()
                .set(row);
            let written = only_in_shop(upsert, loyalty_tiers::shop_id.eq(shop.as_str()))
                .execute(self)
                .await?;
            check_written(written, "loyalty tier", &row.id)
        }
    }
}

#[async_trait]
impl ImportRepository for Database {
    async fn import(
        &self,
        shop: &ShopId,
        data: ShopImport,
        now: Timestamp,
    ) -> Result<ImportReport, ImportStoreError> {
        let outcome: Result<ImportReport, ImportFailure> =
            in_transaction!(self, |conn| apply(conn, shop, data, now).await);
        outcome.map_err(|failure| match failure {
            ImportFailure::ForeignIds(problems) => ImportStoreError::ForeignIds(problems),
            ImportFailure::Db(error) => ImportStoreError::Store(error.into()),
        })
    }
}

/// The whole import, on a connection already inside the transaction. An `Err` rolls back.
async fn apply<C>(
    conn: &mut C,
    shop: &ShopId,
    data: ShopImport,
    now: Timestamp,
) -> Result<ImportReport, ImportFailure>
where
    C: CatalogueQueries + ImportQueries + Send,
{
    let problems = foreign_ids(conn, shop, &data).await?;
    if !problems.is_empty() {
        return Err(ImportFailure::ForeignIds(problems));
    }
    let mut report = ImportReport::default();

    let product_ids: Vec<String> = data
        .products
        .iter()
        .map(|imported| imported.product.id.as_str().to_owned())
        .collect();
    let mut stored: HashMap<ProductId, Product> = HashMap::with_capacity(product_ids.len());
    for chunk in product_ids.chunks(IDS_PER_QUERY) {
        for product in conn.load_products(shop, Selection::Ids(chunk)).await? {
            stored.insert(product.id.clone(), product);
        }
    }
    for imported in data.products {
        let existing = stored.get(&imported.product.id);
        match decide_product_import(existing, imported, now) {
            ProductImportDecision::Unchanged => report.products_unchanged += 1,
            ProductImportDecision::Write(product) => {
                let rows = ProductWrite::new(shop, &product)?;
                conn.write_product(shop, &rows).await?;
                report.products_written += 1;
            }
        }
    }

    let tier_ids: Vec<String> = data
        .tiers
        .iter()
        .map(|tier| tier.id.as_str().to_owned())
        .collect();
    let mut stored_tiers: HashMap<TierId, LoyaltyTier> = HashMap::new();
    for chunk in tier_ids.chunks(IDS_PER_QUERY) {
        for row in conn.load_tiers(shop, chunk).await? {
            let tier = row.into_domain()?;
            stored_tiers.insert(tier.id.clone(), tier);
        }
    }
    for tier in &data.tiers {
        if stored_tiers.get(&tier.id) == Some(tier) {
            report.tiers_unchanged += 1;
        } else {
            conn.write_tier(shop, &TierRow::from_domain(shop, tier))
                .await?;
            report.tiers_written += 1;
        }
    }
    Ok(report)
}

/// Step (1): every id of the file that exists in another shop, and every variant id that
/// exists under another product, with its JSON path in the file.
async fn foreign_ids<C>(
    conn: &mut C,
    shop: &ShopId,
    data: &ShopImport,
) -> Result<Vec<ImportProblem>, DbError>
where
    C: ImportQueries + Send,
{
    let products = &data.products;
    // Owned, de-duplicated id lists, built before the first await.
    let product_ids = distinct(products.iter().map(|p| p.product.id.as_str()));
    let category_ids = distinct(
        products
            .iter()
            .filter_map(|p| p.product.category.as_ref().map(|c| c.id.as_str())),
    );
    let brand_ids = distinct(
        products
            .iter()
            .filter_map(|p| p.product.brand.as_ref().map(|b| b.id.as_str())),
    );
    let tier_ids = distinct(data.tiers.iter().map(|tier| tier.id.as_str()));
    let variant_ids = distinct(
        products
            .iter()
            .flat_map(|p| p.product.variants.iter().map(|v| v.id.as_str())),
    );

    let product_shops = owner_map(conn, Owned::Product, &product_ids).await?;
    let category_shops = owner_map(conn, Owned::Category, &category_ids).await?;
    let brand_shops = owner_map(conn, Owned::Brand, &brand_ids).await?;
    let tier_shops = owner_map(conn, Owned::Tier, &tier_ids).await?;
    let mut variant_owners: HashMap<String, (String, String)> = HashMap::new();
    for chunk in variant_ids.chunks(IDS_PER_QUERY) {
        for (id, shop_id, product_id) in conn.variant_owners(chunk).await? {
            variant_owners.insert(id, (shop_id, product_id));
        }
    }

    let foreign = |owners: &HashMap<String, String>, id: &str| {
        owners.get(id).is_some_and(|owner| owner != shop.as_str())
    };
    let mut problems = Vec::new();
    for (p, imported) in products.iter().enumerate() {
        let product = &imported.product;
        if foreign(&product_shops, product.id.as_str()) {
            problems.push(ImportProblem::new(
                format!("products[{p}].id"),
                ANOTHER_SHOP,
            ));
        }
        if let Some(category) = &product.category
            && foreign(&category_shops, category.id.as_str())
        {
            let path = format!("products[{p}].category.id");
            problems.push(ImportProblem::new(path, ANOTHER_SHOP));
        }
        if let Some(brand) = &product.brand
            && foreign(&brand_shops, brand.id.as_str())
        {
            let path = format!("products[{p}].brand.id");
            problems.push(ImportProblem::new(path, ANOTHER_SHOP));
        }
        for (v, variant) in product.variants.iter().enumerate() {
            let Some((owner_shop, owner_product)) = variant_owners.get(variant.id.as_str()) else {
                continue;
            };
            let path = format!("products[{p}].variants[{v}].id");
            if owner_shop != shop.as_str() {
                problems.push(ImportProblem::new(path, ANOTHER_SHOP));
            } else if owner_product != product.id.as_str() {
                problems.push(ImportProblem::new(path, ANOTHER_PRODUCT));
            }
        }
    }
    for (t, tier) in data.tiers.iter().enumerate() {
        if foreign(&tier_shops, tier.id.as_str()) {
            problems.push(ImportProblem::new(
                format!("loyaltyTiers[{t}].id"),
                ANOTHER_SHOP,
            ));
        }
    }
    Ok(problems)
}

/// Owner shop by id, for those of the (distinct) ids of one table that exist.
async fn owner_map<C>(
    conn: &mut C,
    table: Owned,
    ids: &[String],
) -> Result<HashMap<String, String>, DbError>
where
    C: ImportQueries + Send,
{
    let mut owners = HashMap::new();
    for chunk in ids.chunks(IDS_PER_QUERY) {
        owners.extend(conn.owners(table, chunk).await?);
    }
    Ok(owners)
}

fn distinct<'i>(ids: impl Iterator<Item = &'i str>) -> Vec<String> {
    let mut ids: Vec<String> = ids.map(str::to_owned).collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}
