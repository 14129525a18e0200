//! A webhook receiver for the fault scenarios and the benchmark (binary `webhook-sink`): it
//! answers every delivery at once (204, or a configured status and delay), and records, for
//! each request, when it arrived and what it carried, for the caller to read back.
//!
//! - `POST /<anything>` (outside `/_sink/`): a delivery. Recorded: arrival time (Unix ns,
//!   taken once its body is read in full), the path (one path per endpoint), `webhook-id`,
//!   and from the JSON body `type`, `timestamp`, and `data.variantId` / `data.stock` (the
//!   fields of a `stock.updated` event; absent for other types). A body that is not JSON is
//!   recorded without those fields and counted as `unparsed`.
//! - `GET /_sink/stats`: counts (JSON): requests, per path, duplicates (a `webhook-id`
//!   received again at the same path), unparsed bodies, first and last arrival.
//! - `GET /_sink/records?from=N`: the records from the N-th on (0 by default), as JSON lines,
//!   in arrival order: a poller asks only for what is new.
//! - `POST /_sink/answer?status=S&delay_ms=D`: from now on answer S after D ms (both optional).
//! - `POST /_sink/reset`: forgets every record and count.
//!
//! Built on hyper's HTTP/1 server with keep-alive, a record is a push under a mutex: on the
//! 2-core development machine one thread takes tens of thousands of deliveries a second, far
//! above what a benchmark sends it.

use std::collections::{HashMap, HashSet};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde::{Deserialize, Serialize};
use tokio::net::TcpListener;

/// The paths of the sink's own API; every other path receives deliveries.
pub const CONTROL_PREFIX: &str = "/_sink/";

/// What the sink learnt of one delivery.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Record {
    /// When its body had arrived in full: Unix time, nanoseconds (the machine's clock, the
    /// one the server's event timestamps are read from).
    pub received_ns: u64,
    pub path: String,
    /// The `webhook-id` header (the event's id, the same at every attempt); empty if absent.
    pub webhook_id: String,
    #[serde(rename = "type")]
    pub event_type: Option<String>,
    /// The body's `timestamp` as sent (RFC 3339, ms): the change's time.
    pub timestamp: Option<String>,
    pub variant_id: Option<String>,
    pub stock: Option<i64>,
    /// The status this request was answered.
    pub status: u16,
}

/// The fields of a delivery's body that are recorded; everything else is skipped unread.
#[derive(Debug, Default, Deserialize, PartialEq, Eq)]
pub struct BodyFields {
    #[serde(rename = "type")]
    pub event_type: Option<String>,
    pub timestamp: Option<String>,
    pub data: Option<DataFields>,
}

#[derive(Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct DataFields {
    pub variant_id: Option<String>,
    pub stock: Option<i64>,
}

impl BodyFields {
    /// The fields of `body`, or `None` when it is not a JSON object of that shape.
    pub fn parse(body: &[u8]) -> Option<Self> {
        serde_json::from_slice(body).ok()
    }
}

#[derive(Debug, Default, Serialize, PartialEq, Eq)]
pub struct Stats {
    pub requests: u64,
    pub by_path: HashMap<String, u64>,
    /// Requests whose (path, `webhook-id`) had been received before.
    pub duplicates: u64,
    pub unparsed: u64,
    pub first_ns: Option<u64>,
    pub last_ns: Option<u64>,
}

#[derive(Default)]
struct Recorded {
    records: Vec<Record>,
    seen: HashSet<(String, String)>,
    stats: Stats,
}

/// The sink's state, shared by every connection.
pub struct Sink {
    recorded: Mutex<Recorded>,
    status: AtomicU16,
    delay_ms: AtomicU64,
}

impl Sink {
    pub fn new(status: StatusCode, delay: Duration) -> Arc<Self> {
        Arc::new(Self {
            recorded: Mutex::new(Recorded::default()),
            status: AtomicU16::new(status.as_u16()),
            delay_ms: AtomicU64::new(u64::try_from(delay.as_millis()).unwrap_or(u64::MAX)),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Recorded> {
        // A poisoned lock only means a thread panicked while pushing: the data is still whole.
        self.recorded
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Records one delivery; returns whether its (path, id) had been seen before.
    pub fn record(&self, record: Record, parsed: bool) -> bool {
        let mut recorded = self.lock();
        let key = (record.path.clone(), record.webhook_id.clone());
        let duplicate = !recorded.seen.insert(key);
        let stats = &mut recorded.stats;
        stats.requests += 1;
        *stats.by_path.entry(record.path.clone()).or_default() += 1;
        stats.duplicates += u64::from(duplicate);
        stats.unparsed += u64::from(!parsed);
        stats.first_ns.get_or_insert(record.received_ns);
        stats.last_ns = Some(record.received_ns);
        recorded.records.push(record);
        duplicate
    }

    pub fn stats_json(&self) -> String {
        serde_json::to_string(&self.lock().stats).unwrap_or_default()
    }

    /// The records from the `from`-th on, one JSON object a line.
    pub fn records_json_lines(&self, from: usize) -> String {
        let recorded = self.lock();
        let mut out = String::with_capacity(recorded.records.len().saturating_sub(from) * 160);
        for record in recorded.records.iter().skip(from) {
            if let Ok(line) = serde_json::to_string(record) {
                out.push_str(&line);
                out.push('\n');
            }
        }
        out
    }

    pub fn reset(&self) {
        *self.lock() = Recorded::default();
    }

    pub fn set_answer(&self, status: Option<StatusCode>, delay: Option<Duration>) {
        if let Some(status) = status {
            self.status.store(status.as_u16(), Ordering::Relaxed);
        }
        if let Some(delay) = delay {
            let millis = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX);
            self.delay_ms.store(millis, Ordering::Relaxed);
        }
    }

    fn answer(&self) -> (StatusCode, Duration) {
        let status = StatusCode::from_u16(self.status.load(Ordering::Relaxed))
            .unwrap_or(StatusCode::NO_CONTENT);
        (
            status,
            Duration::from_millis(self.delay_ms.load(Ordering::Relaxed)),
        )
    }
}

fn unix_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|since| u64::try_from(since.as_nanos()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// `key=value` pairs of a query string (no percent-decoding: the sink's own parameters are
/// numbers).
fn query_value<'q>(query: Option<&'q str>, name: &str) -> Option<&'q str> {
    query?
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value)
}

fn response(
    status: StatusCode,
    content_type: Option<&'static str>,
    body: String,
) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    if let Some(content_type) = content_type {
        response
            .headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    }
    response
}

fn control(sink: &Sink, method: &Method, path: &str, query: Option<&str>) -> Response<Full<Bytes>> {
    match (
        method,
        path.strip_prefix(CONTROL_PREFIX).unwrap_or_default(),
    ) {
        (&Method::GET, "stats") => {
            response(StatusCode::OK, Some("application/json"), sink.stats_json())
        }
        (&Method::GET, "records") => {
            let from = query_value(query, "from")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            response(
                StatusCode::OK,
                Some("application/x-ndjson"),
                sink.records_json_lines(from),
            )
        }
        (&Method::POST, "reset") => {
            sink.reset();
            response(StatusCode::NO_CONTENT, None, String::new())
        }
        (&Method::POST, "answer") => {
            let status = query_value(query, "status").map(|v| {
                v.parse::<u16>()
                    .ok()
                    .and_then(|s| StatusCode::from_u16(s).ok())
            });
            let delay = query_value(query, "delay_ms").map(|v| v.parse::<u64>().ok());
            if status == Some(None) || delay == Some(None) {
                return response(
                    StatusCode::BAD_REQUEST,
                    None,
                    "status=100..999, delay_ms=N\n".to_owned(),
                );
            }
            sink.set_answer(status.flatten(), delay.flatten().map(Duration::from_millis));
            response(StatusCode::NO_CONTENT, None, String::new())
        }
        _ => response(StatusCode::NOT_FOUND, None, String::new()),
    }
}

async fn handle(
    sink: Arc<Sink>,
    request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let (parts, body) = request.into_parts();
    let path = parts.uri.path();
    if path.starts_with(CONTROL_PREFIX) {
        return Ok(control(&sink, &parts.method, path, parts.uri.query()));
    }
    let Ok(body) = body
        .collect()
        .await
        .map(http_body_util::Collected::to_bytes)
    else {
        // The sender went away mid-body: nothing was delivered.
        return Ok(response(StatusCode::BAD_REQUEST, None, String::new()));
    };
    let received_ns = unix_ns();
    let (status, delay) = sink.answer();
    let parsed = BodyFields::parse(&body);
    let webhook_id = parts
        .headers
        .get("webhook-id")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let was_parsed = parsed.is_some();
    let fields = parsed.unwrap_or_default();
    let data = fields.data.unwrap_or_default();
    sink.record(
        Record {
            received_ns,
            path: path.to_owned(),
            webhook_id,
            event_type: fields.event_type,
            timestamp: fields.timestamp,
            variant_id: data.variant_id,
            stock: data.stock,
            status: status.as_u16(),
        },
        was_parsed,
    );
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    Ok(response(status, None, String::new()))
}

/// Accepts connections on `listener` until the task is dropped; each served with keep-alive.
pub async fn serve(listener: TcpListener, sink: Arc<Sink>) -> std::io::Result<()> {
    loop {
        let (stream, _peer): (_, SocketAddr) = listener.accept().await?;
        // Deliveries are small requests answered at once: Nagle would add its 40 ms.
        let _ = stream.set_nodelay(true);
        let sink = sink.clone();
        tokio::spawn(async move {
            let service = service_fn(move |request| handle(sink.clone(), request));
            // A connection the sender closed or reset mid-request is not the sink's concern.
            let _ = http1::Builder::new()
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(path: &str, id: &str, ns: u64) -> Record {
        Record {
            received_ns: ns,
            path: path.to_owned(),
            webhook_id: id.to_owned(),
            event_type: Some("stock.updated".to_owned()),
            timestamp: Some("2026-11-27T10:00:00.123Z".to_owned()),
            variant_id: Some("v1".to_owned()),
            stock: Some(-3),
            status: 204,
        }
    }

    #[test]
    fn a_stock_event_gives_its_type_timestamp_variant_and_stock() {
        let body = br#"{"id":"evt_1","type":"stock.updated","timestamp":"2026-11-27T10:00:00.123Z",
            "data":{"variantId":"v1","stock":12,"updatedAt":"2026-11-27T10:00:00.123Z",
                    "cause":{"kind":"adjustment","delta":-1}}}"#;
        assert_eq!(
            BodyFields::parse(body),
            Some(BodyFields {
                event_type: Some("stock.updated".to_owned()),
                timestamp: Some("2026-11-27T10:00:00.123Z".to_owned()),
                data: Some(DataFields {
                    variant_id: Some("v1".to_owned()),
                    stock: Some(12),
                }),
            })
        );
    }

    #[test]
    fn another_type_has_no_variant_and_a_non_json_body_is_unparsed() {
        let product = br#"{"id":"evt_2","type":"product.updated","timestamp":"t","data":{"id":"p1","variants":[]}}"#;
        let parsed = BodyFields::parse(product).expect("a JSON body");
        assert_eq!(parsed.event_type.as_deref(), Some("product.updated"));
        assert_eq!(parsed.data, Some(DataFields::default()));
        assert_eq!(BodyFields::parse(b"not json"), None);
    }

    #[test]
    fn duplicates_are_counted_per_path_and_id() {
        let sink = Sink::new(StatusCode::NO_CONTENT, Duration::ZERO);
        assert!(!sink.record(record("/a", "evt_1", 1), true));
        assert!(!sink.record(record("/b", "evt_1", 2), true));
        assert!(sink.record(record("/a", "evt_1", 3), true));
        assert!(!sink.record(record("/a", "evt_2", 4), false));
        let stats: serde_json::Value = serde_json::from_str(&sink.stats_json()).expect("JSON");
        assert_eq!(stats["requests"], 4);
        assert_eq!(stats["duplicates"], 1);
        assert_eq!(stats["unparsed"], 1);
        assert_eq!(stats["by_path"]["/a"], 3);
        assert_eq!(stats["first_ns"], 1);
        assert_eq!(stats["last_ns"], 4);
    }

    #[test]
    fn records_are_json_lines_from_an_offset() {
        let sink = Sink::new(StatusCode::NO_CONTENT, Duration::ZERO);
        sink.record(record("/a", "evt_1", 1), true);
        sink.record(record("/a", "evt_2", 2), true);
        let lines = sink.records_json_lines(1);
        assert_eq!(lines.lines().count(), 1);
        let line: serde_json::Value = serde_json::from_str(lines.trim()).expect("JSON");
        assert_eq!(line["webhook_id"], "evt_2");
        assert_eq!(line["type"], "stock.updated");
        assert_eq!(line["variant_id"], "v1");
        assert_eq!(line["stock"], -3);
        assert_eq!(line["received_ns"], 2);
        assert_eq!(sink.records_json_lines(5), "");
        sink.reset();
        assert_eq!(sink.records_json_lines(0), "");
    }

    #[tokio::test]
    async fn a_delivery_over_http_is_answered_and_recorded() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};

        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
        let addr = listener.local_addr().expect("its address");
        let sink = Sink::new(StatusCode::NO_CONTENT, Duration::ZERO);
        let server = tokio::spawn(serve(listener, sink.clone()));
        let body = r#"{"id":"evt_9","type":"stock.updated","timestamp":"2026-11-27T10:00:00.000Z","data":{"variantId":"v9","stock":4}}"#;
        let mut stream = tokio::net::TcpStream::connect(addr)
            .await
            .expect("connected");
        let request = format!(
            "POST /hook HTTP/1.1\r\nhost: x\r\nwebhook-id: evt_9\r\ncontent-type: application/json\r\n\
             content-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).await.expect("sent");
        let mut answer = String::new();
        stream.read_to_string(&mut answer).await.expect("answered");
        assert!(answer.starts_with("HTTP/1.1 204"), "{answer}");
        let line: serde_json::Value =
            serde_json::from_str(sink.records_json_lines(0).trim()).expect("one record");
        assert_eq!(line["path"], "/hook");
        assert_eq!(line["webhook_id"], "evt_9");
        assert_eq!(line["variant_id"], "v9");
        assert_eq!(line["stock"], 4);
        assert_eq!(line["status"], 204);
        server.abort();
    }

    #[test]
    fn the_answer_can_be_changed_and_a_bad_one_is_refused() {
        let sink = Sink::new(StatusCode::NO_CONTENT, Duration::ZERO);
        let changed = control(
            &sink,
            &Method::POST,
            "/_sink/answer",
            Some("status=503&delay_ms=20"),
        );
        assert_eq!(changed.status(), StatusCode::NO_CONTENT);
        assert_eq!(
            sink.answer(),
            (StatusCode::SERVICE_UNAVAILABLE, Duration::from_millis(20))
        );
        let refused = control(&sink, &Method::POST, "/_sink/answer", Some("status=abc"));
        assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
        assert_eq!(sink.answer().0, StatusCode::SERVICE_UNAVAILABLE);
    }
}
