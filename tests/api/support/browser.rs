//! Debian's Chromium, driven over WebDriver by chromedriver, for the console's browser tests:
//! headless, a fresh profile, a screenshot of every page under `target/console-screenshots/`.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

use super::Backend;

/// `chromedriver` from `CHROMEDRIVER`, or Debian's.
pub fn chromedriver() -> Option<PathBuf> {
    let path = std::env::var_os("CHROMEDRIVER")
        .map_or_else(|| PathBuf::from("/usr/bin/chromedriver"), PathBuf::from);
    if path.is_file() {
        return Some(path);
    }
    let required = std::env::var("REQUIRE_BROWSER").is_ok_and(|v| v == "1");
    assert!(
        !required,
        "REQUIRE_BROWSER=1 but there is no chromedriver at {}",
        path.display()
    );
    eprintln!(
        "SKIPPED in a browser: no chromedriver at {} (apt-get install chromium chromium-driver)",
        path.display()
    );
    None
}

/// A chromedriver process, killed when dropped, and its browser session.
pub struct Browser {
    driver: Child,
    pub client: Client,
    _profile: tempfile::TempDir,
    shots: PathBuf,
    pub prefix: &'static str,
    taken: usize,
}

impl Browser {
    pub async fn start(driver: PathBuf, backend: Backend) -> Self {
        Self::start_with(driver, backend, &[]).await
    }

    /// A browser started with `extra` arguments after the usual ones.
    pub async fn start_with(driver: PathBuf, backend: Backend, extra: &[&str]) -> Self {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .map(|addr| addr.port())
            .unwrap();
        let driver = Command::new(driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        let profile = tempfile::tempdir().unwrap();
        // As the machine's probe runs Chromium: headless, as root without the sandbox, and
        // without the background traffic that a closed network refuses.
        let args = [
            "--headless=new".to_owned(),
            "--no-sandbox".to_owned(),
            "--disable-gpu".to_owned(),
            "--disable-dev-shm-usage".to_owned(),
            "--disable-quic".to_owned(),
            "--no-first-run".to_owned(),
            "--disable-background-networking".to_owned(),
            "--disable-component-update".to_owned(),
            "--disable-sync".to_owned(),
            "--window-size=1280,900".to_owned(),
            format!("--user-data-dir={}", profile.path().display()),
        ];
        let args: Vec<String> = args
            .into_iter()
            .chain(extra.iter().map(|arg| (*arg).to_owned()))
            .collect();
        let mut options = json!({"args": args});
        if let Some(binary) = std::env::var_os("CHROMIUM") {
            options["binary"] = json!(binary.to_string_lossy());
        }
        let capabilities = match json!({"goog:chromeOptions": options}) {
            Value::Object(map) => map,
            _ => unreachable!("a JSON object"),
        };
        let client = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(capabilities)
            .connect(&format!("http://{addr}"))
            .await
            .expect("a browser session");
        let shots = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/console-screenshots");
        std::fs::create_dir_all(&shots).unwrap();
        Self {
            driver,
            client,
            _profile: profile,
            shots,
            prefix: match backend {
                Backend::Sqlite => "sqlite",
                Backend::Postgres => "postgres",
            },
            taken: 0,
        }
    }

    pub async fn shot(&mut self, name: &str) {
        self.taken += 1;
        let png = self.client.screenshot().await.unwrap();
        let path = self
            .shots
            .join(format!("{}-{:02}-{name}.png", self.prefix, self.taken));
        std::fs::write(&path, png).unwrap();
    }

    pub async fn type_into(&self, css: &str, text: &str) {
        self.client
            .find(Locator::Css(css))
            .await
            .unwrap()
            .send_keys(text)
            .await
            .unwrap();
    }

    pub async fn click(&self, css: &str) {
        self.client
            .find(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("{css}: {e}"))
            .click()
            .await
            .unwrap();
    }

    /// Waits for the page at `path` (and its load) after a click.
    pub async fn arrive(&self, path: &str) {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let url = self.client.current_url().await.unwrap();
            if url.path() == path {
                return;
            }
            if Instant::now() >= deadline {
                let page = self.source().await;
                panic!("still at {url}, not {path}:\n{page}");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Waits for an element of the page a click or a form led to: the URL may change, or the
    /// form's own page stay, before that page is there.
    pub async fn wait_for(&self, css: &str) {
        let found = self
            .client
            .wait()
            .at_most(Duration::from_secs(10))
            .for_element(Locator::Css(css))
            .await;
        if let Err(error) = found {
            let page = self.source().await;
            panic!("{css}: {error}:\n{page}");
        }
    }

    pub async fn source(&self) -> String {
        self.client.source().await.unwrap()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}
