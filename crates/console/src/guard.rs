//! The console's two guards. [`require_session`] is the middleware of the signed-in part of
//! the route table (`routes.rs`): every page registered there runs only for a live session,
//! without asking, and finds its owner as [`SignedInOwner`]. [`CheckedForm`] lets a
//! state-changing request through only when it is also same-origin and carries the
//! session's anti-CSRF token. Checks happen here once, not in each handler.
//!
//! Order for a form: the session (without one, 303 to the sign-in page), where the request
//! comes from (403), the body (415, 413), then the token (403). Nothing is changed by a
//! refused request: handlers never run.

use std::future::{Future, Ready, ready};
use std::ops::Deref;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::rc::Rc;

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{Error, FromRequest, HttpMessage as _, HttpRequest, web};
use futures::FutureExt as _;
use shop_domain::owner_session::SessionToken;
use shop_ports::port::SignedIn;

use crate::ConsoleState;
use crate::cookies;
use crate::error::{ConsoleError, panicked};
use crate::form::Form;
use crate::origin::{Provenance, provenance};

type Extracted<T> = Pin<Box<dyn Future<Output = Result<T, ConsoleError>>>>;

/// The console's state, mounted with its routes.
pub fn state(request: &HttpRequest) -> Result<web::Data<ConsoleState>, ConsoleError> {
    request
        .app_data::<web::Data<ConsoleState>>()
        .cloned()
        .ok_or_else(|| ConsoleError::Internal("the console's state is not mounted".into()))
}

/// Lets a request into the signed-in part of the console only with a live session (303 to
/// the sign-in page otherwise, whatever the path and method), and hands its owner to the
/// handler.
pub async fn require_session(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    // A panic here, before any page's own `catch_panics`, is the 500 page too.
    let session = AssertUnwindSafe(LiveSession::of(request.request()))
        .catch_unwind()
        .await
        .unwrap_or_else(|panic| Err(panicked(&*panic)));
    match session {
        Ok(session) => {
            request
                .extensions_mut()
                .insert(SignedInOwner(Rc::new(session)));
            Ok(next.call(request).await?.map_into_boxed_body())
        }
        // Answered here rather than returned as an `Err`, so that the middlewares outside
        // (the security headers) see a response.
        Err(refusal) => Ok(request.error_response(refusal)),
    }
}

/// A live session and who holds it.
pub struct LiveSession {
    pub signed_in: SignedIn,
    /// The session's id, to end it at sign-out.
    pub token: SessionToken,
}

impl LiveSession {
    async fn of(request: &HttpRequest) -> Result<Self, ConsoleError> {
        let state = state(request)?;
        let token = cookies::session_token(request, state.settings.https())
            .ok_or(ConsoleError::SignInRequired)?;
        match state.sessions.resolve(&token).await? {
            Some(signed_in) => Ok(Self { signed_in, token }),
            None => Err(ConsoleError::SignInRequired),
        }
    }
}

/// The owner of the request's live session, as [`require_session`] found it.
#[derive(Clone)]
pub struct SignedInOwner(Rc<LiveSession>);

impl Deref for SignedInOwner {
    type Target = LiveSession;

    fn deref(&self) -> &LiveSession {
        &self.0
    }
}

impl SignedInOwner {
    fn of(request: &HttpRequest) -> Result<Self, ConsoleError> {
        request
            .extensions()
            .get::<Self>()
            .cloned()
            // A page registered outside the signed-in part: a bug, never a way in.
            .ok_or_else(|| {
                ConsoleError::Internal(
                    "a page outside the signed-in routes asked for the owner".into(),
                )
            })
    }
}

impl FromRequest for SignedInOwner {
    type Error = ConsoleError;
    type Future = Ready<Result<Self, ConsoleError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(Self::of(request))
    }
}

/// A state-changing request of a signed-in owner: same-origin, its form read, its
/// `csrf_token` the session's own.
pub struct CheckedForm {
    pub owner: SignedInOwner,
    pub form: Form,
}

impl FromRequest for CheckedForm {
    type Error = ConsoleError;
    type Future = Extracted<Self>;

    fn from_request(request: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let request = request.clone();
        let mut payload = payload.take();
        Box::pin(async move {
            let owner = SignedInOwner::of(&request)?;
            let form = read_form(&request, &mut payload, |from| {
                from == Provenance::SameOrigin
            })
            .await?;
            let submitted = form.value("csrf_token").unwrap_or_default();
            if !owner.signed_in.session.csrf.matches(submitted) {
                return Err(ConsoleError::Forbidden);
            }
            Ok(Self { owner, form })
        })
    }
}

/// The sign-in form, which has no session to hold a token yet: a browser saying it comes
/// from another site is refused (no login CSRF); a program that says nothing is let through,
/// as the e-mail and password are its proof.
pub struct SignInForm(pub Form);

impl FromRequest for SignInForm {
    type Error = ConsoleError;
    type Future = Extracted<Self>;

    fn from_request(request: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let request = request.clone();
        let mut payload = payload.take();
        Box::pin(async move {
            let form =
                read_form(&request, &mut payload, |from| from != Provenance::CrossSite).await?;
            Ok(Self(form))
        })
    }
}

/// The request's form, if `allow` lets a request from where it comes from in (403
/// otherwise, before the body is read).
async fn read_form(
    request: &HttpRequest,
    payload: &mut Payload,
    allow: fn(Provenance) -> bool,
) -> Result<Form, ConsoleError> {
    let settings = &state(request)?.settings;
    if !allow(provenance(request, settings.public_url.as_ref())) {
        return Err(ConsoleError::Forbidden);
    }
    Form::read(request, payload, settings.body_timeout).await
}
