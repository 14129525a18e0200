//! `GET /console/login`: the sign-in form. `POST /console/login` (`email`, `password`): 303 to
//! the overview with a new session cookie and a new device cookie, or the form again with one
//! message for every failure (401), with the wait when the e-mail, the address or this
//! browser failed too often (429), or when another sign-in from the same address is being
//! checked (429, a second).

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use shop_domain::client_address::{ClientAddress, TrustedProxies};
use shop_domain::owner::{MAX_EMAIL_LEN, Password};
use shop_ports::usecase::SignInError;

use crate::ConsoleState;
use crate::cookies;
use crate::device_cookie;
use crate::error::ConsoleError;
use crate::guard::SignInForm;
use crate::urls;
use crate::view::html;

#[derive(Default, Template)]
#[template(path = "login.html")]
struct SignInPage {
    /// What was typed, shown again after a failure.
    email: String,
    message: Option<String>,
}

pub async fn form() -> HttpResponse {
    html(StatusCode::OK, &SignInPage::default())
}

pub async fn submit(
    request: HttpRequest,
    state: web::Data<ConsoleState>,
    SignInForm(form): SignInForm,
) -> Result<HttpResponse, ConsoleError> {
    let email = form.value("email").unwrap_or_default();
    let password = Password::attempt(form.value("password").unwrap_or_default());
    let https = state.settings.https();
    let previous = cookies::session_token(&request, https);
    let device = device_cookie::presented(&request, https);
    let outcome = state
        .sessions
        .sign_in(
            email,
            &password,
            &client_address(&request, &state.settings.trusted_proxies),
            previous.as_ref(),
            device.as_ref(),
        )
        .await;
    let again = |message: String| SignInPage {
        email: email.trim().chars().take(MAX_EMAIL_LEN).collect(),
        message: Some(message),
    };
    match outcome {
        Ok(started) => Ok(HttpResponse::SeeOther()
            .insert_header((header::LOCATION, urls::OVERVIEW))
            .cookie(cookies::session(&started.token, https))
            .cookie(device_cookie::issued(&started.device, https))
            .finish()),
        Err(SignInError::InvalidCredentials) => Ok(html(
            StatusCode::UNAUTHORIZED,
            &again("The e-mail address or the password is incorrect.".into()),
        )),
        Err(SignInError::Throttled {
            retry_after_seconds,
        }) => {
            let minutes = (retry_after_seconds + 59) / 60;
            let wait = if minutes <= 1 {
                "a minute".to_owned()
            } else {
                format!("{minutes} minutes")
            };
            Ok(too_many(
                &again(format!(
                    "Too many failed sign-ins. Wait {wait} before trying again."
                )),
                retry_after_seconds,
            ))
        }
        // Nothing failed: the one verification an address may run at a time is under way.
        Err(SignInError::Busy {
            retry_after_seconds,
        }) => Ok(too_many(
            &again(
                "Another sign-in from your network is being checked; try again in a second.".into(),
            ),
            retry_after_seconds,
        )),
        Err(SignInError::Store(error)) => Err(error.into()),
        Err(SignInError::Hashing(error)) => Err(error.into()),
    }
}

/// The form again, 429, with the wait in `Retry-After`.
fn too_many(page: &SignInPage, retry_after_seconds: i64) -> HttpResponse {
    let mut response = html(StatusCode::TOO_MANY_REQUESTS, page);
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(retry_after_seconds));
    response
}

/// The client failed sign-ins count against, as the API counts failed keys: the TCP peer,
/// or the client a trusted proxy names (an IPv6 client is its /64).
fn client_address(request: &HttpRequest, proxies: &TrustedProxies) -> ClientAddress {
    let headers = request.headers();
    let values = |name| {
        headers
            .get_all(name)
            .filter_map(|value| value.to_str().ok())
            .collect::<Vec<_>>()
    };
    proxies.client_address(
        request.peer_addr().map(|peer| peer.ip()),
        &values(header::FORWARDED),
        &values(header::X_FORWARDED_FOR),
    )
}
