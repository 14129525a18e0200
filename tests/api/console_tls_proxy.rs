//! The console as the README deploys it, in a real browser, on both databases: nginx
//! terminating TLS on `https://localhost:{port}` in front of the server on loopback, and
//! `PUBLIC_URL` naming that address. An owner signs in through the proxy in Chromium, and the
//! session cookie Chromium keeps is read back from it: `__Host-`, `Secure`, `HttpOnly`,
//! `SameSite=Strict`, `Path=/`. A form posted through the proxy (its `Origin` is the public
//! one, its `Host` the proxy's) is accepted.

use fantoccini::Locator;

use crate::support::browser::{Browser, chromedriver};
use crate::support::tls_proxy::TlsProxy;
use crate::support::{Backend, TestApp};

mod behind_nginx {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sqlite() {
        super::an_owner_signs_in_through_a_tls_proxy(crate::support::Backend::Sqlite).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn postgres() {
        super::an_owner_signs_in_through_a_tls_proxy(crate::support::Backend::Postgres).await;
    }
}

async fn an_owner_signs_in_through_a_tls_proxy(backend: Backend) {
    let Some((nginx, openssl)) = TlsProxy::available() else {
        return;
    };
    let Some(driver) = chromedriver() else {
        return;
    };
    let port = TlsProxy::free_port();
    let public_url = TlsProxy::public_url(port);
    let Some(app) = TestApp::start_public(backend, &public_url).await else {
        return;
    };
    let upstream = app
        .base_url()
        .trim_start_matches("http://")
        .parse()
        .unwrap();
    let proxy = TlsProxy::start(&nginx, &openssl, port, upstream);
    let demo = shop_app::demo::prepare(&app.services).await.unwrap();
    // The test's certificate is its own: Chromium is told to accept it, as it would accept a
    // real one.
    let mut browser = Browser::start_with(driver, backend, &["--ignore-certificate-errors"]).await;

    browser
        .client
        .goto(&format!("{public_url}/console/login"))
        .await
        .unwrap();
    browser.type_into("#email", demo.owner_email.as_str()).await;
    browser.type_into("#password", &demo.owner_password).await;
    browser.click("#sign-in").await;
    browser.arrive("/console").await;
    assert!(
        browser.source().await.contains("Maison Lumière (demo)"),
        "{}",
        proxy.error_log()
    );
    browser.shot("tls-overview").await;

    let cookies = browser.client.get_all_cookies().await.unwrap();
    let session = cookies
        .iter()
        .find(|cookie| cookie.name() == "__Host-shop_console_session")
        .unwrap_or_else(|| panic!("no __Host- session cookie in {cookies:?}"));
    assert_eq!(session.secure(), Some(true), "{session:?}");
    assert_eq!(session.http_only(), Some(true), "{session:?}");
    assert_eq!(
        session.same_site().map(|same_site| same_site.to_string()),
        Some("Strict".to_owned()),
        "{session:?}"
    );
    assert_eq!(session.path(), Some("/"), "{session:?}");
    assert!(
        !cookies
            .iter()
            .any(|cookie| cookie.name() == "shop_console_session"),
        "no cookie without the prefix: {cookies:?}"
    );

    // A form through the proxy: Chromium sends the public origin, which is the one accepted.
    browser
        .client
        .goto(&format!("{public_url}/console/keys"))
        .await
        .unwrap();
    browser.type_into("#label", "Through the proxy").await;
    browser.click("#scope-products-read").await;
    browser.click("#create-key").await;
    let field = browser
        .client
        .wait()
        .at_most(std::time::Duration::from_secs(10))
        .for_element(Locator::Css("#new-key"))
        .await
        .unwrap_or_else(|e| panic!("{e}: {}", proxy.error_log()));
    let key = field.prop("value").await.unwrap().expect("the key");
    assert!(key.starts_with("svc_live_"), "{key}");
    browser.shot("tls-key-created").await;
    let me = app.get("/api/v1/me", &key).await;
    assert_eq!(me.status, 200, "{}", me.text);
    browser.client.clone().close().await.unwrap();
}
