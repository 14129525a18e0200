//! A server's life as an operator sees it: startup errors are one line and a non-zero exit,
//! and SIGTERM with writes in flight exits 0 without losing an answered write.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Command, ExitStatus};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::Cli;
use super::serve::Server;

/// `shop-api serve` with `env`, expected to refuse to start: its exit status and stderr.
fn refused_start(cli: &Cli, args: &[&str], env: &[(&str, &str)]) -> (ExitStatus, String) {
    let output = cli
        .command()
        .arg("serve")
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("run shop-api");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.status, stderr)
}

fn assert_one_error_line(status: ExitStatus, stderr: &str, starts_with: &str) {
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "one line:\n{stderr}");
    assert!(stderr.starts_with(starts_with), "{stderr}");
}

#[test]
fn startup_errors_are_one_clear_line_and_a_non_zero_exit() {
    let cli = Cli::new();
    let bind = ["--bind", "127.0.0.1:0"];

    let (status, stderr) = refused_start(&cli, &bind, &[("DATABASE_URL", "mysql://root@h/db")]);
    assert_one_error_line(
        status,
        &stderr,
        "error: unsupported database URL scheme `mysql`",
    );

    // Nothing listens on port 1: refused at once.
    let unreachable = "postgres://shop:s3cret@127.0.0.1:1/shop";
    let (status, stderr) = refused_start(&cli, &bind, &[("DATABASE_URL", unreachable)]);
    assert_one_error_line(status, &stderr, "error: cannot open the postgres database");
    assert!(
        stderr.contains("127.0.0.1:1"),
        "names the database: {stderr}"
    );
    assert!(!stderr.contains("s3cret"), "never the password: {stderr}");

    // The port is taken before the database is opened: no migration runs, nothing else logs.
    let taken = TcpListener::bind("127.0.0.1:0").expect("a port");
    let address = taken.local_addr().expect("address").to_string();
    let (status, stderr) = refused_start(&cli, &["--bind", &address], &[]);
    assert_one_error_line(
        status,
        &stderr,
        &format!("error: cannot listen on {address}"),
    );
    assert!(
        !cli.dir.path().join("cli.db").exists(),
        "the database was not touched"
    );

    for (name, value) in [
        ("DATABASE_WAIT_TIMEOUT_MS", "soon"),
        ("DATABASE_POOL_SIZE", "0"),
        ("WORKERS", "0"),
        ("SHUTDOWN_TIMEOUT_SECONDS", "-1"),
        ("METRICS_BIND", "localhost"),
        ("TRUSTED_PROXIES", "10.0.0.0/8,proxy.internal"),
        ("AUTH_FAILURES_PER_KEY_PER_MINUTE", "0"),
    ] {
        let (status, stderr) = refused_start(&cli, &bind, &[(name, value)]);
        assert_eq!(status.code(), Some(2), "{name}={value}: {stderr}");
        assert!(stderr.starts_with("error: invalid value"), "{stderr}");
    }
}

#[test]
fn the_console_is_served_beyond_loopback_only_behind_an_https_public_url() {
    let cli = Cli::new();
    let anywhere = ["--bind", "0.0.0.0:0"];
    let (status, stderr) = refused_start(&cli, &anywhere, &[]);
    assert_one_error_line(
        status,
        &stderr,
        "error: refusing to serve the owners' console on 0.0.0.0 without PUBLIC_URL",
    );
    assert!(stderr.contains("--insecure-console"), "{stderr}");
    let (status, stderr) = refused_start(&cli, &anywhere, &[("PUBLIC_URL", "http://shop.example")]);
    assert_one_error_line(
        status,
        &stderr,
        "error: refusing to serve the owners' console on 0.0.0.0 over plain HTTP",
    );
    assert!(
        !cli.dir.path().join("cli.db").exists(),
        "refused before the database is opened"
    );
    for bad in ["shop.example", "https://shop.example/console"] {
        let (status, stderr) = refused_start(&cli, &anywhere, &[("PUBLIC_URL", bad)]);
        assert_eq!(status.code(), Some(2), "{bad}: {stderr}");
        assert!(stderr.contains("PUBLIC_URL must"), "{stderr}");
    }

    // Given an https PUBLIC_URL, or told `--insecure-console`, it serves.
    for extra in [
        &["--public-url", "https://shop.example"][..],
        &["--insecure-console"],
    ] {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let mut child = cli
            .command()
            .args([
                "serve",
                "--workers",
                "1",
                "--bind",
                &format!("0.0.0.0:{port}"),
            ])
            .args(extra)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start shop-api serve");
        let local = SocketAddr::from(([127, 0, 0, 1], port));
        let deadline = Instant::now() + Duration::from_secs(60);
        let page = loop {
            if let Ok(mut stream) = TcpStream::connect(local) {
                write!(
                    stream,
                    "GET /console/login HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                )
                .expect("send");
                let mut page = String::new();
                stream.read_to_string(&mut page).expect("read");
                break page;
            }
            assert!(
                child.try_wait().expect("status").is_none(),
                "{extra:?}: exited"
            );
            assert!(Instant::now() < deadline, "{extra:?}: not listening");
            thread::sleep(Duration::from_millis(50));
        };
        let _ = child.kill();
        let _ = child.wait();
        assert!(page.starts_with("HTTP/1.1 200"), "{extra:?}: {page}");
        let hsts = page
            .to_ascii_lowercase()
            .contains("strict-transport-security: max-age=31536000");
        assert_eq!(hsts, extra[0] == "--public-url", "{extra:?}: {page}");
    }
}

/// One product whose single variant tracks stock, starting at 0.
fn stocked_shop(cli: &Cli) -> String {
    cli.ok(&["shop", "create", "--slug", "atelier", "--name", "Atelier"]);
    let file = cli.write(
        "stock.json",
        &json!({"products": [{"id": "p1", "name": "Bol", "priceCents": 100, "taxRate": "20.00",
            "trackStock": true,
            "variants": [{"id": "v1", "label": "Unique", "priceCents": 100, "stock": 0}]}]}),
    );
    cli.ok(&["import", "--shop", "atelier", &file]);
    cli.key("atelier", "stock:write")
}

/// What a client saw of one adjustment.
struct Answer {
    request_id: String,
    status: u16,
    body: String,
}

/// `POST /api/v1/stock/adjustments` of +1 on its own connection; `None` when the connection
/// was refused or closed without an answer (the server had stopped accepting).
fn adjust(addr: SocketAddr, key: &str, request_id: &str) -> Option<Answer> {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(2)).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .ok()?;
    let body = json!({"variantId": "v1", "quantity": 1, "reason": "restock"}).to_string();
    write!(
        stream,
        "POST /api/v1/stock/adjustments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nIdempotency-Key: {request_id}\r\n\
         X-Request-Id: {request_id}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    let (head, body) = response.split_once("\r\n\r\n")?;
    let status = head.split(' ').nth(1)?.parse().ok()?;
    Some(Answer {
        request_id: request_id.to_owned(),
        status,
        body: body.to_owned(),
    })
}

/// Waits for the process to exit by itself.
fn exit_status(server: &mut Server, within: Duration) -> ExitStatus {
    let deadline = Instant::now() + within;
    loop {
        if let Some(status) = server.child.try_wait().expect("child status") {
            return status;
        }
        assert!(
            Instant::now() < deadline,
            "still running:\n{}",
            server.log()
        );
        thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn sigterm_with_writes_in_flight_exits_0_and_every_answered_write_is_stored() {
    let cli = Cli::new();
    let key = stocked_shop(&cli);
    let mut server = Server::start(
        &cli,
        &[
            ("RATE_LIMIT_WRITES_PER_MINUTE", "1000000"),
            ("LOG_FORMAT", "json"),
            ("SHUTDOWN_TIMEOUT_SECONDS", "20"),
        ],
    );
    let addr = server.addr;

    // Eight clients write as fast as they can until the server stops answering.
    let stopped = Arc::new(AtomicBool::new(false));
    let clients: Vec<_> = (0..8)
        .map(|client| {
            let (key, stopped) = (key.clone(), Arc::clone(&stopped));
            thread::spawn(move || {
                let mut answers = Vec::new();
                for n in 0.. {
                    match adjust(addr, &key, &format!("c{client}-{n}")) {
                        Some(answer) => answers.push(answer),
                        None if stopped.load(Ordering::SeqCst) => break,
                        None => panic!("connection failed before the stop"),
                    }
                }
                answers
            })
        })
        .collect();
    thread::sleep(Duration::from_millis(500));
    stopped.store(true, Ordering::SeqCst);
    let pid = server.child.id().to_string();
    let sent = Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill");
    assert!(sent.success());
    let status = exit_status(&mut server, Duration::from_secs(30));
    let answers: Vec<Answer> = clients
        .into_iter()
        .flat_map(|client| client.join().expect("client thread"))
        .collect();

    assert_eq!(status.code(), Some(0), "{}", server.log());
    let created: Vec<&Answer> = answers.iter().filter(|a| a.status == 201).collect();
    assert!(created.len() >= 8, "the clients wrote: {}", created.len());
    assert!(
        answers.iter().all(|a| a.status == 201),
        "every answer is a 201, none a 503 or a reset: {:?}",
        answers
            .iter()
            .filter(|a| a.status != 201)
            .map(|a| (a.status, a.body.as_str()))
            .collect::<Vec<_>>()
    );

    // Every movement a client was told about is stored.
    let listing = cli.ok(&["stock", "movements", "--shop", "atelier", "--variant", "v1"]);
    for answer in &created {
        let body: Value = serde_json::from_str(&answer.body).expect("JSON body");
        let movement = body["data"]["movementId"].as_str().expect("a movement id");
        assert!(
            listing.contains(movement),
            "{movement} was answered 201 but is lost"
        );
    }

    // The run's log: one access line per answered request, and never the key's secret.
    let log = server.log();
    let secret = &key[key.len() - 64..];
    assert!(!log.contains(secret), "the key's secret was logged");
    let access: Vec<Value> = log
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| line["target"] == "access")
        .collect();
    for answer in &created {
        let lines: Vec<&Value> = access
            .iter()
            .filter(|line| line["fields"]["request_id"] == answer.request_id.as_str())
            .collect();
        assert_eq!(lines.len(), 1, "{}: {lines:?}", answer.request_id);
        let fields = &lines[0]["fields"];
        assert_eq!(fields["route"], "/api/v1/stock/adjustments");
        assert_eq!(fields["status"], 201);
        assert_eq!(fields["key_prefix"], &key[9..17]);
        assert!(fields["shop_id"].is_string(), "{fields}");
    }
    assert!(log.contains("SIGTERM"), "{log}");
}
