//! What every page shares: rendering a template into a response, the signed-in layout (shop,
//! owner, navigation, the sign-out form's token) and how times are written.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use askama::Template;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use shop_domain::Timestamp;
use time::macros::format_description;

use crate::guard::SignedInOwner;

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

/// `path` with the non-empty `params` as its query string: a page's link back to itself or
/// to a neighbour, read with [`crate::form::Form::query`].
pub fn link(path: &str, params: &[(&str, &str)]) -> String {
    let query = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(params.iter().filter(|(_, value)| !value.is_empty()))
        .finish();
    if query.is_empty() {
        path.to_owned()
    } else {
        format!("{path}?{query}")
    }
}

/// The characters of a path segment written as they are: RFC 3986's unreserved ones.
/// Everything else is percent-encoded, `:` included, so that a segment can never be read as
/// a scheme, a query, a fragment or another segment, whatever an id's alphabet becomes.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// `/console/{section}/{id}/{action}` with `id` percent-encoded as one path segment: every
/// console URL that carries an id or a prefix is built here. (`.` and `..` cannot be ids:
/// browsers rewrite them even encoded; see `shop_domain::id`.)
pub fn id_path(section: &str, id: &str, action: &str) -> String {
    format!(
        "/console/{section}/{}/{action}",
        utf8_percent_encode(id, SEGMENT)
    )
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
            (Section::Overview, "/console", "Overview"),
            (Section::Keys, "/console/keys", "API keys"),
            (Section::Stock, "/console/stock", "Stock"),
            (Section::Activity, "/console/activity", "Activity"),
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
    fn links_carry_only_the_parameters_that_have_a_value() {
        assert_eq!(
            link("/console/stock", &[("q", ""), ("cursor", "")]),
            "/console/stock"
        );
        assert_eq!(
            link("/console/stock", &[("q", "mug bleu&"), ("cursor", "")]),
            "/console/stock?q=mug+bleu%26"
        );
        assert_eq!(
            link("/console/stock", &[("q", "mug"), ("cursor", "Yz=")]),
            "/console/stock?q=mug&cursor=Yz%3D"
        );
    }

    #[test]
    fn an_id_is_one_percent_encoded_segment() {
        assert_eq!(
            id_path("variants", "sku:1.2_a-b~", "tracking"),
            "/console/variants/sku%3A1.2_a-b~/tracking"
        );
        assert_eq!(
            id_path("variants", "a/b?c#d%e", "tracking"),
            "/console/variants/a%2Fb%3Fc%23d%25e/tracking"
        );
    }

    #[test]
    fn times_are_shown_to_the_minute_in_utc() {
        let at = Timestamp::parse_rfc3339("2026-11-25T15:03:59.999+01:00").unwrap();
        assert_eq!(minute(at), "2026-11-25 14:03 UTC");
    }
}
