//! `GET /api/v2/events` (API v2 only, issue 34): the shop's event log in commit order, each
//! event the very bytes its receivers were sent. The catch-up after an outage, and the place
//! to find every change (a delivery sends only a resource's newest event).

use actix_web::{HttpRequest, HttpResponse, web};
use shop_domain::pagination::PageLimit;
use shop_domain::scope::Operation;
use shop_domain::sync::parse_updated_since;
use shop_domain::webhook::EventType;

use crate::ApiState;
use crate::auth::authenticate;
use crate::dto::page::ListDto;
use crate::dto::webhook::LoggedEventDto;
use crate::error::{ApiError, Resource};
use crate::handlers::params::EventListParams;
use crate::handlers::responses::ListEvents;
use crate::handlers::webhooks::DEFAULT_LIMIT;
use crate::query::QueryParams;

/// The query parameters the list accepts; its `params(...)` documents the same (tested).
pub(crate) const LIST_PARAMETERS: &[&str] = &["type", "since", "cursor", "limit"];

#[utoipa::path(
    get,
    path = "/api/v2/events",
    tag = "events",
    operation_id = "listEvents",
    summary = "List the shop's events",
    description = "Scope `webhooks:read`. The events of the retention period in commit order, oldest first, only those whose resource the key may read (`order.*` needs `orders:read`, and so on). Each item is the event exactly as webhook receivers are sent it.",
    params(EventListParams),
    responses(ListEvents)
)]
pub async fn list(
    request: HttpRequest,
    state: web::Data<ApiState>,
) -> Result<HttpResponse, ApiError> {
    let principal = authenticate(&request, &state, Operation::ListEvents).await?;
    let mut params = QueryParams::parse(request.query_string(), LIST_PARAMETERS)?;
    let kind = params.get("type", listed_type);
    let since = params.get("since", parse_updated_since);
    let cursor = params.get("cursor", |text| Ok::<_, String>(text.to_owned()));
    let limit = params.get("limit", PageLimit::parse);
    params.finish()?;
    let page = state
        .webhook_events
        .list(
            &principal.shop.id,
            principal.scopes,
            kind,
            since,
            cursor.as_deref(),
            limit.unwrap_or(DEFAULT_LIMIT),
        )
        .await
        .map_err(ApiError::webhooks(Resource::WebhookEndpoint))?;
    ListDto::try_from_page(&page, LoggedEventDto::try_from)?.into_exact_response()
}

/// A type the log lists: any type an endpoint may subscribe to. `ping` is sent by a test to one
/// endpoint and is not listed, so asking for it is refused rather than always empty.
fn listed_type(text: &str) -> Result<EventType, String> {
    match text.parse::<EventType>() {
        Ok(EventType::Ping) => Err("`ping` events are not listed".to_owned()),
        Ok(kind) => Ok(kind),
        Err(unknown) => Err(unknown.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_listed_types_are_the_subscribable_ones() {
        for kind in EventType::SUBSCRIBABLE {
            assert_eq!(listed_type(kind.as_str()), Ok(kind));
        }
        assert!(listed_type("ping").is_err());
        assert_eq!(
            listed_type("order.deleted"),
            Err("unknown event type `order.deleted`".to_owned())
        );
    }
}
