//! `shop-api serve` as deployed: real processes, one database, rate limits shared through
//! Redis (`TEST_REDIS_URL`; skipped when unset unless `REQUIRE_REDIS=1`), and what happens when
//! Redis is down.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use super::Cli;

/// Nothing listens on port 1.
const CLOSED_REDIS: &str = "redis://127.0.0.1:1";

fn test_redis_url() -> Option<String> {
    match std::env::var("TEST_REDIS_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            let required = std::env::var("REQUIRE_REDIS").is_ok_and(|v| v == "1");
            assert!(!required, "REQUIRE_REDIS=1 but TEST_REDIS_URL is not set");
            eprintln!("SKIPPED on Redis: TEST_REDIS_URL is not set");
            None
        }
    }
}

/// A `shop-api serve` process, killed when dropped (pass or fail).
pub(super) struct Server {
    pub(super) child: Child,
    pub(super) addr: SocketAddr,
    log: PathBuf,
}

impl Server {
    pub(super) fn start(cli: &Cli, env: &[(&str, &str)]) -> Self {
        let addr = free_port();
        let log = cli.dir.path().join(format!("serve-{}.log", addr.port()));
        let child = cli
            .command()
            .args(["serve", "--bind", &addr.to_string(), "--workers", "2"])
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            // A file, not a pipe: nobody reads the logs while the test runs, and a full pipe
            // would block the server.
            .stderr(File::create(&log).expect("log file"))
            .spawn()
            .expect("start shop-api serve");
        let mut server = Self { child, addr, log };
        server.wait_until_listening();
        server
    }

    fn wait_until_listening(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while TcpStream::connect_timeout(&self.addr, Duration::from_millis(200)).is_err() {
            if let Some(status) = self.child.try_wait().expect("child status") {
                panic!("shop-api serve exited with {status}:\n{}", self.log());
            }
            assert!(Instant::now() < deadline, "not listening:\n{}", self.log());
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub(super) fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Whether the log holds `text` within a few seconds: lines reach the file in batches,
    /// after the server is already listening.
    fn logs_soon(&self, text: &str) -> bool {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            if self.log().contains(text) {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// `POST path` with a JSON body and a bearer key over a plain HTTP/1.1 connection: the
    /// status.
    pub(super) fn post_json(&self, path: &str, key: &str, body: &serde_json::Value) -> u16 {
        let mut stream = TcpStream::connect(self.addr).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .expect("timeout");
        let body = body.to_string();
        write!(
            stream,
            "POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n\
             {body}",
            body.len()
        )
        .expect("send");
        let mut response = String::new();
        stream.read_to_string(&mut response).expect("read");
        response
            .split(' ')
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("not an HTTP response: {response}"))
    }

    /// `GET /api/v1/me` over a plain HTTP/1.1 connection: the status and the raw head.
    fn get_me(&self, key: &str) -> (u16, String) {
        let mut stream = TcpStream::connect(self.addr).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .expect("timeout");
        write!(
            stream,
            "GET /api/v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n\
             Connection: close\r\n\r\n"
        )
        .expect("send");
        let mut response = String::new();
        stream.read_to_string(&mut response).expect("read");
        let head = response
            .split("\r\n\r\n")
            .next()
            .unwrap_or_default()
            .to_owned();
        let status = head
            .split(' ')
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("not an HTTP response: {response}"));
        (status, head)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> SocketAddr {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
}

/// A shop and a key that may call `GET /me`, created through the CLI.
fn shop_with_key(cli: &Cli) -> String {
    cli.ok(&["shop", "create", "--slug", "atelier", "--name", "Atelier"]);
    cli.key("atelier", "products:read")
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|line| {
        let (field, value) = line.split_once(':')?;
        field.eq_ignore_ascii_case(name).then(|| value.trim())
    })
}

/// Sends `count` reads, spread over `servers` in turn: how many got each status, and the head
/// of the first 429.
fn reads(servers: &[&Server], key: &str, count: usize) -> (BTreeMap<u16, usize>, Option<String>) {
    let mut statuses = BTreeMap::new();
    let mut first_refusal = None;
    for n in 0..count {
        let (status, head) = servers[n % servers.len()].get_me(key);
        *statuses.entry(status).or_insert(0) += 1;
        if status == 429 && first_refusal.is_none() {
            first_refusal = Some(head);
        }
    }
    (statuses, first_refusal)
}

fn assert_retry_after(refusal: Option<String>) {
    let head = refusal.expect("a 429");
    let retry_after: u32 = header(&head, "retry-after")
        .and_then(|value| value.parse().ok())
        .unwrap_or_else(|| panic!("no Retry-After in {head}"));
    assert!((1..=60).contains(&retry_after), "{head}");
}

#[test]
fn two_instances_on_one_redis_share_one_read_budget() {
    let Some(redis_url) = test_redis_url() else {
        return;
    };
    let cli = Cli::new();
    let key = shop_with_key(&cli);
    let prefix = format!("shop-api-cli-test:{}:", uuid::Uuid::now_v7().simple());
    let env = [
        ("REDIS_URL", redis_url.as_str()),
        ("REDIS_KEY_PREFIX", prefix.as_str()),
    ];
    let (a, b) = (Server::start(&cli, &env), Server::start(&cli, &env));

    let (statuses, refusal) = reads(&[&a, &b], &key, 240);

    assert_eq!(
        statuses,
        BTreeMap::from([(200, 120), (429, 120)]),
        "one budget of 120 for both instances, not 240\n{}\n{}",
        a.log(),
        b.log()
    );
    assert_retry_after(refusal);
    for server in [&a, &b] {
        assert!(
            !server.log().contains("Redis is unreachable"),
            "{}",
            server.log()
        );
    }
}

#[test]
fn with_redis_unreachable_an_instance_serves_and_limits_on_its_own() {
    let cli = Cli::new();
    let key = shop_with_key(&cli);
    let server = Server::start(&cli, &[("REDIS_URL", CLOSED_REDIS)]);
    assert!(
        server.logs_soon("Redis is unreachable"),
        "a warning at startup:\n{}",
        server.log()
    );

    let (statuses, refusal) = reads(&[&server], &key, 130);

    assert_eq!(
        statuses,
        BTreeMap::from([(200, 120), (429, 10)]),
        "{}",
        server.log()
    );
    assert_retry_after(refusal);
    assert_eq!(
        server.log().matches("Redis is unreachable").count(),
        1,
        "one warning per outage:\n{}",
        server.log()
    );
}

#[test]
fn a_malformed_redis_url_or_a_zero_limit_refuses_to_start() {
    let cli = Cli::new();
    let output = cli
        .command()
        .args(["serve", "--bind", "127.0.0.1:0"])
        .env("REDIS_URL", "127.0.0.1:6379")
        .output()
        .expect("run shop-api");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("error: REDIS_URL"), "{stderr}");

    let output = cli
        .command()
        .args(["serve", "--bind", "127.0.0.1:0"])
        .env("RATE_LIMIT_READS_PER_MINUTE", "0")
        .output()
        .expect("run shop-api");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--rate-limit-reads-per-minute") && stderr.contains("at least 1"),
        "{stderr}"
    );
}
