//! `Idempotency-Key` on the writes that take one (a stock adjustment, an adjustment of a
//! client's points): the header read, and the mark of an answer that repeats the first.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderMap, HeaderName, HeaderValue};
use serde::Serialize;
use shop_domain::stock::{AdjustmentProblem, IdempotencyKey, InvalidIdempotencyKey};

use crate::body::JsonFields;
use crate::dto::page::DataDto;
use crate::error::{ApiError, FieldIssue};

const IDEMPOTENCY_KEY: HeaderName = HeaderName::from_static("idempotency-key");
/// Set on a response that repeats the first answer to the same `Idempotency-Key`.
const IDEMPOTENT_REPLAYED: HeaderName = HeaderName::from_static("idempotent-replayed");

/// The body's request (`parsed` from its members, its domain problems reported on `fields`)
/// and the `Idempotency-Key`: both, or one 400 naming every problem of the body and the header.
pub(crate) fn request_and_key<T>(
    parsed: Result<T, Vec<AdjustmentProblem>>,
    mut fields: JsonFields,
    headers: &HeaderMap,
) -> Result<(T, Option<IdempotencyKey>), ApiError> {
    let request = parsed
        .map_err(|problems| {
            for problem in problems {
                fields.reject(problem.field, problem.message);
            }
        })
        .ok();
    let key = idempotency_key(headers);
    let mut issues = fields.into_issues();
    if let Err(issue) = &key {
        issues.push(issue.clone());
    }
    match (request, key, issues.is_empty()) {
        (Some(request), Ok(key), true) => Ok((request, key)),
        _ => Err(ApiError::invalid_body(issues)),
    }
}

/// The answer to a write made under a key: 201 with `data`, or the refusal's envelope; either
/// marked when it repeats the first answer to the key.
pub(crate) fn created_or_refused<D: Serialize>(
    answer: Result<D, ApiError>,
    replayed: bool,
) -> HttpResponse {
    let mut response = match answer {
        Ok(data) => HttpResponse::Created().json(DataDto::new(data)),
        Err(error) => HttpResponse::from_error(error),
    };
    if replayed {
        response
            .headers_mut()
            .insert(IDEMPOTENT_REPLAYED, HeaderValue::from_static("true"));
    }
    response
}

/// The answer to a create of a product or a client (API v2) made under a key: 201 with the
/// resource in `data`, its `ETag` and its `Location`, or the refusal's envelope; either marked
/// when it repeats the first answer to the key.
pub(crate) fn created_at<D: Serialize>(
    answer: Result<(D, String), ApiError>,
    replayed: bool,
) -> Result<HttpResponse, ApiError> {
    let mut response = match answer {
        Ok((data, location)) => {
            let mut response = crate::etag::written(StatusCode::CREATED, data)?;
            let location = HeaderValue::from_str(&location)
                .map_err(|error| ApiError::Internal(error.into()))?;
            response.headers_mut().insert(header::LOCATION, location);
            response
        }
        Err(error) => HttpResponse::from_error(error),
    };
    if replayed {
        response
            .headers_mut()
            .insert(IDEMPOTENT_REPLAYED, HeaderValue::from_static("true"));
    }
    Ok(response)
}

/// The optional `Idempotency-Key`: given at most once, and valid per the domain.
pub(crate) fn idempotency_key(headers: &HeaderMap) -> Result<Option<IdempotencyKey>, FieldIssue> {
    let mut values = headers.get_all(IDEMPOTENCY_KEY);
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(FieldIssue::new(
            "Idempotency-Key",
            "must be given at most once",
        ));
    }
    value
        .to_str()
        .map_err(|_| InvalidIdempotencyKey)
        .and_then(IdempotencyKey::parse)
        .map(Some)
        .map_err(|invalid| FieldIssue::new("Idempotency-Key", invalid.to_string()))
}
