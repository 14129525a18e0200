//! The `shop-api` command line as scripts use it: exit statuses, what goes to stdout; owners
//! and the console's credentials of `demo`;
//! `shop-api serve` processes sharing their rate limits through Redis; and a server's life:
//! startup errors, and a SIGTERM with requests in flight.

#[path = "cli/lifecycle.rs"]
mod lifecycle;
#[path = "cli/owners.rs"]
mod owners;
#[path = "cli/serve.rs"]
mod serve;

use shop_ports::port::ReadFrom;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::json;
use shop_domain::catalogue::{ActiveFilter, Product, ProductListQuery};
use shop_domain::order::{Order, OrderListQuery};
use shop_domain::pagination::PageLimit;
use shop_domain::shop::ShopSlug;
use shop_persistence::{Database, DatabaseUrl, PoolOptions};
use shop_ports::port::{CatalogueRepository, OrderRepository, ShopStore};

struct Cli {
    dir: tempfile::TempDir,
}

impl Cli {
    fn new() -> Self {
        Self {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    /// `shop-api` on this test's database, with no configuration inherited from the caller.
    fn command(&self) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_shop-api"));
        command.env("DATABASE_URL", self.database_url());
        for inherited in [
            "RUST_LOG",
            "BIND",
            "WORKERS",
            "REDIS_URL",
            "REDIS_KEY_PREFIX",
            "RATE_LIMIT_READS_PER_MINUTE",
            "RATE_LIMIT_WRITES_PER_MINUTE",
            "AUTH_FAILURES_PER_MINUTE",
            "LOG_FORMAT",
            "METRICS_BIND",
            "METRICS_TOKEN",
            "AUTH_FAILURES_PER_KEY_PER_MINUTE",
            "TRUSTED_PROXIES",
            "SHUTDOWN_TIMEOUT_SECONDS",
            "DATABASE_POOL_SIZE",
            "DATABASE_WAIT_TIMEOUT_MS",
            "PUBLIC_URL",
        ] {
            command.env_remove(inherited);
        }
        command
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command().args(args).output().expect("run shop-api")
    }

    fn ok(&self, args: &[&str]) -> String {
        let output = self.run(args);
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).expect("utf-8 stdout")
    }

    /// A new key of `shop` with these scopes (comma-separated), as `key create` prints it.
    fn key(&self, shop: &str, scopes: &str) -> String {
        let args = [
            "key", "create", "--shop", shop, "--label", "ERP", "--scopes", scopes,
        ];
        self.ok(&args).trim().to_owned()
    }

    fn database_url(&self) -> String {
        format!("sqlite://{}", self.dir.path().join("cli.db").display())
    }

    /// The shop's first 100 products and orders, read through the API's repositories.
    async fn first_pages(&self, slug: &str) -> (Vec<Product>, Vec<Order>) {
        let url = DatabaseUrl::parse(&self.database_url()).expect("url");
        let db = Database::open(&url, PoolOptions::default())
            .await
            .expect("open the database");
        let slug = ShopSlug::parse(slug).expect("slug");
        let shop = db
            .find_shop_by_slug(&slug)
            .await
            .expect("read")
            .expect("the shop exists");
        let limit = PageLimit::new(100).expect("limit");
        let products = ProductListQuery {
            active: ActiveFilter::All,
            limit,
            ..ProductListQuery::default()
        };
        let orders = OrderListQuery {
            limit,
            ..OrderListQuery::default()
        };
        (
            db.list_products(&shop.id, &products, ReadFrom::Primary)
                .await
                .expect("products"),
            db.list_orders(&shop.id, &orders, ReadFrom::Primary)
                .await
                .expect("orders"),
        )
    }

    fn write(&self, name: &str, value: &serde_json::Value) -> String {
        let path = self.dir.path().join(name);
        std::fs::write(&path, value.to_string()).expect("write file");
        path_str(&path)
    }
}

fn path_str(path: &Path) -> String {
    path.to_str().expect("utf-8 path").to_owned()
}

#[test]
fn key_create_prints_only_the_key_on_stdout() {
    let cli = Cli::new();
    cli.ok(&["shop", "create", "--slug", "atelier", "--name", "Atelier"]);
    let stdout = cli.ok(&[
        "key",
        "create",
        "--shop",
        "atelier",
        "--label",
        "ERP",
        "--scopes",
        "products:read,stock:write",
    ]);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{stdout}");
    let key = lines[0];
    assert!(
        key.starts_with("svc_live_") && key.len() == "svc_live_".len() + 8 + 1 + 64,
        "{key}"
    );

    let listing = cli.ok(&["key", "list", "--shop", "atelier"]);
    let secret = &key[key.len() - 64..];
    assert!(listing.contains(&key[9..17]), "{listing}");
    assert!(listing.contains("products:read,stock:write"), "{listing}");
    assert!(!listing.contains(secret), "the secret must never be listed");

    cli.ok(&["key", "revoke", &key[9..17]]);
    assert!(
        cli.ok(&["key", "list", "--shop", "atelier"])
            .lines()
            .nth(1)
            .is_some_and(|l| !l.ends_with("\t-"))
    );
}

#[test]
fn unknown_scopes_and_shops_are_refused() {
    let cli = Cli::new();
    cli.ok(&["shop", "create", "--slug", "atelier", "--name", "Atelier"]);
    let output = cli.run(&[
        "key",
        "create",
        "--shop",
        "atelier",
        "--label",
        "x",
        "--scopes",
        "products:read,stock:delete",
    ]);
    assert!(!output.status.success());
    assert!(output.stdout.is_empty());
    assert!(String::from_utf8_lossy(&output.stderr).contains("stock:delete"));

    let output = cli.run(&[
        "key",
        "create",
        "--shop",
        "nowhere",
        "--label",
        "x",
        "--scopes",
        "products:read",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("nowhere"));
}

#[test]
fn a_bad_import_is_refused_whole_with_every_path_and_exit_1() {
    let cli = Cli::new();
    cli.ok(&["shop", "create", "--slug", "atelier", "--name", "Atelier"]);
    let good =
        json!({"products": [{"id": "p1", "name": "Bol", "priceCents": 100, "taxRate": "20.00"}]});
    let bad = json!({"products": [
        {"id": "p2", "name": "Tasse", "priceCents": 100, "taxRate": "20.00"},
        {"id": "p3", "name": "Plat", "priceCents": "100", "taxRate": "20.00",
         "variants": [{"id": "v1", "label": "L", "priceCents": 1.5}]}
    ]});
    let good_file = cli.write("good.json", &good);
    let bad_file = cli.write("bad.json", &bad);

    let output = cli.run(&["import", "--shop", "atelier", &bad_file]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("products[1].priceCents: expected an integer"),
        "{stderr}"
    );
    assert!(
        stderr.contains("products[1].variants[0].priceCents: expected an integer"),
        "{stderr}"
    );

    // Nothing of the bad file was written: its valid product p2 is new to a later import.
    let p2 = cli.write(
        "p2.json",
        &json!({"products": [bad["products"][0].clone()]}),
    );
    assert!(imported(&cli, &p2).contains("1 product(s) written, 0 unchanged"));
    assert!(imported(&cli, &good_file).contains("1 product(s) written, 0 unchanged"));
    assert!(imported(&cli, &good_file).contains("0 product(s) written, 1 unchanged"));
}

#[test]
fn an_id_of_another_shop_refuses_the_whole_file() {
    let cli = Cli::new();
    cli.ok(&["shop", "create", "--slug", "atelier", "--name", "Atelier"]);
    cli.ok(&["shop", "create", "--slug", "voisin", "--name", "Voisin"]);
    let product = |id: &str| json!({"id": id, "name": id, "priceCents": 100, "taxRate": "20.00"});
    let theirs = cli.write("theirs.json", &json!({"products": [product("p9")]}));
    cli.ok(&["import", "--shop", "voisin", &theirs]);

    let mixed = cli.write(
        "mixed.json",
        &json!({"products": [product("p4"), product("p9")]}),
    );
    let output = cli.run(&["import", "--shop", "atelier", &mixed]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("products[1].id"));

    let mine = cli.write("mine.json", &json!({"products": [product("p4")]}));
    assert!(
        imported(&cli, &mine).contains("1 product(s) written, 0 unchanged"),
        "p4 was not written before"
    );
}

fn imported(cli: &Cli, file: &str) -> String {
    let output = cli.run(&["import", "--shop", "atelier", file]);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    stderr
}

#[test]
fn a_bad_database_url_is_one_clear_line() {
    let output = Command::new(env!("CARGO_BIN_EXE_shop-api"))
        .args(["key", "list", "--shop", "x"])
        .env("DATABASE_URL", "mysql://nope")
        .output()
        .expect("run shop-api");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
}

#[test]
fn stock_movements_lists_for_a_shop_and_refuses_an_unknown_one() {
    let cli = Cli::new();
    cli.ok(&["shop", "create", "--slug", "atelier", "--name", "Atelier"]);
    let listing = cli.ok(&["stock", "movements", "--shop", "atelier", "--variant", "v1"]);
    assert_eq!(
        listing.lines().collect::<Vec<_>>(),
        ["CREATED\tMOVEMENT\tVARIANT\tPRODUCT\tDELTA\tPREVIOUS\tNEW\tKEY\tREASON"]
    );
    let output = cli.run(&["stock", "movements", "--shop", "nowhere"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("nowhere"));
}

/// A reason that would, printed raw, set the terminal's title (OSC 0), ring, go back over
/// the line, and reverse what follows it.
const HOSTILE_REASON: &str = "restock\u{1b}]0;pwned\u{7}\r\u{202e}fdp.exe";

#[test]
fn stock_movements_show_a_reasons_control_and_bidi_characters_escaped() {
    let cli = Cli::new();
    cli.ok(&["shop", "create", "--slug", "atelier", "--name", "Atelier"]);
    let file = cli.write(
        "stock.json",
        &json!({"products": [{"id": "p1", "name": "Bol", "priceCents": 100, "taxRate": "20.00",
            "trackStock": true,
            "variants": [{"id": "v1", "label": "Unique", "priceCents": 100, "stock": 0}]}]}),
    );
    cli.ok(&["import", "--shop", "atelier", &file]);
    let key = cli.key("atelier", "stock:write");
    let server = serve::Server::start(&cli, &[]);
    let body = json!({"variantId": "v1", "quantity": 1, "reason": HOSTILE_REASON});
    assert_eq!(
        server.post_json("/api/v1/stock/adjustments", &key, &body),
        201
    );
    drop(server);

    let listing = cli.ok(&["stock", "movements", "--shop", "atelier"]);
    for raw in ['\u{1b}', '\u{7}', '\r', '\u{202e}'] {
        assert!(
            !listing.contains(raw),
            "{raw:?} reached the terminal: {listing:?}"
        );
    }
    let row = listing.lines().nth(1).expect("the movement's line");
    assert!(
        row.ends_with("\trestock\\u{1b}]0;pwned\\u{7}\\u{d}\\u{202e}fdp.exe"),
        "{row:?}"
    );
}

#[test]
fn an_import_refusal_shows_the_files_control_characters_escaped() {
    let cli = Cli::new();
    cli.ok(&["shop", "create", "--slug", "atelier", "--name", "Atelier"]);
    let file = cli.write(
        "hostile.json",
        &json!({"products": [{"id": "p1", "name": "Bol", "priceCents": 100, "taxRate": "20.00",
            "\u{1b}[2K\rcolour\u{202e}": "red"}]}),
    );
    let output = cli.run(&["import", "--shop", "atelier", &file]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("products[0].\\u{1b}[2K\\u{d}colour\\u{202e}: unknown field"),
        "{stderr:?}"
    );
    for raw in ['\u{1b}', '\r', '\u{202e}'] {
        assert!(
            !stderr.contains(raw),
            "{raw:?} reached the terminal: {stderr:?}"
        );
    }
}

#[tokio::test]
async fn seed_fills_a_new_shop_once_and_the_same_seed_makes_the_same_data() {
    let (first, second) = (Cli::new(), Cli::new());
    let args = [
        "seed",
        "--shop",
        "bench",
        "--products",
        "40",
        "--orders",
        "150",
        "--clients",
        "20",
    ];
    let summary = first.ok(&args);
    assert_eq!(summary.lines().count(), 1, "{summary}");
    let (timing, counts) = summary
        .trim_end()
        .split_once("): ")
        .expect("one summary line");
    assert!(
        timing.starts_with("seeded ") && timing.ends_with(" rows/s"),
        "{summary}"
    );
    assert!(
        counts.starts_with("40 products, ")
            && counts.contains(" variants, 20 clients, 150 orders, ")
            && counts.ends_with(" spins, 3 tiers"),
        "{summary}"
    );
    let listed: usize = counts
        .split(", ")
        .map(|part| part.split(' ').next().and_then(|n| n.parse::<usize>().ok()))
        .sum::<Option<usize>>()
        .expect("numbers");
    assert!(
        timing.starts_with(&format!("seeded {listed} rows in ")),
        "{summary}"
    );

    // The same seed into another database: the same rows, ids and timestamps included.
    let again = second.ok(&args);
    assert_eq!(
        again.split_once("): ").map(|(_, c)| c.trim_end()),
        Some(counts)
    );
    let seeded = first.first_pages("bench").await;
    assert_eq!(seeded.0.len(), 40);
    assert_eq!(seeded.1.len(), 101, "a page and the one after it");
    assert_eq!(seeded, second.first_pages("bench").await);

    // A shop with data is refused whole: exit 1, one error line, nothing on stdout or in it.
    let output = first.run(&[
        "seed",
        "--shop",
        "bench",
        "--products",
        "60",
        "--orders",
        "10",
        "--clients",
        "5",
        "--seed",
        "2",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("error: "))
        .collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(errors[0].contains("`bench` already holds"), "{stderr}");
    assert_eq!(first.first_pages("bench").await, seeded);
}
