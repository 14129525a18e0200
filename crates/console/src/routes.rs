//! Every route of the console, in one place. A page answers the methods listed here and any
//! other method with the console's 405 page; an unknown path under `/console` is the
//! sign-in page's redirect without a session and the 404 page with one.

use actix_web::middleware::from_fn;
use actix_web::{HttpResponse, Resource, web};

use crate::error::ConsoleError;
use crate::guard::SignedInOwner;
use crate::pages::{activity, dashboard, keys, login, logout, revoke, stock};
use crate::{ConsoleState, assets, headers};

/// Where the console is served.
pub const PREFIX: &str = "/console";

/// The sign-in page, where every request without a live session is sent.
pub const LOGIN_PATH: &str = "/console/login";

/// Mounts the console under [`PREFIX`] on `config`.
pub fn configure(config: &mut web::ServiceConfig, state: &ConsoleState) {
    let https = state.settings.https();
    config.service(
        web::scope(PREFIX)
            .app_data(web::Data::new(state.clone()))
            .wrap(from_fn(move |request, next| {
                headers::secure(request, next, https)
            }))
            .service(page("").route(web::get().to(dashboard::show)))
            .service(page("/").route(web::get().to(dashboard::show)))
            .service(
                page("/login")
                    .route(web::get().to(login::form))
                    .route(web::post().to(login::submit)),
            )
            .service(page("/logout").route(web::post().to(logout::submit)))
            .service(
                page("/keys")
                    .route(web::get().to(keys::list))
                    .route(web::post().to(keys::create)),
            )
            .service(
                page("/keys/{prefix}/revoke")
                    .route(web::get().to(revoke::confirm))
                    .route(web::post().to(revoke::submit)),
            )
            .service(page("/activity").route(web::get().to(activity::list)))
            .service(page("/stock").route(web::get().to(stock::list)))
            .service(page("/variants/{id}/tracking").route(web::post().to(stock::switch_tracking)))
            .service(page("/assets/console.css").route(web::get().to(assets::stylesheet)))
            .service(page("/assets/console.js").route(web::get().to(assets::script)))
            .default_service(web::to(unknown_page)),
    );
}

fn page(path: &str) -> Resource {
    web::resource(path).default_service(web::to(method_not_allowed))
}

async fn method_not_allowed() -> Result<HttpResponse, ConsoleError> {
    Err(ConsoleError::MethodNotAllowed)
}

/// A path the console does not have: nothing is said about it to a visitor who is not
/// signed in.
async fn unknown_page(
    owner: Result<SignedInOwner, ConsoleError>,
) -> Result<HttpResponse, ConsoleError> {
    Err(match owner {
        Ok(_) => ConsoleError::NotFound,
        Err(refusal) => refusal,
    })
}
