//! Executes a parsed command. Every command opens (and so migrates) the database first.

use std::io::Write;

use anyhow::Context;
use shop_ports::port::ImportReport;
use shop_ports::usecase::{ImportError, NewKey, NewShop, ShopChange};

use super::terminal_text::Shown;
use super::{Cli, Command, KeyCommand, ServeArgs, ShopCommand, StockCommand};
use crate::deliveries::DeliveryWorkers;
use crate::server::{Listeners, RunningServer, ServerConfig};
use crate::services::{ServiceSettings, Services};
use crate::{demo, import_file};

pub async fn run(cli: Cli) -> anyhow::Result<()> {
    // Only the serving commands rate-limit, so only they connect to Redis. They take their
    // addresses first: a port in use is reported before the database is even opened.
    let (settings, listeners) = match &cli.command {
        Command::Serve(args) | Command::Demo(args) => {
            (args.settings(), Some(server_config(args)?.bind()?))
        }
        Command::Deliver(args) => (args.settings(), None),
        _ => (ServiceSettings::default(), None),
    };
    let services = Services::open_with(&cli.database_url, settings).await?;
    match cli.command {
        Command::Serve(args) => serve(&services, args, listeners).await,
        Command::Demo(args) => {
            let demo = demo::prepare(&services).await?;
            let config = server_config(&args)?;
            let server = RunningServer::start_on(&services, bound(listeners, &config)?, config)?;
            let mut out = std::io::stdout().lock();
            writeln!(
                out,
                "Demo shop ready. Full-scope key (shown once):\n{}\n",
                demo.key
            )?;
            writeln!(
                out,
                "Try:\ncurl -s -H 'Authorization: Bearer {}' '{}/api/v1/products?limit=2'\n",
                demo.key,
                server.base_url()
            )?;
            writeln!(
                out,
                "Owner console: {}\nE-mail:   {}\nPassword: {}",
                server.console_url(),
                demo.owner_email,
                demo.owner_password
            )?;
            drop(out);
            tracing::info!(addr = %server.addr, "serving the demo shop");
            server.wait().await?;
            services.database.close();
            Ok(())
        }
        Command::Deliver(_) => deliver(&services).await,
        Command::Shop(command) => shop(&services, command).await,
        Command::Key(command) => key(&services, command).await,
        Command::Owner(command) => super::owners::run(&services, command).await,
        Command::Stock(StockCommand::Movements { shop, variant }) => {
            let shop = services.shops.find(&shop).await?;
            let mut out = std::io::stdout().lock();
            writeln!(
                out,
                "CREATED\tMOVEMENT\tVARIANT\tPRODUCT\tDELTA\tPREVIOUS\tNEW\tKEY\tREASON"
            )?;
            for movement in services.stock.movements(&shop.id, variant).await? {
                writeln!(
                    out,
                    "{}\t{}\t{}\t{}\t{:+}\t{}\t{}\t{}\t{}",
                    movement.created_at.to_rfc3339(),
                    movement.id,
                    movement.variant_id,
                    movement.product_id,
                    movement.delta,
                    movement.previous_stock,
                    movement.new_stock,
                    movement.api_key_prefix,
                    Shown(movement.reason.as_str())
                )?;
            }
            Ok(())
        }
        Command::Import { shop, file } => {
            let text = std::fs::read_to_string(&file)
                .with_context(|| format!("cannot read {}", file.display()))?;
            let data = import_file::parse(&text, &crate::adapters::UuidV7Ids)
                .map_err(|problems| refusal(&problems))?;
            let report = services
                .import
                .run(&shop, data)
                .await
                .map_err(|error| match error {
                    ImportError::Invalid(problems) => refusal(&problems),
                    other => other.into(),
                })?;
            eprintln!("imported into {shop}: {}", describe(&report));
            Ok(())
        }
        Command::Seed(args) => super::seed::run(&services, args).await,
    }
}

/// `3 product(s) written, 1 unchanged; ...`, one clause per kind the file had.
pub fn describe(report: &ImportReport) -> String {
    let kinds = [
        ("tier(s)", report.tiers),
        ("product(s)", report.products),
        ("client(s)", report.clients),
        ("order(s)", report.orders),
        ("lottery ticket(s)", report.lottery_tickets),
        ("spin(s)", report.spins),
    ];
    let clauses: Vec<String> = kinds
        .iter()
        .filter(|(_, counts)| counts.written + counts.unchanged > 0)
        .map(|(kind, counts)| {
            format!(
                "{} {kind} written, {} unchanged",
                counts.written, counts.unchanged
            )
        })
        .collect();
    if clauses.is_empty() {
        "nothing to import".to_owned()
    } else {
        clauses.join("; ")
    }
}

fn refusal(problems: &[shop_domain::import::ImportProblem]) -> anyhow::Error {
    let lines: Vec<String> = problems.iter().map(ToString::to_string).collect();
    anyhow::anyhow!(
        "the file was refused and nothing was written:\n{}",
        lines.join("\n")
    )
}

/// Serves until SIGTERM or SIGINT, then lets the requests in flight finish (each one's
/// transaction commits or rolls back whole), closes the pool, and returns: exit status 0.
async fn serve(
    services: &Services,
    args: ServeArgs,
    listeners: Option<Listeners>,
) -> anyhow::Result<()> {
    let config = server_config(&args)?;
    let server = RunningServer::start_on(services, bound(listeners, &config)?, config)?;
    tracing::info!(
        addr = %server.addr,
        metrics_addr = server.metrics_addr.map(|addr| addr.to_string()),
        backend = services.database.backend_name(),
        "serving"
    );
    server.wait().await?;
    services.database.close();
    tracing::info!("stopped");
    Ok(())
}

/// Delivers until SIGTERM or SIGINT, then lets the attempts in flight finish.
async fn deliver(services: &Services) -> anyhow::Result<()> {
    let workers = DeliveryWorkers::start(services);
    tracing::info!(
        backend = services.database.backend_name(),
        "delivering webhooks"
    );
    crate::stop_signal::requested().await?;
    workers.stop().await;
    services.database.close();
    tracing::info!("stopped");
    Ok(())
}

/// The server's settings; a refused one (a metrics token too short) exits with status 2, as
/// a usage error does.
fn server_config(args: &ServeArgs) -> anyhow::Result<ServerConfig> {
    args.server_config()
        .map_err(|refused| super::Refused(refused.to_string()).into())
}

/// The listeners bound at the start of `run`, or bound now.
fn bound(listeners: Option<Listeners>, config: &ServerConfig) -> anyhow::Result<Listeners> {
    listeners.map_or_else(|| config.bind(), Ok)
}

async fn shop(services: &Services, command: ShopCommand) -> anyhow::Result<()> {
    match command {
        ShopCommand::Create {
            slug,
            name,
            no_public_api,
            subscription,
        } => {
            let shop = services
                .shops
                .create(NewShop {
                    slug,
                    name,
                    public_api_in_plan: !no_public_api,
                    subscription,
                })
                .await?;
            eprintln!("created shop {} ({})", shop.slug, shop.id);
        }
        ShopCommand::Update {
            slug,
            public_api,
            subscription,
        } => {
            let change = ShopChange {
                public_api_in_plan: public_api,
                subscription,
            };
            let shop = services.shops.update(&slug, change).await?;
            eprintln!(
                "updated shop {}: publicApi={}, subscription={}",
                shop.slug,
                shop.public_api_in_plan,
                shop.subscription.as_str()
            );
        }
    }
    Ok(())
}

async fn key(services: &Services, command: KeyCommand) -> anyhow::Result<()> {
    match command {
        KeyCommand::Create {
            shop,
            label,
            scopes,
            expires_at,
        } => {
            let created = services
                .keys
                .create(NewKey {
                    shop,
                    label,
                    scopes,
                    expires_at,
                })
                .await?;
            // The only line on stdout, so that `KEY=$(shop-api key create ...)` works.
            writeln!(std::io::stdout(), "{}", created.full_key.reveal())?;
            eprintln!(
                "created key {} ({}); it will not be shown again",
                created.key.prefix,
                created.key.scopes.to_list()
            );
        }
        KeyCommand::List { shop } => {
            let mut out = std::io::stdout().lock();
            writeln!(out, "PREFIX\tLABEL\tSCOPES\tCREATED\tEXPIRES\tREVOKED")?;
            for key in services.keys.list(&shop).await? {
                let show = |at: Option<shop_domain::Timestamp>| {
                    at.map_or_else(|| "-".to_owned(), |t| t.to_rfc3339())
                };
                writeln!(
                    out,
                    "{}\t{}\t{}\t{}\t{}\t{}",
                    key.prefix,
                    Shown(&key.label),
                    key.scopes.to_list(),
                    key.created_at.to_rfc3339(),
                    show(key.expires_at),
                    show(key.revoked_at)
                )?;
            }
        }
        KeyCommand::Revoke { prefix } => {
            services.keys.revoke(&prefix).await?;
            eprintln!("revoked key {prefix}; it is refused everywhere within 5 seconds");
        }
    }
    Ok(())
}
