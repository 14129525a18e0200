//! The bodies of the webhook endpoints' writes as the use case's inputs.
//!
//! Only the JSON shape is judged here (a member's type, unknown and repeated names, U+0000),
//! every problem at once; what the values mean (the URL's rules, the event types, the
//! description's length) is the use case's, which names the first field it refuses.

use shop_domain::Timestamp;
use shop_domain::sync::parse_updated_since;
use shop_ports::usecase::webhooks::EndpointInput;

use crate::body::JsonFields;

/// `POST /webhook-endpoints`: `url` and `events` required, `description` a string, `null`
/// or absent.
pub(super) const CREATION: &[&str] = &["url", "events", "description"];
/// `PATCH /webhook-endpoints/{id}`: a merge patch of these four, each optional.
pub(super) const CHANGE: &[&str] = &["url", "events", "description", "status"];
/// `POST /webhook-endpoints/{id}/recover`.
pub(super) const RECOVERY: &[&str] = &["since"];

pub(super) fn creation(fields: &mut JsonFields) -> EndpointInput {
    EndpointInput {
        url: fields.string("url"),
        events: fields.strings("events"),
        description: if fields.has("description") {
            fields.nullable_string("description").flatten()
        } else {
            None
        },
        enabled: None,
    }
}

/// RFC 7396 over the endpoint's members: an absent member is unchanged, `null` removes a
/// value (only `description` has one to remove: it becomes empty).
pub(super) fn change(fields: &mut JsonFields) -> EndpointInput {
    let url = if fields.has("url") {
        fields.string("url")
    } else {
        None
    };
    let events = if fields.has("events") {
        fields.strings("events")
    } else {
        None
    };
    let description = if fields.has("description") {
        fields
            .nullable_string("description")
            .map(Option::unwrap_or_default)
    } else {
        None
    };
    let enabled = if fields.has("status") {
        match fields.string("status").as_deref() {
            Some("enabled") => Some(true),
            Some("disabled") => Some(false),
            Some(_) => {
                fields.reject("status", "must be enabled or disabled");
                None
            }
            None => None,
        }
    } else {
        None
    };
    EndpointInput {
        url,
        events,
        description,
        enabled,
    }
}

/// `since`: an RFC 3339 instant with an offset, or a `YYYY-MM-DD` date (its first instant,
/// UTC), as `updatedSince` reads it.
pub(super) fn recovery(fields: &mut JsonFields) -> Option<Timestamp> {
    let text = fields.string("since")?;
    match parse_updated_since(&text) {
        Ok(since) => Some(since),
        Err(invalid) => {
            fields.reject("since", invalid.to_string());
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(body: &str, accepted: &'static [&'static str]) -> JsonFields {
        JsonFields::parse(body.as_bytes(), accepted).unwrap()
    }

    fn reported(fields: JsonFields) -> Vec<(String, String)> {
        fields
            .into_issues()
            .into_iter()
            .map(|issue| (issue.field, issue.message))
            .collect()
    }

    #[test]
    fn a_creation_needs_url_and_events_and_takes_a_null_description() {
        let mut body = fields(
            r#"{"url": "https://a.example/h", "events": ["*"], "description": null}"#,
            CREATION,
        );
        let input = creation(&mut body);
        assert_eq!(input.url.as_deref(), Some("https://a.example/h"));
        assert_eq!(input.events, Some(vec!["*".to_owned()]));
        assert_eq!(input.description, None);
        assert!(reported(body).is_empty());
        let mut body = fields(
            r#"{"events": "order.created", "status": "enabled"}"#,
            CREATION,
        );
        let _ = creation(&mut body);
        let fields: Vec<String> = reported(body).into_iter().map(|(field, _)| field).collect();
        assert_eq!(fields, ["status", "url", "events"]);
    }

    #[test]
    fn a_change_is_a_merge_patch() {
        let mut body = fields(r#"{"description": null, "status": "disabled"}"#, CHANGE);
        let input = change(&mut body);
        assert_eq!(input.url, None);
        assert_eq!(input.events, None);
        assert_eq!(input.description.as_deref(), Some(""));
        assert_eq!(input.enabled, Some(false));
        assert!(reported(body).is_empty());
        let mut empty = fields("{}", CHANGE);
        let input = change(&mut empty);
        assert!(input.url.is_none() && input.events.is_none() && input.enabled.is_none());
        assert!(input.description.is_none());
        assert!(reported(empty).is_empty());
        let mut bad = fields(
            r#"{"url": null, "events": [1], "status": "paused", "secret": "x"}"#,
            CHANGE,
        );
        let _ = change(&mut bad);
        assert_eq!(
            reported(bad),
            [
                ("secret".to_owned(), "is not a known field".to_owned()),
                ("url".to_owned(), "must be a string".to_owned()),
                (
                    "events".to_owned(),
                    "must be an array of strings".to_owned()
                ),
                (
                    "status".to_owned(),
                    "must be enabled or disabled".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn a_recovery_starts_at_an_instant_or_a_date() {
        let mut body = fields(r#"{"since": "2026-11-21T09:30:00+01:00"}"#, RECOVERY);
        assert_eq!(
            recovery(&mut body),
            Timestamp::parse_rfc3339("2026-11-21T08:30:00Z").ok()
        );
        let mut date = fields(r#"{"since": "2026-11-21"}"#, RECOVERY);
        assert_eq!(
            recovery(&mut date),
            Timestamp::parse_rfc3339("2026-11-21T00:00:00Z").ok()
        );
        let mut bad = fields(r#"{"since": "yesterday"}"#, RECOVERY);
        assert_eq!(recovery(&mut bad), None);
        assert_eq!(reported(bad)[0].0, "since");
    }
}
