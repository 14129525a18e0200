//! The owners' console as a browser sees it over HTTP: a session cookie and a device cookie
//! kept between requests, redirects not followed (their status is the point), forms posted
//! with the page's origin and the anti-CSRF token read off the last page.

use reqwest::header;

use super::{Reply, TestApp};

/// The device cookie's name (`shop_console::device_cookie`); every other cookie the console
/// sets is the session's.
pub const DEVICE_COOKIE: &str = "shop_console_device";

pub struct ConsoleBrowser<'a> {
    app: &'a TestApp,
    client: reqwest::Client,
    cookie: Option<String>,
    /// The `name=value` of the device cookie, kept across sign-outs as a browser keeps it.
    device: Option<String>,
    /// The `csrf_token` of the last page that had one.
    pub csrf: Option<String>,
}

impl<'a> ConsoleBrowser<'a> {
    pub fn new(app: &'a TestApp) -> Self {
        Self {
            app,
            client: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("client"),
            cookie: None,
            device: None,
            csrf: None,
        }
    }

    /// Signs in; panics unless the console answers 303 to `/console` with a cookie.
    pub async fn sign_in(app: &'a TestApp, email: &str, password: &str) -> Self {
        let mut browser = Self::new(app);
        let reply = browser
            .post_form(
                "/console/login",
                &[("email", email), ("password", password)],
            )
            .await;
        assert_eq!(reply.status, 303, "sign-in: {}", reply.text);
        assert_eq!(reply.header("location"), Some("/console"));
        assert!(browser.cookie.is_some(), "a session cookie");
        browser
    }

    /// The `name=value` of the session cookie the browser holds.
    pub fn cookie(&self) -> Option<String> {
        self.cookie.clone()
    }

    /// A browser holding a copy of another's session cookie.
    pub fn with_cookie(app: &'a TestApp, cookie: String) -> Self {
        Self {
            cookie: Some(cookie),
            ..Self::new(app)
        }
    }

    /// The value of the device cookie the browser holds.
    pub fn device_cookie(&self) -> Option<String> {
        let pair = self.device.as_deref()?;
        pair.split_once('=').map(|(_, value)| value.to_owned())
    }

    /// A browser without a session holding a device cookie of this value (copied from
    /// another browser, altered, or made up).
    pub fn with_device_cookie(app: &'a TestApp, value: &str) -> Self {
        Self {
            device: Some(format!("{DEVICE_COOKIE}={value}")),
            ..Self::new(app)
        }
    }

    /// `POST /console/login`, with the cookies the browser holds.
    pub async fn try_sign_in(&mut self, email: &str, password: &str) -> Reply {
        self.post_form(
            "/console/login",
            &[("email", email), ("password", password)],
        )
        .await
    }

    pub async fn get(&mut self, path: &str) -> Reply {
        let request = self.client.get(self.app.url(path));
        self.send(request).await
    }

    /// A form as the console's pages post it: same origin, the session's cookie, and the
    /// last page's `csrf_token` added unless `fields` has one.
    pub async fn post(&mut self, path: &str, fields: &[(&str, &str)]) -> Reply {
        let csrf = self.csrf.clone();
        let mut fields: Vec<(&str, &str)> = fields.to_vec();
        if let Some(token) = csrf.as_deref()
            && !fields.iter().any(|(name, _)| *name == "csrf_token")
        {
            fields.push(("csrf_token", token));
        }
        self.post_form(path, &fields).await
    }

    /// Exactly `fields`, nothing added.
    pub async fn post_form(&mut self, path: &str, fields: &[(&str, &str)]) -> Reply {
        let body: String = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(fields)
            .finish();
        let request = self
            .client
            .post(self.app.url(path))
            .header(header::ORIGIN, self.app.console_origin())
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(body);
        self.send(request).await
    }

    async fn send(&mut self, mut request: reqwest::RequestBuilder) -> Reply {
        let held: Vec<&str> = [&self.cookie, &self.device]
            .into_iter()
            .filter_map(Option::as_deref)
            .collect();
        if !held.is_empty() {
            request = request.header(header::COOKIE, held.join("; "));
        }
        let reply = self.app.send(request).await;
        for set in reply.headers.get_all(header::SET_COOKIE) {
            let pair = set
                .to_str()
                .unwrap_or_default()
                .split(';')
                .next()
                .unwrap_or_default();
            let kept = pair.strip_suffix('=').is_none().then(|| pair.to_owned());
            // `__Host-shop_console_device` behind an https PUBLIC_URL.
            let name = pair.split('=').next().unwrap_or_default();
            if name.ends_with(DEVICE_COOKIE) {
                self.device = kept;
            } else {
                self.cookie = kept;
            }
        }
        if let Some(token) = hidden_value(&reply.text, "csrf_token") {
            self.csrf = Some(token);
        }
        reply
    }
}

/// The `value` of the first `<input ... name="{name}" ... value="...">` of a page.
pub fn hidden_value(page: &str, name: &str) -> Option<String> {
    let at = page.find(&format!("name=\"{name}\""))?;
    let tag_start = page[..at].rfind('<')?;
    let tag_end = at + page[at..].find('>')?;
    attribute(&page[tag_start..tag_end], "value")
}

/// The value of `name="..."` in one tag's text.
pub fn attribute(tag: &str, name: &str) -> Option<String> {
    let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    let end = start + tag[start..].find('"')?;
    Some(tag[start..end].to_owned())
}

/// The value of the input with this `id`.
pub fn input_value(page: &str, id: &str) -> Option<String> {
    let at = page.find(&format!("id=\"{id}\""))?;
    let tag_start = page[..at].rfind('<')?;
    let tag_end = at + page[at..].find('>')?;
    attribute(&page[tag_start..tag_end], "value")
}
