//! Step (1) of the import: every problem only the database can see, each with its JSON path in
//! the file, collected in full before anything is written.
//!
//! - An id of the file that exists in another shop (ids are global primary keys, so the row
//!   could not be written, and overwriting it would leak across shops).
//! - A variant id stored under another product, an order item id stored under another order
//!   (moving children between parents is not an import's business).
//! - A reference that resolves neither in the file nor among this shop's stored rows: an
//!   order's client, an item's product and variant (of that product), a ticket's or spin's
//!   client and order.
//!
//! Lookups read only which shop (and parent) an id belongs to: the one kind of query that
//! looks across shops.

use std::collections::{HashMap, HashSet};

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::id::ShopId;
use shop_domain::import::{ImportProblem, ShopImport};

use super::{IDS_PER_QUERY, ImportConnection, distinct};
use crate::database::impl_for_each_backend;
use crate::error::DbError;
use crate::schema::{
    brands, categories, clients, lottery_tickets, loyalty_tiers, order_items, orders, products,
    spins, variants,
};

const ANOTHER_SHOP: &str = "belongs to another shop";
const ANOTHER_PRODUCT: &str = "belongs to another product";
const ANOTHER_ORDER: &str = "belongs to another order";

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

/// Where the ids that the file names or refers to are stored: shop by id, or (shop, parent)
/// by id.
#[derive(Default)]
struct Stored {
    products: HashMap<String, String>,
    categories: HashMap<String, String>,
    brands: HashMap<String, String>,
    tiers: HashMap<String, String>,
    clients: HashMap<String, String>,
    orders: HashMap<String, String>,
    tickets: HashMap<String, String>,
    spins: HashMap<String, String>,
    variants: HashMap<String, (String, String)>,
    items: HashMap<String, (String, String)>,
}

impl Stored {
    async fn load<C: ImportConnection>(conn: &mut C, data: &ShopImport) -> Result<Self, DbError> {
        // Owned id lists, built before the first await. Referenced ids are looked up with the
        // file's own ids of the same table.
        let products = &data.products;
        let orders = &data.orders;
        let items = || orders.iter().flat_map(|o| o.order.items.iter());
        let event_clients = data
            .lottery_tickets
            .iter()
            .map(|t| t.event.client_id.as_str())
            .chain(data.spins.iter().map(|s| s.event.client_id.as_str()));
        let event_orders = data
            .lottery_tickets
            .iter()
            .filter_map(|t| t.event.order_id.as_ref())
            .chain(data.spins.iter().filter_map(|s| s.event.order_id.as_ref()))
            .map(|id| id.as_str());
        let product_ids = distinct(
            products
                .iter()
                .map(|p| p.product.id.as_str())
                .chain(items().map(|item| item.product_id.as_str())),
        );
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
        let variant_ids = distinct(
            products
                .iter()
                .flat_map(|p| p.product.variants.iter().map(|v| v.id.as_str()))
                .chain(items().map(|item| item.variant_id.as_str())),
        );
        let tier_ids = distinct(data.tiers.iter().map(|tier| tier.id.as_str()));
        let client_ids = distinct(
            data.clients
                .iter()
                .map(|c| c.client.id.as_str())
                .chain(
                    orders
                        .iter()
                        .filter_map(|o| o.order.client_id.as_ref().map(|id| id.as_str())),
                )
                .chain(event_clients),
        );
        let order_ids = distinct(
            orders
                .iter()
                .map(|o| o.order.id.as_str())
                .chain(event_orders),
        );
        let item_ids = distinct(items().map(|item| item.id.as_str()));
        let ticket_ids = distinct(data.lottery_tickets.iter().map(|t| t.event.id.as_str()));
        let spin_ids = distinct(data.spins.iter().map(|s| s.event.id.as_str()));

        Ok(Self {
            products: owner_map(conn, Owned::Product, &product_ids).await?,
            categories: owner_map(conn, Owned::Category, &category_ids).await?,
            brands: owner_map(conn, Owned::Brand, &brand_ids).await?,
            tiers: owner_map(conn, Owned::Tier, &tier_ids).await?,
            clients: owner_map(conn, Owned::Client, &client_ids).await?,
            orders: owner_map(conn, Owned::Order, &order_ids).await?,
            tickets: owner_map(conn, Owned::Ticket, &ticket_ids).await?,
            spins: owner_map(conn, Owned::Spin, &spin_ids).await?,
            variants: child_owner_map(conn, Child::Variant, &variant_ids).await?,
            items: child_owner_map(conn, Child::OrderItem, &item_ids).await?,
        })
    }
}

/// Owner shop by id, for those of the (distinct) ids of one table that exist.
async fn owner_map<C: ImportConnection>(
    conn: &mut C,
    table: Owned,
    ids: &[String],
) -> Result<HashMap<String, String>, DbError> {
    let mut owners = HashMap::new();
    for chunk in ids.chunks(IDS_PER_QUERY) {
        owners.extend(conn.owners(table, chunk).await?);
    }
    Ok(owners)
}

/// `(shop, parent)` by id, for those of the (distinct) ids of one table that exist.
async fn child_owner_map<C: ImportConnection>(
    conn: &mut C,
    table: Child,
    ids: &[String],
) -> Result<HashMap<String, (String, String)>, DbError> {
    let mut owners = HashMap::new();
    for chunk in ids.chunks(IDS_PER_QUERY) {
        for (id, shop, parent) in conn.child_owners(table, chunk).await? {
            owners.insert(id, (shop, parent));
        }
    }
    Ok(owners)
}

/// What the checks compare against: the stored owners, and what the file itself holds.
struct Known<'a> {
    shop: &'a str,
    stored: Stored,
    file_products: HashSet<&'a str>,
    /// Variant id → product id, as the file nests them.
    file_variants: HashMap<&'a str, &'a str>,
    file_clients: HashSet<&'a str>,
    file_orders: HashSet<&'a str>,
}

impl<'a> Known<'a> {
    fn new(shop: &'a ShopId, data: &'a ShopImport, stored: Stored) -> Self {
        let products = data.products.iter().map(|p| &p.product);
        Self {
            shop: shop.as_str(),
            stored,
            file_products: products.clone().map(|p| p.id.as_str()).collect(),
            file_variants: products
                .flat_map(|p| p.variants.iter().map(|v| (v.id.as_str(), p.id.as_str())))
                .collect(),
            file_clients: data.clients.iter().map(|c| c.client.id.as_str()).collect(),
            file_orders: data.orders.iter().map(|o| o.order.id.as_str()).collect(),
        }
    }

    /// Stored, in another shop.
    fn foreign(&self, owners: &HashMap<String, String>, id: &str) -> bool {
        owners.get(id).is_some_and(|owner| owner != self.shop)
    }

    fn in_shop(&self, owners: &HashMap<String, String>, id: &str) -> bool {
        owners.get(id).is_some_and(|owner| owner == self.shop)
    }

    fn has_client(&self, id: &str) -> bool {
        self.file_clients.contains(id) || self.in_shop(&self.stored.clients, id)
    }

    fn has_order(&self, id: &str) -> bool {
        self.file_orders.contains(id) || self.in_shop(&self.stored.orders, id)
    }

    fn has_product(&self, id: &str) -> bool {
        self.file_products.contains(id) || self.in_shop(&self.stored.products, id)
    }

    fn is_variant_of(&self, variant: &str, product: &str) -> bool {
        self.file_variants.get(variant) == Some(&product)
            || self
                .stored
                .variants
                .get(variant)
                .is_some_and(|(shop, parent)| shop == self.shop && parent == product)
    }

    /// "belongs to another shop" or "belongs to another `parent`", for a child id of the file.
    fn child_problem(
        &self,
        owners: &HashMap<String, (String, String)>,
        id: &str,
        parent: &str,
        another_parent: &'static str,
    ) -> Option<&'static str> {
        let (shop, stored_parent) = owners.get(id)?;
        if shop != self.shop {
            Some(ANOTHER_SHOP)
        } else if stored_parent != parent {
            Some(another_parent)
        } else {
            None
        }
    }
}

fn missing(kind: &str) -> String {
    format!("no {kind} with this id in the shop or the file")
}

/// Every problem of the file, in the file's order (products, tiers, clients, orders, tickets,
/// spins); empty when it may be imported.
pub(super) async fn problems<C: ImportConnection>(
    conn: &mut C,
    shop: &ShopId,
    data: &ShopImport,
) -> Result<Vec<ImportProblem>, DbError> {
    let stored = Stored::load(conn, data).await?;
    let known = Known::new(shop, data, stored);
    let mut problems = Vec::new();
    catalogue_problems(&known, data, &mut problems);
    order_problems(&known, data, &mut problems);
    event_problems(&known, data, &mut problems);
    Ok(problems)
}

fn catalogue_problems(known: &Known<'_>, data: &ShopImport, problems: &mut Vec<ImportProblem>) {
    let stored = &known.stored;
    for (p, imported) in data.products.iter().enumerate() {
        let product = &imported.product;
        if known.foreign(&stored.products, product.id.as_str()) {
            problems.push(ImportProblem::new(
                format!("products[{p}].id"),
                ANOTHER_SHOP,
            ));
        }
        if let Some(category) = &product.category
            && known.foreign(&stored.categories, category.id.as_str())
        {
            let path = format!("products[{p}].category.id");
            problems.push(ImportProblem::new(path, ANOTHER_SHOP));
        }
        if let Some(brand) = &product.brand
            && known.foreign(&stored.brands, brand.id.as_str())
        {
            let path = format!("products[{p}].brand.id");
            problems.push(ImportProblem::new(path, ANOTHER_SHOP));
        }
        for (v, variant) in product.variants.iter().enumerate() {
            if let Some(message) = known.child_problem(
                &stored.variants,
                variant.id.as_str(),
                product.id.as_str(),
                ANOTHER_PRODUCT,
            ) {
                let path = format!("products[{p}].variants[{v}].id");
                problems.push(ImportProblem::new(path, message));
            }
        }
    }
    for (t, tier) in data.tiers.iter().enumerate() {
        if known.foreign(&stored.tiers, tier.id.as_str()) {
            problems.push(ImportProblem::new(
                format!("loyaltyTiers[{t}].id"),
                ANOTHER_SHOP,
            ));
        }
    }
    for (c, imported) in data.clients.iter().enumerate() {
        if known.foreign(&stored.clients, imported.client.id.as_str()) {
            problems.push(ImportProblem::new(format!("clients[{c}].id"), ANOTHER_SHOP));
        }
    }
}

fn order_problems(known: &Known<'_>, data: &ShopImport, problems: &mut Vec<ImportProblem>) {
    let stored = &known.stored;
    for (o, imported) in data.orders.iter().enumerate() {
        let order = &imported.order;
        if known.foreign(&stored.orders, order.id.as_str()) {
            problems.push(ImportProblem::new(format!("orders[{o}].id"), ANOTHER_SHOP));
        }
        if let Some(client) = &order.client_id
            && !known.has_client(client.as_str())
        {
            let path = format!("orders[{o}].clientId");
            problems.push(ImportProblem::new(path, missing("client")));
        }
        for (i, item) in order.items.iter().enumerate() {
            if let Some(message) = known.child_problem(
                &stored.items,
                item.id.as_str(),
                order.id.as_str(),
                ANOTHER_ORDER,
            ) {
                let path = format!("orders[{o}].items[{i}].id");
                problems.push(ImportProblem::new(path, message));
            }
            let product = item.product_id.as_str();
            if !known.has_product(product) {
                let path = format!("orders[{o}].items[{i}].productId");
                problems.push(ImportProblem::new(path, missing("product")));
            } else if !known.is_variant_of(item.variant_id.as_str(), product) {
                // Only meaningful once the product resolves.
                let path = format!("orders[{o}].items[{i}].variantId");
                let message = format!("not a variant of product {product} in the shop or the file");
                problems.push(ImportProblem::new(path, message));
            }
        }
    }
}

fn event_problems(known: &Known<'_>, data: &ShopImport, problems: &mut Vec<ImportProblem>) {
    let stored = &known.stored;
    let tickets = data.lottery_tickets.iter().map(|t| {
        let event = &t.event;
        (event.id.as_str(), &event.client_id, event.order_id.as_ref())
    });
    let spins = data.spins.iter().map(|s| {
        let event = &s.event;
        (event.id.as_str(), &event.client_id, event.order_id.as_ref())
    });
    let kinds = [
        (
            "lotteryTickets",
            &stored.tickets,
            tickets.collect::<Vec<_>>(),
        ),
        ("spins", &stored.spins, spins.collect()),
    ];
    for (array, owners, events) in kinds {
        for (n, (id, client, order)) in events.into_iter().enumerate() {
            if known.foreign(owners, id) {
                problems.push(ImportProblem::new(format!("{array}[{n}].id"), ANOTHER_SHOP));
            }
            if !known.has_client(client.as_str()) {
                let path = format!("{array}[{n}].clientId");
                problems.push(ImportProblem::new(path, missing("client")));
            }
            if let Some(order) = order
                && !known.has_order(order.as_str())
            {
                let path = format!("{array}[{n}].orderId");
                problems.push(ImportProblem::new(path, missing("order")));
            }
        }
    }
}
