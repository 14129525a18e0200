//! A submitted form (`application/x-www-form-urlencoded`), read whole, bounded in size and
//! in time as the API's JSON bodies are (413 beyond [`MAX_FORM_BYTES`], 408 when the body has
//! not arrived by the deadline: a client trickling a form must not hold a connection and a
//! worker's handler for long), with its fields in order so that a repeated field (`scopes`)
//! keeps every value; a query string is read the same way.

use std::time::Duration;

use actix_web::HttpRequest;
use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::web::{Bytes, BytesMut};
use futures::StreamExt as _;

use crate::error::ConsoleError;

/// No form of the console comes near this: a key's label and twelve scopes are well under 1 KiB.
pub const MAX_FORM_BYTES: usize = 16 * 1024;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Form {
    fields: Vec<(String, String)>,
}

impl Form {
    pub fn parse(body: &[u8]) -> Self {
        Self {
            fields: form_urlencoded::parse(body).into_owned().collect(),
        }
    }

    /// The request's query string, read as a form.
    pub fn query(request: &HttpRequest) -> Self {
        Self::parse(request.query_string().as_bytes())
    }

    /// The first value of `name`.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(field, _)| field == name)
            .map(|(_, value)| value.as_str())
    }

    /// Every value of `name`, in the order sent.
    pub fn values<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.fields
            .iter()
            .filter(move |(field, _)| field == name)
            .map(|(_, value)| value.as_str())
    }

    /// Reads the request's body as a form: 415 for another content type, 413 beyond
    /// [`MAX_FORM_BYTES`], 408 when it is not all there within `deadline`.
    pub async fn read(
        request: &HttpRequest,
        payload: &mut Payload,
        deadline: Duration,
    ) -> Result<Self, ConsoleError> {
        let content_type = request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default();
        let essence = content_type.split(';').next().unwrap_or_default().trim();
        if !essence.eq_ignore_ascii_case("application/x-www-form-urlencoded") {
            return Err(ConsoleError::UnsupportedMediaType);
        }
        let body = actix_web::rt::time::timeout(deadline, read_bounded(payload))
            .await
            .map_err(|_elapsed| ConsoleError::RequestTimeout)??;
        Ok(Self::parse(&body))
    }
}

async fn read_bounded(payload: &mut Payload) -> Result<BytesMut, ConsoleError> {
    let mut body = BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk: Bytes = chunk.map_err(|_| ConsoleError::BadRequest("The form was cut off."))?;
        if body.len() + chunk.len() > MAX_FORM_BYTES {
            return Err(ConsoleError::PayloadTooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_fields_keep_every_value_in_order() {
        let form = Form::parse(b"label=ERP+sync&scopes=products%3Aread&scopes=stock%3Awrite");
        assert_eq!(form.value("label"), Some("ERP sync"));
        assert_eq!(
            form.values("scopes").collect::<Vec<_>>(),
            ["products:read", "stock:write"]
        );
        assert_eq!(form.value("missing"), None);
    }
}
