//! The body of `POST /api/v1/stock/adjustments` as a domain `AdjustmentRequest`.
//!
//! Every member that has the right JSON type is held to the domain's rule for it, even when
//! another member is missing or mistyped, so that all problems come back at once.

use shop_domain::stock::{
    AdjustmentProblem, AdjustmentReason, AdjustmentRequest, RequestedVariant, StockDelta,
};

use crate::body::JsonFields;

/// The members of an adjustment body that have the right JSON type. `None` for one that is
/// missing or of another type: [`JsonFields`] has reported it already.
#[derive(Debug)]
pub(super) struct AdjustmentMembers {
    variant_id: Option<String>,
    quantity: Option<i64>,
    reason: Option<String>,
}

impl AdjustmentMembers {
    /// The members accepted, in the order their problems are reported.
    pub(super) const FIELDS: &[&str] = &["variantId", "quantity", "reason"];

    pub(super) fn read(fields: &mut JsonFields) -> Self {
        Self {
            variant_id: fields.string("variantId"),
            quantity: fields.integer("quantity"),
            reason: fields.string("reason"),
        }
    }
}

/// `Err`: the domain's problems with the members given; none when the only problems are
/// members missing or mistyped, which `JsonFields` reported.
impl TryFrom<AdjustmentMembers> for AdjustmentRequest {
    type Error = Vec<AdjustmentProblem>;

    fn try_from(body: AdjustmentMembers) -> Result<Self, Self::Error> {
        let mut problems = Vec::new();
        let variant = body
            .variant_id
            .and_then(|text| kept("variantId", RequestedVariant::parse(&text), &mut problems));
        let delta = body
            .quantity
            .and_then(|quantity| kept("quantity", StockDelta::new(quantity), &mut problems));
        let reason = body
            .reason
            .and_then(|text| kept("reason", AdjustmentReason::parse(&text), &mut problems));
        match (variant, delta, reason) {
            (Some(variant), Some(delta), Some(reason)) => {
                Ok(AdjustmentRequest::new(variant, delta, reason))
            }
            _ => Err(problems),
        }
    }
}

/// The value of a valid `field`; the problem of an invalid one goes to `problems`.
fn kept<T>(
    field: &'static str,
    parsed: Result<T, &'static str>,
    problems: &mut Vec<AdjustmentProblem>,
) -> Option<T> {
    parsed
        .map_err(|message| problems.push(AdjustmentProblem { field, message }))
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members(
        body: &str,
    ) -> (
        Result<AdjustmentRequest, Vec<AdjustmentProblem>>,
        JsonFields,
    ) {
        let mut fields = JsonFields::parse(body.as_bytes(), AdjustmentMembers::FIELDS).unwrap();
        let members = AdjustmentMembers::read(&mut fields);
        (AdjustmentRequest::try_from(members), fields)
    }

    #[test]
    fn a_valid_body_is_the_request() {
        let (request, _) = members(r#"{"variantId": "v1", "quantity": -3, "reason": " casse "}"#);
        assert_eq!(
            request,
            Ok(AdjustmentRequest::parse("v1", -3, "casse").unwrap())
        );
    }

    #[test]
    fn the_members_given_are_checked_when_another_is_missing_or_mistyped() {
        let (request, fields) = members(r#"{"variantId": "", "quantity": "5", "reason": " "}"#);
        let fields_of = |problems: Vec<AdjustmentProblem>| -> Vec<_> {
            problems.into_iter().map(|problem| problem.field).collect()
        };
        assert_eq!(request.map_err(fields_of), Err(vec!["variantId", "reason"]));
        let reported: Vec<_> = fields.into_issues().into_iter().map(|i| i.field).collect();
        assert_eq!(reported, ["quantity"]);
        let (request, _) = members(r#"{"quantity": 2}"#);
        assert_eq!(request, Err(vec![]));
    }
}
