//! The scopes: the ten of spec §5, and the two that API v2 adds for webhooks; which operation
//! needs which.

use std::fmt;
use std::str::FromStr;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    ProductsRead,
    ProductsWrite,
    OrdersRead,
    OrdersWrite,
    StockRead,
    StockWrite,
    ClientsRead,
    ClientsWrite,
    LoyaltyRead,
    LoyaltyWrite,
    WebhooksRead,
    WebhooksWrite,
}

impl Scope {
    /// Every scope a key can hold, in the order lists show them.
    pub const ALL: [Scope; 12] = [
        Scope::ProductsRead,
        Scope::ProductsWrite,
        Scope::OrdersRead,
        Scope::OrdersWrite,
        Scope::StockRead,
        Scope::StockWrite,
        Scope::ClientsRead,
        Scope::ClientsWrite,
        Scope::LoyaltyRead,
        Scope::LoyaltyWrite,
        Scope::WebhooksRead,
        Scope::WebhooksWrite,
    ];

    /// The ten scopes of spec §5, the first ten of [`Scope::ALL`]: all that API v1 knows and
    /// shows (`/api/v1` is frozen).
    pub const V1: &'static [Scope] = Scope::ALL.as_slice().split_at(10).0;

    pub const fn as_str(self) -> &'static str {
        match self {
            Scope::ProductsRead => "products:read",
            Scope::ProductsWrite => "products:write",
            Scope::OrdersRead => "orders:read",
            Scope::OrdersWrite => "orders:write",
            Scope::StockRead => "stock:read",
            Scope::StockWrite => "stock:write",
            Scope::ClientsRead => "clients:read",
            Scope::ClientsWrite => "clients:write",
            Scope::LoyaltyRead => "loyalty:read",
            Scope::LoyaltyWrite => "loyalty:write",
            Scope::WebhooksRead => "webhooks:read",
            Scope::WebhooksWrite => "webhooks:write",
        }
    }

    /// Whether API v1 knows this scope (spec §5); the webhook scopes are v2's.
    pub const fn in_v1(self) -> bool {
        !matches!(self, Scope::WebhooksRead | Scope::WebhooksWrite)
    }

    /// The scopes that no operation serves yet: the write scopes that spec §5 reserves for a
    /// later version. The console refuses them on a new key.
    pub const fn is_reserved(self) -> bool {
        matches!(self, Scope::OrdersWrite)
    }

    const fn bit(self) -> u16 {
        1 << (self as u16)
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown scope `{0}`")]
pub struct UnknownScope(pub String);

impl FromStr for Scope {
    type Err = UnknownScope;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Scope::ALL
            .into_iter()
            .find(|scope| scope.as_str() == text)
            .ok_or_else(|| UnknownScope(text.to_owned()))
    }
}

/// A set of scopes, iterated in the spec's order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ScopeSet(u16);

impl ScopeSet {
    pub const fn empty() -> Self {
        Self(0)
    }

    pub fn all() -> Self {
        Scope::ALL.into_iter().collect()
    }

    pub const fn contains(self, scope: Scope) -> bool {
        self.0 & scope.bit() != 0
    }

    pub fn insert(&mut self, scope: Scope) {
        self.0 |= scope.bit();
    }

    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn iter(self) -> impl Iterator<Item = Scope> {
        Scope::ALL
            .into_iter()
            .filter(move |scope| self.contains(*scope))
    }

    /// Parses a comma-separated list (`products:read,stock:write`); blanks around names are
    /// ignored, an unknown name is refused, duplicates collapse.
    pub fn parse_list(text: &str) -> Result<Self, UnknownScope> {
        text.split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .map(Scope::from_str)
            .collect()
    }

    /// The scopes API v1 shows: a key's v2 scopes are not v1's business.
    pub fn only_v1(self) -> Self {
        self.iter().filter(|scope| scope.in_v1()).collect()
    }

    /// The storage and CLI form: names in the spec's order, comma-separated.
    pub fn to_list(self) -> String {
        self.iter().map(Scope::as_str).collect::<Vec<_>>().join(",")
    }
}

impl FromIterator<Scope> for ScopeSet {
    fn from_iter<I: IntoIterator<Item = Scope>>(iter: I) -> Self {
        let mut set = ScopeSet::empty();
        for scope in iter {
            set.insert(scope);
        }
        set
    }
}

/// Every operation of API v1 (spec §4), and those API v2 adds (its webhook endpoints and
/// event log, issue 34; its writes, issue 35).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operation {
    Me,
    ListProducts,
    GetProduct,
    ListOrders,
    GetOrder,
    ListStock,
    AdjustStock,
    ListClients,
    GetClient,
    GetLoyalty,
    /// API v2 (issue 35): an adjustment of a client's points.
    AdjustPoints,
    /// API v2 (issue 35): an integration's create and merge patch of a client.
    CreateClient,
    UpdateClient,
    /// API v2 (issue 35): an integration's writes of products and their variants.
    CreateProduct,
    UpdateProduct,
    ListWebhookEndpoints,
    GetWebhookEndpoint,
    ListWebhookDeliveries,
    ListEvents,
    CreateWebhookEndpoint,
    UpdateWebhookEndpoint,
    DeleteWebhookEndpoint,
    RotateWebhookSecret,
    TestWebhookEndpoint,
    RetryWebhookDelivery,
    RecoverWebhookEndpoint,
}

impl Operation {
    /// The scope a key must hold; `None` for `GET /me`.
    pub const fn required_scope(self) -> Option<Scope> {
        match self {
            Operation::Me => None,
            Operation::ListProducts | Operation::GetProduct => Some(Scope::ProductsRead),
            Operation::ListOrders | Operation::GetOrder => Some(Scope::OrdersRead),
            Operation::ListStock => Some(Scope::StockRead),
            Operation::AdjustStock => Some(Scope::StockWrite),
            Operation::ListClients | Operation::GetClient => Some(Scope::ClientsRead),
            Operation::GetLoyalty => Some(Scope::LoyaltyRead),
            Operation::AdjustPoints => Some(Scope::LoyaltyWrite),
            Operation::CreateClient | Operation::UpdateClient => Some(Scope::ClientsWrite),
            Operation::CreateProduct | Operation::UpdateProduct => Some(Scope::ProductsWrite),
            Operation::ListWebhookEndpoints
            | Operation::GetWebhookEndpoint
            | Operation::ListWebhookDeliveries
            | Operation::ListEvents => Some(Scope::WebhooksRead),
            Operation::CreateWebhookEndpoint
            | Operation::UpdateWebhookEndpoint
            | Operation::DeleteWebhookEndpoint
            | Operation::RotateWebhookSecret
            | Operation::TestWebhookEndpoint
            | Operation::RetryWebhookDelivery
            | Operation::RecoverWebhookEndpoint => Some(Scope::WebhooksWrite),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scope_round_trips_through_its_name() {
        for scope in Scope::ALL {
            assert_eq!(scope.as_str().parse::<Scope>(), Ok(scope));
        }
    }

    #[test]
    fn every_scope_no_operation_serves_yet_is_reserved() {
        let reserved: Vec<_> = Scope::ALL.into_iter().filter(|s| s.is_reserved()).collect();
        assert_eq!(reserved, [Scope::OrdersWrite]);
    }

    #[test]
    fn list_parsing_refuses_unknown_names() {
        assert_eq!(
            ScopeSet::parse_list("products:read,stock:delete"),
            Err(UnknownScope("stock:delete".into()))
        );
    }

    #[test]
    fn list_round_trips_in_spec_order() {
        let set = ScopeSet::parse_list(" stock:write , products:read,products:read").unwrap();
        assert_eq!(set.to_list(), "products:read,stock:write");
        assert_eq!(ScopeSet::parse_list(&set.to_list()), Ok(set));
        assert_eq!(ScopeSet::all().iter().count(), 12);
    }

    #[test]
    fn v1_shows_the_ten_scopes_of_the_spec_only() {
        assert_eq!(
            Scope::V1.to_vec(),
            Scope::ALL
                .into_iter()
                .filter(|s| s.in_v1())
                .collect::<Vec<_>>()
        );
        let set = ScopeSet::parse_list("webhooks:read,products:read,webhooks:write").unwrap();
        assert_eq!(set.only_v1().to_list(), "products:read");
        assert_eq!(set.to_list(), "products:read,webhooks:read,webhooks:write");
    }

    #[test]
    fn loyalty_does_not_need_clients_read_and_me_needs_nothing() {
        assert_eq!(
            Operation::GetLoyalty.required_scope(),
            Some(Scope::LoyaltyRead)
        );
        assert_eq!(Operation::Me.required_scope(), None);
        assert_eq!(
            Operation::AdjustStock.required_scope(),
            Some(Scope::StockWrite)
        );
    }
}
