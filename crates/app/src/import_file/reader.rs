//! A JSON walker that records every problem with its path instead of stopping at the first.
//!
//! Accessors return `None` after recording a problem; `Reader::finish` then refuses the whole
//! file, so a `None` never silently becomes a default.

use std::fmt::Display;

use serde_json::{Map, Value};
use shop_domain::Timestamp;
use shop_domain::id::InvalidId;
use shop_domain::import::{GivenStamps, ImportProblem};
use shop_domain::money::Cents;
use shop_domain::stock::{MAX_ABS_STOCK, stock_in_range};
use shop_domain::text::{parse_label, refuse_nul};
use shop_ports::port::IdGenerator;

pub struct Reader<'a> {
    ids: &'a dyn IdGenerator,
    problems: Vec<ImportProblem>,
}

impl<'a> Reader<'a> {
    pub fn new(ids: &'a dyn IdGenerator) -> Self {
        Self {
            ids,
            problems: Vec::new(),
        }
    }

    pub fn problem(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.problems.push(ImportProblem::new(path, message));
    }

    pub fn finish<T>(self, value: T) -> Result<T, Vec<ImportProblem>> {
        if self.problems.is_empty() {
            Ok(value)
        } else {
            Err(self.problems)
        }
    }

    pub fn object<'v>(&mut self, value: &'v Value, path: &str) -> Option<Object<'v>> {
        match value {
            Value::Object(map) => Some(Object {
                map,
                path: path.to_owned(),
            }),
            _ => {
                self.problem(display_path(path), "expected an object");
                None
            }
        }
    }
}

fn display_path(path: &str) -> String {
    if path.is_empty() {
        "$".to_owned()
    } else {
        path.to_owned()
    }
}

fn describe(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

pub struct Object<'v> {
    map: &'v Map<String, Value>,
    path: String,
}

impl<'v> Object<'v> {
    pub fn path(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    /// Present and not null.
    fn get(&self, key: &str) -> Option<&'v Value> {
        self.map.get(key).filter(|value| !value.is_null())
    }

    fn wrong_type(&self, reader: &mut Reader<'_>, key: &str, expected: &str, found: &Value) {
        reader.problem(
            self.path(key),
            format!("expected {expected}, found {}", describe(found)),
        );
    }

    pub fn refuse_unknown(&self, reader: &mut Reader<'_>, known: &[&str], ignored: &[&str]) {
        for key in self.map.keys() {
            if !known.contains(&key.as_str()) && !ignored.contains(&key.as_str()) {
                reader.problem(self.path(key), "unknown field");
            }
        }
    }

    /// The elements of an optional array, each with its path.
    pub fn items(&self, reader: &mut Reader<'_>, key: &str) -> Vec<(String, &'v Value)> {
        match self.get(key) {
            None => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, item)| (format!("{}[{i}]", self.path(key)), item))
                .collect(),
            Some(other) => {
                self.wrong_type(reader, key, "an array", other);
                Vec::new()
            }
        }
    }

    pub fn optional_string(&self, reader: &mut Reader<'_>, key: &str) -> Option<String> {
        match self.get(key)? {
            Value::String(text) => match refuse_nul(text) {
                Ok(()) => Some(text.clone()),
                Err(nul) => {
                    reader.problem(self.path(key), nul.to_string());
                    None
                }
            },
            other => {
                self.wrong_type(reader, key, "a string", other);
                None
            }
        }
    }

    pub fn required_string(&self, reader: &mut Reader<'_>, key: &str) -> Option<String> {
        if self.get(key).is_none() {
            reader.problem(self.path(key), "is required");
            return None;
        }
        self.optional_string(reader, key)
    }

    pub fn label(&self, reader: &mut Reader<'_>, key: &str, max: usize) -> Option<String> {
        let text = self.required_string(reader, key)?;
        parse_label(&text, max)
            .map_err(|e| reader.problem(self.path(key), e.to_string()))
            .ok()
    }

    /// The object's `id`, or a generated one when the file gives none.
    pub fn id<T>(
        &self,
        reader: &mut Reader<'_>,
        parse: impl FnOnce(String) -> Result<T, InvalidId>,
    ) -> Option<T> {
        let text = match self.get("id") {
            None => reader.ids.new_id(),
            Some(_) => self.optional_string(reader, "id")?,
        };
        parse(text)
            .map_err(|e| reader.problem(self.path("id"), e.to_string()))
            .ok()
    }

    pub fn optional_int(&self, reader: &mut Reader<'_>, key: &str) -> Option<i64> {
        let value = self.get(key)?;
        match value.as_i64() {
            Some(number) => Some(number),
            None => {
                self.wrong_type(reader, key, "an integer", value);
                None
            }
        }
    }

    /// A stock: an integer within ±[`MAX_ABS_STOCK`].
    pub fn optional_stock(&self, reader: &mut Reader<'_>, key: &str) -> Option<i64> {
        let value = self.optional_int(reader, key)?;
        self.within_stock_range(reader, key, value)
    }

    /// `value` of `key` if it is within ±[`MAX_ABS_STOCK`], like every stock the service keeps.
    pub fn within_stock_range(
        &self,
        reader: &mut Reader<'_>,
        key: &str,
        value: i64,
    ) -> Option<i64> {
        if stock_in_range(value) {
            Some(value)
        } else {
            reader.problem(
                self.path(key),
                format!("must be between -{MAX_ABS_STOCK} and {MAX_ABS_STOCK}"),
            );
            None
        }
    }

    pub fn required_int(&self, reader: &mut Reader<'_>, key: &str) -> Option<i64> {
        if self.get(key).is_none() {
            reader.problem(self.path(key), "is required");
            return None;
        }
        self.optional_int(reader, key)
    }

    fn non_negative(&self, reader: &mut Reader<'_>, key: &str, value: i64) -> Option<Cents> {
        if value < 0 {
            reader.problem(self.path(key), "must not be negative");
            return None;
        }
        Some(Cents(value))
    }

    pub fn required_amount(&self, reader: &mut Reader<'_>, key: &str) -> Option<Cents> {
        let value = self.required_int(reader, key)?;
        self.non_negative(reader, key, value)
    }

    pub fn optional_amount(&self, reader: &mut Reader<'_>, key: &str) -> Option<Cents> {
        let value = self.optional_int(reader, key)?;
        self.non_negative(reader, key, value)
    }

    pub fn optional_bool(&self, reader: &mut Reader<'_>, key: &str) -> Option<bool> {
        match self.get(key)? {
            Value::Bool(flag) => Some(*flag),
            other => {
                self.wrong_type(reader, key, "a boolean", other);
                None
            }
        }
    }

    pub fn required_bool(&self, reader: &mut Reader<'_>, key: &str) -> Option<bool> {
        if self.get(key).is_none() {
            reader.problem(self.path(key), "is required");
            return None;
        }
        self.optional_bool(reader, key)
    }

    pub fn optional_parsed<T, E: Display>(
        &self,
        reader: &mut Reader<'_>,
        key: &str,
        parse: impl FnOnce(&str) -> Result<T, E>,
    ) -> Option<T> {
        let text = self.optional_string(reader, key)?;
        parse(&text)
            .map_err(|e| reader.problem(self.path(key), e.to_string()))
            .ok()
    }

    pub fn required_parsed<T, E: Display>(
        &self,
        reader: &mut Reader<'_>,
        key: &str,
        parse: impl FnOnce(&str) -> Result<T, E>,
    ) -> Option<T> {
        if self.get(key).is_none() {
            reader.problem(self.path(key), "is required");
            return None;
        }
        self.optional_parsed(reader, key, parse)
    }

    /// The record's `createdAt` and `updatedAt` as the file gives them (products, clients and
    /// orders carry both); what an absent one means is the import's rule (`resolve_stamps`).
    pub fn stamps(&self, reader: &mut Reader<'_>) -> GivenStamps {
        GivenStamps {
            created_at: self.optional_parsed(reader, "createdAt", Timestamp::parse_rfc3339),
            updated_at: self.optional_parsed(reader, "updatedAt", Timestamp::parse_rfc3339),
        }
    }

    pub fn string_list(&self, reader: &mut Reader<'_>, key: &str) -> Vec<String> {
        let mut strings = Vec::new();
        for (path, item) in self.items(reader, key) {
            match item {
                Value::String(text) => strings.push(text.clone()),
                other => reader.problem(
                    path,
                    format!("expected a string, found {}", describe(other)),
                ),
            }
        }
        strings
    }

    /// An optional nested object (absent or null: `None`).
    pub fn child(&self, reader: &mut Reader<'_>, key: &str) -> Option<Object<'v>> {
        let value = self.get(key)?;
        reader.object(value, &self.path(key))
    }

    /// A field the API always outputs as `null` in this version (`customer`, `refunded`):
    /// accepted when null, refused otherwise rather than silently dropped.
    pub fn null_only(&self, reader: &mut Reader<'_>, key: &str) {
        if self.get(key).is_some() {
            reader.problem(
                self.path(key),
                "must be null: this version stores no value here",
            );
        }
    }

    /// An optional `{id, name}` object (category, brand).
    pub fn reference<T>(
        &self,
        reader: &mut Reader<'_>,
        key: &str,
        parse_id: impl FnOnce(String) -> Result<T, InvalidId>,
    ) -> Option<(T, String)> {
        let value = self.get(key)?;
        let object = reader.object(value, &self.path(key))?;
        object.refuse_unknown(reader, &["id", "name"], &[]);
        let id = object.required_string(reader, "id");
        let name = object.label(reader, "name", 200);
        let id = parse_id(id?)
            .map_err(|e| reader.problem(object.path("id"), e.to_string()))
            .ok();
        Some((id?, name?))
    }
}
