//! The resolver the client connects through: a name's addresses as the system resolves them,
//! less every address the policy refuses. The connector only ever sees what is left, so the
//! address checked is the address connected to.

use std::fmt;
use std::io;
use std::net::{IpAddr, SocketAddr};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use shop_domain::webhook::{ForbiddenAddress, NetworkPolicy};

/// Why an attempt connected nowhere: the policy left it no address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The URL's host is an IP literal the policy refuses.
    Literal {
        address: IpAddr,
        reason: ForbiddenAddress,
    },
    /// Every address the name resolves to is one the policy refuses (the first is named).
    Resolved {
        host: String,
        address: IpAddr,
        reason: ForbiddenAddress,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Literal { address, reason } => {
                write!(f, "refused: {address} is {reason}")
            }
            Refusal::Resolved {
                host,
                address,
                reason,
            } => write!(f, "refused: {host} resolves only to {reason} ({address})"),
        }
    }
}

impl std::error::Error for Refusal {}

/// The name did not resolve, or resolved to nothing.
#[derive(Debug, thiserror::Error)]
enum LookupError {
    #[error("could not resolve {host}")]
    Failed { host: String, source: io::Error },
    #[error("{host} resolves to no address")]
    Empty { host: String },
}

pub(crate) struct PolicyResolver {
    policy: NetworkPolicy,
}

impl PolicyResolver {
    pub(crate) fn new(policy: NetworkPolicy) -> Self {
        Self { policy }
    }
}

impl Resolve for PolicyResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = self.policy;
        let host = name.as_str().to_owned();
        Box::pin(async move {
            // Port 0: the connector puts the URL's port (or the scheme's) in its place.
            let resolved: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0))
                .await
                .map_err(|source| LookupError::Failed {
                    host: host.clone(),
                    source,
                })?
                .collect();
            if resolved.is_empty() {
                return Err(LookupError::Empty { host }.into());
            }
            let allowed = allowed(&host, resolved, policy)?;
            Ok(Box::new(allowed.into_iter()) as Addrs)
        })
    }
}

/// The addresses of `host` that `policy` allows, in the resolver's order; a [`Refusal`] when
/// none is.
pub(crate) fn allowed(
    host: &str,
    resolved: Vec<SocketAddr>,
    policy: NetworkPolicy,
) -> Result<Vec<SocketAddr>, Refusal> {
    let mut first_refused = None;
    let mut allowed = Vec::with_capacity(resolved.len());
    for address in resolved {
        match policy.refuses(address.ip()) {
            None => allowed.push(address),
            Some(reason) => {
                first_refused.get_or_insert((address.ip(), reason));
            }
        }
    }
    match (allowed.is_empty(), first_refused) {
        (true, Some((address, reason))) => Err(Refusal::Resolved {
            host: host.to_owned(),
            address,
            reason,
        }),
        _ => Ok(allowed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addresses(texts: &[&str]) -> Vec<SocketAddr> {
        texts
            .iter()
            .map(|text| SocketAddr::new(text.parse().expect("an IP address"), 0))
            .collect()
    }

    #[test]
    fn of_a_name_with_public_and_private_addresses_only_the_public_ones_are_kept() {
        let resolved = addresses(&["10.0.0.1", "93.184.215.14", "::1", "2606:4700:4700::1111"]);
        assert_eq!(
            allowed("example.com", resolved, NetworkPolicy::PublicOnly),
            Ok(addresses(&["93.184.215.14", "2606:4700:4700::1111"]))
        );
    }

    #[test]
    fn a_name_with_only_refused_addresses_is_refused_naming_the_first() {
        let refusal = allowed(
            "example.internal",
            addresses(&["10.0.0.1", "127.0.0.1"]),
            NetworkPolicy::PublicOnly,
        )
        .expect_err("refused");
        assert_eq!(
            refusal.to_string(),
            "refused: example.internal resolves only to a private network address (10.0.0.1)"
        );
    }

    #[test]
    fn allow_private_keeps_every_address() {
        let resolved = addresses(&["10.0.0.1", "127.0.0.1", "::1"]);
        assert_eq!(
            allowed(
                "example.internal",
                resolved.clone(),
                NetworkPolicy::AllowPrivate
            ),
            Ok(resolved)
        );
    }
}
