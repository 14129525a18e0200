//! Other delivery adapters served by the API's server under paths of their own (the owners'
//! console under `/console`), so that one binary and one address serve both.
//!
//! Their requests go through the server's outer middleware like the API's (request id, log
//! line, metrics), but the API's conventions stop at their prefix: the JSON error envelope
//! leaves their responses as they are (a page answers an error with its own HTML), and they
//! set their own caching.

use std::sync::Arc;

use actix_web::web;

type Configure = dyn Fn(&mut web::ServiceConfig) + Send + Sync;

#[derive(Clone)]
pub struct Mount {
    prefix: &'static str,
    configure: Arc<Configure>,
}

impl Mount {
    /// `configure` registers the adapter's routes, all under `prefix` (such as `/console`).
    pub fn new(
        prefix: &'static str,
        configure: impl Fn(&mut web::ServiceConfig) + Send + Sync + 'static,
    ) -> Self {
        Self {
            prefix,
            configure: Arc::new(configure),
        }
    }

    pub(crate) fn configure(&self, config: &mut web::ServiceConfig) {
        (self.configure)(config);
    }

    /// Whether `path` is this adapter's: the prefix itself or anything below it.
    pub(crate) fn covers(&self, path: &str) -> bool {
        path.strip_prefix(self.prefix)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    }
}

/// The mounts of one App, for the middleware to tell their requests apart.
#[derive(Clone, Default)]
pub(crate) struct Mounts(Arc<[Mount]>);

impl Mounts {
    pub fn new(mounts: Vec<Mount>) -> Self {
        Self(mounts.into())
    }

    pub fn iter(&self) -> impl Iterator<Item = &Mount> {
        self.0.iter()
    }

    /// Whether `path` belongs to a mounted adapter rather than to the API.
    pub fn cover(&self, path: &str) -> bool {
        self.0.iter().any(|mount| mount.covers(path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mount_covers_its_prefix_and_below_only() {
        let mounts = Mounts::new(vec![Mount::new("/console", |_| {})]);
        for path in ["/console", "/console/", "/console/keys/0a1b2c3d/revoke"] {
            assert!(mounts.cover(path), "{path}");
        }
        for path in ["/consoles", "/console-x", "/api/v1/me", "/", "/con"] {
            assert!(!mounts.cover(path), "{path}");
        }
    }
}
