//! A write script of scripts/bench/sql/sqlite/ (`product_patch.sql`, `loyalty_credit.sql`):
//! the statements one API write sends on SQLite, in order, each with its binds, and the
//! connection's setup. Comment lines start with `--`; three of them mean something:
//!
//! ```text
//! -- setup: PRAGMA busy_timeout = 5000; ...
//! -- target: products
//! -- binds: text :shop_id, text :id, bigint 1
//! SELECT ... WHERE `products`.`shop_id` = ? AND `products`.`id` = ? LIMIT ?;
//! ```
//!
//! A statement is the SQL lines up to one that ends with `;`. A `binds:` line gives the binds
//! of the statement that follows it; a statement without one (`BEGIN IMMEDIATE`, `COMMIT`) is
//! sent as it is, as diesel's transaction manager sends those. A bind is a type (`text`,
//! `bigint`, `integer`, `bool`) and where its value comes from:
//!
//! - a literal: `'text'`, a whole number, `true` / `false`, or `null`;
//! - `:name`: a value of the transaction (`shop_id`; `id`, the target; `now_ms`; `price`, a
//!   new one every transaction; `write_id`, `event_id`, `adjustment_id`, fresh ids) or one
//!   given on the command line (`key_prefix`, `event_body`);
//! - `'prefix' || :name`: that value after a fixed text;
//! - `@table.column`: the target's stored row, read before the run (for a product target: its
//!   `products` row, its one `variants` row, its `categories` and `brands` rows; for a client
//!   target, its `clients` row);
//! - `$column` or `$column - N`: that column of the last row an earlier statement of the
//!   transaction returned (`RETURNING`).

use thiserror::Error;

/// What a script's transactions write to, one id a transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Products,
    Clients,
}

impl Target {
    /// The tables `@table.column` may read for this target.
    pub fn tables(self) -> &'static [&'static str] {
        match self {
            Self::Products => &["products", "variants", "categories", "brands"],
            Self::Clients => &["clients"],
        }
    }
}

/// How a value is bound: diesel's SQLite types, as the adapter's schema declares the column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BindType {
    Text,
    BigInt,
    Integer,
    Bool,
}

/// A value as SQLite stores it.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Integer(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

/// Where a bind's value comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    Literal(Value),
    Variable(String),
    Prefixed(String, String),
    Stored { table: String, column: String },
    Returned { column: String, minus: i64 },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Bind {
    pub bind_type: BindType,
    pub source: Source,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ScriptStatement {
    pub sql: String,
    /// `None`: sent as it is (batch_execute), not prepared.
    pub binds: Option<Vec<Bind>>,
}

impl ScriptStatement {
    /// Whether its rows are read by column name (`$column` of a later bind).
    pub fn returns(&self) -> bool {
        self.sql.contains(" RETURNING ")
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct WriteScript {
    pub setup: String,
    pub target: Target,
    pub statements: Vec<ScriptStatement>,
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum ScriptError {
    #[error("the script has no `-- {0}:` line")]
    Missing(&'static str),
    #[error("`-- target: {0}`: expected products or clients")]
    UnknownTarget(String),
    #[error("the script has no statement")]
    NoStatement,
    #[error("SQL after the last statement's `;`: {0}")]
    Unterminated(String),
    #[error("`{0}` is not a bind (see crates/bench/src/sqlite_ceiling/script.rs)")]
    InvalidBind(String),
    #[error("`@{table}.{column}`: a {target} target has no such table")]
    UnknownTable {
        table: String,
        column: String,
        target: &'static str,
    },
    #[error("statement {index}: {placeholders} `?` but {binds} binds")]
    BindCount {
        index: usize,
        placeholders: usize,
        binds: usize,
    },
}

impl WriteScript {
    pub fn parse(file: &str) -> Result<Self, ScriptError> {
        let mut setup = None;
        let mut target = None;
        let mut binds = None;
        let mut sql: Vec<&str> = Vec::new();
        let mut statements = Vec::new();
        for line in file.lines().map(str::trim).filter(|line| !line.is_empty()) {
            if let Some(comment) = line.strip_prefix("--").map(str::trim) {
                if let Some(value) = comment.strip_prefix("setup:") {
                    setup = Some(value.trim().to_owned());
                } else if let Some(value) = comment.strip_prefix("target:") {
                    target = Some(match value.trim() {
                        "products" => Target::Products,
                        "clients" => Target::Clients,
                        other => return Err(ScriptError::UnknownTarget(other.to_owned())),
                    });
                } else if let Some(value) = comment.strip_prefix("binds:") {
                    binds = Some(parse_binds(value)?);
                }
                continue;
            }
            match line.strip_suffix(';') {
                Some(last) => {
                    sql.push(last);
                    statements.push(ScriptStatement {
                        sql: sql.join(" "),
                        binds: binds.take(),
                    });
                    sql.clear();
                }
                None => sql.push(line),
            }
        }
        if !sql.is_empty() {
            return Err(ScriptError::Unterminated(sql.join(" ")));
        }
        let setup = setup.ok_or(ScriptError::Missing("setup"))?;
        let target = target.ok_or(ScriptError::Missing("target"))?;
        if statements.is_empty() {
            return Err(ScriptError::NoStatement);
        }
        for (index, statement) in statements.iter().enumerate() {
            let Some(binds) = &statement.binds else {
                continue;
            };
            let placeholders = statement.sql.matches('?').count();
            if placeholders != binds.len() {
                return Err(ScriptError::BindCount {
                    index,
                    placeholders,
                    binds: binds.len(),
                });
            }
            for bind in binds {
                if let Source::Stored { table, column } = &bind.source
                    && !target.tables().contains(&table.as_str())
                {
                    return Err(ScriptError::UnknownTable {
                        table: table.clone(),
                        column: column.clone(),
                        target: match target {
                            Target::Products => "products",
                            Target::Clients => "clients",
                        },
                    });
                }
            }
        }
        Ok(Self {
            setup,
            target,
            statements,
        })
    }

    /// The tables whose stored rows the binds read, in `Target::tables` order.
    pub fn stored_tables(&self) -> Vec<&'static str> {
        self.target
            .tables()
            .iter()
            .copied()
            .filter(|table| {
                self.statements
                    .iter()
                    .filter_map(|statement| statement.binds.as_ref())
                    .flatten()
                    .any(|bind| matches!(&bind.source, Source::Stored { table: t, .. } if t == table))
            })
            .collect()
    }
}

/// Splits on the commas outside quotes.
fn split_binds(list: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut start, mut quoted) = (0, false);
    for (at, character) in list.char_indices() {
        match character {
            '\'' => quoted = !quoted,
            ',' if !quoted => {
                items.push(list[start..at].trim());
                start = at + 1;
            }
            _ => {}
        }
    }
    items.push(list[start..].trim());
    items
}

fn parse_binds(list: &str) -> Result<Vec<Bind>, ScriptError> {
    split_binds(list)
        .into_iter()
        .map(|item| {
            let invalid = || ScriptError::InvalidBind(item.to_owned());
            let (kind, source) = item.split_once(' ').ok_or_else(invalid)?;
            let bind_type = match kind {
                "text" => BindType::Text,
                "bigint" => BindType::BigInt,
                "integer" => BindType::Integer,
                "bool" => BindType::Bool,
                _ => return Err(invalid()),
            };
            let source = parse_source(source.trim()).ok_or_else(invalid)?;
            Ok(Bind { bind_type, source })
        })
        .collect()
}

fn quoted(text: &str) -> Option<&str> {
    text.strip_prefix('\'')?.strip_suffix('\'')
}

fn name(text: &str) -> Option<String> {
    let valid = !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then(|| text.to_owned())
}

fn parse_source(text: &str) -> Option<Source> {
    if let Some((prefix, variable)) = text.split_once("||") {
        let prefix = quoted(prefix.trim())?;
        let variable = variable.trim().strip_prefix(':')?;
        return Some(Source::Prefixed(prefix.to_owned(), name(variable)?));
    }
    if let Some(literal) = quoted(text) {
        return Some(Source::Literal(Value::Text(literal.to_owned())));
    }
    if let Some(variable) = text.strip_prefix(':') {
        return Some(Source::Variable(name(variable)?));
    }
    if let Some(stored) = text.strip_prefix('@') {
        let (table, column) = stored.split_once('.')?;
        return Some(Source::Stored {
            table: name(table)?,
            column: name(column)?,
        });
    }
    if let Some(returned) = text.strip_prefix('$') {
        let (column, minus) = match returned.split_once('-') {
            Some((column, minus)) => (column.trim(), minus.trim().parse().ok()?),
            None => (returned, 0),
        };
        return Some(Source::Returned {
            column: name(column)?,
            minus,
        });
    }
    match text {
        "null" => Some(Source::Literal(Value::Null)),
        "true" => Some(Source::Literal(Value::Integer(1))),
        "false" => Some(Source::Literal(Value::Integer(0))),
        number => number
            .parse()
            .ok()
            .map(|n| Source::Literal(Value::Integer(n))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCRIPT: &str = "-- a write\n--\n-- setup: PRAGMA foreign_keys = ON;\n-- target: clients\n\n\
        BEGIN IMMEDIATE;\n\
        -- binds: bigint :now_ms, text :id, bigint -9223372036854775808\n\
        UPDATE c SET t = ? WHERE id = ?\n  AND p > ? RETURNING `points`;\n\
        -- binds: text 'client:' || :id, bigint $points - 1, text 'a, b', bool true, bigint null, \
        text @clients.name\n\
        INSERT INTO a VALUES (?, ?, ?, ?, ?, ?);\n\
        COMMIT;\n";

    #[test]
    fn a_script_gives_its_statements_in_order_with_their_binds() {
        let script = WriteScript::parse(SCRIPT).unwrap();
        assert_eq!(script.setup, "PRAGMA foreign_keys = ON;");
        assert_eq!(script.target, Target::Clients);
        let sql: Vec<&str> = script.statements.iter().map(|s| s.sql.as_str()).collect();
        assert_eq!(
            sql,
            [
                "BEGIN IMMEDIATE",
                "UPDATE c SET t = ? WHERE id = ? AND p > ? RETURNING `points`",
                "INSERT INTO a VALUES (?, ?, ?, ?, ?, ?)",
                "COMMIT"
            ]
        );
        assert_eq!(script.statements[0].binds, None);
        assert!(script.statements[1].returns());
        assert!(!script.statements[2].returns());
        let binds = script.statements[2].binds.clone().unwrap();
        let sources: Vec<Source> = binds.into_iter().map(|b| b.source).collect();
        assert_eq!(
            sources,
            [
                Source::Prefixed("client:".into(), "id".into()),
                Source::Returned {
                    column: "points".into(),
                    minus: 1
                },
                Source::Literal(Value::Text("a, b".into())),
                Source::Literal(Value::Integer(1)),
                Source::Literal(Value::Null),
                Source::Stored {
                    table: "clients".into(),
                    column: "name".into()
                },
            ]
        );
        assert_eq!(
            script.statements[1].binds.as_ref().unwrap()[2].source,
            Source::Literal(Value::Integer(i64::MIN))
        );
        assert_eq!(script.stored_tables(), ["clients"]);
    }

    #[test]
    fn a_script_that_cannot_be_run_as_it_says_is_refused() {
        let fewer = SCRIPT.replace(", bigint -9223372036854775808", "");
        assert_eq!(
            WriteScript::parse(&fewer),
            Err(ScriptError::BindCount {
                index: 1,
                placeholders: 3,
                binds: 2
            })
        );
        let junk = SCRIPT.replace("bigint :now_ms", "bigint now");
        assert_eq!(
            WriteScript::parse(&junk),
            Err(ScriptError::InvalidBind("bigint now".into()))
        );
        let elsewhere = SCRIPT.replace("@clients.name", "@products.name");
        assert!(matches!(
            WriteScript::parse(&elsewhere),
            Err(ScriptError::UnknownTable { .. })
        ));
        let open = SCRIPT.replace("COMMIT;", "COMMIT");
        assert_eq!(
            WriteScript::parse(&open),
            Err(ScriptError::Unterminated("COMMIT".into()))
        );
        let no_target = SCRIPT.replace("-- target: clients", "");
        assert_eq!(
            WriteScript::parse(&no_target),
            Err(ScriptError::Missing("target"))
        );
    }

    #[test]
    fn the_repositorys_write_scripts_parse() {
        for (file, target) in [
            ("product_patch.sql", Target::Products),
            ("loyalty_credit.sql", Target::Clients),
        ] {
            let path = format!(
                "{}/../../scripts/bench/sql/sqlite/{file}",
                env!("CARGO_MANIFEST_DIR")
            );
            let text = std::fs::read_to_string(&path).unwrap();
            let script = WriteScript::parse(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
            assert_eq!(script.target, target, "{file}");
            // The adapter's `BEGIN` that waits for no lock, then its wait set back.
            let opening: Vec<&str> = script.statements[..3].iter().map(|s| &*s.sql).collect();
            assert_eq!(
                opening,
                [
                    "PRAGMA busy_timeout = 0",
                    "BEGIN IMMEDIATE",
                    "PRAGMA busy_timeout = 5000"
                ],
                "{file}"
            );
            assert_eq!(script.statements.last().unwrap().sql, "COMMIT");
        }
    }
}
