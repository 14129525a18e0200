//! `shop_seed::BulkLoader`: large amounts of new rows, fast, for `shop-api seed` (only with
//! the `seed` feature).
//!
//! A batch is ONE transaction of plain multi-row INSERTs (no upsert, nothing read back), parents
//! first, each statement carrying as many rows as the backend's bind-parameter limit allows.
//! Rows are built by the same `from_domain` conversions as the import's, so the derived search
//! columns (and the search indexes that triggers keep from them) are identical.
//!
//! diesel-async runs a multi-row INSERT on PostgreSQL but not on SQLite, where diesel builds it
//! only through its synchronous `ExecuteDsl` (hence one statement per row in `import/sales.rs`).
//! So on SQLite the same statements run on the wrapped synchronous connection, on tokio's
//! blocking pool, inside the async transaction: [`insert_batch!`] is written once and expanded
//! for both connection kinds.

use async_trait::async_trait;
use diesel::{BoolExpressionMethods, ExpressionMethods, QueryDsl};
use shop_domain::id::ShopId;
use shop_ports::StoreError;
use shop_seed::{BulkBatch, BulkLoader};

use crate::database::{Database, SqliteConn, in_transaction, with_conn};
use crate::error::DbError;
use crate::rows::{
    BrandRow, CategoryRow, NewClientRow, NewVariantRow, OrderItemRow, OrderRow, ProductRow,
    SpinRow, TicketRow, TierRow, VariantRow,
};
use crate::schema::{
    brands, categories, clients, lottery_tickets, loyalty_tiers, order_items, orders, products,
    spins, variants,
};

/// SQLite's `SQLITE_MAX_VARIABLE_NUMBER` (the bundled build's default since 3.32).
const SQLITE_MAX_BINDS: usize = 32_766;
/// PostgreSQL's wire protocol counts parameters in 16 bits.
const POSTGRES_MAX_BINDS: usize = 65_535;

/// The columns each row type binds: a statement holds `max_binds / columns` rows. Too high a
/// count would exceed the limit and fail loudly (the tests insert several full statements).
mod columns {
    pub const TIER: usize = 5;
    pub const CATEGORY: usize = 3;
    pub const BRAND: usize = 3;
    pub const PRODUCT: usize = 20;
    pub const VARIANT: usize = 16;
    pub const CLIENT: usize = 25;
    pub const ORDER: usize = 15;
    pub const ORDER_ITEM: usize = 12;
    pub const TICKET: usize = 5;
    pub const SPIN: usize = 8;
}

/// One batch as rows, in insertion order.
struct BatchRows {
    tiers: Vec<TierRow>,
    categories: Vec<CategoryRow>,
    brands: Vec<BrandRow>,
    products: Vec<ProductRow>,
    variants: Vec<NewVariantRow>,
    clients: Vec<NewClientRow>,
    orders: Vec<OrderRow>,
    order_items: Vec<OrderItemRow>,
    lottery_tickets: Vec<TicketRow>,
    spins: Vec<SpinRow>,
}

impl BatchRows {
    fn new(shop: &ShopId, batch: &BulkBatch) -> Result<Self, DbError> {
        let owned = |id: &str| id.to_owned();
        Ok(Self {
            tiers: batch
                .tiers
                .iter()
                .map(|tier| TierRow::from_domain(shop, tier))
                .collect(),
            categories: batch
                .categories
                .iter()
                .map(|category| CategoryRow {
                    id: owned(category.id.as_str()),
                    shop_id: owned(shop.as_str()),
                    name: category.name.clone(),
                })
                .collect(),
            brands: batch
                .brands
                .iter()
                .map(|brand| BrandRow {
                    id: owned(brand.id.as_str()),
                    shop_id: owned(shop.as_str()),
                    name: brand.name.clone(),
                })
                .collect(),
            products: batch
                .products
                .iter()
                .map(|product| ProductRow::from_domain(shop, product))
                .collect::<Result<_, _>>()?,
            variants: batch
                .products
                .iter()
                .flat_map(|product| {
                    product.variants.iter().map(move |variant| NewVariantRow {
                        row: VariantRow::from_domain(shop, product, variant),
                        stock_updated_at_ms: product.updated_at.millis(),
                    })
                })
                .collect(),
            clients: batch
                .clients
                .iter()
                .map(|client| NewClientRow::from_domain(shop, client))
                .collect::<Result<_, _>>()?,
            orders: batch
                .orders
                .iter()
                .map(|order| OrderRow::from_domain(shop, order))
                .collect(),
            order_items: batch
                .orders
                .iter()
                .flat_map(|order| {
                    order.items.iter().enumerate().map(move |(position, item)| {
                        OrderItemRow::from_domain(shop, &order.id, position, item)
                    })
                })
                .collect::<Result<_, _>>()?,
            lottery_tickets: batch
                .lottery_tickets
                .iter()
                .map(|ticket| TicketRow::from_domain(shop, ticket))
                .collect(),
            spins: batch
                .spins
                .iter()
                .map(|spin| SpinRow::from_domain(shop, spin))
                .collect(),
        })
    }
}

/// `insert_chunks!(conn, rows, table, columns, max_binds [, .await])`: one multi-row INSERT per
/// chunk of `rows`. The optional `.await` makes the same text serve diesel's synchronous
/// connection and diesel-async's; `?` converts the error to the enclosing function's.
macro_rules! insert_chunks {
    ($conn:expr, $rows:expr, $table:path, $columns:expr, $max_binds:expr $(, $($suffix:tt)+)?) => {
        for chunk in $rows.chunks(($max_binds / $columns).max(1)) {
            diesel::insert_into($table)
                .values(chunk)
                .execute(&mut *$conn)
                $($($suffix)+)? ?;
        }
    };
}

/// `insert_batch!(conn, rows, max_binds [, .await])`: every table of a [`BatchRows`], parents
/// first so that foreign keys hold at every statement.
macro_rules! insert_batch {
    ($conn:expr, $rows:expr, $max_binds:expr $(, $($suffix:tt)+)?) => {{
        let rows: &BatchRows = $rows;
        insert_chunks!($conn, rows.tiers, loyalty_tiers::table, columns::TIER, $max_binds $(, $($suffix)+)?);
        insert_chunks!($conn, rows.categories, categories::table, columns::CATEGORY, $max_binds $(, $($suffix)+)?);
        insert_chunks!($conn, rows.brands, brands::table, columns::BRAND, $max_binds $(, $($suffix)+)?);
        insert_chunks!($conn, rows.products, products::table, columns::PRODUCT, $max_binds $(, $($suffix)+)?);
        insert_chunks!($conn, rows.variants, variants::table, columns::VARIANT, $max_binds $(, $($suffix)+)?);
        insert_chunks!($conn, rows.clients, clients::table, columns::CLIENT, $max_binds $(, $($suffix)+)?);
        insert_chunks!($conn, rows.orders, orders::table, columns::ORDER, $max_binds $(, $($suffix)+)?);
        insert_chunks!($conn, rows.order_items, order_items::table, columns::ORDER_ITEM, $max_binds $(, $($suffix)+)?);
        insert_chunks!($conn, rows.lottery_tickets, lottery_tickets::table, columns::TICKET, $max_binds $(, $($suffix)+)?);
        insert_chunks!($conn, rows.spins, spins::table, columns::SPIN, $max_binds $(, $($suffix)+)?);
    }};
}

/// What differs between the backends: how the statements run, and how statistics refresh.
trait BulkWrites {
    /// Inserts the rows; the caller holds the transaction.
    fn insert_rows(&mut self, rows: BatchRows) -> impl Future<Output = Result<(), DbError>> + Send;

    fn analyze_all(&mut self) -> impl Future<Output = Result<(), DbError>> + Send;
}

/// SQLite: diesel's synchronous multi-row INSERT, on the blocking pool.
mod sqlite {
    use diesel::RunQueryDsl;
    use diesel_async::SimpleAsyncConnection;

    use super::*;

    impl BulkWrites for SqliteConn {
        async fn insert_rows(&mut self, rows: BatchRows) -> Result<(), DbError> {
            self.spawn_blocking(move |conn| {
                insert_batch!(conn, &rows, SQLITE_MAX_BINDS);
                Ok(())
            })
            .await?;
            Ok(())
        }

        async fn analyze_all(&mut self) -> Result<(), DbError> {
            Ok(self.batch_execute("ANALYZE").await?)
        }
    }
}

/// PostgreSQL: diesel-async's multi-row INSERT.
mod postgres {
    use diesel_async::{AsyncPgConnection, RunQueryDsl, SimpleAsyncConnection};

    use super::*;

    impl BulkWrites for AsyncPgConnection {
        async fn insert_rows(&mut self, rows: BatchRows) -> Result<(), DbError> {
            // Inside the caller's transaction, as for ANALYZE below: one statement of 3,000
            // products also writes their ~300,000 search index entries (its triggers), which
            // takes longer than the pool's 10 s once the index is large.
            self.batch_execute("SET LOCAL statement_timeout = 0")
                .await?;
            insert_batch!(self, &rows, POSTGRES_MAX_BINDS, .await);
            Ok(())
        }

        async fn analyze_all(&mut self) -> Result<(), DbError> {
            // Inside the caller's transaction: the pool's 10 s statement timeout is lifted for
            // this transaction only, since ANALYZE of millions of rows may take longer.
            self.batch_execute("SET LOCAL statement_timeout = 0; ANALYZE")
                .await?;
            Ok(())
        }
    }
}

#[async_trait]
impl BulkLoader for Database {
    async fn shop_has_data(&self, shop: &ShopId) -> Result<bool, StoreError> {
        use diesel::dsl::exists;
        use diesel_async::RunQueryDsl;
        let shop = shop.as_str();
        let found = with_conn!(self, |conn| diesel::select(
            exists(products::table.filter(products::shop_id.eq(shop)))
                .or(exists(clients::table.filter(clients::shop_id.eq(shop))))
                .or(exists(orders::table.filter(orders::shop_id.eq(shop))))
        )
        .get_result::<bool>(conn)
        .await)?;
        Ok(found)
    }

    async fn insert_batch(&self, shop: &ShopId, batch: BulkBatch) -> Result<(), StoreError> {
        let rows = BatchRows::new(shop, &batch)?;
        drop(batch);
        let written: Result<(), DbError> =
            in_transaction!(self, |conn| conn.insert_rows(rows).await);
        Ok(written?)
    }

    async fn analyze(&self) -> Result<(), StoreError> {
        let analyzed: Result<(), DbError> = in_transaction!(self, |conn| conn.analyze_all().await);
        Ok(analyzed?)
    }
}
