//! The server's log lines, captured in memory: the production JSON format
//! (`shop_app::telemetry`, `LOG_FORMAT=json`) written into a buffer instead of stderr.
//!
//! The subscriber is process-wide, so the capture holds the lines of every test running
//! meanwhile: a test picks its own by the `X-Request-Id`s it sent.

use std::io;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::Value;
use shop_app::telemetry::{self, LogFormat};

#[derive(Clone, Default)]
pub struct Captured(Arc<Mutex<Vec<u8>>>);

impl io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The capture, installed as the process's subscriber on first use.
pub fn captured() -> &'static Captured {
    static CAPTURE: OnceLock<Captured> = OnceLock::new();
    CAPTURE.get_or_init(|| {
        let captured = Captured::default();
        let writer = captured.clone();
        assert!(
            telemetry::try_init_with_writer(LogFormat::Json, move || writer.clone(), false),
            "another tracing subscriber was installed first"
        );
        captured
    })
}

impl Captured {
    pub fn text(&self) -> String {
        let bytes = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// The `fields` of the `access` lines of the request with this id.
    pub fn access_lines(&self, request_id: &str) -> Vec<Value> {
        self.text()
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|line| line["target"] == "access" && line["fields"]["request_id"] == request_id)
            .map(|line| line["fields"].clone())
            .collect()
    }
}
