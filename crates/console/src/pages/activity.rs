//! `GET /console/activity` (optional `cursor`): the shop's stock movements made through the
//! API and the tracking switches made here, newest first, a page at a time with the API's
//! opaque cursor.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use shop_domain::stock::{ActivityQuery, StockActivity};
use shop_domain::timeline::TimelineLine;

use crate::ConsoleState;
use crate::error::ConsoleError;
use crate::form::Form;
use crate::guard::SignedInOwner;
use crate::urls::{ACTIVITY, link};
use crate::view::{Layout, Section, html, minute};

#[derive(Template)]
#[template(path = "activity.html")]
struct ActivityPage {
    layout: Layout,
    rows: Vec<ActivityRow>,
    /// The next page's link, when there is one.
    older: Option<String>,
    first_page: bool,
}

impl ActivityPage {
    /// The newest page's link, unless this is it.
    fn newest(&self) -> Option<&'static str> {
        (!self.first_page).then_some(ACTIVITY)
    }
}

#[derive(Default)]
struct ActivityRow {
    at: String,
    what: &'static str,
    product: String,
    variant: String,
    sku: String,
    /// `-2`, `+5`, or nothing for a switch.
    delta: String,
    /// `5 → 3`, or the stock's tracking after a switch.
    stock: String,
    by: String,
    /// The key's prefix, for an adjustment.
    by_key: Option<String>,
    reason: String,
}

impl ActivityRow {
    fn of(line: &StockActivity) -> Self {
        match line {
            StockActivity::Adjustment {
                movement,
                key_label,
                ..
            } => Self {
                what: "Stock adjusted",
                delta: format!("{:+}", movement.delta),
                stock: format!("{} → {}", movement.previous_stock, movement.new_stock),
                by: key_label.clone(),
                by_key: Some(movement.api_key_prefix.to_string()),
                reason: movement.reason.clone(),
                ..Self::about(line)
            },
            StockActivity::TrackingSwitch { switch, owner, .. } => Self {
                what: if switch.tracked {
                    "Tracking switched on"
                } else {
                    "Tracking switched off"
                },
                stock: String::from(if switch.tracked {
                    "tracked"
                } else {
                    "not tracked"
                }),
                by: owner.to_string(),
                reason: String::from("Console"),
                ..Self::about(line)
            },
        }
    }

    /// What every line shows: when, and which variant.
    fn about(line: &StockActivity) -> Self {
        let variant = line.variant();
        Self {
            at: minute(line.at()),
            product: variant.product_name.clone(),
            variant: variant.variant_label.clone(),
            sku: variant.sku.clone().unwrap_or_default(),
            ..Self::default()
        }
    }
}

pub async fn list(
    request: HttpRequest,
    state: web::Data<ConsoleState>,
    owner: SignedInOwner,
) -> Result<HttpResponse, ConsoleError> {
    let params = Form::query(&request);
    let cursor = params.value("cursor");
    let query = ActivityQuery::from_link(cursor).map_err(|_| ConsoleError::STALE_LINK)?;
    let page = state
        .stock
        .activity(&owner.signed_in.shop.id, &query)
        .await?;
    let view = ActivityPage {
        layout: Layout::new(&owner, Section::Activity),
        rows: page.items.iter().map(ActivityRow::of).collect(),
        older: page
            .next_cursor
            .map(|cursor| link(ACTIVITY, &[("cursor", &cursor)])),
        first_page: cursor.is_none(),
    };
    Ok(html(StatusCode::OK, &view))
}
