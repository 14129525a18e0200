//! The event types an endpoint subscribes to, and the read scope each one needs: a key that
//! cannot read orders cannot have them pushed either.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

use crate::scope::{Scope, ScopeSet};

/// Every event the service emits. `Ping` is only ever sent by an endpoint's test and cannot be
/// subscribed to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EventType {
    ProductCreated,
    ProductUpdated,
    OrderCreated,
    OrderUpdated,
    ClientCreated,
    ClientUpdated,
    StockUpdated,
    Ping,
}

impl EventType {
    /// The types an endpoint may name in `events`, in the documentation's order.
    pub const SUBSCRIBABLE: [EventType; 7] = [
        EventType::ProductCreated,
        EventType::ProductUpdated,
        EventType::OrderCreated,
        EventType::OrderUpdated,
        EventType::ClientCreated,
        EventType::ClientUpdated,
        EventType::StockUpdated,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            EventType::ProductCreated => "product.created",
            EventType::ProductUpdated => "product.updated",
            EventType::OrderCreated => "order.created",
            EventType::OrderUpdated => "order.updated",
            EventType::ClientCreated => "client.created",
            EventType::ClientUpdated => "client.updated",
            EventType::StockUpdated => "stock.updated",
            EventType::Ping => "ping",
        }
    }

    /// The scope a key needs to read the resource this event carries (`None` for `ping`,
    /// which carries none).
    pub const fn read_scope(self) -> Option<Scope> {
        match self {
            EventType::ProductCreated | EventType::ProductUpdated => Some(Scope::ProductsRead),
            EventType::OrderCreated | EventType::OrderUpdated => Some(Scope::OrdersRead),
            EventType::ClientCreated | EventType::ClientUpdated => Some(Scope::ClientsRead),
            EventType::StockUpdated => Some(Scope::StockRead),
            EventType::Ping => None,
        }
    }

    /// Whether a key holding `scopes` may receive or list this event.
    pub fn readable_with(self, scopes: ScopeSet) -> bool {
        self.read_scope().is_none_or(|scope| scopes.contains(scope))
    }
}

impl fmt::Display for EventType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EventTypeError {
    #[error("unknown event type `{0}`")]
    Unknown(String),
    #[error("`ping` is sent by an endpoint's test and cannot be subscribed to")]
    NotSubscribable,
    #[error("expected at least one event type")]
    Empty,
    #[error("`*` stands for every type and cannot be listed with others")]
    WildcardWithOthers,
}

impl FromStr for EventType {
    type Err = EventTypeError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text == EventType::Ping.as_str() {
            return Ok(EventType::Ping);
        }
        EventType::SUBSCRIBABLE
            .into_iter()
            .find(|kind| kind.as_str() == text)
            .ok_or_else(|| EventTypeError::Unknown(text.to_owned()))
    }
}

/// What an endpoint receives: every type its creator may read (`*`, now and as types are
/// added), or the listed ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventSelection {
    /// `*`. Which types it covers is decided at each event by the scopes the creating key held
    /// (stored with the endpoint), so a type added later is covered when that key could read
    /// its resource.
    Every,
    Listed(BTreeSet<EventType>),
}

impl EventSelection {
    /// Parses the `events` member: a non-empty list of subscribable types, or `["*"]`.
    /// Duplicates collapse.
    pub fn parse<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<Self, EventTypeError> {
        let names: Vec<&str> = names.into_iter().collect();
        match names.as_slice() {
            [] => Err(EventTypeError::Empty),
            ["*"] => Ok(EventSelection::Every),
            _ if names.contains(&"*") => Err(EventTypeError::WildcardWithOthers),
            _ => names
                .iter()
                .map(|name| match name.parse()? {
                    EventType::Ping => Err(EventTypeError::NotSubscribable),
                    kind => Ok(kind),
                })
                .collect::<Result<_, _>>()
                .map(EventSelection::Listed),
        }
    }

    /// The listed types whose resource a key holding `scopes` cannot read: the reason for a
    /// 403 when that key creates or edits the endpoint. `*` never has any: it only covers
    /// what the key may read.
    pub fn unreadable_with(&self, scopes: ScopeSet) -> Vec<EventType> {
        match self {
            EventSelection::Every => Vec::new(),
            EventSelection::Listed(types) => types
                .iter()
                .copied()
                .filter(|kind| !kind.readable_with(scopes))
                .collect(),
        }
    }

    /// Whether an endpoint with this selection, made by a key holding `scopes`, receives an
    /// event of type `kind`.
    pub fn receives(&self, kind: EventType, scopes: ScopeSet) -> bool {
        kind.readable_with(scopes)
            && match self {
                EventSelection::Every => kind != EventType::Ping,
                EventSelection::Listed(types) => types.contains(&kind),
            }
    }

    /// The API's and the store's form: `["*"]` or the types in the documentation's order.
    pub fn names(&self) -> Vec<&'static str> {
        match self {
            EventSelection::Every => vec!["*"],
            EventSelection::Listed(types) => types.iter().map(|kind| kind.as_str()).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scopes(names: &str) -> ScopeSet {
        ScopeSet::parse_list(names).expect("known scopes")
    }

    #[test]
    fn every_type_reads_back_from_its_name() {
        for kind in EventType::SUBSCRIBABLE.into_iter().chain([EventType::Ping]) {
            assert_eq!(kind.as_str().parse::<EventType>(), Ok(kind));
        }
        assert_eq!(
            "product.deleted".parse::<EventType>(),
            Err(EventTypeError::Unknown("product.deleted".into()))
        );
    }

    #[test]
    fn a_selection_is_a_non_empty_list_of_subscribable_types_or_the_wildcard_alone() {
        assert_eq!(EventSelection::parse([]), Err(EventTypeError::Empty));
        assert_eq!(EventSelection::parse(["*"]), Ok(EventSelection::Every));
        assert_eq!(
            EventSelection::parse(["*", "order.created"]),
            Err(EventTypeError::WildcardWithOthers)
        );
        assert_eq!(
            EventSelection::parse(["ping"]),
            Err(EventTypeError::NotSubscribable)
        );
        let listed = EventSelection::parse(["stock.updated", "order.created", "stock.updated"])
            .expect("known types");
        assert_eq!(listed.names(), ["order.created", "stock.updated"]);
    }

    #[test]
    fn a_listed_type_the_key_cannot_read_is_named() {
        let listed = EventSelection::parse(["order.created", "product.updated"]).expect("known");
        assert_eq!(
            listed.unreadable_with(scopes("products:read")),
            [EventType::OrderCreated]
        );
        assert!(
            EventSelection::Every
                .unreadable_with(ScopeSet::empty())
                .is_empty()
        );
    }

    #[test]
    fn the_wildcard_receives_only_what_the_creating_key_could_read() {
        let creator = scopes("stock:read,clients:read");
        assert!(EventSelection::Every.receives(EventType::StockUpdated, creator));
        assert!(EventSelection::Every.receives(EventType::ClientUpdated, creator));
        assert!(!EventSelection::Every.receives(EventType::OrderCreated, creator));
        assert!(!EventSelection::Every.receives(EventType::Ping, creator));
    }

    #[test]
    fn a_listed_selection_receives_its_types_only_while_readable() {
        let listed = EventSelection::parse(["order.updated"]).expect("known");
        assert!(listed.receives(EventType::OrderUpdated, scopes("orders:read")));
        assert!(!listed.receives(EventType::OrderCreated, scopes("orders:read")));
        assert!(!listed.receives(EventType::OrderUpdated, scopes("stock:read")));
    }
}
