// crates/client/examples/webhook_receiver.rs
//! A webhook receiver: verifies each delivery with `verify_webhook`, answers at once, and
//! skips an event it has already seen (a retry after a lost answer carries the same
//! `webhook-id`). A real receiver stores the event (or its `data`) before answering 2xx, and
//! does the slow work afterwards.
//!
//!     WEBHOOK_SECRET=whsec_... WEBHOOK_LISTEN=127.0.0.1:9000 \
//!         cargo run -p shop-api-client --example webhook_receiver
#![expect(clippy::print_stdout, reason = "an example prints what it receives")]
use std::collections::HashSet;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use shop_api_client::verify_webhook;

/// The largest delivery read: an order with its lines stays far below.
const MAX_BODY_BYTES: usize = 1 << 20;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let secret: Arc<str> = std::env::var("WEBHOOK_SECRET")?.into();
    let listen = std::env::var("WEBHOOK_LISTEN").unwrap_or_else(|_| "127.0.0.1:9000".into());
    let listener = tokio::net::TcpListener::bind(&listen).await?;
    let seen = Arc::new(Mutex::new(HashSet::new()));
    println!("listening on http://{listen}");
    loop {
        let (stream, _) = listener.accept().await?;
        let (secret, seen) = (secret.clone(), seen.clone());
        tokio::spawn(async move {
            let service = service_fn(move |request| receive(request, secret.clone(), seen.clone()));
            if let Err(error) = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await
            {
                println!("connection error: {error}");
            }
        });
    }
}

async fn receive(
    request: Request<Incoming>,
    secret: Arc<str>,
    seen: Arc<Mutex<HashSet<String>>>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let (parts, body) = request.into_parts();
    let Ok(body) = Limited::new(body, MAX_BODY_BYTES).collect().await else {
        return Ok(answer(StatusCode::PAYLOAD_TOO_LARGE));
    };
    let body = body.to_bytes();
    let event = match verify_webhook(&[&secret], &parts.headers, &body) {
        Ok(event) => event,
        Err(refused) => {
            println!("refused a delivery: {refused}");
            return Ok(answer(StatusCode::BAD_REQUEST));
        }
    };
    let first_time = seen
        .lock()
        .map(|mut seen| seen.insert(event.id.clone()))
        .unwrap_or(true);
    if first_time {
        let updated_at = event.data.get("updatedAt").and_then(|at| at.as_str());
        println!(
            "{} {} (updatedAt {updated_at:?})",
            event.id, event.event_type
        );
    } else {
        println!("{} again: already handled", event.id);
    }
    Ok(answer(StatusCode::NO_CONTENT))
}

fn answer(status: StatusCode) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = status;
    response
}
