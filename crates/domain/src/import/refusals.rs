//! Why an import file is refused: every rule that turns a row of the file away once the file is
//! read, each problem at the JSON path of the value at fault. One problem refuses the whole
//! file, before anything is written, and every problem is reported at once so that the file
//! can be fixed in one go.
//!
//! The file alone ([`ShopImport::duplicate_ids`], asked first, before the store):
//! - an id given twice for the same kind of row (`duplicate id in this file`), at its second
//!   occurrence: the second would silently overwrite the first.
//!
//! The file against where the store holds the ids it names ([`refusals`], on the
//! [`StoredOwnership`] that the store adapter reads for the file's [`IdsToLocate`]):
//! - an id stored in another shop (`belongs to another shop`): ids are global primary keys, so
//!   the row could not be written, and overwriting it would leak across shops. Another shop's
//!   row is never a reference target either: it resolves nowhere, like a missing one;
//! - a variant id stored under another product, an order item id stored under another order
//!   (`belongs to another product`, `belongs to another order`): moving children between
//!   parents is not an import's business;
//! - a reference that resolves neither in the file nor among this shop's stored rows
//!   (`no client with this id in the shop or the file`, and likewise product and order): an
//!   order's client, an item's product and, once the product resolves, its variant
//!   (`not a variant of product … in the shop or the file`), a ticket's or spin's client and
//!   order.
//!
//! Problems in the file's form (an unsafe id, a missing member, a stock out of range) are found
//! before these, by the file's reader in `shop-app` (`import_file/`).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::hash::Hash;

use super::{ImportProblem, ShopImport};
use crate::id::{
    BrandId, CategoryId, ClientId, OrderId, OrderItemId, ProductId, ShopId, SpinId, TicketId,
    TierId, VariantId,
};

#[cfg(test)]
mod tests;

const ANOTHER_SHOP: &str = "belongs to another shop";
const ANOTHER_PRODUCT: &str = "belongs to another product";
const ANOTHER_ORDER: &str = "belongs to another order";

fn missing(kind: &str) -> String {
    format!("no {kind} with this id in the shop or the file")
}

impl ShopImport {
    /// Ids that appear twice in the file, each with the path of its second occurrence.
    pub fn duplicate_ids(&self) -> Vec<ImportProblem> {
        let mut seen = DuplicateFinder::default();
        for (p, imported) in self.products.iter().enumerate() {
            seen.check(
                "products",
                imported.product.id.as_str(),
                format!("products[{p}].id"),
            );
            for (v, variant) in imported.product.variants.iter().enumerate() {
                seen.check(
                    "variants",
                    variant.id.as_str(),
                    format!("products[{p}].variants[{v}].id"),
                );
            }
        }
        for (t, tier) in self.tiers.iter().enumerate() {
            seen.check("tiers", tier.id.as_str(), format!("loyaltyTiers[{t}].id"));
        }
        for (c, imported) in self.clients.iter().enumerate() {
            seen.check(
                "clients",
                imported.client.id.as_str(),
                format!("clients[{c}].id"),
            );
        }
        for (o, imported) in self.orders.iter().enumerate() {
            seen.check(
                "orders",
                imported.order.id.as_str(),
                format!("orders[{o}].id"),
            );
            for (i, item) in imported.order.items.iter().enumerate() {
                seen.check(
                    "items",
                    item.id.as_str(),
                    format!("orders[{o}].items[{i}].id"),
                );
            }
        }
        for (t, ticket) in self.lottery_tickets.iter().enumerate() {
            seen.check(
                "tickets",
                ticket.event.id.as_str(),
                format!("lotteryTickets[{t}].id"),
            );
        }
        for (s, spin) in self.spins.iter().enumerate() {
            seen.check("spins", spin.event.id.as_str(), format!("spins[{s}].id"));
        }
        seen.problems
    }
}

#[derive(Default)]
struct DuplicateFinder {
    seen: HashSet<(&'static str, String)>,
    problems: Vec<ImportProblem>,
}

impl DuplicateFinder {
    fn check(&mut self, kind: &'static str, id: &str, path: String) {
        if !self.seen.insert((kind, id.to_owned())) {
            self.problems
                .push(ImportProblem::new(path, "duplicate id in this file"));
        }
    }
}

/// The ids of a file whose place in the store [`refusals`] needs, per kind of row: every id
/// the file names, and every id it refers to (an item's product is looked up among the
/// products, with the file's own). Sorted and distinct, ready to be cut into `IN (…)` lists.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IdsToLocate<'a> {
    /// The file's products and the products its order items refer to.
    pub products: BTreeSet<&'a ProductId>,
    pub categories: BTreeSet<&'a CategoryId>,
    pub brands: BTreeSet<&'a BrandId>,
    pub tiers: BTreeSet<&'a TierId>,
    /// The file's clients and the clients its orders, tickets and spins refer to.
    pub clients: BTreeSet<&'a ClientId>,
    /// The file's orders and the orders its tickets and spins refer to.
    pub orders: BTreeSet<&'a OrderId>,
    pub tickets: BTreeSet<&'a TicketId>,
    pub spins: BTreeSet<&'a SpinId>,
    /// The file's variants and the variants its order items refer to.
    pub variants: BTreeSet<&'a VariantId>,
    pub order_items: BTreeSet<&'a OrderItemId>,
}

impl ShopImport {
    /// The ids whose owners [`refusals`] compares the file with.
    pub fn ids_to_locate(&self) -> IdsToLocate<'_> {
        let products = self.products.iter().map(|p| &p.product);
        let orders = self.orders.iter().map(|o| &o.order);
        let items = orders.clone().flat_map(|o| o.items.iter());
        let tickets = self.lottery_tickets.iter().map(|t| &t.event);
        let spins = self.spins.iter().map(|s| &s.event);
        IdsToLocate {
            products: products
                .clone()
                .map(|p| &p.id)
                .chain(items.clone().map(|item| &item.product_id))
                .collect(),
            categories: products
                .clone()
                .filter_map(|p| p.category.as_ref().map(|c| &c.id))
                .collect(),
            brands: products
                .clone()
                .filter_map(|p| p.brand.as_ref().map(|b| &b.id))
                .collect(),
            tiers: self.tiers.iter().map(|tier| &tier.id).collect(),
            clients: self
                .clients
                .iter()
                .map(|c| &c.client.id)
                .chain(orders.clone().filter_map(|o| o.client_id.as_ref()))
                .chain(tickets.clone().map(|t| &t.client_id))
                .chain(spins.clone().map(|s| &s.client_id))
                .collect(),
            orders: orders
                .map(|o| &o.id)
                .chain(tickets.clone().filter_map(|t| t.order_id.as_ref()))
                .chain(spins.clone().filter_map(|s| s.order_id.as_ref()))
                .collect(),
            tickets: tickets.map(|t| &t.id).collect(),
            spins: spins.map(|s| &s.id).collect(),
            variants: products
                .flat_map(|p| p.variants.iter().map(|v| &v.id))
                .chain(items.clone().map(|item| &item.variant_id))
                .collect(),
            order_items: items.map(|item| &item.id).collect(),
        }
    }
}

/// Where the store holds the ids of an [`IdsToLocate`], in whichever shop: the shop of each
/// row, and the parent of each variant and order item. An id it does not hold is stored
/// nowhere. The store adapter reads it (the one kind of read that looks across shops, and it
/// learns only whose an id is); [`refusals`] judges the file with it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoredOwnership {
    pub products: HashMap<ProductId, ShopId>,
    pub categories: HashMap<CategoryId, ShopId>,
    pub brands: HashMap<BrandId, ShopId>,
    pub tiers: HashMap<TierId, ShopId>,
    pub clients: HashMap<ClientId, ShopId>,
    pub orders: HashMap<OrderId, ShopId>,
    pub tickets: HashMap<TicketId, ShopId>,
    pub spins: HashMap<SpinId, ShopId>,
    pub variants: HashMap<VariantId, StoredChild<ProductId>>,
    pub order_items: HashMap<OrderItemId, StoredChild<OrderId>>,
}

/// A stored row that belongs to a parent row as well as to a shop: a variant (of its
/// product), an order item (of its order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredChild<P> {
    pub shop: ShopId,
    pub parent: P,
}

/// Every problem that refuses `file` for `shop`, given where the ids it names are stored, in
/// the file's order (products, tiers, clients, orders, tickets, spins; within a row, its id
/// before its references); empty when the file may be imported. See the module's
/// documentation for the rules.
pub fn refusals(shop: &ShopId, file: &ShopImport, stored: &StoredOwnership) -> Vec<ImportProblem> {
    let known = Known::new(shop, file, stored);
    let mut problems = Vec::new();
    known.catalogue_problems(file, &mut problems);
    known.order_problems(file, &mut problems);
    let tickets = file.lottery_tickets.iter().map(|t| {
        let event = &t.event;
        (&event.id, &event.client_id, event.order_id.as_ref())
    });
    known.event_problems("lotteryTickets", &stored.tickets, tickets, &mut problems);
    let spins = file.spins.iter().map(|s| {
        let event = &s.event;
        (&event.id, &event.client_id, event.order_id.as_ref())
    });
    known.event_problems("spins", &stored.spins, spins, &mut problems);
    problems
}

/// What a reference may resolve to: this shop's stored rows, and the file's own.
struct Known<'a> {
    shop: &'a ShopId,
    stored: &'a StoredOwnership,
    file_products: HashSet<&'a ProductId>,
    /// Variant id → product id, as the file nests them.
    file_variants: HashMap<&'a VariantId, &'a ProductId>,
    file_clients: HashSet<&'a ClientId>,
    file_orders: HashSet<&'a OrderId>,
}

impl<'a> Known<'a> {
    fn new(shop: &'a ShopId, file: &'a ShopImport, stored: &'a StoredOwnership) -> Self {
        let products = file.products.iter().map(|p| &p.product);
        Self {
            shop,
            stored,
            file_products: products.clone().map(|p| &p.id).collect(),
            file_variants: products
                .flat_map(|p| p.variants.iter().map(move |v| (&v.id, &p.id)))
                .collect(),
            file_clients: file.clients.iter().map(|c| &c.client.id).collect(),
            file_orders: file.orders.iter().map(|o| &o.order.id).collect(),
        }
    }

    /// Stored, in another shop.
    fn foreign<I: Eq + Hash>(&self, owners: &HashMap<I, ShopId>, id: &I) -> bool {
        owners.get(id).is_some_and(|owner| owner != self.shop)
    }

    fn in_shop<I: Eq + Hash>(&self, owners: &HashMap<I, ShopId>, id: &I) -> bool {
        owners.get(id).is_some_and(|owner| owner == self.shop)
    }

    fn has_client(&self, id: &ClientId) -> bool {
        self.file_clients.contains(id) || self.in_shop(&self.stored.clients, id)
    }

    fn has_order(&self, id: &OrderId) -> bool {
        self.file_orders.contains(id) || self.in_shop(&self.stored.orders, id)
    }

    fn has_product(&self, id: &ProductId) -> bool {
        self.file_products.contains(id) || self.in_shop(&self.stored.products, id)
    }

    fn is_variant_of(&self, variant: &VariantId, product: &ProductId) -> bool {
        self.file_variants.get(variant) == Some(&product)
            || self
                .stored
                .variants
                .get(variant)
                .is_some_and(|stored| stored.shop == *self.shop && stored.parent == *product)
    }

    /// "belongs to another shop" or "belongs to another `parent`", for a child id of the file.
    /// Another shop's row is refused as such whatever its parent: where another shop keeps its
    /// rows is not this file's business.
    fn child_problem<I: Eq + Hash, P: PartialEq>(
        &self,
        owners: &HashMap<I, StoredChild<P>>,
        id: &I,
        parent: &P,
        another_parent: &'static str,
    ) -> Option<&'static str> {
        let stored = owners.get(id)?;
        if stored.shop != *self.shop {
            Some(ANOTHER_SHOP)
        } else if stored.parent != *parent {
            Some(another_parent)
        } else {
            None
        }
    }

    fn catalogue_problems(&self, file: &ShopImport, problems: &mut Vec<ImportProblem>) {
        let stored = self.stored;
        for (p, imported) in file.products.iter().enumerate() {
            let product = &imported.product;
            if self.foreign(&stored.products, &product.id) {
                problems.push(ImportProblem::new(
                    format!("products[{p}].id"),
                    ANOTHER_SHOP,
                ));
            }
            if let Some(category) = &product.category
                && self.foreign(&stored.categories, &category.id)
            {
                let path = format!("products[{p}].category.id");
                problems.push(ImportProblem::new(path, ANOTHER_SHOP));
            }
            if let Some(brand) = &product.brand
                && self.foreign(&stored.brands, &brand.id)
            {
                let path = format!("products[{p}].brand.id");
                problems.push(ImportProblem::new(path, ANOTHER_SHOP));
            }
            for (v, variant) in product.variants.iter().enumerate() {
                if let Some(message) =
                    self.child_problem(&stored.variants, &variant.id, &product.id, ANOTHER_PRODUCT)
                {
                    let path = format!("products[{p}].variants[{v}].id");
                    problems.push(ImportProblem::new(path, message));
                }
            }
        }
        for (t, tier) in file.tiers.iter().enumerate() {
            if self.foreign(&stored.tiers, &tier.id) {
                problems.push(ImportProblem::new(
                    format!("loyaltyTiers[{t}].id"),
                    ANOTHER_SHOP,
                ));
            }
        }
        for (c, imported) in file.clients.iter().enumerate() {
            if self.foreign(&stored.clients, &imported.client.id) {
                problems.push(ImportProblem::new(format!("clients[{c}].id"), ANOTHER_SHOP));
            }
        }
    }

    fn order_problems(&self, file: &ShopImport, problems: &mut Vec<ImportProblem>) {
        let stored = self.stored;
        for (o, imported) in file.orders.iter().enumerate() {
            let order = &imported.order;
            if self.foreign(&stored.orders, &order.id) {
                problems.push(ImportProblem::new(format!("orders[{o}].id"), ANOTHER_SHOP));
            }
            if let Some(client) = &order.client_id
                && !self.has_client(client)
            {
                let path = format!("orders[{o}].clientId");
                problems.push(ImportProblem::new(path, missing("client")));
            }
            for (i, item) in order.items.iter().enumerate() {
                if let Some(message) =
                    self.child_problem(&stored.order_items, &item.id, &order.id, ANOTHER_ORDER)
                {
                    let path = format!("orders[{o}].items[{i}].id");
                    problems.push(ImportProblem::new(path, message));
                }
                let product = &item.product_id;
                if !self.has_product(product) {
                    let path = format!("orders[{o}].items[{i}].productId");
                    problems.push(ImportProblem::new(path, missing("product")));
                } else if !self.is_variant_of(&item.variant_id, product) {
                    // A variant of a product that resolves nowhere would say nothing more.
                    let path = format!("orders[{o}].items[{i}].variantId");
                    let message =
                        format!("not a variant of product {product} in the shop or the file");
                    problems.push(ImportProblem::new(path, message));
                }
            }
        }
    }

    /// Tickets and spins: `array` is their member in the file.
    fn event_problems<'e, I: Eq + Hash + 'e>(
        &self,
        array: &str,
        owners: &HashMap<I, ShopId>,
        events: impl Iterator<Item = (&'e I, &'e ClientId, Option<&'e OrderId>)>,
        problems: &mut Vec<ImportProblem>,
    ) {
        for (n, (id, client, order)) in events.enumerate() {
            if self.foreign(owners, id) {
                problems.push(ImportProblem::new(format!("{array}[{n}].id"), ANOTHER_SHOP));
            }
            if !self.has_client(client) {
                let path = format!("{array}[{n}].clientId");
                problems.push(ImportProblem::new(path, missing("client")));
            }
            if let Some(order) = order
                && !self.has_order(order)
            {
                let path = format!("{array}[{n}].orderId");
                problems.push(ImportProblem::new(path, missing("order")));
            }
        }
    }
}
