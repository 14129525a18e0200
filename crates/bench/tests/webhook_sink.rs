//! The `webhook-sink` binary as the fault scenarios and the benchmark drive it: it prints its
//! address, answers a delivery with the configured status, records it, and writes its records
//! to `--out` when it is stopped. (This test is also why `cargo test --workspace --no-run`
//! builds `target/debug/webhook-sink`, the binary `scripts/faults/run.sh` uses.)

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};

fn exchange(port: u16, request: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("the sink listens");
    stream.write_all(request.as_bytes()).expect("sent");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("answered");
    answer
}

#[test]
fn records_a_delivery_answers_the_configured_status_and_writes_its_records_on_sigterm() {
    let out = std::env::temp_dir().join(format!("webhook-sink-{}.jsonl", std::process::id()));
    let mut sink = Command::new(env!("CARGO_BIN_EXE_webhook-sink"))
        .args(["--bind", "127.0.0.1:0", "--status", "202", "--out"])
        .arg(&out)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(sink.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port: u16 = line
        .trim()
        .strip_prefix("listening on http://127.0.0.1:")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .parse()
        .unwrap();

    let body = r#"{"id":"evt_1","type":"stock.updated","timestamp":"2026-11-27T10:00:00.000Z","data":{"variantId":"v1","stock":7}}"#;
    let answer = exchange(
        port,
        &format!(
            "POST /endpoint-a HTTP/1.1\r\nhost: x\r\nwebhook-id: evt_1\r\ncontent-length: {}\r\n\
             connection: close\r\n\r\n{body}",
            body.len()
        ),
    );
    assert!(answer.starts_with("HTTP/1.1 202"), "{answer}");
    let stats = exchange(
        port,
        "GET /_sink/stats HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n",
    );
    let stats: serde_json::Value =
        serde_json::from_str(stats.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    assert_eq!(stats["requests"], 1);
    assert_eq!(stats["by_path"]["/endpoint-a"], 1);

    // SIGTERM, as the scripts stop it (the process has no other way to be told).
    let stopped = Command::new("kill")
        .arg(sink.id().to_string())
        .status()
        .unwrap();
    assert!(stopped.success());
    assert!(sink.wait().unwrap().success());
    let written = std::fs::read_to_string(&out).unwrap();
    std::fs::remove_file(&out).unwrap();
    let record: serde_json::Value = serde_json::from_str(written.trim()).unwrap();
    assert_eq!(record["webhook_id"], "evt_1");
    assert_eq!(record["variant_id"], "v1");
    assert_eq!(record["stock"], 7);
    assert_eq!(record["status"], 202);
}
