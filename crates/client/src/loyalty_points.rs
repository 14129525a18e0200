//! API v2's adjustment of a client's loyalty points, retried safely as a stock adjustment is.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::client::{Client, check_idempotency_key, checked_id, json_body, new_idempotency_key};
use crate::error::ApiError;
use crate::query::Params;

/// An applied adjustment of a client's points.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PointsAdjustment {
    pub client_id: String,
    pub previous_points: i64,
    pub new_points: i64,
    /// The points added (a credit) or taken (a debit).
    pub delta: i64,
    /// The adjustment kept (`lpa_…`); a replay returns the first one.
    pub adjustment_id: String,
    #[serde(with = "time::serde::rfc3339")]
    pub applied_at: OffsetDateTime,
}

/// An adjustment of points as [`Client::adjust_points`] returns it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointsOutcome {
    pub adjustment: PointsAdjustment,
    /// The `Idempotency-Key` sent (on the first attempt and on every retry).
    pub idempotency_key: String,
    /// The server answered with the first response to this key: the adjustment had already
    /// been applied, by an earlier call or attempt.
    pub replayed: bool,
}

impl Client {
    /// `POST /api/v2/clients/{id}/loyalty/adjustments`: credits (`points > 0`) or debits a
    /// client's points. As [`Client::adjust_stock`], a fresh `Idempotency-Key` is sent again
    /// on every retry of this call, so the adjustment applies once; a debit larger than the
    /// balance is refused with [`ErrorCode::InsufficientPoints`].
    ///
    /// [`ErrorCode::InsufficientPoints`]: crate::ErrorCode::InsufficientPoints
    pub async fn adjust_points(
        &self,
        client_id: &str,
        points: i64,
        reason: &str,
    ) -> Result<PointsOutcome, ApiError> {
        self.adjust_points_with_key(client_id, points, reason, &new_idempotency_key())
            .await
    }

    /// [`Client::adjust_points`] with your own `Idempotency-Key` (a web order's id, say), so
    /// that a retry after a restart is safe too. Keys are one namespace with the stock
    /// adjustments' for the API key.
    pub async fn adjust_points_with_key(
        &self,
        client_id: &str,
        points: i64,
        reason: &str,
        idempotency_key: &str,
    ) -> Result<PointsOutcome, ApiError> {
        check_idempotency_key(idempotency_key)?;
        #[derive(Serialize)]
        struct Body<'a> {
            points: i64,
            reason: &'a str,
        }
        let body = json_body(&Body { points, reason })?;
        let url = self.versioned_url(
            "v2",
            &["clients", checked_id(client_id)?, "loyalty", "adjustments"],
            &Params::new(),
        )?;
        let (adjustment, replayed) = self
            .post_idempotent::<PointsAdjustment>(url, body, idempotency_key)
            .await?;
        Ok(PointsOutcome {
            adjustment,
            idempotency_key: idempotency_key.to_owned(),
            replayed,
        })
    }
}
