//! The console as deployed behind a TLS proxy on the same host (`PUBLIC_URL=https://...`),
//! over HTTP to the server itself, on both databases: the session cookie a browser is handed,
//! HSTS on every page, forms accepted from the public origin only, whatever `Host` says; and
//! a form whose body trickles in is cut at the API's deadline. The same deployment in a real
//! browser through a real proxy: `console_tls_proxy.rs`.

use std::time::Duration;

use crate::support::console::ConsoleBrowser;
use crate::support::trickle::trickle;
use crate::support::{Backend, TestApp};

const PUBLIC_URL: &str = "https://shop.example";
const PASSWORD: &str = "correct horse battery staple";

/// Each scenario on a server whose `PUBLIC_URL` is [`PUBLIC_URL`], on both databases.
macro_rules! behind_a_tls_proxy {
    ($($scenario:ident),* $(,)?) => {$(
        mod $scenario {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                let app = crate::support::TestApp::start_public(
                    crate::support::Backend::Sqlite,
                    super::PUBLIC_URL,
                )
                .await;
                super::$scenario(app.expect("SQLite is always available")).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                if let Some(app) = crate::support::TestApp::start_public(
                    crate::support::Backend::Postgres,
                    super::PUBLIC_URL,
                )
                .await
                {
                    super::$scenario(app).await;
                }
            }
        }
    )*};
}

behind_a_tls_proxy!(
    the_session_cookie_is_host_only_and_secure_and_every_page_sends_hsts,
    a_form_is_accepted_from_the_public_origin_only_whatever_the_host,
);

async fn the_session_cookie_is_host_only_and_secure_and_every_page_sends_hsts(app: TestApp) {
    app.create_shop("atelier").await;
    app.create_owner("atelier", "ana@atelier.fr", PASSWORD)
        .await;
    let mut signing_in = ConsoleBrowser::new(&app);
    let signed_in = signing_in
        .post_form(
            "/console/login",
            &[("email", "ana@atelier.fr"), ("password", PASSWORD)],
        )
        .await;
    assert_eq!(signed_in.status, 303, "{}", signed_in.text);
    let set_cookies: Vec<&str> = signed_in
        .headers
        .get_all("set-cookie")
        .iter()
        .filter_map(|value| value.to_str().ok())
        .collect();
    let cookie = set_cookies
        .iter()
        .find(|cookie| cookie.contains("shop_console_session="))
        .unwrap();
    let device = set_cookies
        .iter()
        .find(|cookie| cookie.contains("shop_console_device="))
        .unwrap();
    assert!(
        device.starts_with("__Host-shop_console_device="),
        "{device}"
    );
    assert!(device.split("; ").any(|part| part == "Secure"), "{device}");
    assert!(
        cookie.starts_with("__Host-shop_console_session="),
        "{cookie}"
    );
    let attributes: Vec<&str> = cookie.split("; ").collect();
    for attribute in ["Secure", "HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(attributes.contains(&attribute), "{attribute}: {cookie}");
    }
    assert!(!cookie.contains("Domain"), "{cookie}");

    let mut console = ConsoleBrowser::sign_in(&app, "ana@atelier.fr", PASSWORD).await;
    for path in [
        "/console",
        "/console/keys",
        "/console/activity",
        "/console/nowhere",
    ] {
        let page = console.get(path).await;
        assert_eq!(
            page.header("strict-transport-security"),
            Some("max-age=31536000"),
            "{path}: {:?}",
            page.headers
        );
        assert_eq!(
            page.header("referrer-policy"),
            Some("same-origin"),
            "{path}"
        );
    }
    let signed_out = ConsoleBrowser::new(&app).get("/console/login").await;
    assert_eq!(
        signed_out.header("strict-transport-security"),
        Some("max-age=31536000")
    );

    // A cookie of the old name, planted over plain HTTP or by a sibling subdomain, is no
    // session here, even holding a live session's id.
    let live = console.cookie().unwrap();
    let value = live.split_once('=').unwrap().1;
    let mut planted = ConsoleBrowser::with_cookie(&app, format!("shop_console_session={value}"));
    assert_eq!(planted.get("/console/keys").await.status, 303);
}

async fn a_form_is_accepted_from_the_public_origin_only_whatever_the_host(app: TestApp) {
    app.create_shop("atelier").await;
    app.create_owner("atelier", "ana@atelier.fr", PASSWORD)
        .await;
    let mut console = ConsoleBrowser::sign_in(&app, "ana@atelier.fr", PASSWORD).await;
    let keys = console.get("/console/keys").await;
    assert_eq!(keys.status, 200);
    let csrf = console.csrf.clone().unwrap();
    let cookie = console.cookie().unwrap();
    let fields = [
        ("label", "Forged"),
        ("scopes", "products:read"),
        ("expires_at", ""),
        ("csrf_token", csrf.as_str()),
    ];
    let body: String = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(fields)
        .finish();
    // Before PUBLIC_URL, an `Origin` naming the request's own `Host` passed: behind a proxy
    // that is the proxy's upstream address, or a rebound DNS name.
    let host_origin = app.base_url().to_owned();
    for (origin, fetch_site) in [
        (Some(host_origin.as_str()), None),
        (Some(host_origin.as_str()), Some("same-origin")),
        (Some("null"), Some("same-origin")),
        (None, Some("same-origin")),
        (Some("http://shop.example"), None),
        (Some("https://evil.example"), None),
    ] {
        let mut request = app
            .client()
            .post(app.url("/console/keys"))
            .header("cookie", &cookie)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body.clone());
        if let Some(origin) = origin {
            request = request.header("origin", origin);
        }
        if let Some(site) = fetch_site {
            request = request.header("sec-fetch-site", site);
        }
        let refused = app.send(request).await;
        assert_eq!(refused.status, 403, "{origin:?} {fetch_site:?}");
    }
    let listed = console.get("/console/keys").await;
    assert!(!listed.text.contains("Forged"), "no key was made");

    let created = console.post("/console/keys", &fields[..3]).await;
    assert_eq!(created.status, 200, "{}", created.text);
    assert!(console.get("/console/keys").await.text.contains("Forged"));
}

/// A sign-in form whose body never finishes is answered 408 at the API's body deadline (10 s)
/// and its connection closed, as a JSON body of the API is; no database is involved before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trickled_console_form_is_cut_with_408() {
    let app = TestApp::start(Backend::Sqlite).await.unwrap();
    let (answer, waited) = trickle(&app, |address| {
        format!(
            "POST /console/login HTTP/1.1\r\nHost: {address}\r\n\
             Content-Type: application/x-www-form-urlencoded\r\n\
             Content-Length: 100\r\n\r\nemail=ana%40atelier.fr&pass"
        )
    })
    .await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("The form took too long"), "{answer}");
    assert!(
        (Duration::from_secs(9)..Duration::from_secs(20)).contains(&waited),
        "answered after {waited:?}"
    );
}
