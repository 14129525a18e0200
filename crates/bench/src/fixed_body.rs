//! `--body NAME=PATH`: a response body read once at startup and served at `/NAME`.

use std::path::PathBuf;

use actix_web::web::Bytes;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FixedBody {
    /// One path segment: ASCII letters, digits, `-` and `_`.
    pub name: String,
    pub body: Bytes,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ParseFixedBodyError {
    #[error("expected NAME=PATH, got `{0}`")]
    NoEquals(String),
    #[error("`{0}` is not a name: use ASCII letters, digits, `-` and `_`")]
    BadName(String),
    #[error("cannot read {path}: {reason}")]
    Unreadable { path: PathBuf, reason: String },
}

impl FixedBody {
    /// Parses `NAME=PATH` and reads the file's bytes as they are (no trimming).
    pub fn from_arg(arg: &str) -> Result<Self, ParseFixedBodyError> {
        let (name, path) = arg
            .split_once('=')
            .ok_or_else(|| ParseFixedBodyError::NoEquals(arg.to_owned()))?;
        let name_is_a_segment = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !name_is_a_segment {
            return Err(ParseFixedBodyError::BadName(name.to_owned()));
        }
        let path = PathBuf::from(path);
        let body = std::fs::read(&path).map_err(|e| ParseFixedBodyError::Unreadable {
            reason: e.to_string(),
            path,
        })?;
        Ok(Self {
            name: name.to_owned(),
            body: Bytes::from(body),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_file_byte_for_byte() {
        let dir = std::env::temp_dir().join(format!("ceiling-body-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temp dir");
        let path = dir.join("me.json");
        std::fs::write(&path, b"{\"a\": 1}\n").expect("a temp file");

        let parsed = FixedBody::from_arg(&format!("me_2-x={}", path.display()));
        std::fs::remove_dir_all(&dir).expect("cleanup");

        assert_eq!(
            parsed,
            Ok(FixedBody {
                name: "me_2-x".to_owned(),
                body: Bytes::from_static(b"{\"a\": 1}\n"),
            })
        );
    }

    #[test]
    fn malformed_arguments_are_refused() {
        assert_eq!(
            FixedBody::from_arg("me"),
            Err(ParseFixedBodyError::NoEquals("me".to_owned()))
        );
        assert_eq!(
            FixedBody::from_arg("a/b=/dev/null"),
            Err(ParseFixedBodyError::BadName("a/b".to_owned()))
        );
        assert_eq!(
            FixedBody::from_arg("=/dev/null"),
            Err(ParseFixedBodyError::BadName(String::new()))
        );
        assert!(matches!(
            FixedBody::from_arg("me=/nonexistent/me.json"),
            Err(ParseFixedBodyError::Unreadable { .. })
        ));
    }
}
