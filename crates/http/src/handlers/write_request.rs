//! What API v2's creates and patches read before their ids (issue 35): the body's members,
//! parsed by the domain's rules, and the header that makes the write safe to retry, an
//! `Idempotency-Key` (a create) or `If-Match` (a patch). Every problem of both comes in one
//! `400 VALIDATION_ERROR`, the body's first.

use actix_web::{HttpRequest, web};
use shop_domain::stock::IdempotencyKey;
use shop_domain::write::MemberProblem;
use shop_ports::port::Precondition;

use crate::body::members::Members;
use crate::body::read_members;
use crate::error::ApiError;
use crate::etag::IfMatch;
use crate::handlers::idempotency::idempotency_key;

/// A create's request, `parse`d from its body's members, and its `Idempotency-Key`.
pub(crate) async fn create_request<T>(
    request: &HttpRequest,
    payload: web::Payload,
    parse: impl FnOnce(Members) -> Result<T, Vec<MemberProblem>>,
) -> Result<(T, Option<IdempotencyKey>), ApiError> {
    let members = read_members(request, payload, false).await?;
    let issues = members.issues().clone();
    let parsed = parse(members);
    let key = idempotency_key(request.headers());
    let header_issues = key.as_ref().err().cloned().into_iter().collect();
    let create = issues.verdict(parsed, header_issues)?;
    Ok((create, key.ok().flatten()))
}

/// A merge patch, `parse`d from its body's members, and its `If-Match` as a condition on the
/// resource `R` whose tag `tag_of` computes.
pub(crate) async fn patch_request<T, R>(
    request: &HttpRequest,
    payload: web::Payload,
    parse: impl FnOnce(Members) -> Result<T, Vec<MemberProblem>>,
    tag_of: impl Fn(&R) -> Result<String, ApiError> + Send + Sync + 'static,
) -> Result<(T, Option<Precondition<R>>), ApiError> {
    let members = read_members(request, payload, true).await?;
    let issues = members.issues().clone();
    let parsed = parse(members);
    let if_match = IfMatch::parse(request.headers());
    let header_issues = if_match.as_ref().err().cloned().into_iter().collect();
    let patch = issues.verdict(parsed, header_issues)?;
    let precondition = if_match
        .ok()
        .flatten()
        .map(|condition| condition.precondition(tag_of));
    Ok((patch, precondition))
}
