//! `lotteryTickets` and `spins` of the import file.

use serde_json::Value;
use shop_domain::Timestamp;
use shop_domain::id::{ClientId, OrderId, SpinId, TicketId};
use shop_domain::import::ImportedEvent;
use shop_domain::loyalty::{LotteryTicket, Spin};

use super::reader::{Object, Reader};

const TICKET_FIELDS: &[&str] = &["id", "clientId", "orderId", "createdAt"];
const SPIN_FIELDS: &[&str] = &[
    "id",
    "clientId",
    "orderId",
    "won",
    "prizeLabel",
    "prizeType",
    "createdAt",
];

fn client_and_order(
    reader: &mut Reader<'_>,
    object: &Object<'_>,
) -> (Option<ClientId>, Option<OrderId>) {
    let client = object.required_parsed(reader, "clientId", |text| ClientId::parse(text));
    let order = object.optional_parsed(reader, "orderId", |text| OrderId::parse(text));
    (client, order)
}

pub fn read_ticket(
    reader: &mut Reader<'_>,
    path: &str,
    value: &Value,
) -> Option<ImportedEvent<LotteryTicket>> {
    let object = reader.object(value, path)?;
    object.refuse_unknown(reader, TICKET_FIELDS, &[]);
    let id = object.id(reader, TicketId::parse);
    let (client_id, order_id) = client_and_order(reader, &object);
    let created_at = object.optional_parsed(reader, "createdAt", Timestamp::parse_rfc3339);
    let event = LotteryTicket {
        id: id?,
        client_id: client_id?,
        order_id,
        created_at: Timestamp::from_millis(0),
    };
    Some(ImportedEvent { event, created_at })
}

pub fn read_spin(
    reader: &mut Reader<'_>,
    path: &str,
    value: &Value,
) -> Option<ImportedEvent<Spin>> {
    let object = reader.object(value, path)?;
    object.refuse_unknown(reader, SPIN_FIELDS, &[]);
    let id = object.id(reader, SpinId::parse);
    let (client_id, order_id) = client_and_order(reader, &object);
    let won = object.required_bool(reader, "won");
    let created_at = object.optional_parsed(reader, "createdAt", Timestamp::parse_rfc3339);
    let event = Spin {
        id: id?,
        client_id: client_id?,
        order_id,
        won: won?,
        prize_label: object.optional_string(reader, "prizeLabel"),
        prize_type: object.optional_string(reader, "prizeType"),
        created_at: Timestamp::from_millis(0),
    };
    Some(ImportedEvent { event, created_at })
}
