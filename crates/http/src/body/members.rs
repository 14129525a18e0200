//! The bodies of API v2's writes of products and clients (issue 35): JSON objects nested in
//! objects and arrays, whose every problem is reported at once under its path from the root
//! (`name`, `billing.city`, `variants[1].sku`).
//!
//! The JSON is parsed once into [`Json`], whose objects keep their members in order, noting every
//! name given twice at any depth (serde_json's `Map` would silently keep the last). A [`Members`] then
//! hands out each member by its JSON type, reporting a missing, mistyped or `null` one; what is
//! left when it is [`finish`](Members::finish)ed is a read-only member (the representation shows
//! it, no write takes it) or an unknown one.

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Number;
use shop_domain::text::refuse_nul;
use shop_domain::write::MemberProblem;

use crate::error::{ApiError, FieldIssue};

/// The problems of one body, shared by the readers of its nested objects.
#[derive(Clone, Debug, Default)]
pub struct Issues(Rc<RefCell<Vec<FieldIssue>>>);

impl Issues {
    pub fn push(&self, path: impl Into<String>, message: impl Into<String>) {
        self.0.borrow_mut().push(FieldIssue::new(path, message));
    }

    pub fn take(&self) -> Vec<FieldIssue> {
        std::mem::take(&mut self.0.borrow_mut())
    }

    /// The request the domain made of the members when nobody found a problem: neither the
    /// reader (form), nor the domain (`parsed`'s rules), nor the headers' reader (`headers`);
    /// otherwise one `400 VALIDATION_ERROR` naming them all, in that order.
    pub fn verdict<T>(
        &self,
        parsed: Result<T, Vec<MemberProblem>>,
        headers: Vec<FieldIssue>,
    ) -> Result<T, ApiError> {
        let mut issues = self.take();
        let parsed = parsed.map_err(|problems| {
            let found = problems.into_iter();
            issues.extend(found.map(|problem| FieldIssue::new(problem.path, problem.message)));
        });
        issues.extend(headers);
        match parsed {
            Ok(request) if issues.is_empty() => Ok(request),
            _ => Err(ApiError::invalid_body(issues)),
        }
    }
}

/// The members of one object of a body, not yet read.
pub struct Members {
    path: String,
    members: Vec<(String, Json)>,
    issues: Issues,
}

/// Parses a body: `INVALID_JSON` when it is not JSON; otherwise the root's members (none, with
/// an issue, when the root is not an object) and the names given twice, as issues.
pub fn parse(body: &[u8]) -> Result<Members, ApiError> {
    let issues = Issues::default();
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    let root = Checked {
        path: String::new(),
        issues: &issues,
    }
    .deserialize(&mut deserializer)
    .and_then(|root| deserializer.end().map(|()| root))
    .map_err(|_syntax| ApiError::InvalidJson)?;
    let members = match root {
        Json::Object(members) => members,
        _ => {
            issues.push("body", "must be a JSON object");
            Vec::new()
        }
    };
    Ok(Members {
        path: String::new(),
        members,
        issues,
    })
}

impl Members {
    pub fn issues(&self) -> &Issues {
        &self.issues
    }

    /// The path of the member `name` of this object.
    pub fn path_of(&self, name: &str) -> String {
        if self.path.is_empty() {
            name.to_owned()
        } else {
            format!("{}.{name}", self.path)
        }
    }

    /// Whether the member `name` is given.
    pub fn has(&self, name: &str) -> bool {
        self.members.iter().any(|(given, _)| given == name)
    }

    fn take(&mut self, name: &str) -> Option<Json> {
        let position = self.members.iter().position(|(given, _)| given == name)?;
        Some(self.members.remove(position).1)
    }

    fn report(&self, name: &str, message: &str) {
        self.issues.push(self.path_of(name), message);
    }

    /// `None` when absent; reported when `null` (a merge patch cannot remove this member) or
    /// of another type than `read` accepts.
    fn present<T>(
        &mut self,
        name: &str,
        kind: &str,
        read: impl FnOnce(Json) -> Option<T>,
    ) -> Option<T> {
        match self.take(name)? {
            Json::Null => {
                self.report(name, "must not be null");
                None
            }
            value => {
                let read = read(value);
                if read.is_none() {
                    self.report(name, &format!("must be {kind}"));
                }
                read
            }
        }
    }

    /// As [`present`](Self::present), with `null` as `Some(None)`.
    fn nullable<T>(
        &mut self,
        name: &str,
        kind: &str,
        read: impl FnOnce(Json) -> Option<T>,
    ) -> Option<Option<T>> {
        match self.take(name)? {
            Json::Null => Some(None),
            value => {
                let read = read(value);
                if read.is_none() {
                    self.report(name, &format!("must be {kind} or null"));
                }
                read.map(Some)
            }
        }
    }

    /// Reports `name` as required when absent (call before reading it).
    pub fn require(&self, name: &str) {
        if !self.has(name) {
            self.report(name, "is required");
        }
    }

    pub fn string(&mut self, name: &str) -> Option<String> {
        let text = self.present(name, "a string", string)?;
        self.text(name, text)
    }

    pub fn nullable_string(&mut self, name: &str) -> Option<Option<String>> {
        match self.nullable(name, "a string", string)? {
            None => Some(None),
            Some(text) => self.text(name, text).map(Some),
        }
    }

    /// An integer written without fraction or exponent, within an `i64`.
    pub fn integer(&mut self, name: &str) -> Option<i64> {
        self.present(name, "an integer", integer)
    }

    pub fn nullable_integer(&mut self, name: &str) -> Option<Option<i64>> {
        self.nullable(name, "an integer", integer)
    }

    pub fn boolean(&mut self, name: &str) -> Option<bool> {
        self.present(name, "true or false", |value| match value {
            Json::Bool(value) => Some(value),
            _ => None,
        })
    }

    pub fn strings(&mut self, name: &str) -> Option<Vec<String>> {
        let items = self.present(name, "an array of strings", |value| match value {
            Json::Array(items) => items.into_iter().map(string).collect::<Option<Vec<_>>>(),
            _ => None,
        })?;
        let path = self.path_of(name);
        if let Some(nul) = items.iter().find_map(|item| refuse_nul(item).err()) {
            self.issues.push(path, nul.to_string());
            return None;
        }
        Some(items)
    }

    /// A nested object, read on its own and finished by the caller.
    pub fn object(&mut self, name: &str) -> Option<Members> {
        let members = self.present(name, "an object", object)?;
        Some(self.child(self.path_of(name), members))
    }

    pub fn nullable_object(&mut self, name: &str) -> Option<Option<Members>> {
        let members = self.nullable(name, "an object", object)?;
        Some(members.map(|members| self.child(self.path_of(name), members)))
    }

    /// An array of objects, each read on its own (`variants[0]`, `variants[1]`, ...).
    pub fn objects(&mut self, name: &str) -> Option<Vec<Members>> {
        let items = self.present(name, "an array of objects", |value| match value {
            Json::Array(items) => Some(items),
            _ => None,
        })?;
        let base = self.path_of(name);
        let mut objects = Vec::with_capacity(items.len());
        for (index, item) in items.into_iter().enumerate() {
            let path = format!("{base}[{index}]");
            match object(item) {
                Some(members) => objects.push(self.child(path, members)),
                None => self.issues.push(path, "must be an object"),
            }
        }
        Some(objects)
    }

    fn child(&self, path: String, members: Vec<(String, Json)>) -> Members {
        Members {
            path,
            members,
            issues: self.issues.clone(),
        }
    }

    fn text(&mut self, name: &str, text: String) -> Option<String> {
        match refuse_nul(&text) {
            Ok(()) => Some(text),
            Err(nul) => {
                self.report(name, &nul.to_string());
                None
            }
        }
    }

    /// Reports every member not read: `read_only` ones as such, the others as unknown.
    pub fn finish(self, read_only: &[&str]) {
        for (name, _) in &self.members {
            if read_only.contains(&name.as_str()) {
                self.report(name, "is read-only");
            } else {
                self.report(name, "is not a known field");
            }
        }
    }
}

fn string(value: Json) -> Option<String> {
    match value {
        Json::String(text) => Some(text),
        _ => None,
    }
}

fn integer(value: Json) -> Option<i64> {
    match value {
        Json::Number(number) if is_plain_integer(&number) => number.as_i64(),
        _ => None,
    }
}

/// `2.0` and `1e3` are numbers, not integers, as in the v1 bodies.
fn is_plain_integer(number: &Number) -> bool {
    number.is_i64() || number.is_u64()
}

fn object(value: Json) -> Option<Vec<(String, Json)>> {
    match value {
        Json::Object(members) => Some(members),
        _ => None,
    }
}

/// A JSON value whose objects keep their members in order (each name once: a repeated one
/// was reported and dropped).
#[derive(Clone, Debug, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

struct Checked<'a> {
    path: String,
    issues: &'a Issues,
}

impl<'de> DeserializeSeed<'de> for Checked<'_> {
    type Value = Json;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Json, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Checked<'_> {
    type Value = Json;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut members: Vec<(String, Json)> = Vec::new();
        let mut repeated: Vec<String> = Vec::new();
        while let Some(name) = map.next_key::<String>()? {
            let path = if self.path.is_empty() {
                name.clone()
            } else {
                format!("{}.{name}", self.path)
            };
            let value = map.next_value_seed(Checked {
                path: path.clone(),
                issues: self.issues,
            })?;
            if members.iter().any(|(given, _)| *given == name) {
                if !repeated.contains(&name) {
                    // Two values for one member are ambiguous: reported, neither read.
                    self.issues.push(path, "must be given at most once");
                    repeated.push(name);
                }
            } else {
                members.push((name, value));
            }
        }
        members.retain(|(name, _)| !repeated.contains(name));
        Ok(Json::Object(members))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        loop {
            let seed = Checked {
                path: format!("{}[{}]", self.path, items.len()),
                issues: self.issues,
            };
            match seq.next_element_seed(seed)? {
                Some(item) => items.push(item),
                None => return Ok(Json::Array(items)),
            }
        }
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<Json, E> {
        Ok(Json::Bool(value))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Json, E> {
        Ok(Json::Number(Number::from(value)))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Json, E> {
        Ok(Json::Number(Number::from(value)))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Json, E> {
        // Finite, as JSON's numbers are; no integer reader takes it.
        Ok(Number::from_f64(value).map_or(Json::Null, Json::Number))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Json, E> {
        Ok(Json::String(value.to_owned()))
    }

    fn visit_string<E: de::Error>(self, value: String) -> Result<Json, E> {
        Ok(Json::String(value))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
}

#[cfg(test)]
mod tests;
