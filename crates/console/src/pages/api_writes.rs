//! `GET /console/activity/writes` (optional `cursor`), the activity's second tab: what the
//! shop's integrations wrote through the API (clients and products created or changed,
//! clients' points adjusted), each with the key that wrote it, newest first, a page at a time
//! with an opaque cursor, as the stock tab does.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use shop_domain::api_write::{
    ApiWrite, ApiWriteQuery, WriteAction, WrittenChange, WrittenResource,
};
use shop_domain::timeline::TimelineLine;

use crate::ConsoleState;
use crate::error::ConsoleError;
use crate::form::Form;
use crate::guard::SignedInOwner;
use crate::urls::{API_WRITES, link};
use crate::view::{Layout, Section, html, minute};

#[derive(Template)]
#[template(path = "api_writes.html")]
struct ApiWritesPage {
    layout: Layout,
    rows: Vec<WriteRow>,
    /// The next page's link, when there is one.
    older: Option<String>,
    first_page: bool,
}

impl ApiWritesPage {
    /// The newest page's link, unless this is it.
    fn newest(&self) -> Option<&'static str> {
        (!self.first_page).then_some(API_WRITES)
    }
}

struct WriteRow {
    id: String,
    at: String,
    key_label: String,
    key_prefix: String,
    what: &'static str,
    /// The id of the client or product written.
    resource_id: String,
    /// The members' paths the write changed, in the representation's order (none: a dash).
    members: Vec<String>,
    /// What a points adjustment did instead.
    points: Option<PointsChange>,
}

struct PointsChange {
    /// `+120`, `-40`.
    delta: String,
    /// `0 → 120`.
    balance: String,
    /// The integration's reason, as it gave it.
    reason: String,
}

impl WriteRow {
    fn of(line: &ApiWrite) -> Self {
        let about = Self {
            id: line.id().to_owned(),
            at: minute(line.at()),
            key_label: line.key_label.clone(),
            key_prefix: line.key_prefix.to_string(),
            what: "",
            resource_id: String::new(),
            members: Vec::new(),
            points: None,
        };
        match &line.change {
            WrittenChange::Resource(write) => Self {
                what: match (write.resource, write.action) {
                    (WrittenResource::Client, WriteAction::Created) => "Client created",
                    (WrittenResource::Client, WriteAction::Updated) => "Client updated",
                    (WrittenResource::Product, WriteAction::Created) => "Product created",
                    (WrittenResource::Product, WriteAction::Updated) => "Product updated",
                },
                resource_id: write.resource_id.clone(),
                members: write.changed.clone(),
                ..about
            },
            WrittenChange::Points(adjustment) => Self {
                what: "Points adjusted",
                resource_id: adjustment.client_id.to_string(),
                points: Some(PointsChange {
                    delta: format!("{:+}", adjustment.delta),
                    balance: format!("{} → {}", adjustment.previous_points, adjustment.new_points),
                    reason: adjustment.reason.clone(),
                }),
                ..about
            },
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
    let query = ApiWriteQuery::from_link(cursor).map_err(|_| ConsoleError::STALE_LINK)?;
    let page = state
        .api_writes
        .page(&owner.signed_in.shop.id, &query)
        .await?;
    let view = ApiWritesPage {
        layout: Layout::new(&owner, Section::Activity),
        rows: page.items.iter().map(WriteRow::of).collect(),
        older: page
            .next_cursor
            .map(|cursor| link(API_WRITES, &[("cursor", &cursor)])),
        first_page: cursor.is_none(),
    };
    Ok(html(StatusCode::OK, &view))
}
