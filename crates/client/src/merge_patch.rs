//! One member of a JSON Merge Patch (RFC 7396), as every v2 patch of this crate writes it:
//! absent, `null` or a value are three different requests, so they are three variants.

use serde::ser::Error as _;
use serde::{Serialize, Serializer};

/// One member of a merge patch: left as it is (absent from the body), cleared (`null`), or
/// set to a value.
///
/// `Patch::from(option)` is `Clear` for `None` and `Set` for `Some`: the way to copy a
/// nullable member from a model.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Patch<T> {
    /// Unchanged: the member is left out of the body.
    #[default]
    Keep,
    /// Cleared: the member is sent as `null`.
    Clear,
    /// Replaced by this value.
    Set(T),
}

impl<T> Patch<T> {
    /// Whether the member is left out of the body (as `skip_serializing_if` needs it).
    pub fn is_keep(&self) -> bool {
        matches!(self, Self::Keep)
    }
}

impl<T> From<Option<T>> for Patch<T> {
    fn from(value: Option<T>) -> Self {
        value.map_or(Self::Clear, Self::Set)
    }
}

/// `null` for `Clear`, the value for `Set`. `Keep` has no JSON form: a struct holding a
/// `Patch` skips it with `#[serde(skip_serializing_if = "Patch::is_keep")]`, and serializing
/// it otherwise is an error rather than a silent `null` (which would clear the member).
impl<T: Serialize> Serialize for Patch<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_with(self, serializer, |value, serializer| {
            serializer.serialize_some(value)
        })
    }
}

/// A patch member whose value has its own JSON form (a date as `YYYY-MM-DD`, say), for a
/// `serialize_with` helper: `null` for `Clear`, `write(value)` for `Set`, and the same refusal
/// of `Keep` as [`Patch`]'s own `Serialize`.
pub(crate) fn serialize_with<T, S: Serializer>(
    patch: &Patch<T>,
    serializer: S,
    write: impl FnOnce(&T, S) -> Result<S::Ok, S::Error>,
) -> Result<S::Ok, S::Error> {
    match patch {
        Patch::Keep => Err(S::Error::custom(
            "Patch::Keep must be left out (skip_serializing_if = \"Patch::is_keep\")",
        )),
        Patch::Clear => serializer.serialize_none(),
        Patch::Set(value) => write(value, serializer),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keep_is_never_serialized_as_null() {
        let error = serde_json::to_string(&Patch::<String>::Keep).unwrap_err();
        assert!(error.to_string().contains("is_keep"), "{error}");
        assert_eq!(serde_json::to_string(&Patch::<i64>::Clear).unwrap(), "null");
        assert_eq!(serde_json::to_string(&Patch::Set(5)).unwrap(), "5");
        assert_eq!(Patch::from(None::<String>), Patch::Clear);
        assert_eq!(Patch::from(Some(1)), Patch::Set(1));
    }
}
