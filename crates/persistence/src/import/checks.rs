//! Step (1) of the import: where the ids of the file are stored, read before anything is
//! written, then judged by `shop_domain::import::refusals`, which holds every rule that refuses
//! a row and the JSON path of each problem. This module only reads.
//!
//! The lookups read only which shop (and, for a variant or an order item, which parent) an id
//! belongs to, in any shop: the one kind of query that looks across shops, since an id of
//! another shop is a reason to refuse the file.

use std::collections::{BTreeSet, HashMap};
use std::hash::Hash;
use std::str::FromStr;

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::id::{InvalidId, ShopId};
use shop_domain::import::{ImportProblem, ShopImport, StoredChild, StoredOwnership, refusals};

use super::{IDS_PER_QUERY, ImportConnection};
use crate::database::impl_for_each_backend;
use crate::error::DbError;
use crate::schema::{
    brands, categories, clients, lottery_tickets, loyalty_tiers, order_items, orders, products,
    spins, variants,
};

/// Every problem that refuses the file, in the file's order; empty when it may be imported.
pub(super) async fn problems<C: ImportConnection>(
    conn: &mut C,
    shop: &ShopId,
    data: &ShopImport,
) -> Result<Vec<ImportProblem>, DbError> {
    let stored = stored_ownership(conn, data).await?;
    Ok(refusals(shop, data, &stored))
}

/// Where the ids that the file names or refers to are stored, in whichever shop.
async fn stored_ownership<C: ImportConnection>(
    conn: &mut C,
    data: &ShopImport,
) -> Result<StoredOwnership, DbError> {
    let ids = data.ids_to_locate();
    Ok(StoredOwnership {
        products: owner_map(conn, Owned::Product, &ids.products).await?,
        categories: owner_map(conn, Owned::Category, &ids.categories).await?,
        brands: owner_map(conn, Owned::Brand, &ids.brands).await?,
        tiers: owner_map(conn, Owned::Tier, &ids.tiers).await?,
        clients: owner_map(conn, Owned::Client, &ids.clients).await?,
        orders: owner_map(conn, Owned::Order, &ids.orders).await?,
        tickets: owner_map(conn, Owned::Ticket, &ids.tickets).await?,
        spins: owner_map(conn, Owned::Spin, &ids.spins).await?,
        variants: child_owner_map(conn, Child::Variant, &ids.variants).await?,
        order_items: child_owner_map(conn, Child::OrderItem, &ids.order_items).await?,
    })
}

/// Tables whose ids an import file names or refers to.
#[derive(Clone, Copy, Debug)]
pub(super) enum Owned {
    Product,
    Category,
    Brand,
    Tier,
    Client,
    Order,
    Ticket,
    Spin,
}

/// Tables whose rows belong to a parent row as well as to a shop.
#[derive(Clone, Copy, Debug)]
pub(super) enum Child {
    /// Parent: the product.
    Variant,
    /// Parent: the order.
    OrderItem,
}

impl Owned {
    fn name(self) -> &'static str {
        match self {
            Self::Product => "products",
            Self::Category => "categories",
            Self::Brand => "brands",
            Self::Tier => "loyalty_tiers",
            Self::Client => "clients",
            Self::Order => "orders",
            Self::Ticket => "lottery_tickets",
            Self::Spin => "spins",
        }
    }
}

impl Child {
    fn name(self) -> &'static str {
        match self {
            Self::Variant => "variants",
            Self::OrderItem => "order_items",
        }
    }
}

pub(super) trait OwnershipQueries {
    /// `(id, shop_id)` of the given ids that exist, in any shop.
    fn owners(
        &mut self,
        table: Owned,
        ids: &[String],
    ) -> impl Future<Output = Result<Vec<(String, String)>, DbError>> + Send;

    /// `(id, shop_id, parent_id)` of the given ids that exist, in any shop.
    fn child_owners(
        &mut self,
        table: Child,
        ids: &[String],
    ) -> impl Future<Output = Result<Vec<(String, String, String)>, DbError>> + Send;
}

/// `(id, shop_id)` of `$table`'s rows among `$ids`.
macro_rules! owners_of {
    ($conn:expr, $table:ident, $ids:expr) => {
        $table::table
            .filter($table::id.eq_any($ids))
            .select(($table::id, $table::shop_id))
            .load($conn)
            .await?
    };
}

impl_for_each_backend! {
    impl OwnershipQueries {
        async fn owners(
            &mut self,
            table: Owned,
            ids: &[String],
        ) -> Result<Vec<(String, String)>, DbError> {
            let found = match table {
                Owned::Product => owners_of!(self, products, ids),
                Owned::Category => owners_of!(self, categories, ids),
                Owned::Brand => owners_of!(self, brands, ids),
                Owned::Tier => owners_of!(self, loyalty_tiers, ids),
                Owned::Client => owners_of!(self, clients, ids),
                Owned::Order => owners_of!(self, orders, ids),
                Owned::Ticket => owners_of!(self, lottery_tickets, ids),
                Owned::Spin => owners_of!(self, spins, ids),
            };
            Ok(found)
        }

        async fn child_owners(
            &mut self,
            table: Child,
            ids: &[String],
        ) -> Result<Vec<(String, String, String)>, DbError> {
            let found = match table {
                Child::Variant => {
                    variants::table
                        .filter(variants::id.eq_any(ids))
                        .select((variants::id, variants::shop_id, variants::product_id))
                        .load(self)
                        .await?
                }
                Child::OrderItem => {
                    order_items::table
                        .filter(order_items::id.eq_any(ids))
                        .select((order_items::id, order_items::shop_id, order_items::order_id))
                        .load(self)
                        .await?
                }
            };
            Ok(found)
        }
    }
}

/// Owner shop by id, for those of the ids of one table that exist.
async fn owner_map<C, I>(
    conn: &mut C,
    table: Owned,
    ids: &BTreeSet<&I>,
) -> Result<HashMap<I, ShopId>, DbError>
where
    C: ImportConnection,
    I: AsRef<str> + FromStr<Err = InvalidId> + Eq + Hash,
{
    let ids = as_text(ids);
    let mut owners = HashMap::new();
    for chunk in ids.chunks(IDS_PER_QUERY) {
        for (id, shop) in conn.owners(table, chunk).await? {
            let shop = parsed(table.name(), &id, &shop)?;
            owners.insert(parsed(table.name(), &id, &id)?, shop);
        }
    }
    Ok(owners)
}

/// `(shop, parent)` by id, for those of the ids of one table that exist.
async fn child_owner_map<C, I, P>(
    conn: &mut C,
    table: Child,
    ids: &BTreeSet<&I>,
) -> Result<HashMap<I, StoredChild<P>>, DbError>
where
    C: ImportConnection,
    I: AsRef<str> + FromStr<Err = InvalidId> + Eq + Hash,
    P: FromStr<Err = InvalidId>,
{
    let ids = as_text(ids);
    let mut owners = HashMap::new();
    for chunk in ids.chunks(IDS_PER_QUERY) {
        for (id, shop, parent) in conn.child_owners(table, chunk).await? {
            let child = StoredChild {
                shop: parsed(table.name(), &id, &shop)?,
                parent: parsed(table.name(), &id, &parent)?,
            };
            owners.insert(parsed(table.name(), &id, &id)?, child);
        }
    }
    Ok(owners)
}

/// Owned text, ready to be bound in `IN (…)` lists.
fn as_text<I: AsRef<str>>(ids: &BTreeSet<&I>) -> Vec<String> {
    ids.iter().map(|id| id.as_ref().to_owned()).collect()
}

/// A stored id, as the domain's type; a stored value the domain refuses is a corrupt row.
fn parsed<T: FromStr<Err = InvalidId>>(
    table: &'static str,
    id: &str,
    value: &str,
) -> Result<T, DbError> {
    value
        .parse()
        .map_err(|problem: InvalidId| DbError::Corrupt {
            table,
            id: id.to_owned(),
            problem: problem.to_string(),
        })
}
