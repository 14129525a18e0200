//! Orders over every source, status and payment status, with 1 to 6 items of seeded variants;
//! about half of them linked to a client, who may get a lottery ticket or an instant spin.

use shop_domain::Timestamp;
use shop_domain::id::{ClientId, OrderId, OrderItemId, ProductId, SpinId, TicketId, VariantId};
use shop_domain::loyalty::{LotteryTicket, Spin};
use shop_domain::money::Cents;
use shop_domain::order::{Order, OrderItem, OrderSource, OrderStatus, PaymentStatus};

use super::catalogue::CatalogueEntry;
use super::ids::SeedIds;
use super::random::{Draw, Timeline};
use super::vocabulary::PRIZES;
use super::{GeneratorError, checked};

const MINUTE_MILLIS: i64 = 60_000;

/// An order and the loyalty events it gave its client.
pub struct Sale {
    pub order: Order,
    pub tickets: Vec<LotteryTicket>,
    pub spins: Vec<Spin>,
}

/// Makes orders in index order, from the orders' own random stream. Their creation times never
/// decrease with the index, and some orders share their millisecond with the previous one
/// (two tills at once), so that lists have ties to break by id.
pub struct OrderMaker {
    ids: SeedIds,
    timeline: Timeline,
    products: Timeline,
    clients: Timeline,
    end: Timestamp,
    last_created: Timestamp,
    tickets: usize,
    spins: usize,
}

impl OrderMaker {
    /// `products` and `clients` say when each product and client was created: an order sells
    /// and is linked only to ones that exist at its time (or to the first product, for a
    /// catalogue younger than the first orders).
    pub fn new(
        ids: SeedIds,
        timeline: Timeline,
        products: Timeline,
        clients: Timeline,
        end: Timestamp,
    ) -> Self {
        Self {
            ids,
            last_created: timeline.from,
            timeline,
            products,
            clients,
            end,
            tickets: 0,
            spins: 0,
        }
    }

    /// Order `i`; orders must be made in index order. `catalogue` holds every product.
    pub fn sale(
        &mut self,
        i: usize,
        catalogue: &[CatalogueEntry],
        draw: &mut Draw,
    ) -> Result<Sale, GeneratorError> {
        let created_at = if i > 0 && draw.percent(4) {
            self.last_created
        } else {
            self.timeline.moment(i, draw).max(self.last_created)
        };
        self.last_created = created_at;

        let source = draw.weighted(&[
            (OrderSource::Pos, 55),
            (OrderSource::ClickCollect, 20),
            (OrderSource::Online, 25),
        ]);
        let status = draw.weighted(&[
            (OrderStatus::Completed, 80),
            (OrderStatus::Cancelled, 6),
            (OrderStatus::Pending, 5),
            (OrderStatus::Preparing, 4),
            (OrderStatus::Ready, 5),
        ]);
        let payment_status = payment_status(source, status, draw);
        let paid_at = (payment_status != PaymentStatus::Pending).then(|| {
            let delay = match source {
                OrderSource::Pos => draw.between(5_000, 3 * MINUTE_MILLIS),
                _ => draw.between(1_000, 2 * MINUTE_MILLIS),
            };
            created_at.plus_millis(delay).min(self.end)
        });
        let payment_method = paid_at.map(|_| payment_method(source, draw));
        let updated_at = match (status, paid_at) {
            (OrderStatus::Completed, Some(paid)) if source == OrderSource::Pos => paid,
            _ => draw.moment(
                created_at,
                created_at.plus_millis(3 * 24 * 60 * MINUTE_MILLIS),
            ),
        }
        .min(self.end)
        .max(created_at);

        let linked = match source {
            OrderSource::Pos => 30,
            OrderSource::ClickCollect => 80,
            OrderSource::Online => 90,
        };
        let existing_clients = self.clients.existing_at(created_at);
        let client = (existing_clients > 0 && draw.percent(linked))
            .then(|| draw.skewed_index(existing_clients));

        let order_id = self.ids.order(i);
        let sellable = self
            .products
            .existing_at(created_at)
            .max(1)
            .min(catalogue.len());
        let count = draw.weighted(&[(1, 35), (2, 25), (3, 17), (4, 11), (5, 7), (6, 5)]);
        let items = (0..count)
            .map(|k| self.item(i, k, &catalogue[..sellable], draw))
            .collect::<Result<Vec<_>, _>>()?;
        let subtotal: i64 = items.iter().map(|item| item.total.get()).sum();
        let item_tax: i64 = items.iter().map(|item| item.tax_amount.get()).sum();
        let discount = if draw.percent(8) { subtotal / 10 } else { 0 };
        let total = subtotal - discount;
        // The discount lowers the tax in proportion.
        let tax = if subtotal == 0 {
            0
        } else {
            item_tax * total / subtotal
        };

        let client_id = client
            .map(|c| checked(ClientId::parse(self.ids.client(c))))
            .transpose()?;
        let order_id = checked(OrderId::parse(order_id))?;
        let (tickets, spins) = match &client_id {
            Some(client) if payment_status == PaymentStatus::Paid => {
                self.events(client, &order_id, created_at, draw)?
            }
            _ => (Vec::new(), Vec::new()),
        };
        let order = Order {
            id: order_id,
            order_number: i as i64 + 1,
            source,
            status,
            payment_status,
            subtotal: Cents(subtotal),
            discount_amount: Cents(discount),
            tax_amount: Cents(tax),
            total: Cents(total),
            payment_method,
            paid_at,
            client_id,
            items,
            created_at,
            updated_at,
        };
        Ok(Sale {
            order,
            tickets,
            spins,
        })
    }

    /// Item `k` of order `order`: a variant of a product that exists, best sellers first.
    fn item(
        &self,
        order: usize,
        k: usize,
        catalogue: &[CatalogueEntry],
        draw: &mut Draw,
    ) -> Result<OrderItem, GeneratorError> {
        let product = draw.skewed_index(catalogue.len());
        let entry = &catalogue[product];
        let variant = draw.index(entry.variant_prices.len());
        let unit = entry.variant_prices[variant].get();
        let quantity = draw.weighted(&[(1, 75), (2, 18), (3, 5), (4, 1), (5, 1)]);
        let total = unit * quantity;
        let rate = entry.tax_rate.hundredths();
        // Prices include tax: its share of the total, rounded to the cent.
        let tax = (total * rate + (10_000 + rate) / 2) / (10_000 + rate);
        Ok(OrderItem {
            id: checked(OrderItemId::parse(self.ids.order_item(order, k)))?,
            product_id: checked(ProductId::parse(self.ids.product(product)))?,
            variant_id: checked(VariantId::parse(self.ids.variant(product, variant)))?,
            product_name: entry.name.clone(),
            unit_price: Cents(unit),
            quantity,
            total: Cents(total),
            tax_rate: entry.tax_rate,
            tax_amount: Cents(tax),
        })
    }

    /// A paid order may give its client a lottery ticket and an instant spin, just after it.
    fn events(
        &mut self,
        client: &ClientId,
        order: &OrderId,
        at: Timestamp,
        draw: &mut Draw,
    ) -> Result<(Vec<LotteryTicket>, Vec<Spin>), GeneratorError> {
        let mut tickets = Vec::new();
        if draw.percent(35) {
            tickets.push(LotteryTicket {
                id: checked(TicketId::parse(self.ids.ticket(self.tickets)))?,
                client_id: client.clone(),
                // A few are bonus tickets, given at the till but for no order in particular.
                order_id: (!draw.percent(5)).then(|| order.clone()),
                created_at: at.plus_millis(draw.between(0, 2_000)).min(self.end),
            });
            self.tickets += 1;
        }
        let mut spins = Vec::new();
        if draw.percent(12) {
            let won = draw.percent(25);
            let prize = won.then(|| draw.pick(PRIZES));
            spins.push(Spin {
                id: checked(SpinId::parse(self.ids.spin(self.spins)))?,
                client_id: client.clone(),
                order_id: Some(order.clone()),
                won,
                prize_label: prize.map(|(label, _)| (*label).to_owned()),
                prize_type: prize.map(|(_, kind)| (*kind).to_owned()),
                created_at: at
                    .plus_millis(draw.between(2_000, 5 * MINUTE_MILLIS))
                    .min(self.end),
            });
            self.spins += 1;
        }
        Ok((tickets, spins))
    }
}

/// Completed orders are paid (a few refunded); cancelled ones refunded or never paid; open
/// ones paid at the till or online, mostly not yet for click-and-collect.
fn payment_status(source: OrderSource, status: OrderStatus, draw: &mut Draw) -> PaymentStatus {
    use PaymentStatus::{Paid, Pending, Refunded};
    match (status, source) {
        (OrderStatus::Completed, _) => draw.weighted(&[(Paid, 97), (Refunded, 3)]),
        (OrderStatus::Cancelled, _) => draw.weighted(&[(Refunded, 50), (Pending, 50)]),
        (_, OrderSource::Pos) => Paid,
        (_, OrderSource::Online) => draw.weighted(&[(Paid, 80), (Pending, 20)]),
        (_, OrderSource::ClickCollect) => draw.weighted(&[(Paid, 40), (Pending, 60)]),
    }
}

/// The demo's payment methods: cash only over the counter.
fn payment_method(source: OrderSource, draw: &mut Draw) -> String {
    let method = match source {
        OrderSource::Pos => draw.weighted(&[("card", 65), ("cash", 33), ("transfer", 2)]),
        OrderSource::ClickCollect => draw.weighted(&[("card", 70), ("cash", 25), ("transfer", 5)]),
        OrderSource::Online => draw.weighted(&[("card", 95), ("transfer", 5)]),
    };
    method.to_owned()
}
