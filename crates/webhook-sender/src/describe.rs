//! A failed attempt's `error`, in words an integrator can act on: what failed (resolving,
//! connecting, TLS, the answer) and the system's own reason, without the URL (its query may
//! hold a token of the integrator's) or any of the request.

use std::error::Error as _;
use std::io;
use std::time::Duration;

use crate::resolve::Refusal;

/// The text of a request that got no answer.
pub(crate) fn failure(error: &reqwest::Error, timeout: Duration) -> String {
    if error.is_timeout() {
        return timed_out(timeout, None);
    }
    // reqwest's own text names the URL, and the pool's ("client error (Connect)") says
    // nothing the words below do not: only the causes under them are told, each once.
    let mut causes: Vec<String> = Vec::new();
    let mut tls = false;
    let mut source = error.source();
    while let Some(cause) = source {
        if let Some(refusal) = cause.downcast_ref::<Refusal>() {
            return refusal.to_string();
        }
        tls |= is_tls(cause);
        let text = cause.to_string();
        if !cause.is::<hyper_util::client::legacy::Error>() && !causes.contains(&text) {
            causes.push(text);
        }
        source = cause.source();
    }
    let what = if tls {
        "TLS handshake failed"
    } else if error.is_connect() {
        "could not connect"
    } else if error.is_builder() {
        "the request could not be made"
    } else {
        "no answer"
    };
    if causes.is_empty() {
        what.to_owned()
    } else {
        format!("{what}: {}", causes.join(": "))
    }
}

/// Whether `error` is rustls's, which reports through the I/O errors of the streams it wraps
/// (whose `source` skips it: it is reached through `get_ref`).
fn is_tls(mut error: &(dyn std::error::Error + 'static)) -> bool {
    loop {
        if error.is::<rustls::Error>() {
            return true;
        }
        match error
            .downcast_ref::<io::Error>()
            .and_then(io::Error::get_ref)
        {
            Some(inner) => error = inner,
            None => return false,
        }
    }
}

/// The text of an attempt that ran out of time, with the status if the answer had begun.
pub(crate) fn timed_out(timeout: Duration, status: Option<u16>) -> String {
    let after = if timeout.subsec_millis() == 0 {
        format!("{} s", timeout.as_secs())
    } else {
        format!("{} ms", timeout.as_millis())
    };
    match status {
        None => format!("timed out after {after}"),
        Some(status) => {
            format!("timed out after {after} while reading the answer (status {status})")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timeout_is_told_in_seconds_or_milliseconds() {
        assert_eq!(
            timed_out(Duration::from_secs(10), None),
            "timed out after 10 s"
        );
        assert_eq!(
            timed_out(Duration::from_millis(200), None),
            "timed out after 200 ms"
        );
        assert_eq!(
            timed_out(Duration::from_secs(10), Some(200)),
            "timed out after 10 s while reading the answer (status 200)"
        );
    }
}
