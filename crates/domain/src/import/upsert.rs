//! What an import writes: an idempotent upsert by id. Re-importing the same file changes
//! nothing, not even `updatedAt`, so a row is only written when its content or its given
//! timestamps differ from what is stored.

use std::collections::HashSet;

use super::{GivenStamps, ImportedClient, ImportedEvent, ImportedOrder, ImportedProduct};
use crate::Timestamp;
use crate::catalogue::Product;
use crate::client::{Client, ClientConfidential};
use crate::loyalty::{LotteryTicket, Spin};
use crate::order::{Order, OrderConfidential};

/// What to do with one imported row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ImportDecision<T> {
    Unchanged,
    Write(Box<T>),
}

/// The timestamps a row is stored with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamps {
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// The one rule for timestamps of an upsert: `None` (leave the row alone) when the content is
/// the same and the file's `createdAt`, where given, equals the stored one; otherwise the given
/// `createdAt` (defaulting to the stored one, or now) and `updatedAt` = now. A given
/// `updatedAt` never wins: a change stamped with an older time would be invisible to every
/// `updatedSince` sync already past it (crate::sync).
pub fn resolve_stamps(
    stored: Option<Stamps>,
    given: GivenStamps,
    same_content: bool,
    now: Timestamp,
) -> Option<Stamps> {
    if let Some(stored) = stored
        && same_content
        && given.created_at.is_none_or(|at| at == stored.created_at)
    {
        return None;
    }
    Some(Stamps {
        created_at: given
            .created_at
            .or(stored.map(|s| s.created_at))
            .unwrap_or(now),
        updated_at: now,
    })
}

fn without_stamps<T: Clone>(value: &T, clear: impl Fn(&mut T)) -> T {
    let mut copy = value.clone();
    clear(&mut copy);
    copy
}

/// Orders: the file's items replace the stored ones (an order's lines are one fact).
pub fn decide_order_import(
    existing: Option<(&Order, &OrderConfidential)>,
    incoming: ImportedOrder,
    now: Timestamp,
) -> ImportDecision<(Order, OrderConfidential)> {
    let ImportedOrder {
        mut order,
        confidential,
        stamps,
    } = incoming;
    let clear = |o: &mut Order| {
        o.created_at = Timestamp::from_millis(0);
        o.updated_at = Timestamp::from_millis(0);
    };
    let same = existing.is_some_and(|(stored, stored_confidential)| {
        without_stamps(stored, clear) == without_stamps(&order, clear)
            && *stored_confidential == confidential
    });
    let stored = existing.map(|(o, _)| Stamps {
        created_at: o.created_at,
        updated_at: o.updated_at,
    });
    match resolve_stamps(stored, stamps, same, now) {
        None => ImportDecision::Unchanged,
        Some(resolved) => {
            order.created_at = resolved.created_at;
            order.updated_at = resolved.updated_at;
            ImportDecision::Write(Box::new((order, confidential)))
        }
    }
}

pub fn decide_client_import(
    existing: Option<(&Client, &ClientConfidential)>,
    incoming: ImportedClient,
    now: Timestamp,
) -> ImportDecision<(Client, ClientConfidential)> {
    let ImportedClient {
        mut client,
        confidential,
        stamps,
    } = incoming;
    let clear = |c: &mut Client| {
        c.created_at = Timestamp::from_millis(0);
        c.updated_at = Timestamp::from_millis(0);
    };
    let same = existing.is_some_and(|(stored, stored_confidential)| {
        without_stamps(stored, clear) == without_stamps(&client, clear)
            && *stored_confidential == confidential
    });
    let stored = existing.map(|(c, _)| Stamps {
        created_at: c.created_at,
        updated_at: c.updated_at,
    });
    match resolve_stamps(stored, stamps, same, now) {
        None => ImportDecision::Unchanged,
        Some(resolved) => {
            client.created_at = resolved.created_at;
            client.updated_at = resolved.updated_at;
            ImportDecision::Write(Box::new((client, confidential)))
        }
    }
}

/// Tickets and spins only have a creation time.
pub trait Event: Clone + PartialEq {
    fn created_at_mut(&mut self) -> &mut Timestamp;
}

impl Event for LotteryTicket {
    fn created_at_mut(&mut self) -> &mut Timestamp {
        &mut self.created_at
    }
}

impl Event for Spin {
    fn created_at_mut(&mut self) -> &mut Timestamp {
        &mut self.created_at
    }
}

pub fn decide_event_import<T: Event>(
    existing: Option<&T>,
    incoming: ImportedEvent<T>,
    now: Timestamp,
) -> ImportDecision<T> {
    let ImportedEvent {
        mut event,
        created_at,
    } = incoming;
    let stored_at = existing.map(|stored| *stored.clone().created_at_mut());
    *event.created_at_mut() = created_at.or(stored_at).unwrap_or(now);
    match existing {
        Some(stored) if *stored == event => ImportDecision::Unchanged,
        _ => ImportDecision::Write(Box::new(event)),
    }
}

/// What to do with one imported product: when written, the stored variants that the file does
/// not mention are kept and the ones it mentions are replaced.
pub type ProductImportDecision = ImportDecision<Product>;

fn same_content(existing: &Product, incoming: &Product) -> bool {
    let mut existing_fields = existing.clone();
    let mut incoming_fields = incoming.clone();
    for product in [&mut existing_fields, &mut incoming_fields] {
        product.variants.clear();
        product.created_at = Timestamp::from_millis(0);
        product.updated_at = Timestamp::from_millis(0);
    }
    existing_fields == incoming_fields
        && incoming
            .variants
            .iter()
            .all(|variant| existing.variants.iter().any(|stored| stored == variant))
}

pub fn decide_product_import(
    existing: Option<&Product>,
    incoming: ImportedProduct,
    now: Timestamp,
) -> ProductImportDecision {
    let ImportedProduct {
        mut product,
        stamps,
    } = incoming;
    let same = existing.is_some_and(|stored| same_content(stored, &product));
    let stored = existing.map(|p| Stamps {
        created_at: p.created_at,
        updated_at: p.updated_at,
    });
    let Some(resolved) = resolve_stamps(stored, stamps, same, now) else {
        return ImportDecision::Unchanged;
    };
    if let Some(stored) = existing {
        let mentioned: HashSet<_> = product.variants.iter().map(|v| v.id.clone()).collect();
        let kept = stored
            .variants
            .iter()
            .filter(|v| !mentioned.contains(&v.id))
            .cloned();
        product.variants.extend(kept.collect::<Vec<_>>());
    }
    product.created_at = resolved.created_at;
    product.updated_at = resolved.updated_at;
    product.sort_variants();
    ImportDecision::Write(Box::new(product))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::Variant;
    use crate::id::VariantId;
    use crate::money::Cents;

    fn stored() -> Product {
        let mut product = crate::catalogue::product::fixtures::product(vec![
            crate::catalogue::product::fixtures::variant("a", 0, 5, true),
            crate::catalogue::product::fixtures::variant("b", 1, 5, true),
        ]);
        product.created_at = Timestamp::from_millis(1_000);
        product.updated_at = Timestamp::from_millis(2_000);
        product
    }

    fn imported(product: Product) -> ImportedProduct {
        ImportedProduct {
            product,
            stamps: GivenStamps::default(),
        }
    }

    const NOW: Timestamp = Timestamp::from_millis(9_000);

    #[test]
    fn identical_content_is_left_alone_even_without_timestamps() {
        let decision = decide_product_import(Some(&stored()), imported(stored()), NOW);
        assert_eq!(decision, ProductImportDecision::Unchanged);
    }

    #[test]
    fn a_subset_of_unchanged_variants_is_unchanged() {
        let mut incoming = stored();
        incoming.variants.truncate(1);
        assert_eq!(
            decide_product_import(Some(&stored()), imported(incoming), NOW),
            ProductImportDecision::Unchanged
        );
    }

    #[test]
    fn changed_content_moves_updated_at_and_keeps_created_at() {
        let mut incoming = stored();
        incoming.price = Cents(9_999);
        let ProductImportDecision::Write(written) =
            decide_product_import(Some(&stored()), imported(incoming), NOW)
        else {
            panic!("expected a write");
        };
        assert_eq!(written.created_at, Timestamp::from_millis(1_000));
        assert_eq!(written.updated_at, NOW);
        assert_eq!(written.price, Cents(9_999));
    }

    #[test]
    fn variants_missing_from_the_file_are_kept() {
        let mut incoming = stored();
        incoming.variants = vec![Variant {
            stock: 1,
            ..incoming.variants[1].clone()
        }];
        let ProductImportDecision::Write(written) =
            decide_product_import(Some(&stored()), imported(incoming), NOW)
        else {
            panic!("expected a write");
        };
        let ids: Vec<_> = written.variants.iter().map(|v| v.id.clone()).collect();
        assert_eq!(
            ids,
            [
                VariantId::parse("a").unwrap(),
                VariantId::parse("b").unwrap()
            ]
        );
        assert_eq!(written.variants[1].stock, 1);
    }

    #[test]
    fn new_products_default_both_timestamps_to_now() {
        let ProductImportDecision::Write(written) =
            decide_product_import(None, imported(stored()), NOW)
        else {
            panic!("expected a write");
        };
        assert_eq!((written.created_at, written.updated_at), (NOW, NOW));
    }

    #[test]
    fn a_given_created_at_wins_but_updated_at_is_the_time_of_the_write() {
        let given = GivenStamps {
            created_at: Some(Timestamp::from_millis(500)),
            updated_at: Some(Timestamp::from_millis(3_000)),
        };
        let decision = decide_product_import(
            Some(&stored()),
            ImportedProduct {
                product: stored(),
                stamps: given,
            },
            NOW,
        );
        let ProductImportDecision::Write(written) = decision else {
            panic!("expected a write")
        };
        assert_eq!(written.created_at, Timestamp::from_millis(500));
        assert_eq!(written.updated_at, NOW);
    }

    #[test]
    fn a_given_updated_at_alone_changes_nothing() {
        let given = GivenStamps {
            created_at: None,
            updated_at: Some(Timestamp::from_millis(3_000)),
        };
        let decision = decide_product_import(
            Some(&stored()),
            ImportedProduct {
                product: stored(),
                stamps: given,
            },
            NOW,
        );
        assert_eq!(decision, ImportDecision::Unchanged);
    }

    fn ticket(created_at: i64) -> LotteryTicket {
        LotteryTicket {
            id: crate::id::TicketId::parse("t1").unwrap(),
            client_id: crate::id::ClientId::parse("c1").unwrap(),
            order_id: None,
            created_at: Timestamp::from_millis(created_at),
        }
    }

    #[test]
    fn an_event_without_a_given_time_keeps_its_stored_time() {
        let stored = ticket(1_000);
        let again = ImportedEvent {
            event: ticket(0),
            created_at: None,
        };
        assert_eq!(
            decide_event_import(Some(&stored), again, NOW),
            ImportDecision::Unchanged
        );
        let fresh = ImportedEvent {
            event: ticket(0),
            created_at: None,
        };
        assert_eq!(
            decide_event_import(None, fresh, NOW),
            ImportDecision::Write(Box::new(ticket(NOW.millis())))
        );
        let moved = ImportedEvent {
            event: ticket(0),
            created_at: Some(Timestamp::from_millis(2_000)),
        };
        assert!(matches!(
            decide_event_import(Some(&stored), moved, NOW),
            ImportDecision::Write(_)
        ));
    }

    #[test]
    fn a_changed_confidential_field_is_a_change_too() {
        let stamps = Stamps {
            created_at: Timestamp::from_millis(1),
            updated_at: Timestamp::from_millis(2),
        };
        assert_eq!(
            resolve_stamps(Some(stamps), GivenStamps::default(), true, NOW),
            None
        );
        assert_eq!(
            resolve_stamps(Some(stamps), GivenStamps::default(), false, NOW),
            Some(Stamps {
                created_at: Timestamp::from_millis(1),
                updated_at: NOW
            })
        );
    }
}
