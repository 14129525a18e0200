//! A client that sends a request's head and part of its body, then nothing more: what the
//! server answers once it stops waiting for the rest, and when.

use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use super::TestApp;

/// Sends `request(address)` on a new connection (`address` is the server's, for the `Host`
/// header) and waits up to 30 s for the server to answer and close the connection: the whole
/// answer, and how long after the send it came.
pub async fn trickle(app: &TestApp, request: impl FnOnce(&str) -> String) -> (String, Duration) {
    let address = app.base_url().trim_start_matches("http://").to_owned();
    let mut connection = TcpStream::connect(&address).await.expect("connect");
    connection
        .write_all(request(&address).as_bytes())
        .await
        .expect("send");
    let sent = Instant::now();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), connection.read_to_end(&mut answer))
        .await
        .expect("the server closes the connection")
        .expect("read the answer");
    (
        String::from_utf8_lossy(&answer).into_owned(),
        sent.elapsed(),
    )
}
