//! `GET /console/webhooks/{id}/delete`: what deleting the endpoint ends, and the button.
//! `POST` to the same path (`csrf_token`): deletes it with its deliveries and answers 303 to
//! the endpoint list. Another shop's endpoint is the 404 of an unknown one, and nothing
//! changes.

use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{HttpResponse, web};
use askama::Template;

use crate::ConsoleState;
use crate::error::ConsoleError;
use crate::guard::{CheckedForm, SignedInOwner};
use crate::pages::webhooks::{EndpointView, endpoint_id};
use crate::urls::{self, WEBHOOKS, link};
use crate::view::{Layout, Section, html};

#[derive(Template)]
#[template(path = "webhook_delete.html")]
struct DeletePage {
    layout: Layout,
    endpoint: EndpointView,
    /// Where the confirmation posts, the id percent-encoded.
    action: String,
}

pub async fn confirm(
    state: web::Data<ConsoleState>,
    owner: SignedInOwner,
    id: web::Path<String>,
) -> Result<HttpResponse, ConsoleError> {
    let id = endpoint_id(&id)?;
    let endpoint = state.webhooks.get(&owner.signed_in.shop.id, &id).await?;
    let page = DeletePage {
        layout: Layout::new(&owner, Section::Webhooks),
        endpoint: EndpointView::of(&endpoint),
        action: urls::delete_webhook(id.as_str()),
    };
    Ok(html(StatusCode::OK, &page))
}

pub async fn submit(
    state: web::Data<ConsoleState>,
    id: web::Path<String>,
    checked: CheckedForm,
) -> Result<HttpResponse, ConsoleError> {
    let id = endpoint_id(&id)?;
    state
        .webhooks
        .delete(&checked.owner.signed_in.shop.id, &id)
        .await?;
    Ok(HttpResponse::SeeOther()
        .insert_header((header::LOCATION, link(WEBHOOKS, &[("done", "deleted")])))
        .finish())
}
