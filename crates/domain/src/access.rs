//! Whether an authenticated key may perform an operation (spec §5).
//!
//! The order of checks is part of the contract, documented in `docs/api-decisions.md`:
//! the shop's plan, then its subscription, then the key's scope. Authentication (401) comes
//! before all of them; parameter validation (400) and resource lookup (404) after.

use crate::scope::{Operation, Scope, ScopeSet};
use crate::shop::{Shop, SubscriptionStatus};

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum AccessDenied {
    #[error("the shop's plan does not include the public API")]
    FeatureNotInPlan,
    #[error("the shop's subscription is not active")]
    SubscriptionInactive,
    #[error("the API key lacks the scope {required}")]
    InsufficientScope { required: Scope },
}

pub fn authorize(shop: &Shop, scopes: ScopeSet, operation: Operation) -> Result<(), AccessDenied> {
    if !shop.public_api_in_plan {
        return Err(AccessDenied::FeatureNotInPlan);
    }
    if shop.subscription != SubscriptionStatus::Active {
        return Err(AccessDenied::SubscriptionInactive);
    }
    match operation.required_scope() {
        Some(required) if !scopes.contains(required) => {
            Err(AccessDenied::InsufficientScope { required })
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::ShopId;
    use crate::shop::ShopSlug;

    fn shop(public_api_in_plan: bool, subscription: SubscriptionStatus) -> Shop {
        Shop {
            id: ShopId::parse("shop_1").unwrap(),
            slug: ShopSlug::parse("s").unwrap(),
            name: "S".into(),
            public_api_in_plan,
            subscription,
        }
    }

    #[test]
    fn plan_is_checked_before_subscription_and_scope() {
        let denied = authorize(
            &shop(false, SubscriptionStatus::Expired),
            ScopeSet::empty(),
            Operation::ListProducts,
        );
        assert_eq!(denied, Err(AccessDenied::FeatureNotInPlan));
    }

    #[test]
    fn subscription_is_checked_before_scope() {
        for status in [SubscriptionStatus::Expired, SubscriptionStatus::Cancelled] {
            let denied = authorize(
                &shop(true, status),
                ScopeSet::empty(),
                Operation::ListProducts,
            );
            assert_eq!(denied, Err(AccessDenied::SubscriptionInactive));
        }
    }

    #[test]
    fn missing_scope_is_named() {
        let scopes = ScopeSet::parse_list("orders:read").unwrap();
        let denied = authorize(
            &shop(true, SubscriptionStatus::Active),
            scopes,
            Operation::GetProduct,
        );
        assert_eq!(
            denied,
            Err(AccessDenied::InsufficientScope {
                required: Scope::ProductsRead
            })
        );
    }

    #[test]
    fn webhook_reads_need_webhooks_read_and_changes_webhooks_write() {
        let active = shop(true, SubscriptionStatus::Active);
        let reader = ScopeSet::parse_list("webhooks:read,orders:read").unwrap();
        for read in [
            Operation::ListWebhookEndpoints,
            Operation::GetWebhookEndpoint,
            Operation::ListWebhookDeliveries,
            Operation::ListEvents,
        ] {
            assert_eq!(authorize(&active, reader, read), Ok(()), "{read:?}");
        }
        for write in [
            Operation::CreateWebhookEndpoint,
            Operation::UpdateWebhookEndpoint,
            Operation::DeleteWebhookEndpoint,
            Operation::RotateWebhookSecret,
            Operation::TestWebhookEndpoint,
            Operation::RetryWebhookDelivery,
            Operation::RecoverWebhookEndpoint,
        ] {
            assert_eq!(
                authorize(&active, reader, write),
                Err(AccessDenied::InsufficientScope {
                    required: Scope::WebhooksWrite
                }),
                "{write:?}"
            );
        }
        let writer = ScopeSet::parse_list("webhooks:write").unwrap();
        assert_eq!(
            authorize(&active, writer, Operation::ListEvents),
            Err(AccessDenied::InsufficientScope {
                required: Scope::WebhooksRead
            })
        );
    }

    #[test]
    fn me_needs_no_scope_but_still_the_shop_preconditions() {
        let active = shop(true, SubscriptionStatus::Active);
        assert_eq!(authorize(&active, ScopeSet::empty(), Operation::Me), Ok(()));
        let lapsed = shop(true, SubscriptionStatus::Cancelled);
        assert_eq!(
            authorize(&lapsed, ScopeSet::empty(), Operation::Me),
            Err(AccessDenied::SubscriptionInactive)
        );
    }
}
