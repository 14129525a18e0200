//! `shop-api seed`: runs `shop-seed`'s use case on its generator, reports progress on stderr and
//! one summary line on stdout.

use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use shop_seed::{SeedCounts, SeedPlan, SeedShop};

use super::SeedArgs;
use crate::services::Services;

/// Progress lines on stderr come at most this often.
const PROGRESS_EVERY: Duration = Duration::from_secs(2);

pub async fn run(services: &Services, args: SeedArgs) -> anyhow::Result<()> {
    let plan = SeedPlan::new(
        args.shop,
        args.products,
        args.clients,
        args.orders,
        args.seed,
    )?;
    let store = Arc::new(services.database.clone());
    let use_case = SeedShop::new(store.clone(), store);
    let shop = use_case.prepare(&plan.slug, shop_seed::EPOCH).await?;
    eprintln!(
        "seeding shop {} ({}) with seed {}: {} products, {} clients, {} orders",
        shop.slug, shop.id, plan.seed, plan.products, plan.clients, plan.orders
    );

    let started = Instant::now();
    let mut progress = Progress {
        plan: plan.clone(),
        started,
        last: started,
    };
    let mut batches = shop_seed::spawn(plan);
    let loaded = use_case
        .load(&shop.id, &mut batches, |counts| progress.report(counts))
        .await;
    let generated = batches.finish();
    let counts = loaded?;
    generated?;
    writeln!(std::io::stdout(), "{}", summary(&counts, started.elapsed()))?;
    Ok(())
}

struct Progress {
    plan: SeedPlan,
    started: Instant,
    last: Instant,
}

impl Progress {
    fn report(&mut self, counts: &SeedCounts) {
        let now = Instant::now();
        if now.duration_since(self.last) < PROGRESS_EVERY {
            return;
        }
        self.last = now;
        let elapsed = now.duration_since(self.started);
        eprintln!(
            "seed: products {}/{}, clients {}/{}, orders {}/{}; {} rows, {} rows/s",
            counts.products,
            self.plan.products,
            counts.clients,
            self.plan.clients,
            counts.orders,
            self.plan.orders,
            listed_rows(counts),
            per_second(listed_rows(counts), elapsed)
        );
    }
}

/// The rows the summary lists (the few categories and brands aside), so that its numbers add
/// up.
fn listed_rows(counts: &SeedCounts) -> usize {
    counts.rows() - counts.categories - counts.brands
}

fn per_second(rows: usize, elapsed: Duration) -> u64 {
    (rows as f64 / elapsed.as_secs_f64().max(0.001)).round() as u64
}

/// The one line scripts parse: `seeded <rows> rows in <secs> s (<rows/s> rows/s): ...`.
fn summary(counts: &SeedCounts, elapsed: Duration) -> String {
    let rows = listed_rows(counts);
    format!(
        "seeded {rows} rows in {:.1} s ({} rows/s): {} products, {} variants, {} clients, \
         {} orders, {} order items, {} lottery tickets, {} spins, {} tiers",
        elapsed.as_secs_f64(),
        per_second(rows, elapsed),
        counts.products,
        counts.variants,
        counts.clients,
        counts.orders,
        counts.order_items,
        counts.lottery_tickets,
        counts.spins,
        counts.tiers
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_line_has_the_agreed_shape_and_adds_up() {
        let counts = SeedCounts {
            tiers: 3,
            categories: 8,
            brands: 20,
            products: 10,
            variants: 25,
            clients: 4,
            orders: 6,
            order_items: 15,
            lottery_tickets: 2,
            spins: 1,
        };
        assert_eq!(
            summary(&counts, Duration::from_millis(2_500)),
            "seeded 66 rows in 2.5 s (26 rows/s): 10 products, 25 variants, 4 clients, \
             6 orders, 15 order items, 2 lottery tickets, 1 spins, 3 tiers"
        );
    }
}
