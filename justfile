# Everyday recipes. The README's two commands never need just.

pg_admin := "postgres://postgres@127.0.0.1:5432/postgres"
redis_url := "redis://127.0.0.1:6379"

# Unit and black-box tests; PostgreSQL and Redis tests skip unless TEST_DATABASE_URL and
# TEST_REDIS_URL are set, the console's browser test without chromedriver (REQUIRE_BROWSER=1
# makes that a failure, as in CI).
test:
    cargo test --workspace

# The same suite, with PostgreSQL (on a throw-away database) and Redis required.
test-pg:
    #!/usr/bin/env bash
    set -euo pipefail
    db="shop_dev_$$_${RANDOM}"
    psql "{{pg_admin}}" -qc "CREATE DATABASE $db"
    trap 'psql "{{pg_admin}}" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)"' EXIT
    TEST_DATABASE_URL="postgres://postgres@127.0.0.1:5432/$db" REQUIRE_POSTGRES=1 \
    TEST_REDIS_URL="{{redis_url}}" REQUIRE_REDIS=1 cargo test --workspace

# The rate-limit stores and the two-instance test on the local Redis (required).
test-redis:
    TEST_REDIS_URL="{{redis_url}}" REQUIRE_REDIS=1 cargo test -p shop-app

# Formatting, clippy, the dependency direction and the rot checks, as CI checks them (needs
# `cargo install --locked cargo-machete cargo-deny`; advisories: README, "Continuous integration").
lint:
    cargo fmt --all --check
    cargo clippy --workspace --all-targets -- -D warnings
    scripts/check-dependency-direction.sh
    cargo machete
    cargo deny --locked check licenses bans sources
    RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --workspace

# The demo shop on the default SQLite database.
demo:
    cargo run --release -p shop-app -- demo

# Everything CI runs.
ci:
    bash .ci/run

# The benchmark: release build, seeded SQLite and PostgreSQL datasets, wrk against every
# benchmarked endpoint and both ceilings, the writes and the webhooks, then docs/PERFORMANCE.md
# (about 80 minutes on 2 cores, half a database; `--quick` for a few minutes, BENCH_*
# variables: see scripts/bench/bench.py).
bench *args:
    python3 scripts/bench/bench.py {{args}}

# The webhooks part of the benchmark alone (issue 34; about 10 minutes a database): latency,
# adjustments with and without endpoints, a drain, memory with a backlog, into its own section
# of docs/PERFORMANCE.md (`--quick`: target/bench/PERFORMANCE-webhooks.md).
bench-webhooks *args:
    BENCH_ONLY=webhooks python3 scripts/bench/bench.py {{args}}

# The API v2 writes alone (issue 35; about 10 minutes): a product's PATCH and a loyalty credit
# on the small dataset, on both databases, with their ceilings, into
# target/bench/PERFORMANCE-writes.md (or BENCH_DOC).
bench-writes *args:
    BENCH_ONLY=writes python3 scripts/bench/bench.py {{args}}

# The webhook receiver of the fault scenarios and the benchmark (crates/bench), printing its
# address; `GET /_sink/stats` and `/_sink/records` show what it received.
webhook-sink *args:
    cargo run --release -p shop-bench --bin webhook-sink -- {{args}}

# This checkout's benchmark against an earlier commit's, in alternated runs: a table of every
# target's change and spread in target/bench/alternate/comparison.md (scripts/bench/alternate.py).
bench-against commit *args:
    python3 scripts/bench/alternate.py {{commit}} {{args}}
