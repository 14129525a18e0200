//! The console's stylesheet and script, compiled into the binary: no CDN, no build step.

use actix_web::HttpResponse;
use actix_web::http::header;

const STYLESHEET: &str = include_str!("../assets/console.css");
const SCRIPT: &str = include_str!("../assets/console.js");

/// An hour: a new release's files are picked up within one, and a page view never waits on
/// them in between.
const CACHING: &str = "public, max-age=3600";

pub async fn stylesheet() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/css; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, CACHING))
        .body(STYLESHEET)
}

pub async fn script() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/javascript; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, CACHING))
        .body(SCRIPT)
}
