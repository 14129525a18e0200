//! The connection settings of every server of this service, applied by `server::serve_app`:
//! slow or idle clients cannot hold a connection for long. `body.rs` holds a request's body to
//! [`BODY_READ_TIMEOUT`]; the console's forms are held to it too (through `shop-app`).

use std::time::Duration;

/// The whole request head must arrive within this after the connection opens (or after
/// the previous response on a kept-alive one); otherwise 408 and the connection closes.
pub const CLIENT_REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
/// A request's body must arrive within this once its handler starts reading it (after
/// authentication); otherwise 408 `REQUEST_TIMEOUT` and the connection closes. 64 KiB in
/// 10 s is 6.5 KB/s: only a client trickling on purpose, or one that is stuck, is cut.
pub const BODY_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a closing connection may take to shut down cleanly.
pub const CLIENT_DISCONNECT_TIMEOUT: Duration = Duration::from_secs(1);
/// An idle kept-alive connection is closed after this. Load balancers usually keep theirs
/// for 60 s or less and must close first, hence a little more.
pub const KEEP_ALIVE: Duration = Duration::from_secs(75);
/// Connections one worker serves at once; more wait in the listen backlog.
pub const MAX_CONNECTIONS_PER_WORKER: usize = 10_000;
