use shop_ports::port::IdGenerator;

/// UUIDv7: unique without coordination between instances, and time-ordered so that new rows
/// land at the end of id-ordered indexes.
pub struct UuidV7Ids;

impl IdGenerator for UuidV7Ids {
    fn new_id(&self) -> String {
        uuid::Uuid::now_v7().to_string()
    }
}
