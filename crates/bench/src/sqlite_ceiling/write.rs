//! Ceiling B of an API write on SQLite: a write script (`script.rs`) run as transactions on
//! the benchmarked database file, from as many threads as the API's pool has connections, each
//! thread cycling through its own share of the target ids (as wrk's threads do). Every
//! transaction takes the process's one write turn before its `BEGIN IMMEDIATE`, as the
//! adapter's writers do (`Database::write_turn`, crates/persistence/src/database/write_queue.rs),
//! so that writers queue in the process instead of polling SQLite's lock with the busy
//! handler's sleeps. The turn holds one connection with the adapter's setup, on which every
//! transaction runs: the adapter's writers' pool hands a write the connection returned last,
//! which under a steady load is the one that committed last and keeps its page cache
//! (crates/persistence/src/database/open.rs). Each thread reads its targets on a connection of
//! its own. Each statement is prepared once (diesel's statement cache, by its SQL) and every
//! value of every row it returns is decoded into an owned Rust value.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Barrier, Mutex};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use diesel::connection::SimpleConnection;
use diesel::deserialize::{self, FromSql, QueryableByName};
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::query_dsl::RunQueryDsl;
use diesel::row::{Field, NamedRow, Row};
use diesel::sql_types::{BigInt, Binary, Bool, Double, Integer, Nullable, Text, Untyped};
use diesel::sqlite::{Sqlite, SqliteType};
use diesel::{Connection, QueryResult, SqliteConnection};

use super::CeilingError;
use super::script::{Bind, BindType, Source, Target, Value, WriteScript};

/// What a write run measured.
#[derive(Clone, Debug, PartialEq)]
pub struct WritesMeasured {
    pub transactions: u64,
    pub seconds: f64,
    pub statements: usize,
    pub targets: usize,
}

impl WritesMeasured {
    pub fn transactions_per_second(&self) -> f64 {
        self.transactions as f64 / self.seconds
    }
}

/// Why a write run could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error(transparent)]
    Ceiling(#[from] CeilingError),
    #[error("no target id to write to")]
    NoTarget,
    #[error("`:{0}` has no value (give it with --value {0}=...)")]
    UnknownVariable(String),
    #[error("target {id}: {problem}")]
    Target { id: String, problem: String },
    #[error("`${0}`: no earlier statement of the transaction returned that column")]
    NotReturned(String),
    #[error("a {bind_type:?} bind cannot take {value:?}")]
    Mismatch { bind_type: BindType, value: Value },
}

impl From<diesel::result::Error> for WriteError {
    fn from(error: diesel::result::Error) -> Self {
        Self::Ceiling(CeilingError::Query(error))
    }
}

/// Runs `script` on `database` for `warm_up`, then counts the transactions committed in
/// `measure` (`(warm_up, measure)`): `connections` threads, thread `t` writing to `ids[i]` for
/// every `i` with `i % connections == t`, in turn. `values` are the script's command-line
/// variables.
pub fn run_writes(
    database: &Path,
    script: &WriteScript,
    shop_id: &str,
    ids: &[String],
    values: &HashMap<String, String>,
    connections: usize,
    (warm_up, measure): (Duration, Duration),
) -> Result<WritesMeasured, WriteError> {
    let connections = connections.max(1);
    if ids.len() < connections {
        return Err(WriteError::NoTarget);
    }
    let url = database.to_string_lossy();
    let mut writer = SqliteConnection::establish(&url).map_err(CeilingError::from)?;
    writer.batch_execute(&script.setup)?;
    let turn = Mutex::new(writer);
    let ready = Barrier::new(connections);
    let start = Mutex::new(None::<Instant>);
    let counts = thread::scope(|scope| {
        let workers: Vec<_> = (0..connections)
            .map(|thread_index| {
                let (url, turn, ready, start) = (&url, &turn, &ready, &start);
                scope.spawn(move || -> Result<u64, WriteError> {
                    let mut conn = SqliteConnection::establish(url).map_err(CeilingError::from)?;
                    conn.batch_execute(&script.setup)?;
                    let mine: Vec<&String> = ids
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| i % connections == thread_index)
                        .map(|(_, id)| id)
                        .collect();
                    let targets = mine
                        .iter()
                        .map(|id| stored_rows(&mut conn, script, shop_id, id))
                        .collect::<Result<Vec<_>, _>>()?;
                    // Every thread has read its targets: the clock starts for all at once.
                    if ready.wait().is_leader() {
                        *start.lock().expect("the start's lock") = Some(Instant::now());
                    }
                    ready.wait();
                    let started = start.lock().expect("the start's lock").expect("set");
                    let (measuring_from, until) = (started + warm_up, started + warm_up + measure);
                    let mut context = Transaction::new(shop_id, values, thread_index);
                    let mut committed = 0;
                    for target in targets.iter().cycle() {
                        {
                            let mut writer = turn.lock().expect("the write turn's lock");
                            context.next();
                            run_transaction(&mut writer, script, &mut context, target)?;
                        }
                        let now = Instant::now();
                        if now >= until {
                            break;
                        }
                        if now >= measuring_from {
                            committed += 1;
                        }
                    }
                    Ok(committed)
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|worker| worker.join().expect("a ceiling thread panicked"))
            .collect::<Result<Vec<_>, _>>()
    })?;
    Ok(WritesMeasured {
        transactions: counts.iter().sum(),
        seconds: measure.as_secs_f64(),
        statements: script.statements.len(),
        targets: ids.len(),
    })
}

/// A target's stored rows, by table: (column, value) in the table's order.
pub struct Stored {
    id: String,
    rows: HashMap<&'static str, Vec<(String, Value)>>,
}

impl Stored {
    fn value(&self, table: &str, column: &str) -> Result<Value, WriteError> {
        self.rows
            .get(table)
            .and_then(|row| row.iter().find(|(name, _)| name == column))
            .map(|(_, value)| value.clone())
            .ok_or_else(|| WriteError::Target {
                id: self.id.clone(),
                problem: format!("no {table}.{column}"),
            })
    }
}

/// Reads the rows of `id` that the script's `@table.column` binds use.
pub fn stored_rows(
    conn: &mut SqliteConnection,
    script: &WriteScript,
    shop_id: &str,
    id: &str,
) -> Result<Stored, WriteError> {
    let mut stored = Stored {
        id: id.to_owned(),
        rows: HashMap::new(),
    };
    let problem = |problem: String| WriteError::Target {
        id: id.to_owned(),
        problem,
    };
    for table in script.stored_tables() {
        let (key, by) = match (script.target, table) {
            (Target::Products, "products") | (Target::Clients, "clients") => (id.to_owned(), "id"),
            (Target::Products, "variants") => (id.to_owned(), "product_id"),
            (Target::Products, "categories") => (reference(&stored, "category_id")?, "id"),
            (Target::Products, "brands") => (reference(&stored, "brand_id")?, "id"),
            _ => return Err(problem(format!("no {table} row for this target"))),
        };
        let sql = format!("SELECT * FROM {table} WHERE shop_id = ? AND {by} = ?");
        let bound = [
            Bound::Text(Some(shop_id.to_owned())),
            Bound::Text(Some(key)),
        ];
        let mut rows = Statement::new(&sql, &bound).load::<NamedRowValues>(conn)?;
        if rows.len() != 1 {
            // The scripts are written for one shape: a product of one variant, among others.
            return Err(problem(format!(
                "{} {table} rows where the script writes one",
                rows.len()
            )));
        }
        stored.rows.insert(table, rows.remove(0).0);
    }
    Ok(stored)
}

/// The product's category or brand id (its `products` row is read first).
fn reference(stored: &Stored, column: &str) -> Result<String, WriteError> {
    match stored.value("products", column)? {
        Value::Text(id) => Ok(id),
        other => Err(WriteError::Target {
            id: stored.id.clone(),
            problem: format!("products.{column} is {other:?}, the script writes one"),
        }),
    }
}

/// The values of one transaction that the application makes in memory.
struct Transaction<'a> {
    shop_id: &'a str,
    given: &'a HashMap<String, String>,
    thread_index: usize,
    serial: u64,
    now_ms: i64,
    fresh: u64,
    returned: HashMap<String, Value>,
}

impl<'a> Transaction<'a> {
    fn new(shop_id: &'a str, given: &'a HashMap<String, String>, thread_index: usize) -> Self {
        Self {
            shop_id,
            given,
            thread_index,
            serial: 0,
            now_ms: 0,
            fresh: 0,
            returned: HashMap::new(),
        }
    }

    /// The next transaction's time and fresh values.
    fn next(&mut self) {
        self.serial += 1;
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        self.now_ms = i64::try_from(now.as_millis()).unwrap_or(i64::MAX);
        self.fresh = u64::try_from(now.as_nanos()).unwrap_or(u64::MAX);
        self.returned.clear();
    }

    /// A fresh id: `prefix` and 36 characters (a UUID's shape), unique across the threads and
    /// transactions of a run.
    fn fresh_id(&self, prefix: &str) -> String {
        format!(
            "{prefix}{:08x}-{:04x}-7{:03x}-8{:03x}-{:012x}",
            self.fresh >> 32,
            (self.fresh >> 16) & 0xffff,
            self.fresh & 0xfff,
            self.thread_index & 0xfff,
            self.serial & 0xffff_ffff_ffff
        )
    }

    fn variable(&self, name: &str, target: &Stored) -> Result<Value, WriteError> {
        Ok(match name {
            "shop_id" => Value::Text(self.shop_id.to_owned()),
            "id" => Value::Text(target.id.clone()),
            "now_ms" => Value::Integer(self.now_ms),
            // A new price every transaction, within the API's bounds.
            "price" => Value::Integer(100 + (self.fresh / 1000 % 1_000_000_000) as i64),
            "write_id" => Value::Text(self.fresh_id("wrt_")),
            "event_id" => Value::Text(self.fresh_id("evt_")),
            "adjustment_id" => Value::Text(self.fresh_id("lpa_")),
            other => Value::Text(
                self.given
                    .get(other)
                    .cloned()
                    .ok_or_else(|| WriteError::UnknownVariable(other.to_owned()))?,
            ),
        })
    }

    fn value(&self, source: &Source, target: &Stored) -> Result<Value, WriteError> {
        match source {
            Source::Literal(value) => Ok(value.clone()),
            Source::Variable(name) => self.variable(name, target),
            Source::Prefixed(prefix, name) => match self.variable(name, target)? {
                Value::Text(text) => Ok(Value::Text(format!("{prefix}{text}"))),
                other => Ok(other),
            },
            Source::Stored { table, column } => target.value(table, column),
            Source::Returned { column, minus } => match self.returned.get(column) {
                Some(Value::Integer(n)) => Ok(Value::Integer(n - minus)),
                Some(other) if *minus == 0 => Ok(other.clone()),
                _ => Err(WriteError::NotReturned(column.clone())),
            },
        }
    }
}

fn bound(bind: &Bind, value: Value) -> Result<Bound, WriteError> {
    let mismatch = |value: Value| WriteError::Mismatch {
        bind_type: bind.bind_type,
        value,
    };
    Ok(match (bind.bind_type, value) {
        (BindType::Text, Value::Null) => Bound::Text(None),
        (BindType::Text, Value::Text(text)) => Bound::Text(Some(text)),
        (BindType::BigInt, Value::Null) => Bound::BigInt(None),
        (BindType::BigInt, Value::Integer(n)) => Bound::BigInt(Some(n)),
        (BindType::Integer, Value::Null) => Bound::Integer(None),
        (BindType::Integer, Value::Integer(n)) => Bound::Integer(Some(
            i32::try_from(n).map_err(|_| mismatch(Value::Integer(n)))?,
        )),
        (BindType::Bool, Value::Null) => Bound::Bool(None),
        (BindType::Bool, Value::Integer(n)) => Bound::Bool(Some(n != 0)),
        (_, other) => return Err(mismatch(other)),
    })
}

/// One transaction of the script on `conn`, writing to `target`; rolled back when a
/// statement fails (the run then stops).
fn run_transaction(
    conn: &mut SqliteConnection,
    script: &WriteScript,
    context: &mut Transaction<'_>,
    target: &Stored,
) -> Result<(), WriteError> {
    let result = run_statements(conn, script, context, target);
    if result.is_err() {
        // The statement's own error is the one reported.
        let _ = conn.batch_execute("ROLLBACK");
    }
    result
}

fn run_statements(
    conn: &mut SqliteConnection,
    script: &WriteScript,
    context: &mut Transaction<'_>,
    target: &Stored,
) -> Result<(), WriteError> {
    for statement in &script.statements {
        let Some(binds) = &statement.binds else {
            send_as_is(conn, script, &statement.sql)?;
            continue;
        };
        let values = binds
            .iter()
            .map(|bind| bound(bind, context.value(&bind.source, target)?))
            .collect::<Result<Vec<_>, _>>()?;
        let query = Statement::new(&statement.sql, &values);
        if statement.returns() {
            if let Some(row) = query.load::<NamedRowValues>(conn)?.pop() {
                context.returned.extend(row.0);
            }
        } else {
            for row in query.load::<RowValues>(conn)? {
                // Decoded as the adapter decodes its rows, then dropped.
                std::hint::black_box(row.0);
            }
        }
    }
    Ok(())
}

/// A statement without binds, sent as it is. A `BEGIN IMMEDIATE` that found SQLite's lock
/// taken (the scripts try it with `busy_timeout = 0`) is sent again after the setup's wait is
/// set back, as the adapter does (crates/persistence/src/database/write_runner.rs).
fn send_as_is(conn: &mut SqliteConnection, script: &WriteScript, sql: &str) -> QueryResult<()> {
    match conn.batch_execute(sql) {
        Err(diesel::result::Error::DatabaseError(_, info))
            if sql == "BEGIN IMMEDIATE" && info.message().contains("locked") =>
        {
            conn.batch_execute(&script.setup)?;
            conn.batch_execute(sql)
        }
        sent => sent,
    }
}

/// A value bound to a `?`.
#[derive(Clone, Debug, PartialEq)]
pub enum Bound {
    Text(Option<String>),
    BigInt(Option<i64>),
    Integer(Option<i32>),
    Bool(Option<bool>),
}

/// A statement's SQL with each `?` given its bound value; its rows are read as they come
/// (`Untyped`: by position or name, each value decoded as SQLite stored it).
pub struct Statement<'a> {
    sql: &'a str,
    binds: &'a [Bound],
}

impl<'a> Statement<'a> {
    pub fn new(sql: &'a str, binds: &'a [Bound]) -> Self {
        Self { sql, binds }
    }
}

impl QueryFragment<Sqlite> for Statement<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Sqlite>) -> QueryResult<()> {
        // WriteScript::parse checked that there is one bind per `?`.
        let mut pieces = self.sql.split('?');
        out.push_sql(pieces.next().unwrap_or_default());
        for (bind, piece) in self.binds.iter().zip(pieces) {
            match bind {
                Bound::Text(value) => out.push_bind_param::<Nullable<Text>, _>(value)?,
                Bound::BigInt(value) => out.push_bind_param::<Nullable<BigInt>, _>(value)?,
                Bound::Integer(value) => out.push_bind_param::<Nullable<Integer>, _>(value)?,
                Bound::Bool(value) => out.push_bind_param::<Nullable<Bool>, _>(value)?,
            }
            out.push_sql(piece);
        }
        Ok(())
    }
}

impl QueryId for Statement<'_> {
    type QueryId = ();

    // No type-level identity: diesel's statement cache keys it by its SQL text, as it does
    // the adapter's statements.
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl Query for Statement<'_> {
    type SqlType = Untyped;
}

impl<Conn> RunQueryDsl<Conn> for Statement<'_> {}

/// Decodes one stored value as SQLite stored it, into an owned Rust value.
fn decode<'f>(field: &impl Field<'f, Sqlite>) -> deserialize::Result<Value> {
    let Some(raw) = field.value() else {
        return Ok(Value::Null);
    };
    Ok(match raw.value_type() {
        Some(SqliteType::Integer | SqliteType::Long | SqliteType::SmallInt) => {
            Value::Integer(<i64 as FromSql<BigInt, Sqlite>>::from_sql(raw)?)
        }
        Some(SqliteType::Float | SqliteType::Double) => {
            Value::Real(<f64 as FromSql<Double, Sqlite>>::from_sql(raw)?)
        }
        Some(SqliteType::Binary) => {
            Value::Blob(<Vec<u8> as FromSql<Binary, Sqlite>>::from_sql(raw)?)
        }
        _ => Value::Text(<String as FromSql<Text, Sqlite>>::from_sql(raw)?),
    })
}

/// A row's values, in order.
pub struct RowValues(pub Vec<Value>);

impl QueryableByName<Sqlite> for RowValues {
    fn build<'a>(row: &impl NamedRow<'a, Sqlite>) -> deserialize::Result<Self> {
        let count = Row::field_count(row);
        let mut values = Vec::with_capacity(count);
        for index in 0..count {
            let field = Row::get(row, index).ok_or("a field went missing")?;
            values.push(decode(&field)?);
        }
        Ok(Self(values))
    }
}

/// A row's values with their column names (a `RETURNING`, a stored row).
pub struct NamedRowValues(pub Vec<(String, Value)>);

impl QueryableByName<Sqlite> for NamedRowValues {
    fn build<'a>(row: &impl NamedRow<'a, Sqlite>) -> deserialize::Result<Self> {
        let count = Row::field_count(row);
        let mut values = Vec::with_capacity(count);
        for index in 0..count {
            let field = Row::get(row, index).ok_or("a field went missing")?;
            let name = field.field_name().unwrap_or_default().to_owned();
            values.push((name, decode(&field)?));
        }
        Ok(Self(values))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCRIPT: &str = "-- setup: PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL;\n\
        -- target: clients\n\
        BEGIN IMMEDIATE;\n\
        -- binds: bigint 1, text :shop_id, text :id\n\
        UPDATE clients SET points = points + ? WHERE shop_id = ? AND id = ? RETURNING points;\n\
        -- binds: text :adjustment_id, text :id, bigint $points - 1, bigint $points, \
        text @clients.name, text :note\n\
        INSERT INTO log VALUES (?, ?, ?, ?, ?, ?);\n\
        COMMIT;\n";

    #[test]
    fn each_thread_writes_its_own_targets_one_transaction_at_a_time() {
        let path = std::env::temp_dir().join(format!(
            "shop-bench-write-{}-{}.db",
            std::process::id(),
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        let mut conn = SqliteConnection::establish(path.to_str().unwrap()).unwrap();
        conn.batch_execute(
            "CREATE TABLE clients (id TEXT PRIMARY KEY, shop_id TEXT, name TEXT, points INTEGER);
             INSERT INTO clients VALUES ('c1', 's', 'Ann', 0), ('c2', 's', 'Bob', 10),
                 ('c3', 't', 'Other', 0);
             CREATE TABLE log (id TEXT PRIMARY KEY, client TEXT, previous INTEGER, new INTEGER,
                 name TEXT, note TEXT);",
        )
        .unwrap();
        let script = WriteScript::parse(SCRIPT).unwrap();
        let ids = vec!["c1".to_owned(), "c2".to_owned()];
        let values = HashMap::from([("note".to_owned(), "bench".to_owned())]);
        let measured = run_writes(
            &path,
            &script,
            "s",
            &ids,
            &values,
            2,
            (Duration::from_millis(50), Duration::from_millis(300)),
        )
        .unwrap();
        assert!(measured.transactions > 0, "{measured:?}");
        assert_eq!((measured.statements, measured.targets), (4, 2));

        #[derive(QueryableByName)]
        struct Check {
            #[diesel(sql_type = BigInt)]
            wrong: i64,
            #[diesel(sql_type = BigInt)]
            rows: i64,
        }
        // Every transaction logged its client's points before and after, its stored name and
        // the given note; no client outside the targets moved.
        let check: Check = diesel::sql_query(
            "SELECT count(*) FILTER (WHERE new <> previous + 1 OR note <> 'bench'
                 OR (client = 'c1' AND name <> 'Ann') OR (client = 'c2' AND name <> 'Bob'))
                 AS wrong, count(*) AS rows FROM log",
        )
        .get_result(&mut conn)
        .unwrap();
        assert_eq!(check.wrong, 0);
        assert!(check.rows >= i64::try_from(measured.transactions).unwrap());
        let untouched: Check =
            diesel::sql_query("SELECT 0 AS wrong, points AS rows FROM clients WHERE id = 'c3'")
                .get_result(&mut conn)
                .unwrap();
        assert_eq!(untouched.rows, 0);
        drop(conn);
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
    }

    #[test]
    fn a_target_of_another_shape_is_refused_before_the_run() {
        let path = std::env::temp_dir().join(format!("shop-bench-shape-{}.db", std::process::id()));
        let mut conn = SqliteConnection::establish(path.to_str().unwrap()).unwrap();
        conn.batch_execute(
            "CREATE TABLE IF NOT EXISTS clients (id TEXT, shop_id TEXT, name TEXT, points INTEGER);
             DELETE FROM clients;",
        )
        .unwrap();
        let script = WriteScript::parse(SCRIPT).unwrap();
        let missing = stored_rows(&mut conn, &script, "s", "nobody");
        assert!(
            matches!(&missing, Err(WriteError::Target { id, .. }) if id == "nobody"),
            "{:?}",
            missing.err()
        );
        drop(conn);
        let _ = std::fs::remove_file(&path);
    }
}
