//! The body of `POST /api/v2/clients/{id}/loyalty/adjustments` as a domain
//! `PointsAdjustmentRequest`: every member that has the right JSON type is held to the
//! domain's rule for it, even when the other is missing or mistyped, so that all problems come
//! back at once.

use shop_domain::loyalty::{PointsAdjustmentRequest, PointsDelta, PointsReason};
use shop_domain::stock::AdjustmentProblem;

use crate::body::JsonFields;

/// The members of an adjustment body that have the right JSON type. `None` for one that is
/// missing or of another type: [`JsonFields`] has reported it already.
#[derive(Debug)]
pub(super) struct PointsMembers {
    points: Option<i64>,
    reason: Option<String>,
}

impl PointsMembers {
    /// The members accepted, in the order their problems are reported.
    pub(super) const FIELDS: &[&str] = &["points", "reason"];

    pub(super) fn read(fields: &mut JsonFields) -> Self {
        Self {
            points: fields.integer("points"),
            reason: fields.string("reason"),
        }
    }
}

/// `Err`: the domain's problems with the members given; none when the only problems are
/// members missing or mistyped, which `JsonFields` reported.
impl TryFrom<PointsMembers> for PointsAdjustmentRequest {
    type Error = Vec<AdjustmentProblem>;

    fn try_from(body: PointsMembers) -> Result<Self, Self::Error> {
        let mut problems = Vec::new();
        let mut kept = |field: &'static str, problem: &'static str| {
            problems.push(AdjustmentProblem {
                field,
                message: problem,
            });
        };
        let delta = body
            .points
            .and_then(|points| PointsDelta::new(points).map_err(|p| kept("points", p)).ok());
        let reason = body.reason.and_then(|text| {
            PointsReason::parse(&text)
                .map_err(|p| kept("reason", p))
                .ok()
        });
        match (delta, reason) {
            (Some(delta), Some(reason)) => Ok(PointsAdjustmentRequest { delta, reason }),
            _ => Err(problems),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members(
        body: &str,
    ) -> (
        Result<PointsAdjustmentRequest, Vec<AdjustmentProblem>>,
        JsonFields,
    ) {
        let mut fields = JsonFields::parse(body.as_bytes(), PointsMembers::FIELDS).unwrap();
        let members = PointsMembers::read(&mut fields);
        (PointsAdjustmentRequest::try_from(members), fields)
    }

    #[test]
    fn a_valid_body_is_the_request() {
        let (request, _) = members(r#"{"points": -30, "reason": " Gift card "}"#);
        let request = request.unwrap();
        assert_eq!(request.delta.get(), -30);
        assert_eq!(request.reason.as_str(), "Gift card");
    }

    #[test]
    fn every_member_given_is_checked_and_the_mistyped_ones_reported_by_the_reader() {
        let (request, fields) = members(r#"{"points": 0, "reason": "   "}"#);
        let problems: Vec<_> = request.unwrap_err().into_iter().map(|p| p.field).collect();
        assert_eq!(problems, ["points", "reason"]);
        assert!(fields.into_issues().is_empty());
        let (request, fields) = members(r#"{"points": "5", "reason": "ok"}"#);
        assert_eq!(request.unwrap_err(), vec![]);
        let reported: Vec<_> = fields.into_issues().into_iter().map(|i| i.field).collect();
        assert_eq!(reported, ["points"]);
    }
}
