//! The generator, without a database: determinism, counts, ranges and references.

use std::collections::{HashMap, HashSet};

use shop_domain::order::{Order, OrderSource, OrderStatus, PaymentStatus};

use super::*;

fn plan(seed: u64) -> SeedPlan {
    SeedPlan::new(ShopSlug::parse("test-shop").unwrap(), 600, 300, 3_000, seed).unwrap()
}

fn batches(plan: SeedPlan) -> Vec<BulkBatch> {
    Generator::new(plan).collect::<Result<_, _>>().unwrap()
}

#[test]
fn the_same_seed_makes_the_same_data_and_another_seed_other_data() {
    let first = batches(plan(1));
    assert_eq!(first, batches(plan(1)));
    let other = batches(plan(2));
    assert_ne!(first, other);
    // Only the values change: the ids and counts are the plan's.
    assert_eq!(first[1].products[0].id, other[1].products[0].id);
    assert_ne!(first[1].products[0].name, other[1].products[0].name);
}

#[test]
fn batches_hold_the_planned_counts_parents_first() {
    let all = batches(plan(1));
    let kinds: Vec<&str> = all
        .iter()
        .map(|batch| match batch {
            b if !b.tiers.is_empty() => "reference",
            b if !b.products.is_empty() => "products",
            b if !b.clients.is_empty() => "clients",
            b if !b.orders.is_empty() => "orders",
            _ => "empty",
        })
        .collect();
    assert_eq!(kinds, ["reference", "products", "clients", "orders"]);
    let reference = &all[0];
    assert_eq!(reference.tiers.len(), 3);
    assert_eq!(reference.categories.len(), vocabulary::CATEGORIES.len());
    assert_eq!(reference.brands.len(), vocabulary::BRANDS.len());
    assert_eq!(all[1].products.len(), 600);
    assert_eq!(all[2].clients.len(), 300);
    assert_eq!(all[3].orders.len(), 3_000);
    assert_eq!(all[1].products[599].id.as_str(), "test-shop-p0000599");
    assert_eq!(all[2].clients[0].id.as_str(), "test-shop-c0000000");
    assert_eq!(all[3].orders[0].id.as_str(), "test-shop-o00000000");

    let big = SeedPlan::new(ShopSlug::parse("b").unwrap(), 4_001, 0, 0, 1).unwrap();
    let sizes: Vec<usize> = batches(big).iter().map(|b| b.products.len()).collect();
    assert_eq!(sizes, [0, PRODUCTS_PER_BATCH, 1]);
}

#[test]
fn products_have_one_to_eight_variants_and_every_stock_situation() {
    let all = batches(plan(1));
    let products = &all[1].products;
    let counts: HashSet<usize> = products.iter().map(|p| p.variants.len()).collect();
    assert_eq!(counts, (1..=8).collect());
    for product in products {
        let default: Vec<bool> = product.variants.iter().map(|v| v.is_default).collect();
        assert!(
            default[0] && default[1..].iter().all(|d| !d),
            "{}",
            product.id
        );
        assert!(
            product.variants[0].id.as_str().ends_with("-v0"),
            "{}",
            product.id
        );
        assert!(product.updated_at >= product.created_at && product.updated_at <= EPOCH);
    }
    assert!(products.iter().any(|p| !p.track_stock));
    assert!(
        products
            .iter()
            .all(|p| p.variants.iter().all(|v| v.tracked == p.track_stock)),
        "every variant tracks stock as its product does"
    );
    assert!(products.iter().any(|p| !p.active));
    assert!(products.iter().any(|p| p.promo_active));
    assert!(products.iter().any(|p| p.ean.is_none()));
    let tracked = products.iter().filter(|p| p.track_stock);
    let stocks: Vec<(i64, i64)> = tracked
        .flat_map(|p| p.variants.iter().map(|v| (v.stock, v.low_stock_threshold)))
        .collect();
    assert!(stocks.iter().any(|(stock, _)| *stock < 0));
    assert!(stocks.iter().any(|(stock, _)| *stock == 0));
    assert!(stocks.iter().any(|(stock, low)| *stock > 0 && stock <= low));
    assert!(stocks.iter().any(|(stock, low)| stock > low));
    let rates: HashSet<i64> = products.iter().map(|p| p.tax_rate.hundredths()).collect();
    assert!(rates.contains(&2000) && rates.contains(&550));
}

#[test]
fn every_item_sells_a_seeded_variant_at_its_price() {
    let all = batches(plan(1));
    let variants: HashMap<&str, (&str, &str, i64)> = all[1]
        .products
        .iter()
        .flat_map(|p| {
            p.variants.iter().map(move |v| {
                (
                    v.id.as_str(),
                    (p.id.as_str(), p.name.as_str(), v.price.get()),
                )
            })
        })
        .collect();
    let orders = &all[3].orders;
    let counts: HashSet<usize> = orders.iter().map(|o| o.items.len()).collect();
    assert_eq!(counts, (1..=6).collect());
    for order in orders {
        let mut subtotal = 0;
        for item in &order.items {
            let (product, name, price) = variants[item.variant_id.as_str()];
            assert_eq!(item.product_id.as_str(), product);
            assert_eq!(item.product_name, name);
            assert_eq!(item.unit_price.get(), price);
            assert_eq!(item.total.get(), price * item.quantity);
            subtotal += item.total.get();
        }
        assert_eq!(order.subtotal.get(), subtotal);
        assert_eq!(
            order.total.get(),
            subtotal - order.discount_amount.get(),
            "{}",
            order.id
        );
    }
}

#[test]
fn orders_cover_every_state_and_half_have_a_client() {
    let all = batches(plan(1));
    let orders = &all[3].orders;
    for source in OrderSource::ALL {
        assert!(orders.iter().any(|o| o.source == *source), "{source}");
    }
    for status in OrderStatus::ALL {
        assert!(orders.iter().any(|o| o.status == *status), "{status}");
    }
    for status in PaymentStatus::ALL {
        assert!(
            orders.iter().any(|o| o.payment_status == *status),
            "{status}"
        );
    }
    for order in orders {
        let paid = order.payment_status != PaymentStatus::Pending;
        assert_eq!(order.paid_at.is_some(), paid, "{}", order.id);
        assert_eq!(order.payment_method.is_some(), paid, "{}", order.id);
    }
    let linked = orders.iter().filter(|o| o.client_id.is_some()).count();
    assert!((1_200..1_800).contains(&linked), "{linked} of 3000");
}

#[test]
fn orders_grow_older_with_their_index_with_ties_and_after_their_client() {
    let all = batches(plan(1));
    let clients: HashMap<&str, Timestamp> = all[2]
        .clients
        .iter()
        .map(|c| (c.id.as_str(), c.created_at))
        .collect();
    let orders = &all[3].orders;
    let two_years_before = EPOCH.plus_millis(-2 * YEAR_MILLIS);
    let mut ties = 0;
    for pair in orders.windows(2) {
        assert!(pair[0].id < pair[1].id);
        assert!(pair[0].created_at <= pair[1].created_at);
        if pair[0].created_at == pair[1].created_at {
            ties += 1;
        }
    }
    assert!(ties >= 30, "{ties} ties");
    for order in orders {
        assert!(order.created_at >= two_years_before && order.created_at <= EPOCH);
        assert!(order.updated_at >= order.created_at && order.updated_at <= EPOCH);
        if let Some(client) = &order.client_id {
            assert!(clients[client.as_str()] <= order.created_at, "{}", order.id);
        }
    }
}

#[test]
fn tickets_and_spins_belong_to_the_client_of_their_order() {
    let all = batches(plan(1));
    let orders: HashMap<&str, &Order> = all[3].orders.iter().map(|o| (o.id.as_str(), o)).collect();
    let (tickets, spins) = (&all[3].lottery_tickets, &all[3].spins);
    assert!(tickets.len() > 100 && !spins.is_empty());
    assert!(spins.iter().any(|s| s.won) && spins.iter().any(|s| !s.won));
    let events = tickets
        .iter()
        .map(|t| (&t.client_id, &t.order_id))
        .chain(spins.iter().map(|s| (&s.client_id, &s.order_id)));
    for (client, order) in events {
        if let Some(order) = order {
            assert_eq!(orders[order.as_str()].client_id.as_ref(), Some(client));
        }
    }
    assert_eq!(tickets[0].id.as_str(), "test-shop-t00000000");
}

#[test]
fn plans_that_cannot_be_seeded_are_refused() {
    let slug = |text: &str| ShopSlug::parse(text).unwrap();
    assert_eq!(
        SeedPlan::new(slug(&"a".repeat(MAX_SLUG_LEN + 1)), 1, 1, 1, 1),
        Err(InvalidPlan::SlugTooLong)
    );
    assert!(SeedPlan::new(slug(&"a".repeat(MAX_SLUG_LEN)), 1, 1, 1, 1).is_ok());
    assert_eq!(
        SeedPlan::new(slug("s"), MAX_PRODUCTS + 1, 0, 0, 1),
        Err(InvalidPlan::TooMany {
            what: "products",
            max: MAX_PRODUCTS
        })
    );
    assert_eq!(
        SeedPlan::new(slug("s"), 0, 10, 1, 1),
        Err(InvalidPlan::OrdersWithoutProducts)
    );
}

#[tokio::test]
async fn the_spawned_generator_hands_over_every_batch() {
    let mut generated = spawn(plan(1));
    let mut received = Vec::new();
    while let Some(batch) = generated.next_batch().await {
        received.push(batch);
    }
    generated.finish().unwrap();
    assert_eq!(received, batches(plan(1)));
}
