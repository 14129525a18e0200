//! `GET /console/webhooks/{id}` (optional `cursor`; `done`, and `count`, after an action): one
//! endpoint, what it receives, its status, its actions and its deliveries, newest first, a
//! page at a time.
//!
//! Its actions, each a form with `csrf_token` that answers 303 back to the endpoint's page with
//! what was done (`done`): `POST .../test` queues a `ping`, `POST .../enabled` (`enabled` = `on`
//! or `off`) switches it, `POST .../retry` (`delivery`) sends a delivery again, `POST
//! .../recover` (`since`, a `datetime-local` read as UTC) queues what it missed since then,
//! or the page again with the problem beside the field (400). `POST .../secret` rotates its
//! secret and shows the new one this once (200, `no-store`). Another shop's endpoint or
//! delivery is the 404 of an unknown one, and nothing changes.

use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use shop_domain::Timestamp;
use shop_domain::id::{DeliveryId, WebhookEndpointId};
use shop_domain::pagination::PageLimit;
use shop_ports::usecase::webhooks::EndpointInput;
use time::PrimitiveDateTime;
use time::macros::format_description;

use crate::ConsoleState;
use crate::error::ConsoleError;
use crate::form::Form;
use crate::guard::{CheckedForm, SignedInOwner};
use crate::pages::webhooks::{DeliveryView, EndpointView, SecretPage, endpoint_id, owner_scopes};
use crate::urls::{self, link};
use crate::view::{Layout, Section, html};

/// The deliveries shown at a time.
const DELIVERIES_PER_PAGE: i64 = 20;

#[derive(Template)]
#[template(path = "webhook.html")]
struct EndpointPage {
    layout: Layout,
    endpoint: EndpointView,
    deliveries: Vec<DeliveryView>,
    /// The newest deliveries' link, unless this is that page.
    newest: Option<String>,
    /// The next page's link, when there is one.
    older: Option<String>,
    /// What the action just made did.
    notice: Option<String>,
    test_action: String,
    enabled_action: String,
    secret_action: String,
    retry_action: String,
    recover_action: String,
    delete_href: String,
    /// The recovery's instant as typed, and its problems.
    since: String,
    since_problems: Vec<String>,
}

/// What an action did, said on the page it comes back to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Done {
    Tested,
    Disabled,
    Enabled,
    Retried,
    Recovered(usize),
}

impl Done {
    /// The endpoint's page, saying it.
    fn back_to(self, id: &WebhookEndpointId) -> String {
        let page = urls::webhook(id.as_str());
        match self {
            Done::Tested => link(&page, &[("done", "tested")]),
            Done::Disabled => link(&page, &[("done", "disabled")]),
            Done::Enabled => link(&page, &[("done", "enabled")]),
            Done::Retried => link(&page, &[("done", "retried")]),
            Done::Recovered(count) => link(
                &page,
                &[("done", "recovered"), ("count", &count.to_string())],
            ),
        }
    }

    /// The page's `done` (and `count`); anything else is nothing to say.
    fn of(params: &Form) -> Option<Self> {
        match params.value("done")? {
            "tested" => Some(Done::Tested),
            "disabled" => Some(Done::Disabled),
            "enabled" => Some(Done::Enabled),
            "retried" => Some(Done::Retried),
            "recovered" => params
                .value("count")
                .and_then(|count| count.parse().ok())
                .map(Done::Recovered),
            _ => None,
        }
    }

    /// What the page says of it; nothing after a disabling, which the page's own warning
    /// says.
    fn message(self, enabled: bool) -> Option<String> {
        let waits = if enabled {
            ""
        } else {
            " It waits while the endpoint is disabled."
        };
        let message = match self {
            Done::Tested => format!(
                "A test event (ping) is queued: it is sent within seconds and shows in the \
                 deliveries below.{waits}"
            ),
            Done::Disabled => return None,
            Done::Enabled => "The endpoint is enabled: what waits for it is sent again.".to_owned(),
            Done::Retried => format!(
                "The delivery is queued again: the newest event of its resource is sent within \
                 seconds.{waits}"
            ),
            Done::Recovered(0) => {
                "Recovered: no missed event since then, nothing was queued. The endpoint is \
                 enabled."
                    .to_owned()
            }
            Done::Recovered(1) => {
                "Recovered: 1 missed event is queued, and the endpoint is enabled.".to_owned()
            }
            Done::Recovered(count) => {
                format!("Recovered: {count} missed events are queued, and the endpoint is enabled.")
            }
        };
        Some(message)
    }
}

/// The recovery form as submitted, with its problems.
#[derive(Default)]
struct RecoverForm {
    since: String,
    problems: Vec<String>,
}

pub async fn show(
    request: HttpRequest,
    state: web::Data<ConsoleState>,
    owner: SignedInOwner,
    id: web::Path<String>,
) -> Result<HttpResponse, ConsoleError> {
    let id = endpoint_id(&id)?;
    let params = Form::query(&request);
    let done = Done::of(&params);
    let view = Place {
        cursor: params.value("cursor"),
        done,
    };
    render(
        &state,
        &owner,
        &id,
        view,
        RecoverForm::default(),
        StatusCode::OK,
    )
    .await
}

/// Which page of the deliveries, and what was just done.
struct Place<'a> {
    cursor: Option<&'a str>,
    done: Option<Done>,
}

async fn render(
    state: &ConsoleState,
    owner: &SignedInOwner,
    id: &WebhookEndpointId,
    place: Place<'_>,
    recover: RecoverForm,
    status: StatusCode,
) -> Result<HttpResponse, ConsoleError> {
    let shop = &owner.signed_in.shop.id;
    let endpoint = state.webhooks.get(shop, id).await?;
    let limit = PageLimit::new(DELIVERIES_PER_PAGE)
        .map_err(|_| ConsoleError::Internal("the deliveries' page size is out of bounds".into()))?;
    let deliveries = state
        .webhooks
        .deliveries(shop, id, None, place.cursor, limit)
        .await?;
    let page_url = urls::webhook(id.as_str());
    let endpoint = EndpointView::of(&endpoint);
    let raw = id.as_str();
    let page = EndpointPage {
        layout: Layout::new(owner, Section::Webhooks),
        notice: place.done.and_then(|done| done.message(endpoint.enabled)),
        endpoint,
        deliveries: deliveries.items.iter().map(DeliveryView::of).collect(),
        newest: place.cursor.map(|_| page_url.clone()),
        older: deliveries
            .next_cursor
            .map(|cursor| link(&page_url, &[("cursor", &cursor)])),
        test_action: urls::webhook_test(raw),
        enabled_action: urls::webhook_enabled(raw),
        secret_action: urls::webhook_secret(raw),
        retry_action: urls::webhook_retry(raw),
        recover_action: urls::webhook_recover(raw),
        delete_href: urls::delete_webhook(raw),
        since: recover.since,
        since_problems: recover.problems,
    };
    Ok(html(status, &page))
}

fn see_other(location: String) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, location))
        .finish()
}

pub async fn test(
    state: web::Data<ConsoleState>,
    id: web::Path<String>,
    checked: CheckedForm,
) -> Result<HttpResponse, ConsoleError> {
    let id = endpoint_id(&id)?;
    let shop = &checked.owner.signed_in.shop.id;
    state.webhooks.send_test(shop, &id).await?;
    Ok(see_other(Done::Tested.back_to(&id)))
}

pub async fn switch(
    state: web::Data<ConsoleState>,
    id: web::Path<String>,
    checked: CheckedForm,
) -> Result<HttpResponse, ConsoleError> {
    let (enabled, done) = match checked.form.value("enabled") {
        Some("on") => (true, Done::Enabled),
        Some("off") => (false, Done::Disabled),
        _ => {
            return Err(ConsoleError::BadRequest(
                "An endpoint can only be enabled or disabled.",
            ));
        }
    };
    let id = endpoint_id(&id)?;
    let shop = &checked.owner.signed_in.shop.id;
    let input = EndpointInput {
        enabled: Some(enabled),
        ..EndpointInput::default()
    };
    state
        .webhooks
        .update(shop, owner_scopes(), &id, input)
        .await?;
    Ok(see_other(done.back_to(&id)))
}

pub async fn retry(
    state: web::Data<ConsoleState>,
    id: web::Path<String>,
    checked: CheckedForm,
) -> Result<HttpResponse, ConsoleError> {
    let id = endpoint_id(&id)?;
    let delivery = checked
        .form
        .value("delivery")
        .and_then(|delivery| DeliveryId::parse(delivery).ok())
        .ok_or(ConsoleError::NotFound)?;
    let shop = &checked.owner.signed_in.shop.id;
    state.webhooks.retry(shop, &id, &delivery).await?;
    Ok(see_other(Done::Retried.back_to(&id)))
}

pub async fn recover(
    state: web::Data<ConsoleState>,
    id: web::Path<String>,
    checked: CheckedForm,
) -> Result<HttpResponse, ConsoleError> {
    let CheckedForm { owner, form } = checked;
    let id = endpoint_id(&id)?;
    let since = form.value("since").unwrap_or_default().trim().to_owned();
    let Some(at) = instant_of(&since) else {
        let problem = if since.is_empty() {
            "Choose the date and time (UTC) to recover from."
        } else {
            "Enter a date and time such as 2026-11-25T14:00 (UTC)."
        };
        let recover = RecoverForm {
            since,
            problems: vec![problem.to_owned()],
        };
        let place = Place {
            cursor: None,
            done: None,
        };
        return render(&state, &owner, &id, place, recover, StatusCode::BAD_REQUEST).await;
    };
    let shop = &owner.signed_in.shop.id;
    let count = state.webhooks.recover(shop, &id, at).await?;
    Ok(see_other(Done::Recovered(count).back_to(&id)))
}

pub async fn rotate(
    state: web::Data<ConsoleState>,
    id: web::Path<String>,
    checked: CheckedForm,
) -> Result<HttpResponse, ConsoleError> {
    let id = endpoint_id(&id)?;
    let owner = checked.owner;
    let shop = &owner.signed_in.shop.id;
    let endpoint = state.webhooks.get(shop, &id).await?;
    let secret = state.webhooks.rotate_secret(shop, &id).await?;
    let page = SecretPage {
        rotated: true,
        ..SecretPage::new(&owner, &endpoint, secret.expose())
    };
    Ok(html(StatusCode::OK, &page))
}

/// A `datetime-local` value read as UTC, as the console shows every time:
/// `2026-11-25T14:03`, seconds optional.
fn instant_of(text: &str) -> Option<Timestamp> {
    let to_the_minute = format_description!("[year]-[month]-[day]T[hour]:[minute]");
    let to_the_second = format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]");
    PrimitiveDateTime::parse(text, &to_the_minute)
        .or_else(|_| PrimitiveDateTime::parse(text, &to_the_second))
        .ok()
        .map(|at| Timestamp::from_datetime(at.assume_utc()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_datetime_local_value_is_read_as_utc() {
        let expected = Timestamp::parse_rfc3339("2026-11-25T14:03:00Z").unwrap();
        assert_eq!(instant_of("2026-11-25T14:03"), Some(expected));
        assert_eq!(
            instant_of("2026-11-25T14:03:30"),
            Some(expected.plus_millis(30_000))
        );
        for wrong in [
            "2026-11-25",
            "2026-02-30T10:00",
            "yesterday",
            "2026-11-25T14:03Z",
        ] {
            assert_eq!(instant_of(wrong), None, "{wrong}");
        }
    }

    #[test]
    fn an_action_comes_back_saying_what_it_did() {
        let id = WebhookEndpointId::parse("we_1").unwrap();
        for done in [
            Done::Tested,
            Done::Disabled,
            Done::Enabled,
            Done::Retried,
            Done::Recovered(3),
        ] {
            let back = done.back_to(&id);
            let query = back.split_once('?').map(|(_, query)| query).unwrap();
            assert!(back.starts_with("/console/webhooks/we_1?"), "{back}");
            assert_eq!(Done::of(&Form::parse(query.as_bytes())), Some(done));
        }
        assert_eq!(Done::of(&Form::parse(b"done=<b>")), None);
        assert_eq!(Done::of(&Form::parse(b"done=recovered&count=x")), None);
    }
}
