//! `GET /console`: the shop, whether its plan includes the public API and whether its
//! subscription is active, and what that means for its integrations; its webhook endpoints,
//! the disabled ones flagged.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use askama::Template;
use shop_domain::api_key::KeyStatus;
use shop_domain::shop::SubscriptionStatus;
use shop_domain::webhook::WebhookEndpoint;

use crate::ConsoleState;
use crate::error::ConsoleError;
use crate::guard::SignedInOwner;
use crate::pages::webhooks::endpoints_of;
use crate::view::{Layout, Section, html};

#[derive(Template)]
#[template(path = "dashboard.html")]
struct OverviewPage {
    layout: Layout,
    shop_name: String,
    slug: String,
    public_api_in_plan: bool,
    subscription: &'static str,
    subscription_active: bool,
    active_keys: usize,
    webhook_endpoints: usize,
    /// "1 webhook endpoint is disabled (failing)", when one is.
    disabled_webhooks: Option<String>,
}

pub async fn show(
    state: web::Data<ConsoleState>,
    owner: SignedInOwner,
) -> Result<HttpResponse, ConsoleError> {
    let shop = &owner.signed_in.shop;
    let keys = state.keys.list_for_shop(&shop.id).await?;
    let endpoints = endpoints_of(&state.webhooks, &shop.id).await?;
    let page = OverviewPage {
        shop_name: shop.name.clone(),
        slug: shop.slug.to_string(),
        public_api_in_plan: shop.public_api_in_plan,
        subscription: shop.subscription.as_str(),
        subscription_active: shop.subscription == SubscriptionStatus::Active,
        active_keys: keys
            .iter()
            .filter(|listing| listing.status == KeyStatus::Active)
            .count(),
        webhook_endpoints: endpoints.len(),
        disabled_webhooks: disabled(&endpoints),
        layout: Layout::new(&owner, Section::Overview),
    };
    Ok(html(StatusCode::OK, &page))
}

/// How many of `endpoints` are disabled, and why: `2 webhook endpoints are disabled (failing,
/// gone)`.
fn disabled(endpoints: &[WebhookEndpoint]) -> Option<String> {
    let mut reasons: Vec<&'static str> = Vec::new();
    let mut count = 0;
    for reason in endpoints
        .iter()
        .filter_map(|endpoint| endpoint.status.disabled_reason())
    {
        count += 1;
        if !reasons.contains(&reason.as_str()) {
            reasons.push(reason.as_str());
        }
    }
    let reasons = reasons.join(", ");
    match count {
        0 => None,
        1 => Some(format!("1 webhook endpoint is disabled ({reasons})")),
        _ => Some(format!(
            "{count} webhook endpoints are disabled ({reasons})"
        )),
    }
}
