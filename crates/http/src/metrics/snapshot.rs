//! Values that their owners already count, read once per scrape: nothing is counted twice,
//! and a scrape sees them as they are at that instant.

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use shop_ports::port::{PoolStats, ReplicaState, ReplicaStats};
use shop_ports::usecase::AuthStats;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    pub auth: AuthStats,
    /// Decisions the rate-limit store could not take (the request was let through).
    pub rate_limit_store_failures: u64,
    /// `None` when the server was given no pool to watch.
    pub pool: Option<PoolStats>,
    /// Connections closed by the codec because of the client (see `connection_errors`):
    /// (malformed heads, other stream errors).
    pub connection_errors: (u64, u64),
    /// `None` when the database has no read replicas.
    pub replicas: Option<ReplicaStats>,
}

impl Collector for Snapshot {
    fn encode(&self, mut encoder: DescriptorEncoder<'_>) -> Result<(), std::fmt::Error> {
        counter(
            &mut encoder,
            "auth_argon2_verifications",
            "Key secrets verified with argon2 (the expensive path of authentication)",
            self.auth.argon2_verifications,
        )?;
        counter(
            &mut encoder,
            "auth_key_cache_hits",
            "Authentications answered from the cache of verified keys",
            self.auth.cache_hits,
        )?;
        counter(
            &mut encoder,
            "rate_limit_store_failures",
            "Rate-limit decisions the store could not take; the request was let through",
            self.rate_limit_store_failures,
        )?;
        counter(
            &mut encoder,
            "http_malformed_requests",
            "Connections closed because their request head could not be read (not logged)",
            self.connection_errors.0,
        )?;
        counter(
            &mut encoder,
            "http_stream_errors",
            "Connections closed on another client-side stream error, such as a reset (not logged)",
            self.connection_errors.1,
        )?;
        if let Some(replicas) = &self.replicas {
            encode_replicas(&mut encoder, replicas)?;
        }
        let Some(pool) = self.pool else {
            return Ok(());
        };
        let gauges = [
            (
                "db_pool_max_connections",
                "Connections the database pool may open",
                pool.max_size,
            ),
            (
                "db_pool_open_connections",
                "Database connections open, idle or in use",
                pool.open,
            ),
            (
                "db_pool_in_use_connections",
                "Database connections lent to a query",
                pool.in_use,
            ),
            (
                "db_pool_waiting",
                "Queries waiting for a database connection",
                pool.waiting,
            ),
        ];
        for (name, help, value) in gauges {
            let gauge = ConstGauge::new(i64::try_from(value).unwrap_or(i64::MAX));
            gauge.encode(encoder.encode_descriptor(name, help, None, gauge.metric_type())?)?;
        }
        counter(
            &mut encoder,
            "db_pool_wait_timeouts",
            "Queries that waited too long for a connection (answered 503)",
            pool.wait_timeouts,
        )
    }
}

/// Reads by target, and each replica's standing and lag (issue 22).
fn encode_replicas(
    encoder: &mut DescriptorEncoder<'_>,
    replicas: &ReplicaStats,
) -> Result<(), std::fmt::Error> {
    let reads = ConstCounter::new(0_u64);
    let mut family = encoder.encode_descriptor(
        "db_reads",
        "API reads by the database that answered them: the primary or a read replica",
        None,
        reads.metric_type(),
    )?;
    for (target, count) in [
        ("primary", replicas.reads_on_primary),
        ("replica", replicas.reads_on_replicas),
    ] {
        ConstCounter::new(count).encode(family.encode_family(&[("target", target)])?)?;
    }
    counter(
        encoder,
        "db_replica_rotation_changes",
        "Times a read replica entered or left the rotation",
        replicas.rotation_changes,
    )?;
    let gauge = ConstGauge::new(0_i64);
    let mut family = encoder.encode_descriptor(
        "db_replica_in_rotation",
        "1 while a read replica serves reads; 0 while it lags too far or is down",
        None,
        gauge.metric_type(),
    )?;
    for replica in &replicas.replicas {
        let serving = i64::from(replica.state == ReplicaState::InRotation);
        let labels = [
            ("replica", replica.name.as_str()),
            ("state", replica.state.as_str()),
        ];
        ConstGauge::new(serving).encode(family.encode_family(&labels)?)?;
    }
    let mut family = encoder.encode_descriptor(
        "db_replica_lag_milliseconds",
        "How far behind the primary a read replica was at its last poll (absent while down)",
        None,
        gauge.metric_type(),
    )?;
    for replica in &replicas.replicas {
        if let Some(lag) = replica.lag_ms {
            let lag = ConstGauge::new(i64::try_from(lag).unwrap_or(i64::MAX));
            lag.encode(family.encode_family(&[("replica", replica.name.as_str())])?)?;
        }
    }
    Ok(())
}

fn counter(
    encoder: &mut DescriptorEncoder<'_>,
    name: &str,
    help: &str,
    value: u64,
) -> Result<(), std::fmt::Error> {
    let counter = ConstCounter::new(value);
    counter.encode(encoder.encode_descriptor(name, help, None, counter.metric_type())?)
}
