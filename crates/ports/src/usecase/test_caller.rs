//! The caller of the use cases' tests: key `0a1b2c3d` of the active shop `shop_a`.

use shop_domain::api_key::KeyPrefix;
use shop_domain::id::ShopId;
use shop_domain::scope::ScopeSet;
use shop_domain::shop::{Shop, ShopSlug, SubscriptionStatus};

use super::Principal;

pub(crate) fn caller(scopes: &str) -> Principal {
    Principal {
        shop: Shop {
            id: ShopId::parse("shop_a").unwrap(),
            slug: ShopSlug::parse("a").unwrap(),
            name: "A".into(),
            public_api_in_plan: true,
            subscription: SubscriptionStatus::Active,
        },
        key_prefix: KeyPrefix::parse("0a1b2c3d").unwrap(),
        key_label: "ERP".into(),
        scopes: ScopeSet::parse_list(scopes).unwrap(),
    }
}
