//! What each scope lets a key do, in the owner's words (spec §5's table).

use shop_domain::scope::Scope;

pub fn meaning(scope: Scope) -> &'static str {
    match scope {
        Scope::ProductsRead => "read products, variants and displayed stock",
        Scope::OrdersRead => "read orders (point of sale, click-and-collect, online)",
        Scope::StockRead => "read the stock of each variant",
        Scope::StockWrite => "adjust stock",
        Scope::ClientsRead => "read identified clients and their contact data",
        Scope::LoyaltyRead => "read loyalty balances, tiers, lottery tickets and spins",
        Scope::LoyaltyWrite => "credit and debit clients' loyalty points (API v2)",
        Scope::ClientsWrite => "create clients and change their contact details (API v2)",
        Scope::ProductsWrite => "create products and change them and their variants (API v2)",
        Scope::OrdersWrite => "reserved for v2: no operation yet",
        Scope::WebhooksRead => {
            "read the webhook endpoints, their deliveries and the event log (API v2)"
        }
        Scope::WebhooksWrite => "add, change and remove webhook endpoints (API v2)",
    }
}

/// The `id` of a scope's checkbox: `scope-products-read`.
pub fn field_id(scope: Scope) -> String {
    format!("scope-{}", scope.as_str().replace(':', "-"))
}
