//! `GET /console/keys`: every key of the shop and the form to create one. `POST
//! /console/keys` (`label`, `scopes` once per scope, optional `expires_at` as `YYYY-MM-DD`,
//! `csrf_token`): creates the key and shows it, whole, this once (200, `no-store` like every
//! page), or the form again with every problem (400).

use std::str::FromStr;

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use askama::Template;
use shop_domain::api_key::{KeyStatus, expiry_after_day};
use shop_domain::scope::{Scope, ScopeSet};
use shop_ports::usecase::{KeyAdminError, KeyField, KeyListing, KeyProblem, NewShopKey};

use crate::ConsoleState;
use crate::error::ConsoleError;
use crate::form::Form;
use crate::guard::{CheckedForm, SignedInOwner};
use crate::scopes::{field_id, meaning};
use crate::urls;
use crate::view::{Layout, Section, html, minute};

#[derive(Template)]
#[template(path = "keys.html")]
struct KeysPage {
    layout: Layout,
    keys: Vec<KeyRow>,
    form: KeyForm,
}

struct KeyRow {
    label: String,
    prefix: String,
    revoke_href: String,
    scopes: Vec<&'static str>,
    created: String,
    expires: String,
    last_used: String,
    status: &'static str,
    revocable: bool,
}

impl KeyRow {
    fn of(listing: &KeyListing) -> Self {
        let key = &listing.key;
        Self {
            label: key.label.clone(),
            prefix: key.prefix.to_string(),
            revoke_href: urls::revoke_key(key.prefix.as_str()),
            scopes: key.scopes.iter().map(Scope::as_str).collect(),
            created: minute(key.created_at),
            expires: key.expires_at.map_or_else(|| "never".to_owned(), minute),
            last_used: key.last_used_at.map_or_else(|| "never".to_owned(), minute),
            status: listing.status.as_str(),
            revocable: listing.status == KeyStatus::Active,
        }
    }
}

/// The creation form, blank or as submitted, with its problems by field.
#[derive(Default)]
struct KeyForm {
    label: String,
    expires_at: String,
    checked: ScopeSet,
    label_problems: Vec<String>,
    scopes_problems: Vec<String>,
    expires_problems: Vec<String>,
}

struct ScopeChoice {
    value: &'static str,
    id: String,
    meaning: &'static str,
    checked: bool,
    reserved: bool,
}

impl KeyForm {
    /// Every scope, v1's first: the reserved ones are shown, unchecked and disabled.
    fn choices(&self) -> Vec<ScopeChoice> {
        let mut scopes = Scope::ALL;
        scopes.sort_by_key(|scope| scope.is_reserved());
        scopes
            .into_iter()
            .map(|scope| ScopeChoice {
                value: scope.as_str(),
                id: field_id(scope),
                meaning: meaning(scope),
                checked: self.checked.contains(scope) && !scope.is_reserved(),
                reserved: scope.is_reserved(),
            })
            .collect()
    }

    fn has_problems(&self) -> bool {
        !(self.label_problems.is_empty()
            && self.scopes_problems.is_empty()
            && self.expires_problems.is_empty())
    }

    fn add(&mut self, problems: Vec<KeyProblem>) {
        for problem in problems {
            let list = match problem.field {
                KeyField::Label => &mut self.label_problems,
                KeyField::Scopes => &mut self.scopes_problems,
                KeyField::ExpiresAt => &mut self.expires_problems,
            };
            list.push(problem.message);
        }
    }
}

#[derive(Template)]
#[template(path = "key_created.html")]
struct KeyCreatedPage {
    layout: Layout,
    label: String,
    prefix: String,
    full_key: String,
    scopes: Vec<&'static str>,
}

pub async fn list(
    state: web::Data<ConsoleState>,
    owner: SignedInOwner,
) -> Result<HttpResponse, ConsoleError> {
    render(&state, &owner, KeyForm::default(), StatusCode::OK).await
}

pub async fn create(
    state: web::Data<ConsoleState>,
    checked: CheckedForm,
) -> Result<HttpResponse, ConsoleError> {
    let CheckedForm { owner, form } = checked;
    let (new, mut key_form) = read(&form);
    if key_form.has_problems() {
        key_form.add(state.keys.problems_for_shop(&new));
        return render(&state, &owner, key_form, StatusCode::BAD_REQUEST).await;
    }
    let shop = owner.signed_in.shop.id.clone();
    match state.keys.create_for_shop(&shop, new).await {
        Ok(created) => {
            let page = KeyCreatedPage {
                label: created.key.label.clone(),
                prefix: created.key.prefix.to_string(),
                full_key: created.full_key.reveal(),
                scopes: created.key.scopes.iter().map(Scope::as_str).collect(),
                layout: Layout::new(&owner, Section::Keys),
            };
            Ok(html(StatusCode::OK, &page))
        }
        Err(KeyAdminError::Invalid(problems)) => {
            key_form.add(problems);
            render(&state, &owner, key_form, StatusCode::BAD_REQUEST).await
        }
        Err(other) => Err(other.into()),
    }
}

/// The submitted key, and the form as submitted with the problems only the form can have (a
/// scope that does not exist, a date that cannot be read).
fn read(form: &Form) -> (NewShopKey, KeyForm) {
    let mut key_form = KeyForm {
        label: form.value("label").unwrap_or_default().to_owned(),
        expires_at: form
            .value("expires_at")
            .unwrap_or_default()
            .trim()
            .to_owned(),
        ..KeyForm::default()
    };
    for name in form.values("scopes") {
        match Scope::from_str(name) {
            Ok(scope) => key_form.checked.insert(scope),
            Err(unknown) => key_form.scopes_problems.push(unknown.to_string()),
        }
    }
    let expires_at = if key_form.expires_at.is_empty() {
        None
    } else {
        expiry_after_day(&key_form.expires_at)
            .map_err(|error| key_form.expires_problems.push(error.to_string()))
            .ok()
    };
    let new = NewShopKey {
        label: key_form.label.clone(),
        scopes: key_form.checked,
        expires_at,
    };
    (new, key_form)
}

async fn render(
    state: &ConsoleState,
    owner: &SignedInOwner,
    form: KeyForm,
    status: StatusCode,
) -> Result<HttpResponse, ConsoleError> {
    let keys = state.keys.list_for_shop(&owner.signed_in.shop.id).await?;
    let page = KeysPage {
        layout: Layout::new(owner, Section::Keys),
        keys: keys.iter().map(KeyRow::of).collect(),
        form,
    };
    Ok(html(status, &page))
}
