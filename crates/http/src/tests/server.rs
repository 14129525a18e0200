//! `serve` on a real socket: the one place where actix-http's HEAD handling shows.

use std::net::TcpListener;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use super::{TestApi, full_product, key};
use crate::{Operations, ServerOptions, serve};

fn one_worker() -> ServerOptions {
    ServerOptions {
        workers: 1,
        stop_on_signals: false,
        ..ServerOptions::default()
    }
}

async fn exchange(address: std::net::SocketAddr, method: &str) -> String {
    let mut stream = TcpStream::connect(address).await.unwrap();
    let request = format!(
        "{method} /api/v1/products/prod_1 HTTP/1.1\r\nHost: test\r\n\
         Authorization: Bearer {}\r\nConnection: close\r\n\r\n",
        key()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.unwrap();
    String::from_utf8(response).unwrap()
}

/// The head's lines, without those that differ between two requests by design: the date, the
/// request id, and the remaining budget (each request consumes one).
fn head_lines(response: &str) -> Vec<String> {
    let (head, _) = response.split_once("\r\n\r\n").unwrap();
    head.lines()
        .map(str::to_ascii_lowercase)
        .filter(|line| {
            ![
                "date:",
                "x-request-id:",
                "ratelimit:",
                "x-ratelimit-remaining:",
            ]
            .iter()
            .any(|varying| line.starts_with(varying))
        })
        .collect()
}

fn header_line<'a>(response: &'a str, name: &str) -> Option<&'a str> {
    response
        .lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(": "))
}

#[actix_web::test]
async fn serves_on_a_bound_listener_and_head_has_no_body() {
    let mut repository = shop_ports::port::MockCatalogueRepository::new();
    repository
        .expect_find_product()
        .returning(|_, _, _| Ok(Some(full_product("prod_1"))));
    let state = TestApi::new().repository(repository).state();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let server = serve(
        listener,
        state,
        Operations::default(),
        one_worker(),
        Vec::new(),
    )
    .unwrap();
    let handle = server.handle();
    actix_web::rt::spawn(server);

    let get = exchange(address, "GET").await;
    let head = exchange(address, "HEAD").await;
    handle.stop(true).await;

    assert!(get.starts_with("HTTP/1.1 200 OK\r\n"), "{get}");
    assert!(get.ends_with('}'), "{get}");
    assert_eq!(head_lines(&head), head_lines(&get));
    // HEAD reads like GET and counts on the same budget, on a real connection too.
    assert_eq!(
        header_line(&get.to_ascii_lowercase(), "ratelimit"),
        Some("\"reads\";r=119;t=60")
    );
    assert_eq!(
        header_line(&head.to_ascii_lowercase(), "ratelimit"),
        Some("\"reads\";r=118;t=60")
    );
    assert!(head.ends_with("\r\n\r\n"), "HEAD sent a body: {head}");
}

#[test]
fn zero_workers_is_refused_rather_than_a_panic() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let no_worker = ServerOptions {
        workers: 0,
        ..one_worker()
    };
    let result = serve(
        listener,
        TestApi::new().state(),
        Operations::default(),
        no_worker,
        Vec::new(),
    );
    assert!(result.is_err());
}
