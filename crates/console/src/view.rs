//! What every page shares: rendering a template into a response, the signed-in layout (shop,
//! owner, navigation, the sign-out form's token) and how times are written.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use askama::Template;
use shop_domain::Timestamp;
use time::macros::format_description;

use crate::guard::SignedInOwner;
use crate::urls;

/// `page` rendered as the response's HTML body.
pub fn html(status: StatusCode, page: &impl Template) -> HttpResponse {
    match page.render() {
        Ok(body) => HttpResponse::build(status)
            .content_type("text/html; charset=utf-8")
            .body(body),
        Err(error) => {
            tracing::error!(error = %error, "a console template failed to render");
            HttpResponse::InternalServerError()
                .content_type("text/plain; charset=utf-8")
                .body("Something went wrong.")
        }
    }
}

/// An instant as the console shows it: to the minute, in UTC (`2026-11-25 14:03 UTC`).
pub fn minute(at: Timestamp) -> String {
    let format = format_description!("[year]-[month]-[day] [hour]:[minute] UTC");
    at.to_datetime()
        .format(&format)
        .unwrap_or_else(|_| at.to_rfc3339())
}

/// The console's sections, in the navigation's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    Overview,
    Keys,
    Webhooks,
    Stock,
    Activity,
}

pub struct NavItem {
    pub href: &'static str,
    pub label: &'static str,
    pub current: bool,
}

/// The frame of every signed-in page.
pub struct Layout {
    pub shop_name: String,
    pub owner_email: String,
    /// For the sign-out form in the header.
    pub csrf_token: String,
    pub nav: Vec<NavItem>,
}

impl Layout {
    pub fn new(owner: &SignedInOwner, section: Section) -> Self {
        let items = [
            (Section::Overview, urls::OVERVIEW, "Overview"),
            (Section::Keys, urls::KEYS, "API keys"),
            (Section::Webhooks, urls::WEBHOOKS, "Webhooks"),
            (Section::Stock, urls::STOCK, "Stock"),
            (Section::Activity, urls::ACTIVITY, "Activity"),
        ];
        let signed_in = &owner.signed_in;
        Self {
            shop_name: signed_in.shop.name.clone(),
            owner_email: signed_in.owner.email.to_string(),
            csrf_token: signed_in.session.csrf.as_str().to_owned(),
            nav: items
                .into_iter()
                .map(|(item, href, label)| NavItem {
                    href,
                    label,
                    current: item == section,
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_shown_to_the_minute_in_utc() {
        let at = Timestamp::parse_rfc3339("2026-11-25T15:03:59.999+01:00").unwrap();
        assert_eq!(minute(at), "2026-11-25 14:03 UTC");
    }
}
