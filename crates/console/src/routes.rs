//! The console's route table, in one place, in two parts: the public pages and the signed-in
//! ones. Every page of the signed-in part sits behind one guard (`guard::require_session`):
//! a page added there cannot forget it, and a page cannot take the owner
//! (`guard::SignedInOwner`) anywhere else.
//!
//! A page answers the methods listed here and any other method with the console's 405 page,
//! signed in or not (the wrong method is answered before the session is asked for, as it
//! always was); an unknown path under `/console` is the sign-in page's redirect without a
//! session and the 404 page with one. A panic in a page's handler or its guards is the 500
//! page (`error::catch_panics`).

use actix_web::dev::HttpServiceFactory;
use actix_web::guard::{Guard, GuardContext};
use actix_web::http::Method;
use actix_web::middleware::from_fn;
use actix_web::{FromRequest, Handler, HttpResponse, Responder, web};

use crate::error::{ConsoleError, catch_panics};
use crate::pages::{
    activity, api_writes, dashboard, keys, login, logout, revoke, stock, webhook, webhook_delete,
    webhooks,
};
use crate::urls::{PREFIX, Route};
use crate::{ConsoleState, assets, guard, headers};

/// Mounts the console under [`PREFIX`] on `config`.
pub fn configure(config: &mut web::ServiceConfig, state: &ConsoleState) {
    config.service(console(state, Vec::new()));
}

/// A route of the table: where it is, and its handler for each method it answers.
pub(crate) struct Page {
    /// Its actix pattern under [`PREFIX`] (a [`Route::pattern`]).
    pub pattern: &'static str,
    handlers: Vec<(Method, actix_web::Route)>,
}

impl Page {
    pub fn at(route: Route) -> Self {
        Self {
            pattern: route.pattern(),
            handlers: Vec::new(),
        }
    }

    /// A page that is no [`Route`]: only the tests have one.
    #[cfg(test)]
    pub fn under(pattern: &'static str) -> Self {
        Self {
            pattern,
            handlers: Vec::new(),
        }
    }

    pub fn get<F, Args>(self, handler: F) -> Self
    where
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        self.answer(Method::GET, handler)
    }

    pub fn post<F, Args>(self, handler: F) -> Self
    where
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        self.answer(Method::POST, handler)
    }

    fn answer<F, Args>(mut self, method: Method, handler: F) -> Self
    where
        F: Handler<Args>,
        Args: FromRequest + 'static,
        F::Output: Responder + 'static,
    {
        let route = web::route().method(method.clone()).to(handler);
        self.handlers.push((method, route));
        self
    }

    /// The methods the page answers, in the order registered.
    pub fn methods(&self) -> Vec<Method> {
        self.handlers
            .iter()
            .map(|(method, _)| method.clone())
            .collect()
    }

    fn resource(self) -> impl HttpServiceFactory {
        self.handlers
            .into_iter()
            .fold(
                web::resource(self.pattern).default_service(web::to(method_not_allowed)),
                |resource, (_, route)| resource.route(route),
            )
            .wrap(from_fn(catch_panics))
    }

    /// The 405 of the methods the page does not answer, for a page behind the session guard:
    /// registered before it, so that they are answered without a session too.
    fn other_methods(&self) -> impl HttpServiceFactory + use<> {
        web::resource(self.pattern)
            .guard(OtherMethod(self.methods()))
            .to(method_not_allowed)
    }
}

/// A request whose method is none of these.
struct OtherMethod(Vec<Method>);

impl Guard for OtherMethod {
    fn check(&self, context: &GuardContext<'_>) -> bool {
        !self.0.contains(&context.head().method)
    }
}

/// The pages anyone may ask for.
pub(crate) fn public_pages() -> Vec<Page> {
    vec![
        Page::at(Route::Login).get(login::form).post(login::submit),
        Page::at(Route::Stylesheet).get(assets::stylesheet),
        Page::at(Route::Script).get(assets::script),
    ]
}

/// The pages of a signed-in owner only.
pub(crate) fn signed_in_pages() -> Vec<Page> {
    vec![
        Page::at(Route::Overview).get(dashboard::show),
        Page::at(Route::OverviewSlash).get(dashboard::show),
        Page::at(Route::Logout).post(logout::submit),
        Page::at(Route::Keys).get(keys::list).post(keys::create),
        Page::at(Route::RevokeKey)
            .get(revoke::confirm)
            .post(revoke::submit),
        Page::at(Route::Activity).get(activity::list),
        Page::at(Route::ApiWrites).get(api_writes::list),
        Page::at(Route::Stock).get(stock::list),
        Page::at(Route::VariantTracking).post(stock::switch_tracking),
        Page::at(Route::Webhooks)
            .get(webhooks::list)
            .post(webhooks::create),
        Page::at(Route::Webhook).get(webhook::show),
        Page::at(Route::WebhookSecret).post(webhook::rotate),
        Page::at(Route::WebhookTest).post(webhook::test),
        Page::at(Route::WebhookEnabled).post(webhook::switch),
        Page::at(Route::WebhookRetry).post(webhook::retry),
        Page::at(Route::WebhookRecover).post(webhook::recover),
        Page::at(Route::DeleteWebhook)
            .get(webhook_delete::confirm)
            .post(webhook_delete::submit),
    ]
}

/// The console's scope, with `more` in its signed-in part (pages only the tests have).
pub(crate) fn console(state: &ConsoleState, more: Vec<Page>) -> impl HttpServiceFactory + use<> {
    let https = state.settings.https();
    let signed_in: Vec<Page> = signed_in_pages().into_iter().chain(more).collect();
    let mut console = web::scope(PREFIX)
        .app_data(web::Data::new(state.clone()))
        .wrap(from_fn(move |request, next| {
            headers::secure(request, next, https)
        }));
    // The scope's router tries its services in this order: the public pages and the wrong
    // methods first, then the signed-in part, which takes every other path.
    for page in public_pages() {
        console = console.service(page.resource());
    }
    for page in &signed_in {
        console = console.service(page.other_methods());
    }
    let mut behind_the_guard = web::scope("")
        .wrap(from_fn(guard::require_session))
        .default_service(web::to(unknown_page));
    for page in signed_in {
        behind_the_guard = behind_the_guard.service(page.resource());
    }
    console.service(behind_the_guard)
}

async fn method_not_allowed() -> Result<HttpResponse, ConsoleError> {
    Err(ConsoleError::MethodNotAllowed)
}

/// A path the console does not have; behind the guard, so nothing is said about it to a
/// visitor who is not signed in.
async fn unknown_page() -> Result<HttpResponse, ConsoleError> {
    Err(ConsoleError::NotFound)
}
