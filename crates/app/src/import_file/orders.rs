//! `orders` of the import file: the Order of spec §2 plus its confidential fields, which are
//! stored and never returned.

use serde_json::Value;
use shop_domain::Timestamp;
use shop_domain::id::{ClientId, OrderId, OrderItemId, ProductId, VariantId};
use shop_domain::import::ImportedOrder;
use shop_domain::money::Cents;
use shop_domain::order::{
    Order, OrderConfidential, OrderItem, OrderSource, OrderStatus, PaymentStatus,
};
use shop_domain::tax_rate::TaxRate;

use super::reader::Reader;

const FIELDS: &[&str] = &[
    "id",
    "orderNumber",
    "source",
    "status",
    "paymentStatus",
    "subtotalCents",
    "discountAmountCents",
    "taxAmountCents",
    "totalCents",
    "paymentMethod",
    "paidAt",
    "customer",
    "clientId",
    "items",
    "createdAt",
    "updatedAt",
    "signature",
    "previousSignature",
    "cumulativeTotalTTCSnapshot",
    "internalNote",
    "paymentIntentId",
];
const ITEM_FIELDS: &[&str] = &[
    "id",
    "productId",
    "variantId",
    "productName",
    "unitPriceCents",
    "quantity",
    "totalCents",
    "taxRate",
    "taxAmountCents",
    "refunded",
];

pub fn read_order(reader: &mut Reader<'_>, path: &str, value: &Value) -> Option<ImportedOrder> {
    let object = reader.object(value, path)?;
    object.refuse_unknown(reader, FIELDS, &[]);
    object.null_only(reader, "customer");
    let id = object.id(reader, OrderId::parse);
    let order_number = object.required_int(reader, "orderNumber");
    let source = object.required_parsed(reader, "source", str::parse::<OrderSource>);
    let status = object.required_parsed(reader, "status", str::parse::<OrderStatus>);
    let payment_status =
        object.required_parsed(reader, "paymentStatus", str::parse::<PaymentStatus>);
    let total = object.required_int(reader, "totalCents").map(Cents);
    let subtotal = object.optional_int(reader, "subtotalCents").map(Cents);
    let items: Vec<Option<OrderItem>> = object
        .items(reader, "items")
        .into_iter()
        .map(|(path, value)| read_item(reader, &path, value))
        .collect();
    let order = Order {
        id: id?,
        order_number: order_number?,
        source: source?,
        status: status?,
        payment_status: payment_status?,
        subtotal: subtotal.unwrap_or(total?),
        discount_amount: Cents(
            object
                .optional_int(reader, "discountAmountCents")
                .unwrap_or(0),
        ),
        tax_amount: Cents(object.optional_int(reader, "taxAmountCents").unwrap_or(0)),
        total: total?,
        payment_method: object.optional_string(reader, "paymentMethod"),
        paid_at: object.optional_parsed(reader, "paidAt", Timestamp::parse_rfc3339),
        client_id: object.optional_parsed(reader, "clientId", |text| ClientId::parse(text)),
        items: items.into_iter().collect::<Option<Vec<_>>>()?,
        created_at: Timestamp::from_millis(0),
        updated_at: Timestamp::from_millis(0),
    };
    let confidential = OrderConfidential {
        signature: object.optional_string(reader, "signature"),
        previous_signature: object.optional_string(reader, "previousSignature"),
        cumulative_total_ttc_snapshot: object.optional_int(reader, "cumulativeTotalTTCSnapshot"),
        internal_note: object.optional_string(reader, "internalNote"),
        payment_intent_id: object.optional_string(reader, "paymentIntentId"),
    };
    Some(ImportedOrder {
        order,
        confidential,
        stamps: object.stamps(reader),
    })
}

fn read_item(reader: &mut Reader<'_>, path: &str, value: &Value) -> Option<OrderItem> {
    let item = reader.object(value, path)?;
    item.refuse_unknown(reader, ITEM_FIELDS, &[]);
    item.null_only(reader, "refunded");
    let id = item.id(reader, OrderItemId::parse);
    let product_id = item.required_parsed(reader, "productId", |text| ProductId::parse(text));
    let variant_id = item.required_parsed(reader, "variantId", |text| VariantId::parse(text));
    let product_name = item.label(reader, "productName", 500);
    let unit_price = item.required_int(reader, "unitPriceCents");
    let quantity = item.required_int(reader, "quantity");
    let tax_rate = item.required_parsed(reader, "taxRate", TaxRate::parse);
    let total = item.optional_int(reader, "totalCents");
    let (unit_price, quantity) = (unit_price?, quantity?);
    Some(OrderItem {
        id: id?,
        product_id: product_id?,
        variant_id: variant_id?,
        product_name: product_name?,
        unit_price: Cents(unit_price),
        quantity,
        total: Cents(total.unwrap_or(unit_price.saturating_mul(quantity))),
        tax_rate: tax_rate?,
        tax_amount: Cents(item.optional_int(reader, "taxAmountCents").unwrap_or(0)),
    })
}
