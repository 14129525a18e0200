use std::fmt::Debug;
use std::str::FromStr;

use super::*;
use crate::Timestamp;
use crate::catalogue::product::fixtures;
use crate::catalogue::{BrandRef, CategoryRef};
use crate::client::{Billing, Client, ClientConfidential, ClientLoyalty};
use crate::color::HexColor;
use crate::import::{GivenStamps, ImportedClient, ImportedEvent, ImportedOrder, ImportedProduct};
use crate::loyalty::{LotteryTicket, LoyaltyTier, Spin};
use crate::money::Cents;
use crate::order::{Order, OrderConfidential, OrderItem, OrderSource, OrderStatus, PaymentStatus};
use crate::tax_rate::TaxRate;

fn id<I: FromStr<Err: Debug>>(text: &str) -> I {
    text.parse().unwrap()
}

fn mine() -> ShopId {
    id("shop_mine")
}

fn theirs() -> ShopId {
    id("shop_theirs")
}

fn product(product_id: &str, variants: &[&str]) -> ImportedProduct {
    let mut product = fixtures::product(
        variants
            .iter()
            .zip(0..)
            .map(|(variant, order)| fixtures::variant(variant, order, 1, true))
            .collect(),
    );
    product.id = id(product_id);
    ImportedProduct {
        product,
        stamps: GivenStamps::default(),
    }
}

fn tier(tier_id: &str) -> LoyaltyTier {
    LoyaltyTier {
        id: id(tier_id),
        name: "Gold".into(),
        min_points_lifetime: 100,
        color: HexColor::parse("#FFD700").unwrap(),
    }
}

fn client(client_id: &str) -> ImportedClient {
    ImportedClient {
        client: Client {
            id: id(client_id),
            name: "Marie".into(),
            display_name: None,
            phone: None,
            email: None,
            billing: Billing::default(),
            birth_date: None,
            loyalty: ClientLoyalty::default(),
            receipt_by_email: false,
            tags: vec![],
            created_at: Timestamp::from_millis(0),
            updated_at: Timestamp::from_millis(0),
        },
        confidential: ClientConfidential::default(),
        stamps: GivenStamps::default(),
    }
}

fn item(item_id: &str, product: &str, variant: &str) -> OrderItem {
    OrderItem {
        id: id(item_id),
        product_id: id(product),
        variant_id: id(variant),
        product_name: "Écharpe".into(),
        unit_price: Cents(1_000),
        quantity: 1,
        total: Cents(1_000),
        tax_rate: TaxRate::parse("20.00").unwrap(),
        tax_amount: Cents(167),
    }
}

fn order(order_id: &str, client: Option<&str>, items: Vec<OrderItem>) -> ImportedOrder {
    ImportedOrder {
        order: Order {
            id: id(order_id),
            order_number: 1,
            source: OrderSource::Pos,
            status: OrderStatus::Completed,
            payment_status: PaymentStatus::Paid,
            subtotal: Cents(1_000),
            discount_amount: Cents(0),
            tax_amount: Cents(167),
            total: Cents(1_000),
            payment_method: None,
            paid_at: None,
            client_id: client.map(id),
            items,
            created_at: Timestamp::from_millis(0),
            updated_at: Timestamp::from_millis(0),
        },
        confidential: OrderConfidential::default(),
        stamps: GivenStamps::default(),
    }
}

fn ticket(ticket_id: &str, client: &str, order: Option<&str>) -> ImportedEvent<LotteryTicket> {
    ImportedEvent {
        event: LotteryTicket {
            id: id(ticket_id),
            client_id: id(client),
            order_id: order.map(id),
            created_at: Timestamp::from_millis(0),
        },
        created_at: None,
    }
}

fn spin(spin_id: &str, client: &str, order: Option<&str>) -> ImportedEvent<Spin> {
    ImportedEvent {
        event: Spin {
            id: id(spin_id),
            client_id: id(client),
            order_id: order.map(id),
            won: false,
            prize_label: None,
            prize_type: None,
            created_at: Timestamp::from_millis(0),
        },
        created_at: None,
    }
}

/// Rows stored in a shop, by id.
fn owned<I: FromStr<Err: Debug> + Eq + Hash>(rows: &[(&str, ShopId)]) -> HashMap<I, ShopId> {
    rows.iter()
        .map(|(row, shop)| (id(row), shop.clone()))
        .collect()
}

/// Child rows stored in a shop under a parent, by id.
fn children<I, P>(rows: &[(&str, ShopId, &str)]) -> HashMap<I, StoredChild<P>>
where
    I: FromStr<Err: Debug> + Eq + Hash,
    P: FromStr<Err: Debug>,
{
    rows.iter()
        .map(|(row, shop, parent)| {
            let child = StoredChild {
                shop: shop.clone(),
                parent: id(parent),
            };
            (id(row), child)
        })
        .collect()
}

/// The problems as the CLI prints them: `path: message`.
fn refused(file: &ShopImport, stored: &StoredOwnership) -> Vec<String> {
    refusals(&mine(), file, stored)
        .iter()
        .map(ToString::to_string)
        .collect()
}

const NO_CLIENT: &str = "no client with this id in the shop or the file";
const NO_PRODUCT: &str = "no product with this id in the shop or the file";
const NO_ORDER: &str = "no order with this id in the shop or the file";

#[test]
fn a_file_whose_ids_are_its_shops_and_whose_references_resolve_is_not_refused() {
    let mut scarf = product("p1", &["p1-v0"]);
    scarf.product.category = Some(CategoryRef {
        id: id("c1"),
        name: "Scarves".into(),
    });
    scarf.product.brand = Some(BrandRef {
        id: id("b1"),
        name: "Acme".into(),
    });
    let file = ShopImport {
        tiers: vec![tier("t1")],
        products: vec![scarf, product("p-new", &["p-new-v0"])],
        clients: vec![client("c1"), client("c-new")],
        orders: vec![
            // References to the file's rows and to this shop's stored rows.
            order(
                "o1",
                Some("c-new"),
                vec![
                    item("i1", "p-new", "p-new-v0"),
                    item("i2", "p-stored", "p-stored-v0"),
                ],
            ),
            order("o2", Some("c-stored"), vec![item("i3", "p1", "p1-v0")]),
            order("o3", None, vec![]),
        ],
        lottery_tickets: vec![ticket("tk1", "c-new", Some("o1"))],
        spins: vec![
            spin("s1", "c-stored", Some("o-stored")),
            spin("s2", "c1", None),
        ],
    };
    // A re-import: what the file names is stored in this shop, under the same parents.
    let stored = StoredOwnership {
        products: owned(&[("p1", mine()), ("p-stored", mine())]),
        categories: owned(&[("c1", mine())]),
        brands: owned(&[("b1", mine())]),
        tiers: owned(&[("t1", mine())]),
        clients: owned(&[("c1", mine()), ("c-stored", mine())]),
        orders: owned(&[("o1", mine()), ("o-stored", mine())]),
        tickets: owned(&[("tk1", mine())]),
        spins: owned(&[("s1", mine())]),
        variants: children(&[("p1-v0", mine(), "p1"), ("p-stored-v0", mine(), "p-stored")]),
        order_items: children(&[("i1", mine(), "o1")]),
    };
    assert_eq!(refused(&file, &stored), Vec::<String>::new());
}

#[test]
fn a_first_import_that_refers_only_to_itself_is_not_refused() {
    let file = ShopImport {
        products: vec![product("p1", &["p1-v0"])],
        clients: vec![client("c1")],
        orders: vec![order("o1", Some("c1"), vec![item("i1", "p1", "p1-v0")])],
        lottery_tickets: vec![ticket("tk1", "c1", Some("o1"))],
        spins: vec![spin("s1", "c1", Some("o1"))],
        ..ShopImport::default()
    };
    assert!(refusals(&mine(), &file, &StoredOwnership::default()).is_empty());
}

#[test]
fn every_id_stored_in_another_shop_is_refused_at_its_path_in_the_files_order() {
    let mut scarf = product("p1", &["v1"]);
    scarf.product.category = Some(CategoryRef {
        id: id("c1"),
        name: "Scarves".into(),
    });
    scarf.product.brand = Some(BrandRef {
        id: id("b1"),
        name: "Acme".into(),
    });
    let file = ShopImport {
        tiers: vec![tier("t1")],
        products: vec![scarf],
        clients: vec![client("cl1")],
        orders: vec![order("o1", Some("cl1"), vec![item("i1", "p1", "v1")])],
        lottery_tickets: vec![ticket("tk1", "cl1", Some("o1"))],
        spins: vec![spin("s1", "cl1", None)],
    };
    let stored = StoredOwnership {
        products: owned(&[("p1", theirs())]),
        categories: owned(&[("c1", theirs())]),
        brands: owned(&[("b1", theirs())]),
        tiers: owned(&[("t1", theirs())]),
        clients: owned(&[("cl1", theirs())]),
        orders: owned(&[("o1", theirs())]),
        tickets: owned(&[("tk1", theirs())]),
        spins: owned(&[("s1", theirs())]),
        variants: children(&[("v1", theirs(), "p1")]),
        order_items: children(&[("i1", theirs(), "o1")]),
    };
    // The references resolve in the file itself, so only the ids are refused.
    assert_eq!(
        refused(&file, &stored),
        [
            "products[0].id: belongs to another shop",
            "products[0].category.id: belongs to another shop",
            "products[0].brand.id: belongs to another shop",
            "products[0].variants[0].id: belongs to another shop",
            "loyaltyTiers[0].id: belongs to another shop",
            "clients[0].id: belongs to another shop",
            "orders[0].id: belongs to another shop",
            "orders[0].items[0].id: belongs to another shop",
            "lotteryTickets[0].id: belongs to another shop",
            "spins[0].id: belongs to another shop",
        ]
    );
}

#[test]
fn a_variant_stored_under_another_product_is_refused() {
    let file = ShopImport {
        products: vec![product("p1", &["v-own", "v-moved", "v-new"])],
        ..ShopImport::default()
    };
    let stored = StoredOwnership {
        products: owned(&[("p1", mine()), ("p-other", mine())]),
        variants: children(&[("v-own", mine(), "p1"), ("v-moved", mine(), "p-other")]),
        ..StoredOwnership::default()
    };
    assert_eq!(
        refused(&file, &stored),
        ["products[0].variants[1].id: belongs to another product"]
    );
}

#[test]
fn an_order_item_stored_under_another_order_is_refused() {
    let file = ShopImport {
        products: vec![product("p1", &["p1-v0"])],
        orders: vec![order(
            "o1",
            None,
            vec![
                item("i-own", "p1", "p1-v0"),
                item("i-moved", "p1", "p1-v0"),
                item("i-new", "p1", "p1-v0"),
            ],
        )],
        ..ShopImport::default()
    };
    let stored = StoredOwnership {
        orders: owned(&[("o1", mine()), ("o-other", mine())]),
        order_items: children(&[("i-own", mine(), "o1"), ("i-moved", mine(), "o-other")]),
        ..StoredOwnership::default()
    };
    assert_eq!(
        refused(&file, &stored),
        ["orders[0].items[1].id: belongs to another order"]
    );
}

#[test]
fn a_child_stored_in_another_shop_is_refused_as_such_whatever_its_parent() {
    let file = ShopImport {
        products: vec![product("p1", &["v-same", "v-other"])],
        orders: vec![order(
            "o1",
            None,
            vec![
                item("i-same", "p1", "v-same"),
                item("i-other", "p1", "v-same"),
            ],
        )],
        ..ShopImport::default()
    };
    let stored = StoredOwnership {
        variants: children(&[("v-same", theirs(), "p1"), ("v-other", theirs(), "p9")]),
        order_items: children(&[("i-same", theirs(), "o1"), ("i-other", theirs(), "o9")]),
        ..StoredOwnership::default()
    };
    assert_eq!(
        refused(&file, &stored),
        [
            "products[0].variants[0].id: belongs to another shop",
            "products[0].variants[1].id: belongs to another shop",
            "orders[0].items[0].id: belongs to another shop",
            "orders[0].items[1].id: belongs to another shop",
        ]
    );
}

#[test]
fn an_orders_client_resolves_in_the_file_or_among_the_shops_stored_clients_only() {
    let file = ShopImport {
        clients: vec![client("c-file")],
        orders: vec![
            order("o-ghost", Some("ghost"), vec![]),
            order("o-theirs", Some("c-theirs"), vec![]),
            order("o-stored", Some("c-stored"), vec![]),
            order("o-file", Some("c-file"), vec![]),
            order("o-anonymous", None, vec![]),
        ],
        ..ShopImport::default()
    };
    let stored = StoredOwnership {
        clients: owned(&[("c-theirs", theirs()), ("c-stored", mine())]),
        ..StoredOwnership::default()
    };
    assert_eq!(
        refused(&file, &stored),
        [
            format!("orders[0].clientId: {NO_CLIENT}"),
            format!("orders[1].clientId: {NO_CLIENT}"),
        ]
    );
}

#[test]
fn an_items_product_must_resolve_and_then_its_variant_must_be_one_of_that_product() {
    let file = ShopImport {
        products: vec![product("p1", &["p1-v0"]), product("p2", &["p2-v0"])],
        orders: vec![order(
            "o1",
            None,
            vec![
                item("i0", "ghost-p", "ghost-v"),
                item("i1", "p-theirs", "p-theirs-v0"),
                item("i2", "p1", "p2-v0"),
                item("i3", "p1", "ghost-v"),
                item("i4", "p-stored", "p1-v0"),
                item("i5", "p1", "v-theirs"),
                item("i6", "p1", "p1-v0"),
                item("i7", "p-stored", "p-stored-v0"),
            ],
        )],
        ..ShopImport::default()
    };
    let stored = StoredOwnership {
        products: owned(&[("p-stored", mine()), ("p-theirs", theirs())]),
        variants: children(&[
            ("p-stored-v0", mine(), "p-stored"),
            ("p-theirs-v0", theirs(), "p-theirs"),
            // Under the file's product, but in another shop: not a variant of it here.
            ("v-theirs", theirs(), "p1"),
        ]),
        ..StoredOwnership::default()
    };
    let not_of =
        |product: &str| format!("not a variant of product {product} in the shop or the file");
    assert_eq!(
        refused(&file, &stored),
        [
            format!("orders[0].items[0].productId: {NO_PRODUCT}"),
            format!("orders[0].items[1].productId: {NO_PRODUCT}"),
            format!("orders[0].items[2].variantId: {}", not_of("p1")),
            format!("orders[0].items[3].variantId: {}", not_of("p1")),
            format!("orders[0].items[4].variantId: {}", not_of("p-stored")),
            format!("orders[0].items[5].variantId: {}", not_of("p1")),
        ]
    );
}

#[test]
fn a_ticket_or_spins_client_and_order_must_resolve_in_the_file_or_the_shop() {
    let file = ShopImport {
        clients: vec![client("c-file")],
        orders: vec![order("o-file", Some("c-file"), vec![])],
        lottery_tickets: vec![
            ticket("tk0", "ghost", Some("ghost-o")),
            ticket("tk1", "c-stored", Some("o-stored")),
            ticket("tk2", "c-file", Some("o-theirs")),
            ticket("tk3", "c-file", None),
        ],
        spins: vec![
            spin("s0", "c-theirs", Some("o-file")),
            spin("s1", "c-file", Some("ghost-o")),
        ],
        ..ShopImport::default()
    };
    let stored = StoredOwnership {
        clients: owned(&[("c-stored", mine()), ("c-theirs", theirs())]),
        orders: owned(&[("o-stored", mine()), ("o-theirs", theirs())]),
        ..StoredOwnership::default()
    };
    assert_eq!(
        refused(&file, &stored),
        [
            format!("lotteryTickets[0].clientId: {NO_CLIENT}"),
            format!("lotteryTickets[0].orderId: {NO_ORDER}"),
            format!("lotteryTickets[2].orderId: {NO_ORDER}"),
            format!("spins[0].clientId: {NO_CLIENT}"),
            format!("spins[1].orderId: {NO_ORDER}"),
        ]
    );
}

fn listed<I: std::fmt::Display>(ids: &BTreeSet<&I>) -> Vec<String> {
    ids.iter().map(ToString::to_string).collect()
}

#[test]
fn the_ids_to_locate_are_those_the_file_names_and_refers_to_each_once() {
    let mut scarf = product("p1", &["p1-v0", "p1-v1"]);
    scarf.product.category = Some(CategoryRef {
        id: id("c1"),
        name: "Scarves".into(),
    });
    let file = ShopImport {
        tiers: vec![tier("t1")],
        products: vec![scarf, product("p2", &[])],
        clients: vec![client("cl1")],
        orders: vec![order(
            "o1",
            Some("cl2"),
            vec![item("i1", "p1", "p1-v0"), item("i2", "p3", "p3-v0")],
        )],
        lottery_tickets: vec![ticket("tk1", "cl1", Some("o2"))],
        spins: vec![spin("s1", "cl3", Some("o1"))],
    };
    let ids = file.ids_to_locate();
    assert_eq!(listed(&ids.products), ["p1", "p2", "p3"]);
    assert_eq!(listed(&ids.variants), ["p1-v0", "p1-v1", "p3-v0"]);
    assert_eq!(listed(&ids.clients), ["cl1", "cl2", "cl3"]);
    assert_eq!(listed(&ids.orders), ["o1", "o2"]);
    assert_eq!(listed(&ids.order_items), ["i1", "i2"]);
    assert_eq!(ids.categories.len(), 1);
    assert!(ids.brands.is_empty());
    assert_eq!(ids.tiers.len(), 1);
    assert_eq!(ids.tickets.len(), 1);
    assert_eq!(ids.spins.len(), 1);
}

#[test]
fn duplicate_ids_are_reported_with_their_path() {
    let import = ShopImport {
        products: vec![product("p1", &["a", "b"]), product("p1", &["a", "b"])],
        ..ShopImport::default()
    };
    let paths: Vec<_> = import.duplicate_ids().into_iter().map(|p| p.path).collect();
    assert_eq!(
        paths,
        [
            "products[1].id",
            "products[1].variants[0].id",
            "products[1].variants[1].id"
        ]
    );
}
