//! Attempts against receivers on loopback: real sockets, real HTTP.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_body_util::{BodyExt as _, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::HeaderValue;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{HeaderMap, Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use shop_domain::webhook::delivery::ATTEMPT_TIMEOUT;
use shop_domain::webhook::{EndpointUrl, NetworkPolicy, SignatureHeader, WebhookSecret};
use shop_ports::port::{OutgoingDelivery, SentAttempt, WebhookSender};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};

use crate::HttpWebhookSender;

const SHORT: Duration = Duration::from_millis(200);
/// The workers' bound on attempts in flight, as the tests' senders are given it.
const IN_FLIGHT: usize = 16;

/// A request as the receiver got it.
struct Received {
    method: Method,
    path_and_query: String,
    headers: HeaderMap,
    body: Bytes,
}

/// An HTTP/1.1 server on 127.0.0.1 that records each request and answers it with `answer`.
struct Receiver {
    address: SocketAddr,
    received: Arc<Mutex<Vec<Received>>>,
    connections: Arc<AtomicUsize>,
}

type Answer = Arc<dyn Fn() -> Response<Full<Bytes>> + Send + Sync>;

impl Receiver {
    async fn start(answer: impl Fn() -> Response<Full<Bytes>> + Send + Sync + 'static) -> Self {
        Self::answering_after(Duration::ZERO, answer).await
    }

    /// A receiver that holds each request `delay` before its answer, so that attempts sent
    /// together are in flight together.
    async fn answering_after(
        delay: Duration,
        answer: impl Fn() -> Response<Full<Bytes>> + Send + Sync + 'static,
    ) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().expect("local address");
        let received = Arc::new(Mutex::new(Vec::new()));
        let connections = Arc::new(AtomicUsize::new(0));
        let answer: Answer = Arc::new(answer);
        let (log, count) = (received.clone(), connections.clone());
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                count.fetch_add(1, Ordering::SeqCst);
                let (log, answer) = (log.clone(), answer.clone());
                let service = service_fn(move |request: Request<Incoming>| {
                    let (log, answer) = (log.clone(), answer.clone());
                    async move {
                        let (parts, body) = request.into_parts();
                        let body = body
                            .collect()
                            .await
                            .map(|b| b.to_bytes())
                            .unwrap_or_default();
                        tokio::time::sleep(delay).await;
                        log.lock().expect("log").push(Received {
                            method: parts.method,
                            path_and_query: parts
                                .uri
                                .path_and_query()
                                .map(|p| p.to_string())
                                .unwrap_or_default(),
                            headers: parts.headers,
                            body,
                        });
                        Ok::<_, Infallible>(answer())
                    }
                });
                tokio::spawn(http1::Builder::new().serve_connection(TokioIo::new(stream), service));
            }
        });
        Self {
            address,
            received,
            connections,
        }
    }

    fn url(&self, path: &str) -> EndpointUrl {
        allow_private_url(&format!("http://{}{path}", self.address))
    }

    fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }
}

fn answer(status: u16, body: &'static str) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
    *response.status_mut() = StatusCode::from_u16(status).expect("a status");
    response
}

fn allow_private_url(text: &str) -> EndpointUrl {
    EndpointUrl::parse(text, NetworkPolicy::AllowPrivate).expect("a URL for tests")
}

fn delivery(url: EndpointUrl, body: &str) -> OutgoingDelivery {
    let secret = WebhookSecret::from_random_bytes([7; 32]);
    let webhook_id = "evt_0192f3a4b5c6".to_owned();
    let timestamp = 1_700_000_000;
    OutgoingDelivery {
        signature: SignatureHeader::new([&secret], &webhook_id, timestamp, body.as_bytes()),
        url,
        webhook_id,
        timestamp,
        body: body.to_owned(),
    }
}

async fn send(policy: NetworkPolicy, url: EndpointUrl) -> SentAttempt {
    HttpWebhookSender::with_timeout(policy, SHORT, IN_FLIGHT)
        .expect("a sender")
        .send(&delivery(url, r#"{"type":"product.updated"}"#))
        .await
}

/// A bare listener with no server behind it: whether anyone connected is read off its queue.
async fn silent_listener() -> (TcpListener, u16) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("local address").port();
    (listener, port)
}

/// Reads one request (its head and its `content-length` bytes of body) off a bare socket.
async fn read_request(stream: &mut TcpStream) {
    let mut request = Vec::new();
    let mut buffer = [0; 1024];
    loop {
        let text = String::from_utf8_lossy(&request);
        if let Some(end) = text.find("\r\n\r\n") {
            let length = text[..end]
                .lines()
                .find_map(|line| {
                    line.to_ascii_lowercase()
                        .strip_prefix("content-length: ")
                        .map(str::to_owned)
                })
                .and_then(|value| value.trim().parse::<usize>().ok())
                .unwrap_or(0);
            if request.len() >= end + 4 + length {
                return;
            }
        }
        match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(read) => request.extend_from_slice(&buffer[..read]),
        }
    }
}

async fn nobody_connected(listener: &TcpListener) -> bool {
    tokio::time::timeout(Duration::from_millis(50), listener.accept())
        .await
        .is_err()
}

#[tokio::test]
async fn the_signed_body_and_the_standard_webhooks_headers_arrive_exactly() {
    let receiver = Receiver::start(|| answer(204, "")).await;
    let body = r#"{"type":"product.updated","data":{"name":"Café \"crème\""}}"#;
    let sent = delivery(receiver.url("/hooks/in?shop=7"), body);

    let attempt = HttpWebhookSender::new(NetworkPolicy::AllowPrivate, IN_FLIGHT)
        .expect("a sender")
        .send(&sent)
        .await;

    assert_eq!(attempt.status, Some(204), "{attempt:?}");
    assert_eq!(attempt.error, None);
    assert_eq!(attempt.response_excerpt, "");
    assert_eq!(attempt.retry_after, None);
    assert!(attempt.duration > Duration::ZERO);
    let received = receiver.received.lock().expect("log");
    let [request] = received.as_slice() else {
        panic!("one request expected, got {}", received.len());
    };
    assert_eq!(request.method, Method::POST);
    assert_eq!(request.path_and_query, "/hooks/in?shop=7");
    assert_eq!(request.body, body.as_bytes());
    let header = |name: &str| {
        request
            .headers
            .get(name)
            .and_then(|value| value.to_str().ok())
    };
    assert_eq!(header("content-type"), Some("application/json"));
    assert_eq!(header("webhook-id"), Some("evt_0192f3a4b5c6"));
    assert_eq!(header("webhook-timestamp"), Some("1700000000"));
    assert_eq!(header("webhook-signature"), Some(sent.signature.as_str()));
    assert_eq!(
        header("user-agent"),
        Some(concat!("shop-api-webhooks/", env!("CARGO_PKG_VERSION")))
    );
}

#[tokio::test]
async fn a_500_is_recorded_with_its_status_and_its_body() {
    let receiver = Receiver::start(|| answer(500, "database is down")).await;
    let attempt = send(NetworkPolicy::AllowPrivate, receiver.url("/")).await;
    assert_eq!(attempt.status, Some(500));
    assert_eq!(attempt.error, None);
    assert_eq!(attempt.response_excerpt, "database is down");
}

#[tokio::test]
async fn a_long_answer_is_cut_to_the_excerpt_bound() {
    static TWO_KIB: [u8; 2048] = [b'x'; 2048];
    let receiver = Receiver::start(|| Response::new(Full::new(Bytes::from_static(&TWO_KIB)))).await;
    let attempt = send(NetworkPolicy::AllowPrivate, receiver.url("/")).await;
    assert_eq!(attempt.status, Some(200));
    assert_eq!(attempt.response_excerpt.len(), 1024);
    assert!(attempt.response_excerpt.bytes().all(|byte| byte == b'x'));
}

#[tokio::test]
async fn a_redirect_is_recorded_and_never_followed() {
    let target = Receiver::start(|| answer(200, "followed")).await;
    let location = format!("http://{}/elsewhere", target.address);
    let receiver = Receiver::start(move || {
        let mut response = answer(302, "");
        response.headers_mut().insert(
            "location",
            HeaderValue::from_str(&location).expect("a location"),
        );
        response
    })
    .await;
    let attempt = send(NetworkPolicy::AllowPrivate, receiver.url("/")).await;
    assert_eq!(attempt.status, Some(302));
    assert_eq!(attempt.error, None);
    assert_eq!(target.connections(), 0);
}

#[tokio::test]
async fn retry_after_is_returned_as_sent() {
    let receiver = Receiver::start(|| {
        let mut response = answer(503, "busy");
        response
            .headers_mut()
            .insert("retry-after", HeaderValue::from_static("120"));
        response
    })
    .await;
    let attempt = send(NetworkPolicy::AllowPrivate, receiver.url("/")).await;
    assert_eq!(attempt.status, Some(503));
    assert_eq!(attempt.retry_after.as_deref(), Some("120"));
}

#[tokio::test]
async fn a_receiver_that_never_answers_times_out() {
    let (listener, port) = silent_listener().await;
    // Accepts and holds the connections, answering nothing.
    let held = tokio::spawn(async move {
        let mut streams = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            streams.push(stream);
        }
    });
    let attempt = send(
        NetworkPolicy::AllowPrivate,
        allow_private_url(&format!("http://127.0.0.1:{port}/")),
    )
    .await;
    held.abort();
    assert_eq!(attempt.status, None);
    assert_eq!(attempt.error.as_deref(), Some("timed out after 200 ms"));
    assert!(
        attempt.duration >= SHORT && attempt.duration < ATTEMPT_TIMEOUT / 2,
        "{attempt:?}"
    );
}

#[tokio::test]
async fn an_answer_whose_body_stalls_times_out_too() {
    let (listener, port) = silent_listener().await;
    let held = tokio::spawn(async move {
        let mut streams = Vec::new();
        while let Ok((mut stream, _)) = listener.accept().await {
            read_request(&mut stream).await;
            let head = "HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nten bytes.";
            let _ = stream.write_all(head.as_bytes()).await;
            streams.push(stream);
        }
    });
    let attempt = send(
        NetworkPolicy::AllowPrivate,
        allow_private_url(&format!("http://127.0.0.1:{port}/")),
    )
    .await;
    held.abort();
    assert_eq!(attempt.status, None);
    assert_eq!(
        attempt.error.as_deref(),
        Some("timed out after 200 ms while reading the answer (status 200)")
    );
}

#[tokio::test]
async fn a_closed_port_is_a_connection_error_that_says_so() {
    let (listener, port) = silent_listener().await;
    drop(listener);
    let attempt = send(
        NetworkPolicy::AllowPrivate,
        allow_private_url(&format!("http://127.0.0.1:{port}/hook?token=secret")),
    )
    .await;
    assert_eq!(attempt.status, None);
    let error = attempt.error.expect("an error");
    assert!(error.starts_with("could not connect: "), "{error}");
    assert!(
        error.to_lowercase().contains("connection refused"),
        "{error}"
    );
    assert!(!error.contains("secret"), "{error}");
}

#[tokio::test]
async fn https_to_a_receiver_that_speaks_plain_http_is_a_tls_error() {
    let receiver = Receiver::start(|| answer(200, "")).await;
    let url = allow_private_url(&format!("https://{}/", receiver.address));
    let attempt = send(NetworkPolicy::AllowPrivate, url).await;
    assert_eq!(attempt.status, None);
    let error = attempt.error.expect("an error");
    assert!(error.starts_with("TLS handshake failed: "), "{error}");
}

#[tokio::test]
async fn allow_private_resolves_a_name_through_the_hook_and_connects() {
    let receiver = Receiver::start(|| answer(200, "ok")).await;
    let url = allow_private_url(&format!("http://localhost:{}/", receiver.address.port()));
    let attempt = send(NetworkPolicy::AllowPrivate, url).await;
    assert_eq!(attempt.status, Some(200), "{attempt:?}");
    assert_eq!(attempt.response_excerpt, "ok");
}

#[tokio::test]
async fn public_only_refuses_an_ip_literal_without_connecting() {
    let (listener, port) = silent_listener().await;
    for (host, expected) in [
        ("127.0.0.1", "refused: 127.0.0.1 is a loopback address"),
        (
            "[::ffff:127.0.0.1]",
            "refused: ::ffff:127.0.0.1 is a loopback address",
        ),
    ] {
        let url = allow_private_url(&format!("http://{host}:{port}/"));
        let attempt = send(NetworkPolicy::PublicOnly, url).await;
        assert_eq!(attempt.status, None);
        assert_eq!(attempt.error.as_deref(), Some(expected));
    }
    assert!(nobody_connected(&listener).await);
}

#[tokio::test]
async fn public_only_refuses_a_name_that_resolves_to_loopback_without_connecting() {
    let (listener, port) = silent_listener().await;
    let url = allow_private_url(&format!("http://localhost:{port}/"));
    let attempt = send(NetworkPolicy::PublicOnly, url).await;
    assert_eq!(attempt.status, None);
    let error = attempt.error.expect("an error");
    assert!(
        error.starts_with("refused: localhost resolves only to a loopback address ("),
        "{error}"
    );
    assert!(nobody_connected(&listener).await);
}

#[tokio::test]
async fn the_connections_of_a_round_of_attempts_carry_the_next_rounds() {
    let receiver = Receiver::answering_after(Duration::from_millis(50), || answer(204, "")).await;
    let sender = HttpWebhookSender::new(NetworkPolicy::AllowPrivate, IN_FLIGHT).expect("a sender");
    let sent = Arc::new(delivery(receiver.url("/"), "{}"));
    for round in 1..=3 {
        let mut attempts = tokio::task::JoinSet::new();
        for _ in 0..IN_FLIGHT {
            let (sender, sent) = (sender.clone(), sent.clone());
            attempts.spawn(async move { sender.send(&sent).await });
        }
        while let Some(attempt) = attempts.join_next().await {
            let attempt = attempt.expect("an attempt");
            assert_eq!(attempt.status, Some(204), "round {round}: {attempt:?}");
        }
        // The client puts a connection back in its pool once the answer is read, on a task
        // of its own: let those land before the next round.
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(receiver.received.lock().expect("log").len(), 3 * IN_FLIGHT);
    assert!(
        receiver.connections() <= IN_FLIGHT,
        "{} connections for three rounds of {IN_FLIGHT} attempts at once",
        receiver.connections()
    );
}
