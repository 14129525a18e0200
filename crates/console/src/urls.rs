//! Every URL of the console, written once: the route table registers [`Route::pattern`], the
//! handlers redirect to these paths and the templates link to them (askama reads the
//! constants below by path, `{{ crate::urls::KEYS }}`), so a page cannot move without its
//! links moving with it.
//!
//! **Architecture Invariant**: this module depends on nothing else of the console; the
//! routes, pages, guards and error page depend on it.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// Declares [`PREFIX`] and [`Route`] from one literal per route, so that a route's pattern
/// under the console's scope and its full path cannot disagree.
macro_rules! routes {
    ($prefix:literal; $($(#[doc = $doc:literal])* $name:ident = $pattern:literal,)+) => {
        /// Where the console is served.
        pub const PREFIX: &str = $prefix;

        /// A route of the console, as the route table registers it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Route {
            $($(#[doc = $doc])* $name,)+
        }

        impl Route {
            /// Every route, in the order above.
            #[cfg(test)]
            pub const ALL: &'static [Self] = &[$(Self::$name),+];

            /// The route's actix pattern inside the console's scope (`{name}` for a
            /// parameter).
            pub const fn pattern(self) -> &'static str {
                match self {
                    $(Self::$name => $pattern,)+
                }
            }

            /// [`PREFIX`] and [`Route::pattern`]: the route's path, for a route without a
            /// parameter.
            pub const fn path(self) -> &'static str {
                match self {
                    $(Self::$name => concat!($prefix, $pattern),)+
                }
            }
        }
    };
}

routes! {
    "/console";
    /// The shop's overview, where a sign-in lands.
    Overview = "",
    /// The overview, for an address typed with a trailing slash.
    OverviewSlash = "/",
    /// The sign-in form (GET) and its submission (POST).
    Login = "/login",
    Logout = "/logout",
    /// The key list and the creation form (GET), a new key (POST).
    Keys = "/keys",
    /// A key's revocation: the confirmation (GET) and the revocation (POST).
    RevokeKey = "/keys/{prefix}/revoke",
    Activity = "/activity",
    /// The activity's second tab: what the shop's API keys wrote (clients, products, points).
    ApiWrites = "/activity/writes",
    Stock = "/stock",
    /// A variant's tracking switch (POST).
    VariantTracking = "/variants/{id}/tracking",
    /// The webhook endpoints and the form to add one (GET), a new endpoint (POST).
    Webhooks = "/webhooks",
    /// One endpoint: what it is, its actions and its deliveries (GET).
    Webhook = "/webhooks/{id}",
    /// A new signing secret for the endpoint (POST), shown once.
    WebhookSecret = "/webhooks/{id}/secret",
    /// A test event (`ping`) to the endpoint (POST).
    WebhookTest = "/webhooks/{id}/test",
    /// The endpoint's switch (POST `enabled` = `on` or `off`).
    WebhookEnabled = "/webhooks/{id}/enabled",
    /// A delivery of the endpoint sent again (POST `delivery`).
    WebhookRetry = "/webhooks/{id}/retry",
    /// The endpoint's missed events since an instant, queued again (POST `since`).
    WebhookRecover = "/webhooks/{id}/recover",
    /// An endpoint's deletion: the confirmation (GET) and the deletion (POST).
    DeleteWebhook = "/webhooks/{id}/delete",
    Stylesheet = "/assets/console.css",
    Script = "/assets/console.js",
}

pub const OVERVIEW: &str = Route::Overview.path();
/// The sign-in page, where every request without a live session is sent.
pub const LOGIN: &str = Route::Login.path();
pub const LOGOUT: &str = Route::Logout.path();
pub const KEYS: &str = Route::Keys.path();
pub const ACTIVITY: &str = Route::Activity.path();
pub const API_WRITES: &str = Route::ApiWrites.path();
pub const STOCK: &str = Route::Stock.path();
pub const WEBHOOKS: &str = Route::Webhooks.path();
pub const STYLESHEET: &str = Route::Stylesheet.path();
pub const SCRIPT: &str = Route::Script.path();

/// Where a key's revocation is confirmed and posted.
pub fn revoke_key(prefix: &str) -> String {
    Route::RevokeKey.with(prefix)
}

/// Where a variant's tracking switch posts.
pub fn variant_tracking(id: &str) -> String {
    Route::VariantTracking.with(id)
}

/// An endpoint's page.
pub fn webhook(id: &str) -> String {
    Route::Webhook.with(id)
}

/// Where an endpoint's secret rotation posts.
pub fn webhook_secret(id: &str) -> String {
    Route::WebhookSecret.with(id)
}

/// Where an endpoint's test posts.
pub fn webhook_test(id: &str) -> String {
    Route::WebhookTest.with(id)
}

/// Where an endpoint's switch posts.
pub fn webhook_enabled(id: &str) -> String {
    Route::WebhookEnabled.with(id)
}

/// Where a delivery's retry posts.
pub fn webhook_retry(id: &str) -> String {
    Route::WebhookRetry.with(id)
}

/// Where an endpoint's recovery posts.
pub fn webhook_recover(id: &str) -> String {
    Route::WebhookRecover.with(id)
}

/// Where an endpoint's deletion is confirmed and posted.
pub fn delete_webhook(id: &str) -> String {
    Route::DeleteWebhook.with(id)
}

/// The characters of a path segment written as they are: RFC 3986's unreserved ones.
/// Everything else is percent-encoded, `:` included, so that a segment can never be read as
/// a scheme, a query, a fragment or another segment, whatever an id's alphabet becomes.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

impl Route {
    /// The route's path with `value` as its parameter: see [`fill`].
    pub fn with(self, value: &str) -> String {
        fill(self.path(), value)
    }
}

/// `pattern` with `value` percent-encoded as its parameter's one segment: every console URL
/// that carries an id or a prefix is built here. (`.` and `..` cannot be ids: browsers
/// rewrite them even encoded; see `shop_domain::id`.) A pattern without a parameter is
/// returned as it is.
pub fn fill(pattern: &str, value: &str) -> String {
    match (pattern.find('{'), pattern.find('}')) {
        (Some(open), Some(close)) if open < close => format!(
            "{}{}{}",
            &pattern[..open],
            utf8_percent_encode(value, SEGMENT),
            &pattern[close + 1..]
        ),
        _ => pattern.to_owned(),
    }
}

/// `path` with the non-empty `params` as its query string: a page's link back to itself or
/// to a neighbour, read with `Form::query`.
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
            variant_tracking("sku:1.2_a-b~"),
            "/console/variants/sku%3A1.2_a-b~/tracking"
        );
        assert_eq!(
            variant_tracking("a/b?c#d%e"),
            "/console/variants/a%2Fb%3Fc%23d%25e/tracking"
        );
        assert_eq!(revoke_key("0a1b2c3d"), "/console/keys/0a1b2c3d/revoke");
        assert_eq!(webhook("we_a:b/c"), "/console/webhooks/we_a%3Ab%2Fc");
        assert_eq!(delete_webhook("we_1"), "/console/webhooks/we_1/delete");
    }

    #[test]
    fn every_path_is_the_prefix_and_the_pattern() {
        for route in Route::ALL {
            assert_eq!(
                route.path(),
                format!("{PREFIX}{}", route.pattern()),
                "{route:?}"
            );
        }
        assert_eq!(LOGIN, "/console/login");
        assert_eq!(OVERVIEW, "/console");
    }
}
