//! `shop-api owner ...`: the shop owners who sign in to the console.
//!
//! A password never appears on the command line (where `ps` and shell histories would show
//! it): it is the first line of standard input, for scripts, or is typed twice at a terminal
//! without echo.

use std::io::{BufRead as _, IsTerminal as _, Write as _};

use shop_domain::api_key::KeyStatus;
use shop_domain::owner::{OwnerEmail, Password};
use shop_domain::shop::Shop;
use shop_ports::usecase::{OwnerAdminError, ShopAdminError};

use super::OwnerCommand;
use super::terminal_text::Shown;
use crate::services::Services;

/// A command refused because of what it was given (an unknown shop or owner, a password too
/// short, an e-mail already taken): exit status 2, like a usage error, and nothing changed.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Refused(pub String);

pub async fn run(services: &Services, command: OwnerCommand) -> anyhow::Result<()> {
    match command {
        OwnerCommand::Create { shop, email } => {
            // Before the password is typed: an unknown shop must not waste it.
            services
                .shops
                .find(&shop)
                .await
                .map_err(|error| match error {
                    ShopAdminError::UnknownShop(_) => {
                        Refused(format!("{error}; nothing was created")).into()
                    }
                    other => anyhow::Error::from(other),
                })?;
            let password = read_password(&email)?;
            let owner = services
                .owners
                .create(&shop, email, &password)
                .await
                .map_err(refusal)?;
            eprintln!(
                "created owner {} of shop {shop}; they sign in at /console/login",
                Shown(owner.email.as_str())
            );
        }
        OwnerCommand::SetPassword { email } => {
            let password = read_password(&email)?;
            services
                .owners
                .set_password(&email, &password)
                .await
                .map_err(refusal)?;
            eprintln!(
                "changed the password of {}; their open sessions have ended",
                Shown(email.as_str())
            );
        }
        OwnerCommand::List { shop } => {
            let owners = services.owners.list(&shop).await.map_err(refusal)?;
            let mut out = std::io::stdout().lock();
            writeln!(out, "EMAIL\tCREATED\tDISABLED")?;
            for owner in owners {
                writeln!(
                    out,
                    "{}\t{}\t{}",
                    Shown(owner.email.as_str()),
                    owner.created_at.to_rfc3339(),
                    owner
                        .disabled_at
                        .map_or_else(|| "-".to_owned(), |at| at.to_rfc3339())
                )?;
            }
        }
        OwnerCommand::Disable { email } => {
            let shop = services.owners.disable(&email).await.map_err(refusal)?;
            eprintln!(
                "disabled {}; their open sessions have ended",
                Shown(email.as_str())
            );
            list_active_keys(services, &shop).await?;
        }
    }
    Ok(())
}

/// Keys belong to the shop, not to the owner who made them in the console, so they keep
/// working after the owner is disabled: right for the shop's integrations, but the operator
/// disabling someone may mean to cut them off, and must be told what stays open and how to
/// close it. The keys go to stdout as `key list` prints them (a script can revoke them), the
/// explanation to stderr.
async fn list_active_keys(services: &Services, shop: &Shop) -> anyhow::Result<()> {
    let active: Vec<_> = services
        .keys
        .list_for_shop(&shop.id)
        .await?
        .into_iter()
        .filter(|listing| listing.status == KeyStatus::Active)
        .collect();
    let mut out = std::io::stdout().lock();
    writeln!(out, "PREFIX\tLABEL\tSCOPES")?;
    for listing in &active {
        let key = &listing.key;
        writeln!(
            out,
            "{}\t{}\t{}",
            key.prefix,
            Shown(&key.label),
            key.scopes.to_list()
        )?;
    }
    drop(out);
    if active.is_empty() {
        eprintln!("shop {} has no active API key", shop.slug);
    } else {
        eprintln!(
            "the {} active API key(s) of shop {} above still work: keys belong to the shop, not \
             to the owner who made them; to stop one: shop-api key revoke <prefix> (refused \
             everywhere within 5 seconds)",
            active.len(),
            shop.slug
        );
    }
    Ok(())
}

fn refusal(error: OwnerAdminError) -> anyhow::Error {
    match error {
        OwnerAdminError::UnknownShop(_)
        | OwnerAdminError::UnknownOwner(_)
        | OwnerAdminError::EmailTaken(_) => Refused(format!("{error}; nothing was changed")).into(),
        other => other.into(),
    }
}

/// The first line of standard input, or a password typed twice at a terminal, held to the
/// policy (12 characters at least).
fn read_password(email: &OwnerEmail) -> anyhow::Result<Password> {
    let stdin = std::io::stdin();
    let typed = if stdin.is_terminal() {
        let first = rpassword::prompt_password(format!(
            "Password for {email} (at least {} characters): ",
            Password::MIN_CHARS
        ))?;
        let again = rpassword::prompt_password("The same password again: ")?;
        if first != again {
            return Err(Refused("the two passwords differ; nothing was changed".into()).into());
        }
        first
    } else {
        let mut line = String::new();
        stdin.lock().read_line(&mut line)?;
        line.trim_end_matches(['\n', '\r']).to_owned()
    };
    Password::new(&typed).map_err(|weak| Refused(format!("{weak}; nothing was changed")).into())
}
