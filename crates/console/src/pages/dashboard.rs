//! `GET /console`: the shop, whether its plan includes the public API and whether its
//! subscription is active, and what that means for its integrations.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use askama::Template;
use shop_domain::api_key::KeyStatus;
use shop_domain::shop::SubscriptionStatus;

use crate::ConsoleState;
use crate::error::ConsoleError;
use crate::guard::SignedInOwner;
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
}

pub async fn show(
    state: web::Data<ConsoleState>,
    owner: SignedInOwner,
) -> Result<HttpResponse, ConsoleError> {
    let shop = &owner.signed_in.shop;
    let keys = state.keys.list_for_shop(&shop.id).await?;
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
        layout: Layout::new(&owner, Section::Overview),
    };
    Ok(html(StatusCode::OK, &page))
}
