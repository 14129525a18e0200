//! `GET /console/webhooks` (optional `done=deleted`): the shop's webhook endpoints, each with
//! its status and its latest delivery, and the form to add one. `POST /console/webhooks`
//! (`url`, `events` once per type or `*`, optional `description`, `csrf_token`): adds the
//! endpoint and shows its signing secret, whole, this once (200, `no-store` like every page),
//! or the form again with the problem next to its field (400), or the shop's limit (422).
//!
//! The owner may read everything of their shop: the use case is called with every scope, so
//! that `*` covers every type.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use shop_domain::id::{ShopId, WebhookEndpointId};
use shop_domain::pagination::PageLimit;
use shop_domain::scope::ScopeSet;
use shop_domain::webhook::{
    DeliveryLine, DeliveryStatus, DisabledReason, EndpointStatus, EventSelection, EventType,
    MAX_DESCRIPTION_LEN, MAX_ENDPOINTS_PER_SHOP, WebhookEndpoint,
};
use shop_ports::usecase::webhooks::{
    CreatedEndpoint, EndpointError, EndpointInput, ROTATION_GRACE, WebhookEndpoints,
};

use crate::ConsoleState;
use crate::error::ConsoleError;
use crate::form::Form;
use crate::guard::{CheckedForm, SignedInOwner};
use crate::urls;
use crate::view::{Layout, Section, html, minute};

/// What the owner may do with the shop's endpoints: everything, as the use case's scopes.
pub fn owner_scopes() -> ScopeSet {
    ScopeSet::all()
}

/// One page that holds every endpoint a shop may have ([`MAX_ENDPOINTS_PER_SHOP`]).
pub fn every_endpoint() -> Result<PageLimit, ConsoleError> {
    i64::try_from(MAX_ENDPOINTS_PER_SHOP)
        .ok()
        .and_then(|count| PageLimit::new(count).ok())
        .ok_or_else(|| ConsoleError::Internal("a shop's endpoints do not fit one page".into()))
}

/// The endpoint a path names; an id that cannot exist is the 404 of an unknown one.
pub fn endpoint_id(text: &str) -> Result<WebhookEndpointId, ConsoleError> {
    WebhookEndpointId::parse(text).map_err(|_| ConsoleError::NotFound)
}

/// The shop's endpoints, every one of them.
pub async fn endpoints_of(
    webhooks: &WebhookEndpoints,
    shop: &ShopId,
) -> Result<Vec<WebhookEndpoint>, ConsoleError> {
    Ok(webhooks.list(shop, None, every_endpoint()?).await?.items)
}

/// Why a disabled endpoint receives nothing, in the owner's words.
pub fn reason_text(reason: DisabledReason) -> &'static str {
    match reason {
        DisabledReason::Gone => "its receiver answered 410 Gone",
        DisabledReason::Failing => "every delivery to it failed for too long",
        DisabledReason::Manual => "it was disabled by hand",
    }
}

/// What each event type pushes, in the owner's words.
fn meaning(kind: EventType) -> &'static str {
    match kind {
        EventType::ProductCreated => "a product is created",
        EventType::ProductUpdated => "a product or one of its variants changes",
        EventType::OrderCreated => "an order is placed",
        EventType::OrderUpdated => "an order changes",
        EventType::ClientCreated => "a client is identified",
        EventType::ClientUpdated => "a client's data changes",
        EventType::StockUpdated => "a variant's stock changes",
        EventType::Ping => "an endpoint's test",
    }
}

/// An endpoint as the pages show it.
pub struct EndpointView {
    pub id: String,
    /// Its page.
    pub href: String,
    pub url: String,
    pub description: String,
    /// `*` or the types it is sent.
    pub events: Vec<&'static str>,
    /// `enabled` or `disabled`, and the badge that shows it.
    pub status: &'static str,
    pub badge: &'static str,
    pub enabled: bool,
    /// `gone`, `failing` or `manual`, and what it means, when disabled.
    pub reason: Option<(&'static str, &'static str)>,
    pub created: String,
    pub updated: String,
    /// Failed attempts since its last success.
    pub failures_in_a_row: u32,
}

impl EndpointView {
    pub fn of(endpoint: &WebhookEndpoint) -> Self {
        let id = endpoint.id.as_str();
        let (badge, enabled) = match endpoint.status {
            EndpointStatus::Enabled => ("ok", true),
            EndpointStatus::Disabled(_) => ("bad", false),
        };
        Self {
            id: id.to_owned(),
            href: urls::webhook(id),
            url: endpoint.url.as_str().to_owned(),
            description: endpoint.description.clone(),
            events: endpoint.events.names(),
            status: endpoint.status.as_str(),
            badge,
            enabled,
            reason: endpoint
                .status
                .disabled_reason()
                .map(|reason| (reason.as_str(), reason_text(reason))),
            created: minute(endpoint.created_at),
            updated: minute(endpoint.updated_at),
            failures_in_a_row: endpoint.health.failures_in_a_row,
        }
    }
}

/// A row of an endpoint's deliveries: an attempt, or an event waiting or superseded.
pub struct DeliveryView {
    pub delivery_id: String,
    pub event_id: String,
    pub event_type: &'static str,
    /// The attempt's number, or nothing for an event not tried yet.
    pub attempt: String,
    pub status: &'static str,
    pub badge: &'static str,
    /// `HTTP 200`, or why no answer came.
    pub response: String,
    /// `HTTP 200`, or `no answer`: the response in a few words, for the endpoint list.
    pub summary: String,
    pub duration: String,
    pub at: String,
    /// When a pending delivery is tried next.
    pub next: String,
    /// Whether its row offers a retry: not while it waits already.
    pub retryable: bool,
}

impl DeliveryView {
    pub fn of(line: &DeliveryLine) -> Self {
        let badge = match line.status {
            DeliveryStatus::Succeeded => "ok",
            DeliveryStatus::Failed => "bad",
            DeliveryStatus::Pending => "warn",
            DeliveryStatus::Superseded => "muted",
        };
        let (response, summary) = match (line.response_status, &line.error) {
            (Some(status), _) => (format!("HTTP {status}"), format!("HTTP {status}")),
            (None, Some(error)) => (error.clone(), "no answer".to_owned()),
            (None, None) => (String::new(), String::new()),
        };
        Self {
            delivery_id: line.id.to_string(),
            event_id: line.event_id.to_string(),
            event_type: line.event_type.as_str(),
            attempt: line
                .attempt
                .map(|attempt| attempt.to_string())
                .unwrap_or_default(),
            status: line.status.as_str(),
            badge,
            response,
            summary,
            duration: line
                .duration_ms
                .map(|millis| format!("{millis} ms"))
                .unwrap_or_default(),
            at: minute(line.created_at),
            next: line.next_attempt_at.map(minute).unwrap_or_default(),
            retryable: line.status != DeliveryStatus::Pending,
        }
    }
}

#[derive(Template)]
#[template(path = "webhooks.html")]
struct WebhooksPage {
    layout: Layout,
    rows: Vec<(EndpointView, Option<DeliveryView>)>,
    form: EndpointForm,
    max_endpoints: usize,
    deleted: bool,
}

impl WebhooksPage {
    fn disabled(&self) -> usize {
        self.rows.iter().filter(|(row, _)| !row.enabled).count()
    }
}

/// The form to add an endpoint, blank or as submitted, with its problems by field.
#[derive(Default)]
struct EndpointForm {
    url: String,
    description: String,
    /// The values checked: `*` or the types' names.
    checked: Vec<String>,
    url_problems: Vec<String>,
    events_problems: Vec<String>,
    description_problems: Vec<String>,
    /// The shop holds the most endpoints it may.
    limit_reached: bool,
}

struct EventChoice {
    value: &'static str,
    id: String,
    label: &'static str,
    meaning: &'static str,
    checked: bool,
}

impl EndpointForm {
    /// Every type (`*`) first, then each type an endpoint may name.
    fn choices(&self) -> Vec<EventChoice> {
        let every = EventChoice {
            value: "*",
            id: "event-every".to_owned(),
            label: "Every type (*)",
            meaning: "all of the types below, and the types added later",
            checked: self.is_checked("*"),
        };
        let types = EventType::SUBSCRIBABLE.into_iter().map(|kind| EventChoice {
            value: kind.as_str(),
            id: format!("event-{}", kind.as_str().replace('.', "-")),
            label: kind.as_str(),
            meaning: meaning(kind),
            checked: self.is_checked(kind.as_str()),
        });
        std::iter::once(every).chain(types).collect()
    }

    fn is_checked(&self, value: &str) -> bool {
        self.checked.iter().any(|checked| checked == value)
    }

    fn max_description(&self) -> usize {
        MAX_DESCRIPTION_LEN
    }

    /// The form as submitted, and the input the use case checks.
    fn read(form: &Form) -> (EndpointInput, Self) {
        let url = form.value("url").unwrap_or_default().trim().to_owned();
        let description = form.value("description").unwrap_or_default().to_owned();
        let checked: Vec<String> = form.values("events").map(str::to_owned).collect();
        let input = EndpointInput {
            url: (!url.is_empty()).then(|| url.clone()),
            events: Some(checked.clone()),
            description: (!description.is_empty()).then(|| description.clone()),
            enabled: None,
        };
        let endpoint_form = Self {
            url,
            description,
            checked,
            ..Self::default()
        };
        (input, endpoint_form)
    }

    /// The use case's refusal next to its field. It names one problem, the first it found: the
    /// event types are read here too, so that their problem shows beside the URL's.
    fn refused(&mut self, field: &str, message: &str) -> Result<(), ConsoleError> {
        let events = EventSelection::parse(self.checked.iter().map(String::as_str))
            .err()
            .map(|error| capitalised(&error.to_string()));
        match field {
            "url" => self.url_problems.push(format!("The URL {message}.")),
            "description" => self
                .description_problems
                .push(format!("The description {message}.")),
            "events" => {
                let problem = events.unwrap_or_else(|| capitalised(message));
                self.events_problems.push(problem);
                return Ok(());
            }
            _ => {
                return Err(ConsoleError::Internal(format!(
                    "the endpoint form has no field {field}: {message}"
                )));
            }
        }
        self.events_problems.extend(events);
        Ok(())
    }
}

/// `text` with its first letter in capitals, and a full stop.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => format!("{}{}.", first.to_uppercase(), chars.as_str()),
        None => String::new(),
    }
}

#[derive(Template)]
#[template(path = "webhook_secret.html")]
pub struct SecretPage {
    pub layout: Layout,
    /// A new endpoint's page, or a rotation's.
    pub rotated: bool,
    pub url: String,
    /// The endpoint's page.
    pub href: String,
    pub secret: String,
    pub grace_hours: u64,
}

impl SecretPage {
    pub fn new(owner: &SignedInOwner, endpoint: &WebhookEndpoint, secret: String) -> Self {
        Self {
            layout: Layout::new(owner, Section::Webhooks),
            rotated: false,
            url: endpoint.url.as_str().to_owned(),
            href: urls::webhook(endpoint.id.as_str()),
            secret,
            grace_hours: ROTATION_GRACE.as_secs() / 3600,
        }
    }
}

pub async fn list(
    request: HttpRequest,
    state: web::Data<ConsoleState>,
    owner: SignedInOwner,
) -> Result<HttpResponse, ConsoleError> {
    let deleted = Form::query(&request).value("done") == Some("deleted");
    render(
        &state,
        &owner,
        EndpointForm::default(),
        deleted,
        StatusCode::OK,
    )
    .await
}

pub async fn create(
    state: web::Data<ConsoleState>,
    checked: CheckedForm,
) -> Result<HttpResponse, ConsoleError> {
    let CheckedForm { owner, form } = checked;
    let (input, mut endpoint_form) = EndpointForm::read(&form);
    let shop = &owner.signed_in.shop.id;
    let status = match state.webhooks.create(shop, owner_scopes(), input).await {
        Ok(CreatedEndpoint { endpoint, secret }) => {
            let page = SecretPage::new(&owner, &endpoint, secret.expose());
            return Ok(html(StatusCode::OK, &page));
        }
        Err(EndpointError::Invalid { field, message }) => {
            endpoint_form.refused(field, &message)?;
            StatusCode::BAD_REQUEST
        }
        Err(EndpointError::LimitReached) => {
            endpoint_form.limit_reached = true;
            StatusCode::UNPROCESSABLE_ENTITY
        }
        Err(other) => return Err(other.into()),
    };
    render(&state, &owner, endpoint_form, false, status).await
}

async fn render(
    state: &ConsoleState,
    owner: &SignedInOwner,
    form: EndpointForm,
    deleted: bool,
    status: StatusCode,
) -> Result<HttpResponse, ConsoleError> {
    let shop = &owner.signed_in.shop.id;
    let endpoints = endpoints_of(&state.webhooks, shop).await?;
    let mut rows = Vec::with_capacity(endpoints.len());
    // The latest delivery of each: one short query per endpoint, sixteen at most.
    for endpoint in &endpoints {
        let latest = state
            .webhooks
            .deliveries(shop, &endpoint.id, None, None, latest_only()?)
            .await;
        let latest = match latest {
            Ok(page) => page.items.first().map(DeliveryView::of),
            // Deleted between the two reads: shown without a latest delivery.
            Err(EndpointError::NotFound) => None,
            Err(other) => return Err(other.into()),
        };
        rows.push((EndpointView::of(endpoint), latest));
    }
    let page = WebhooksPage {
        layout: Layout::new(owner, Section::Webhooks),
        rows,
        form,
        max_endpoints: MAX_ENDPOINTS_PER_SHOP,
        deleted,
    };
    Ok(html(status, &page))
}

fn latest_only() -> Result<PageLimit, ConsoleError> {
    PageLimit::new(1).map_err(|_| ConsoleError::Internal("a page of one is a page".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_endpoint_of_a_shop_fits_one_page() {
        assert!(every_endpoint().unwrap().get() >= MAX_ENDPOINTS_PER_SHOP);
    }

    #[test]
    fn a_refused_url_shows_beside_the_events_problem() {
        let (_, mut form) = EndpointForm::read(&Form::parse(b"url=http%3A%2F%2Fx"));
        form.refused("url", "must use https").unwrap();
        assert_eq!(form.url_problems, ["The URL must use https."]);
        assert_eq!(form.events_problems, ["Expected at least one event type."]);
    }
}
