//! `GET /console/keys/{prefix}/revoke`: what revoking the key will stop, and the button.
//! `POST` to the same path (`csrf_token`): revokes it (every instance refuses it within 5 s)
//! and answers 303 to the key list. Another shop's prefix is the 404 of an unknown one, and
//! nothing changes.

use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{HttpResponse, web};
use askama::Template;
use shop_domain::api_key::{KeyPrefix, KeyStatus};

use crate::ConsoleState;
use crate::error::ConsoleError;
use crate::guard::{CheckedForm, SignedInOwner};
use crate::scopes::meaning;
use crate::urls;
use crate::view::{Layout, Section, html, minute};

#[derive(Template)]
#[template(path = "revoke.html")]
struct RevokePage {
    layout: Layout,
    label: String,
    prefix: String,
    /// Where the confirmation posts, the prefix percent-encoded.
    action: String,
    /// Each scope of the key and what it lets an integration do.
    abilities: Vec<(&'static str, &'static str)>,
    last_used: String,
    status: &'static str,
    revocable: bool,
}

pub async fn confirm(
    state: web::Data<ConsoleState>,
    owner: SignedInOwner,
    prefix: web::Path<String>,
) -> Result<HttpResponse, ConsoleError> {
    let prefix = KeyPrefix::parse(&prefix).map_err(|_| ConsoleError::NotFound)?;
    let listing = state
        .keys
        .find_for_shop(&owner.signed_in.shop.id, &prefix)
        .await?;
    let key = &listing.key;
    let page = RevokePage {
        layout: Layout::new(&owner, Section::Keys),
        label: key.label.clone(),
        prefix: key.prefix.to_string(),
        action: urls::revoke_key(key.prefix.as_str()),
        abilities: key
            .scopes
            .iter()
            .map(|scope| (scope.as_str(), meaning(scope)))
            .collect(),
        last_used: key.last_used_at.map_or_else(|| "never".to_owned(), minute),
        status: listing.status.as_str(),
        revocable: listing.status == KeyStatus::Active,
    };
    Ok(html(StatusCode::OK, &page))
}

pub async fn submit(
    state: web::Data<ConsoleState>,
    prefix: web::Path<String>,
    checked: CheckedForm,
) -> Result<HttpResponse, ConsoleError> {
    let prefix = KeyPrefix::parse(&prefix).map_err(|_| ConsoleError::NotFound)?;
    state
        .keys
        .revoke_for_shop(&checked.owner.signed_in.shop.id, &prefix)
        .await?;
    Ok(HttpResponse::SeeOther()
        .insert_header((header::LOCATION, urls::KEYS))
        .finish())
}
