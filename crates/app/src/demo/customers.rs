//! Demo clients, orders, lottery tickets and spins, referring to the demo catalogue.

use serde_json::{Value, json};

use super::{FINISHES, ITEMS, PRODUCTS};

const CLIENTS: usize = 50;
const ORDERS: usize = 240;
const FIRST_NAMES: [&str; 10] = [
    "Marie", "Lucas", "Camille", "Hugo", "Léa", "Nathan", "Chloé", "Louis", "Inès", "Jules",
];
const LAST_NAMES: [&str; 10] = [
    "Martin", "Bernard", "Dubois", "Thomas", "Robert", "Richard", "Petit", "Durand", "Leroy",
    "Moreau",
];
const CITIES: [(&str, &str); 4] = [
    ("Nantes", "44000"),
    ("Lyon", "69002"),
    ("Lille", "59000"),
    ("Bordeaux", "33000"),
];
const SOURCES: [&str; 3] = ["pos", "click-collect", "online"];
const STATUSES: [&str; 5] = ["pending", "preparing", "ready", "completed", "cancelled"];
const PAYMENTS: [&str; 3] = ["pending", "paid", "refunded"];
const METHODS: [&str; 3] = ["card", "cash", "transfer"];
/// Orders are spread over the days before this instant, one every 11 hours.
const LAST_ORDER_MILLIS: i64 = 1_795_000_000_000;
const HOUR_MILLIS: i64 = 3_600_000;

pub fn add(data: &mut Value) {
    data["clients"] = (0..CLIENTS).map(client).collect();
    data["orders"] = (0..ORDERS).map(order).collect();
    data["lotteryTickets"] = (0..CLIENTS).flat_map(tickets).collect();
    data["spins"] = (0..CLIENTS).flat_map(spins).collect();
}

fn timestamp(millis: i64) -> String {
    shop_domain::Timestamp::from_millis(millis).to_rfc3339()
}

fn client(n: usize) -> Value {
    let first = FIRST_NAMES[n % FIRST_NAMES.len()];
    let last = LAST_NAMES[(n / FIRST_NAMES.len() + n) % LAST_NAMES.len()];
    let digits = format!("6{:08}", 12_345_678 + n * 1_111);
    // The same kind of number written the ways shops actually store them.
    let phone = match n % 4 {
        0 => format!(
            "0{} {} {} {} {}",
            &digits[..1],
            &digits[1..3],
            &digits[3..5],
            &digits[5..7],
            &digits[7..]
        ),
        1 => format!("+33{digits}"),
        2 => format!(
            "0{}.{}.{}.{}.{}",
            &digits[..1],
            &digits[1..3],
            &digits[3..5],
            &digits[5..7],
            &digits[7..]
        ),
        _ => format!("0{digits}"),
    };
    let lifetime = (n as i64 * 137) % 3_200;
    let (city, postal_code) = CITIES[n % CITIES.len()];
    json!({
        "id": format!("demo_client_{n:03}"),
        "name": format!("{first} {last}"),
        "displayName": if n.is_multiple_of(3) { Value::from(first) } else { Value::Null },
        "phone": if n % 10 == 9 { Value::Null } else { Value::from(phone) },
        "email": format!("{}.{}{n}@example.com", first.to_lowercase(), last.to_lowercase()),
        "billing": {
            "company": if n.is_multiple_of(7) { Value::from(format!("{last} SARL")) } else { Value::Null },
            "vatNumber": if n.is_multiple_of(7) { Value::from(format!("FR{:011}", n * 7_919)) } else { Value::Null },
            "address": format!("{} rue des Lilas", n + 1),
            "city": city,
            "postalCode": postal_code,
            "country": "FR",
        },
        "birthDate": if n.is_multiple_of(5) { Value::Null } else { Value::from(format!("19{:02}-{:02}-{:02}", 60 + n % 40, 1 + n % 12, 1 + n % 28)) },
        "loyalty": {
            "points": lifetime % 400,
            "expiresAt": timestamp(LAST_ORDER_MILLIS + (n as i64 + 30) * 24 * HOUR_MILLIS),
            "pointsLifetime": lifetime,
            "pointsAllTime": lifetime + 50,
            "tierAchievedAt": timestamp(LAST_ORDER_MILLIS - n as i64 * 48 * HOUR_MILLIS),
        },
        "receiptByEmail": n.is_multiple_of(2),
        "tags": if n.is_multiple_of(6) { json!(["vip"]) } else { json!([]) },
        "note": format!("private note {n}"),
        "anonymousClientId": format!("anon-{n}"),
    })
}

fn order(n: usize) -> Value {
    let created = LAST_ORDER_MILLIS - (ORDERS - n) as i64 * 11 * HOUR_MILLIS;
    let payment = PAYMENTS[(n / 5) % PAYMENTS.len()];
    let items: Vec<Value> = (0..1 + n % 4)
        .map(|i| {
            let product = (n * 7 + i * 5) % PRODUCTS;
            let unit = 590 + (product as i64 * 370) % 6_000;
            let quantity = 1 + ((n + i) % 3) as i64;
            let rate = if product % 10 == 9 { ("5.50", 55) } else { ("20.00", 200) };
            let total = unit * quantity;
            json!({
                "id": format!("demo_item_{n:03}_{i}"),
                "productId": format!("demo_prod_{product:03}"),
                "variantId": format!("demo_var_{product:03}_0"),
                "productName": format!("{} {}", ITEMS[product % ITEMS.len()], FINISHES[(product / ITEMS.len()) % FINISHES.len()]),
                "unitPriceCents": unit,
                "quantity": quantity,
                "totalCents": total,
                "taxRate": rate.0,
                "taxAmountCents": total * rate.1 / (1_000 + rate.1),
                "refunded": null,
            })
        })
        .collect();
    let subtotal: i64 = items.iter().filter_map(|i| i["totalCents"].as_i64()).sum();
    let discount = if n.is_multiple_of(8) {
        subtotal / 10
    } else {
        0
    };
    let tax: i64 = items
        .iter()
        .filter_map(|i| i["taxAmountCents"].as_i64())
        .sum();
    json!({
        "id": format!("demo_order_{n:03}"),
        "orderNumber": 1_000 + n,
        "source": SOURCES[n % SOURCES.len()],
        "status": STATUSES[n % STATUSES.len()],
        "paymentStatus": payment,
        "subtotalCents": subtotal,
        "discountAmountCents": discount,
        "taxAmountCents": tax,
        "totalCents": subtotal - discount,
        "paymentMethod": if payment == "pending" { Value::Null } else { Value::from(METHODS[n % METHODS.len()]) },
        "paidAt": if payment == "pending" { Value::Null } else { Value::from(timestamp(created + 60_000)) },
        "customer": null,
        "clientId": if n % 4 == 3 { Value::Null } else { Value::from(format!("demo_client_{:03}", n % CLIENTS)) },
        "items": items,
        "createdAt": timestamp(created),
        "updatedAt": timestamp(created + 120_000),
        "signature": format!("sig-{n:03}"),
        "previousSignature": if n == 0 { Value::Null } else { Value::from(format!("sig-{:03}", n - 1)) },
        "cumulativeTotalTTCSnapshot": (n as i64 + 1) * 4_200,
        "internalNote": if n.is_multiple_of(9) { Value::from("client called about pickup") } else { Value::Null },
        "paymentIntentId": if n % 3 == 2 { Value::from(format!("pi_demo_{n:03}")) } else { Value::Null },
    })
}

/// Orders placed by client `c` (see `order`: clientId = n % CLIENTS unless n % 4 == 3).
fn orders_of(c: usize) -> impl Iterator<Item = usize> {
    (c..ORDERS).step_by(CLIENTS).filter(|n| n % 4 != 3)
}

fn tickets(c: usize) -> Vec<Value> {
    // Some clients hold more than the 10 the summary shows.
    (0..(c * 3) % 14)
        .map(|t| {
            let order = orders_of(c).nth(t % 3);
            json!({
                "id": format!("demo_ticket_{c:03}_{t:02}"),
                "clientId": format!("demo_client_{c:03}"),
                "orderId": order.map(|n| format!("demo_order_{n:03}")),
                "createdAt": timestamp(LAST_ORDER_MILLIS - (t as i64 + 1) * 7 * HOUR_MILLIS),
            })
        })
        .collect()
}

fn spins(c: usize) -> Vec<Value> {
    (0..(c * 5) % 13)
        .map(|s| {
            let won = (c + s).is_multiple_of(3);
            json!({
                "id": format!("demo_spin_{c:03}_{s:02}"),
                "clientId": format!("demo_client_{c:03}"),
                "orderId": orders_of(c).next().map(|n| format!("demo_order_{n:03}")),
                "won": won,
                "prizeLabel": if won { Value::from("Bougie offerte") } else { Value::Null },
                "prizeType": if won { Value::from("product") } else { Value::Null },
                "createdAt": timestamp(LAST_ORDER_MILLIS - (s as i64 + 1) * 5 * HOUR_MILLIS),
            })
        })
        .collect()
}
