//! Every way a console request can fail, and the one page that shows it.
//!
//! The page says what the owner can do about it, never why it happened inside: a store or
//! hashing failure is shown as "something went wrong", and its cause (the error's `Display`)
//! is written to the log by the server's 5xx log line, with the request's id. A handler that
//! panics is one more such failure (`catch_panics`): the owner gets this page with a 500, not
//! a dropped connection, and the worker goes on serving.

use std::any::Any;
use std::panic::AssertUnwindSafe;

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{Error, HttpResponse, ResponseError};
use askama::Template;
use futures::FutureExt as _;
use shop_ports::port::HashError;
use shop_ports::usecase::webhooks::EndpointError;
use shop_ports::usecase::{KeyAdminError, ReadError};
use shop_ports::{StoreError, error_chain};

use crate::urls;
use crate::view::html;

#[derive(Debug, thiserror::Error)]
pub enum ConsoleError {
    /// No live session: to the sign-in page.
    #[error("sign-in required")]
    SignInRequired,
    /// A state-changing request from another site, or without the session's token.
    #[error("refused: not a request of this console's forms")]
    Forbidden,
    #[error("no such page")]
    NotFound,
    #[error("method not allowed")]
    MethodNotAllowed,
    /// A request this console's own pages never make (a garbled cursor, a form field that
    /// cannot be read); the message is ours, for the owner.
    #[error("bad request: {0}")]
    BadRequest(&'static str),
    #[error("form too large")]
    PayloadTooLarge,
    /// The form's body did not arrive in time; the connection closes.
    #[error("form not received in time")]
    RequestTimeout,
    #[error("not a form")]
    UnsupportedMediaType,
    /// The database could not be reached in time.
    #[error("the database is unavailable")]
    Unavailable,
    /// Anything else; the cause goes to the log only.
    #[error("internal error: {0}")]
    Internal(String),
}

impl ConsoleError {
    /// A cursor the console did not make, or one for another list.
    pub const STALE_LINK: Self =
        Self::BadRequest("This page link is out of date: start again from the first page.");
}

impl From<StoreError> for ConsoleError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Unavailable(_) => Self::Unavailable,
            other => Self::Internal(error_chain(&other)),
        }
    }
}

/// Another shop's key is as unknown as a missing one: 404 either way.
impl From<KeyAdminError> for ConsoleError {
    fn from(error: KeyAdminError) -> Self {
        match error {
            KeyAdminError::UnknownKey(_) => Self::NotFound,
            KeyAdminError::Store(error) => error.into(),
            other => Self::Internal(error_chain(&other)),
        }
    }
}

impl From<ReadError> for ConsoleError {
    fn from(error: ReadError) -> Self {
        match error {
            ReadError::NotFound => Self::NotFound,
            ReadError::Store(error) => error.into(),
        }
    }
}

/// Another shop's endpoint or delivery is as unknown as a missing one: 404 either way. The
/// pages show a field's problem next to the field themselves; what reaches here is a cursor
/// the console did not make, or a failure.
impl From<EndpointError> for ConsoleError {
    fn from(error: EndpointError) -> Self {
        match error {
            EndpointError::NotFound => Self::NotFound,
            EndpointError::Invalid {
                field: "cursor", ..
            } => Self::STALE_LINK,
            EndpointError::Store(error) => error.into(),
            other => Self::Internal(error_chain(&other)),
        }
    }
}

impl From<HashError> for ConsoleError {
    fn from(error: HashError) -> Self {
        Self::Internal(error_chain(&error))
    }
}

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage {
    title: &'static str,
    message: &'static str,
    signed_in_hint: bool,
}

impl ConsoleError {
    fn page(&self) -> ErrorPage {
        let (title, message) = match self {
            Self::SignInRequired => ("Sign in", "Please sign in to continue."),
            Self::Forbidden => (
                "This form has expired",
                "The request did not come from a page of this console, or the page was open \
                 for too long. Go back, reload the page and try again.",
            ),
            Self::NotFound => (
                "Page not found",
                "There is nothing here. It may have been removed, or the address is mistyped.",
            ),
            Self::MethodNotAllowed => (
                "Not allowed",
                "This page cannot be used this way. Use the links and buttons of the console.",
            ),
            Self::BadRequest(message) => ("This request cannot be read", *message),
            Self::PayloadTooLarge => (
                "Too much data",
                "The form sent more data than any page of this console does.",
            ),
            Self::RequestTimeout => (
                "The form took too long",
                "The form did not arrive in time. Check your connection and send it again.",
            ),
            Self::UnsupportedMediaType => (
                "Not a form",
                "This page only accepts the console's own forms.",
            ),
            Self::Unavailable => (
                "Temporarily unavailable",
                "The service cannot reach its database right now. Try again in a moment.",
            ),
            Self::Internal(_) => (
                "Something went wrong",
                "The request could not be completed. Try again; if it keeps failing, contact \
                 support.",
            ),
        };
        ErrorPage {
            title,
            message,
            signed_in_hint: matches!(self, Self::NotFound | Self::MethodNotAllowed),
        }
    }
}

impl ResponseError for ConsoleError {
    fn status_code(&self) -> StatusCode {
        match self {
            Self::SignInRequired => StatusCode::SEE_OTHER,
            Self::Forbidden => StatusCode::FORBIDDEN,
            Self::NotFound => StatusCode::NOT_FOUND,
            Self::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Self::BadRequest(_) => StatusCode::BAD_REQUEST,
            Self::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            Self::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        match self {
            Self::SignInRequired => HttpResponse::SeeOther()
                .insert_header((header::LOCATION, urls::LOGIN))
                .finish(),
            Self::Unavailable => {
                let mut response = html(self.status_code(), &self.page());
                response
                    .headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
                response
            }
            _ => html(self.status_code(), &self.page()),
        }
    }
}

/// The 500 page instead of a panic of the page's handler or its extractors. Each page's
/// resource is wrapped in it (`routes.rs`): above the resource, actix's routing still needs
/// the request to itself, so the request cannot be kept aside to answer with.
///
/// `AssertUnwindSafe`: the request that panicked is dropped with its answer, and what later
/// requests share is the console's state, which the worker went on using just the same when
/// actix dropped the connection instead: answering the owner adds no new way to see it
/// half-changed.
pub async fn catch_panics(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let answer_to = request.request().clone();
    match AssertUnwindSafe(next.call(request)).catch_unwind().await {
        Ok(answer) => Ok(answer?.map_into_boxed_body()),
        Err(panic) => Ok(ServiceResponse::from_err(panicked(&*panic), answer_to)),
    }
}

/// A panic, as the internal error the log shows (its message, when it has one).
pub fn panicked(panic: &(dyn Any + Send)) -> ConsoleError {
    let message = panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("no message");
    ConsoleError::Internal(format!("a console handler panicked: {message}"))
}
