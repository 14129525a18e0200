//! A statement file of scripts/bench/sql/sqlite/: the connection's setup, the binds and the
//! SQL text of one page read, exactly as the adapter runs them (a test in crates/persistence
//! checks that). Comment lines start with `--`; two of them carry the setup and the binds:
//!
//! ```text
//! -- setup: PRAGMA busy_timeout = 5000; ...
//! -- binds: text :shop_id, bool true, integer 7, bigint 21
//! SELECT ... WHERE `products`.`shop_id` = ? ...
//! ```
//!
//! `:shop_id` is the benchmarked shop's id, given when the file is read.

use thiserror::Error;

/// One value bound to a `?` of the statement, in diesel's SQLite types.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bind {
    Text(String),
    Bool(bool),
    Integer(i32),
    BigInt(i64),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageStatement {
    pub setup: String,
    pub binds: Vec<Bind>,
    pub sql: String,
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum StatementError {
    #[error("the statement file has no `-- {0}:` line")]
    Missing(&'static str),
    #[error("the statement file has no SQL")]
    NoSql,
    #[error(
        "`{0}` is not a bind: `text '...'`, `text :shop_id`, `bool true|false`, `integer N` or \
         `bigint N`"
    )]
    InvalidBind(String),
    #[error("the SQL has {placeholders} `?` but {binds} binds are given")]
    BindCount { placeholders: usize, binds: usize },
}

impl PageStatement {
    pub fn parse(file: &str, shop_id: &str) -> Result<Self, StatementError> {
        let mut setup = None;
        let mut binds = None;
        let mut sql = Vec::new();
        for line in file.lines().map(str::trim).filter(|line| !line.is_empty()) {
            match line.strip_prefix("--").map(str::trim) {
                Some(comment) => {
                    if let Some(value) = comment.strip_prefix("setup:") {
                        setup = Some(value.trim().to_owned());
                    } else if let Some(value) = comment.strip_prefix("binds:") {
                        binds = Some(parse_binds(value, shop_id)?);
                    }
                }
                None => sql.push(line),
            }
        }
        let setup = setup.ok_or(StatementError::Missing("setup"))?;
        let binds = binds.ok_or(StatementError::Missing("binds"))?;
        if sql.is_empty() {
            return Err(StatementError::NoSql);
        }
        let sql = sql.join(" ");
        let placeholders = sql.matches('?').count();
        if placeholders != binds.len() {
            return Err(StatementError::BindCount {
                placeholders,
                binds: binds.len(),
            });
        }
        Ok(Self { setup, binds, sql })
    }
}

fn parse_binds(list: &str, shop_id: &str) -> Result<Vec<Bind>, StatementError> {
    list.split(',')
        .map(str::trim)
        .map(|item| {
            let invalid = || StatementError::InvalidBind(item.to_owned());
            let (kind, value) = item.split_once(' ').ok_or_else(invalid)?;
            let value = value.trim();
            match kind {
                "text" if value == ":shop_id" => Ok(Bind::Text(shop_id.to_owned())),
                "text" => value
                    .strip_prefix('\'')
                    .and_then(|quoted| quoted.strip_suffix('\''))
                    .map(|text| Bind::Text(text.to_owned()))
                    .ok_or_else(invalid),
                "bool" => value.parse().map(Bind::Bool).map_err(|_| invalid()),
                "integer" => value.parse().map(Bind::Integer).map_err(|_| invalid()),
                "bigint" => value.parse().map(Bind::BigInt).map_err(|_| invalid()),
                _ => Err(invalid()),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "-- a page\n--\n-- setup: PRAGMA foreign_keys = ON;\n\
        -- binds: text '', text :shop_id, bool true, integer 7, bigint 21\n\
        SELECT a FROM t WHERE b = ? AND c = ?\n  AND d = ? AND e = ? LIMIT ?\n";

    #[test]
    fn a_file_gives_its_setup_binds_and_sql_with_the_shop_filled_in() {
        let statement = PageStatement::parse(FILE, "shop_7").unwrap();
        assert_eq!(statement.setup, "PRAGMA foreign_keys = ON;");
        assert_eq!(
            statement.binds,
            [
                Bind::Text(String::new()),
                Bind::Text("shop_7".into()),
                Bind::Bool(true),
                Bind::Integer(7),
                Bind::BigInt(21)
            ]
        );
        assert_eq!(
            statement.sql,
            "SELECT a FROM t WHERE b = ? AND c = ? AND d = ? AND e = ? LIMIT ?"
        );
    }

    #[test]
    fn a_file_that_cannot_be_run_as_it_says_is_refused() {
        let fewer = FILE.replace(", bigint 21", "");
        assert_eq!(
            PageStatement::parse(&fewer, "s"),
            Err(StatementError::BindCount {
                placeholders: 5,
                binds: 4
            })
        );
        let junk = FILE.replace("integer 7", "integer one");
        assert_eq!(
            PageStatement::parse(&junk, "s"),
            Err(StatementError::InvalidBind("integer one".into()))
        );
        let no_setup = FILE.replace("setup:", "set up:");
        assert_eq!(
            PageStatement::parse(&no_setup, "s"),
            Err(StatementError::Missing("setup"))
        );
    }
}
