//! `GET /console/stock` (optional `q` over name, SKU and EAN, and `cursor`): every variant
//! with its stock and whether its tracking is on, tracked or not. `POST
//! /console/variants/{id}/tracking` (`tracked` = `on` or `off`, `csrf_token`, and the page's
//! `q` and `cursor` to come back to): switches the variant's tracking, which the API follows
//! at once; the stock and its movements stay, and the switch shows in the activity.

use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use shop_domain::id::VariantId;
use shop_domain::pagination::PageLimit;
use shop_domain::stock::{StockEntry, StockListQuery, stock_cursor_position};
use shop_domain::text::{SearchTerm, refuse_nul};
use shop_ports::port::{ReadFrom, TrackingOutcome};

use crate::ConsoleState;
use crate::error::ConsoleError;
use crate::form::Form;
use crate::guard::{CheckedForm, SignedInOwner};
use crate::urls::{self, STOCK, link};
use crate::view::{Layout, Section, html};

#[derive(Template)]
#[template(path = "stock.html")]
struct StockPage {
    layout: Layout,
    q: String,
    /// This page's own cursor, for the switches to come back to it.
    cursor: String,
    rows: Vec<StockRow>,
    next: Option<String>,
}

impl StockPage {
    /// The first page of the same search, unless this is it.
    fn first(&self) -> Option<String> {
        (!self.cursor.is_empty()).then(|| link(STOCK, &[("q", &self.q)]))
    }
}

struct StockRow {
    variant_id: String,
    /// Where the row's switch posts, the id percent-encoded.
    switch_action: String,
    product: String,
    variant: String,
    sku: String,
    barcode: String,
    stock: i64,
    tracked: bool,
    /// The tracking now (`on` or `off`), and the badge that shows it.
    tracking: &'static str,
    badge: &'static str,
    /// The tracking the row's button switches to.
    switch_to: &'static str,
    /// `out`, `low` or empty.
    level: &'static str,
    active: bool,
}

impl StockRow {
    fn of(entry: &StockEntry) -> Self {
        let level = if entry.is_out_of_stock() {
            "out"
        } else if entry.is_low_stock() {
            "low"
        } else {
            ""
        };
        let (tracking, badge, switch_to) = if entry.tracked {
            ("on", "ok", "off")
        } else {
            ("off", "muted", "on")
        };
        Self {
            variant_id: entry.variant_id.to_string(),
            switch_action: urls::variant_tracking(entry.variant_id.as_str()),
            product: entry.product_name.clone(),
            variant: entry.variant_label.clone(),
            sku: entry.sku.clone().unwrap_or_default(),
            barcode: entry.barcode.clone().unwrap_or_default(),
            stock: entry.stock,
            tracked: entry.tracked,
            tracking,
            badge,
            switch_to,
            level,
            active: entry.active,
        }
    }
}

/// The page's `q` and `cursor`, as given.
struct Place {
    q: String,
    cursor: String,
}

impl Place {
    fn of(params: &Form) -> Self {
        Self {
            q: params.value("q").unwrap_or_default().to_owned(),
            cursor: params.value("cursor").unwrap_or_default().to_owned(),
        }
    }

    /// `/console/stock` with this place's non-empty parameters.
    fn url(&self) -> String {
        link(STOCK, &[("q", &self.q), ("cursor", &self.cursor)])
    }
}

pub async fn list(
    request: HttpRequest,
    state: web::Data<ConsoleState>,
    owner: SignedInOwner,
) -> Result<HttpResponse, ConsoleError> {
    let place = Place::of(&Form::query(&request));
    refuse_nul(&place.q)
        .map_err(|_| ConsoleError::BadRequest("The search cannot hold a NUL character."))?;
    let search = SearchTerm::parse(&place.q)
        .map_err(|_| ConsoleError::BadRequest("The search is too long: 100 characters at most."))?;
    let after = if place.cursor.is_empty() {
        None
    } else {
        Some(stock_cursor_position(&place.cursor).map_err(|_| ConsoleError::STALE_LINK)?)
    };
    let query = StockListQuery {
        search,
        tracked_only: false,
        after,
        limit: PageLimit::STOCK_DEFAULT,
        ..StockListQuery::default()
    };
    // The owner sees the stock as it is now, switches just made included: the primary.
    let page = state
        .stock
        .list(&owner.signed_in.shop.id, &query, ReadFrom::Primary)
        .await?;
    let next = page.next_cursor.map(|cursor| {
        Place {
            q: place.q.clone(),
            cursor,
        }
        .url()
    });
    let view = StockPage {
        layout: Layout::new(&owner, Section::Stock),
        rows: page.items.iter().map(StockRow::of).collect(),
        next,
        q: place.q,
        cursor: place.cursor,
    };
    Ok(html(StatusCode::OK, &view))
}

pub async fn switch_tracking(
    state: web::Data<ConsoleState>,
    variant: web::Path<String>,
    checked: CheckedForm,
) -> Result<HttpResponse, ConsoleError> {
    let CheckedForm { owner, form } = checked;
    let tracked = match form.value("tracked") {
        Some("on") => true,
        Some("off") => false,
        _ => {
            return Err(ConsoleError::BadRequest(
                "Tracking can only be switched on or off.",
            ));
        }
    };
    let variant = VariantId::parse(variant.into_inner()).map_err(|_| ConsoleError::NotFound)?;
    let signed_in = &owner.signed_in;
    let outcome = state
        .stock
        .switch_tracking(&signed_in.shop.id, &variant, tracked, &signed_in.owner.id)
        .await?;
    match outcome {
        TrackingOutcome::VariantNotFound => Err(ConsoleError::NotFound),
        TrackingOutcome::Switched | TrackingOutcome::AlreadySo => Ok(HttpResponse::SeeOther()
            .insert_header((header::LOCATION, back_to(&form)))
            .finish()),
    }
}

/// The stock page the switch was made from (only its `q` and `cursor`: never an address
/// of the form's choosing).
fn back_to(form: &Form) -> String {
    Place::of(form).url()
}
