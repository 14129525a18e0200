//! Where the database is: the URL forms accepted, and a display that can be logged.

use std::fmt;
use std::path::PathBuf;

use super::ConnectError;

/// Where the database is, parsed from a URL.
#[derive(Clone, PartialEq, Eq)]
pub enum DatabaseUrl {
    /// A SQLite file; created, with its parent directory, when missing.
    Sqlite(PathBuf),
    /// A `postgres://` or `postgresql://` URL, passed to the driver as is.
    Postgres(String),
}

impl DatabaseUrl {
    /// Accepts `sqlite://<path>` (`sqlite://data/shop.db` is relative, `sqlite:///tmp/x.db`
    /// absolute), `postgres://…` and `postgresql://…`.
    pub fn parse(url: &str) -> Result<Self, ConnectError> {
        let url = url.trim();
        if let Some(path) = url.strip_prefix("sqlite://") {
            if path.is_empty() {
                return Err(ConnectError::InvalidUrl(
                    "a sqlite URL needs a file path, such as sqlite://data/shop.db",
                ));
            }
            if path.starts_with(':') || path.contains('?') {
                // `:memory:` would give each pooled connection its own empty database, and
                // query parameters would silently become part of the file name.
                return Err(ConnectError::InvalidUrl(
                    "a sqlite URL must name a plain file: no :memory: and no ?parameters",
                ));
            }
            return Ok(Self::Sqlite(PathBuf::from(path)));
        }
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            return Ok(Self::Postgres(url.to_owned()));
        }
        match url.split_once("://") {
            Some((scheme, _)) => Err(ConnectError::UnsupportedScheme(scheme.to_owned())),
            None => Err(ConnectError::InvalidUrl(
                "expected sqlite://<path>, postgres://… or postgresql://…",
            )),
        }
    }

    /// `host:port/database` (or the SQLite path), for names in logs and metrics: no user,
    /// password or parameters.
    pub fn location(&self) -> String {
        match self {
            Self::Sqlite(path) => path.display().to_string(),
            Self::Postgres(url) => {
                let rest = url.split_once("://").map_or(url.as_str(), |(_, rest)| rest);
                let rest = rest.split_once('?').map_or(rest, |(before, _)| before);
                let authority_end = rest.find('/').unwrap_or(rest.len());
                let host = rest[..authority_end]
                    .rsplit_once('@')
                    .map_or(&rest[..authority_end], |(_, host)| host);
                format!("{host}{}", &rest[authority_end..])
            }
        }
    }

    pub fn backend_name(&self) -> &'static str {
        match self {
            Self::Sqlite(_) => "sqlite",
            Self::Postgres(_) => "postgres",
        }
    }
}

/// Shows the URL with any password replaced by `***`, so that it can be logged.
impl fmt::Display for DatabaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Sqlite(path) => write!(f, "sqlite://{}", path.display()),
            Self::Postgres(url) => f.write_str(&redact_password(url)),
        }
    }
}

impl fmt::Debug for DatabaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DatabaseUrl({self})")
    }
}

fn redact_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let authority = match authority.rsplit_once('@') {
        Some((user_info, host)) => match user_info.split_once(':') {
            Some((user, _password)) => format!("{user}:***@{host}"),
            None => authority.to_owned(),
        },
        None => authority.to_owned(),
    };
    // libpq also takes the password as a query parameter.
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let params: Vec<String> = query
                .split('&')
                .map(|param| match param.split_once('=') {
                    Some(("password", _)) => String::from("password=***"),
                    _ => param.to_owned(),
                })
                .collect();
            format!("{path}?{}", params.join("&"))
        }
        None => tail.to_owned(),
    };
    format!("{scheme}://{authority}{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_url_forms() {
        assert_eq!(
            DatabaseUrl::parse("sqlite://data/shop.db").ok(),
            Some(DatabaseUrl::Sqlite(PathBuf::from("data/shop.db")))
        );
        assert_eq!(
            DatabaseUrl::parse("sqlite:///tmp/x.db").ok(),
            Some(DatabaseUrl::Sqlite(PathBuf::from("/tmp/x.db")))
        );
        for url in [
            "postgres://u@h/db",
            "postgresql://u:p@h:5432/db?sslmode=disable",
        ] {
            assert_eq!(
                DatabaseUrl::parse(url).ok(),
                Some(DatabaseUrl::Postgres(url.to_owned()))
            );
        }
        assert_eq!(
            DatabaseUrl::parse("sqlite://a.db")
                .map(|u| u.backend_name())
                .ok(),
            Some("sqlite")
        );
        assert_eq!(
            DatabaseUrl::parse("postgres://h/db")
                .map(|u| u.backend_name())
                .ok(),
            Some("postgres")
        );
    }

    #[test]
    fn refuses_other_urls_with_a_one_line_message() {
        for url in [
            "",
            "shop.db",
            "sqlite:shop.db",
            "sqlite://",
            "sqlite://:memory:",
            "sqlite://x.db?mode=ro",
            "mysql://root:secret@h/db",
            "http://h",
        ] {
            let error = DatabaseUrl::parse(url).err().map(|e| e.to_string());
            let message = error.unwrap_or_else(|| panic!("{url:?} was accepted"));
            assert!(
                !message.contains('\n') && !message.contains("secret"),
                "{message}"
            );
        }
    }

    #[test]
    fn display_hides_the_password() {
        let url = DatabaseUrl::parse("postgres://shop:s3cret@db.internal:5432/shop").ok();
        let shown = url.map(|u| format!("{u} {u:?}")).unwrap_or_default();
        assert!(!shown.contains("s3cret"), "{shown}");
        assert!(shown.contains("postgres://shop:***@db.internal:5432/shop"));
        assert_eq!(
            redact_password("postgres://shop@h/db?sslmode=disable&password=x"),
            "postgres://shop@h/db?sslmode=disable&password=***"
        );
        assert_eq!(redact_password("postgres://h/db"), "postgres://h/db");
    }
}
