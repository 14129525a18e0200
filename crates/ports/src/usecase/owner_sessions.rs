//! Signing owners in and out of the console, and recognising their sessions.
//!
//! Sign-in answers one way for an unknown e-mail, a wrong password and a disabled owner, and
//! costs one argon2 verification in each case (an unknown e-mail is verified against a
//! decoy), so neither the answer nor its time tells which accounts exist. Failures are
//! limited per e-mail and per client address over sliding windows, exactly: each attempt
//! reserves a slot in both before its verification runs (an attempt over either budget is
//! refused before any), and a successful one gives them back (`usecase::reserved_slots`).
//! Each sign-in starts a new session (the id is never reused, so a fixated id is worthless)
//! and ends the one the browser came with.

use std::sync::Arc;

use shop_domain::client_address::ClientAddress;
use shop_domain::owner::{OwnerEmail, Password};
use shop_domain::owner_session::{
    ABSOLUTE_TIMEOUT_MILLIS, CsrfToken, IDLE_TIMEOUT_MILLIS, OwnerSession, SessionToken,
};
use shop_domain::rate_limit::RateBudget;

use crate::StoreError;
use crate::port::{
    Clock, HashError, OwnerStore, PasswordHasher, RandomTokens, RateLimitStore, SessionStore,
    SignedIn,
};
use crate::usecase::client_gate::ClientGate;
use crate::usecase::reserved_slots::{FailOpenSlots, ReservedSlots};

/// The budgets of failed sign-ins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignInLimits {
    pub per_email: RateBudget,
    pub per_address: RateBudget,
}

impl SignInLimits {
    const WINDOW_MILLIS: i64 = 15 * 60 * 1_000;
}

impl Default for SignInLimits {
    /// 10 failures per e-mail and 30 per client address in any 15 minutes.
    fn default() -> Self {
        Self {
            per_email: RateBudget {
                limit: 10,
                window_millis: Self::WINDOW_MILLIS,
            },
            per_address: RateBudget {
                limit: 30,
                window_millis: Self::WINDOW_MILLIS,
            },
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SignInError {
    /// Unknown e-mail, wrong password or disabled owner: one answer for all.
    #[error("invalid e-mail or password")]
    InvalidCredentials,
    /// Too many failures for this e-mail or from this address; nothing was verified.
    #[error("too many failed sign-ins; retry in {retry_after_seconds} s")]
    Throttled { retry_after_seconds: i64 },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Hashing(#[from] HashError),
}

/// A session just started: the token goes to the browser once, in a cookie.
#[derive(Debug)]
pub struct StartedSession {
    pub token: SessionToken,
    pub signed_in: SignedIn,
}

pub struct OwnerSessions {
    owners: Arc<dyn OwnerStore>,
    sessions: Arc<dyn SessionStore>,
    hasher: Arc<dyn PasswordHasher>,
    windows: FailOpenSlots,
    /// The sign-ins' own verification gate: the budgets bound how many an address or an
    /// e-mail may fail in 15 minutes, this bounds how many argon2 runs can wait at once, so
    /// that a burst of sign-ins is refused at the door instead of queueing ahead of the API's
    /// first verification of a key.
    verification_gate: ClientGate,
    tokens: Arc<dyn RandomTokens>,
    clock: Arc<dyn Clock>,
    limits: SignInLimits,
}

impl OwnerSessions {
    pub fn new(
        owners: Arc<dyn OwnerStore>,
        sessions: Arc<dyn SessionStore>,
        hasher: Arc<dyn PasswordHasher>,
        windows: Arc<dyn RateLimitStore>,
        tokens: Arc<dyn RandomTokens>,
        clock: Arc<dyn Clock>,
        limits: SignInLimits,
    ) -> Self {
        Self {
            owners,
            sessions,
            hasher,
            windows: FailOpenSlots::new(windows, "sign-in limits unavailable"),
            verification_gate: ClientGate::for_verifications(),
            tokens,
            clock,
            limits,
        }
    }

    /// Checks `email` and `password` and starts a session; `client` is the caller's address
    /// and `previous` the session the browser came with, if any (ended either way).
    pub async fn sign_in(
        &self,
        email: &str,
        password: &Password,
        client: &ClientAddress,
        previous: Option<&SessionToken>,
    ) -> Result<StartedSession, SignInError> {
        if let Some(previous) = previous {
            self.sessions.delete_session(&previous.digest()).await?;
        }
        let email = OwnerEmail::parse(email).ok();
        let reserved = self.reserve(email.as_ref(), client).await?;
        let admission = match self.verification_gate.admit(client, self.clock.now()) {
            Ok(admission) => admission,
            Err(refused) => {
                self.windows.give_back(reserved).await;
                return Err(SignInError::Throttled {
                    retry_after_seconds: whole_seconds(refused.retry_after_millis),
                });
            }
        };

        let found = match &email {
            Some(email) => self.owners.find_owner_by_email(email).await?,
            None => None,
        };
        let matches = match &found {
            Some((owner, _)) => {
                self.hasher
                    .verify_password(password, &owner.password_hash)
                    .await?
            }
            None => {
                self.hasher.verify_decoy(password).await?;
                false
            }
        };
        drop(admission);
        let (owner, shop) = match found {
            Some((owner, shop)) if matches && owner.is_enabled() => (owner, shop),
            // A failure: its slots stay taken.
            _ => return Err(SignInError::InvalidCredentials),
        };
        self.windows.give_back(reserved).await;

        let now = self.clock.now();
        // Housekeeping, at the one moment sessions are created: expired rows would be refused
        // anyway, this keeps them from piling up.
        self.sessions
            .delete_expired_sessions(
                now.plus_millis(-IDLE_TIMEOUT_MILLIS),
                now.plus_millis(-ABSOLUTE_TIMEOUT_MILLIS),
            )
            .await?;
        let token = SessionToken::from_random_bytes(self.tokens.random_bytes());
        let session = OwnerSession {
            digest: token.digest(),
            owner_id: owner.id.clone(),
            csrf: CsrfToken::from_random_bytes(self.tokens.random_bytes()),
            created_at: now,
            last_seen_at: now,
        };
        self.sessions.insert_session(&session).await?;
        Ok(StartedSession {
            token,
            signed_in: SignedIn {
                session,
                owner,
                shop,
            },
        })
    }

    /// The owner signed in with `token`, if its session is live and the owner enabled. An
    /// expired session is deleted; a live one records the activity (at most once a minute).
    pub async fn resolve(&self, token: &SessionToken) -> Result<Option<SignedIn>, StoreError> {
        let digest = token.digest();
        let Some(mut signed_in) = self.sessions.find_session(&digest).await? else {
            return Ok(None);
        };
        let now = self.clock.now();
        if !signed_in.session.is_live_at(now) || !signed_in.owner.is_enabled() {
            self.sessions.delete_session(&digest).await?;
            return Ok(None);
        }
        if signed_in.session.activity_is_due(now) {
            self.sessions.touch_session(&digest, now).await?;
            signed_in.session.last_seen_at = now;
        }
        Ok(Some(signed_in))
    }

    /// Ends the session (an unknown one is already ended).
    pub async fn sign_out(&self, token: &SessionToken) -> Result<(), StoreError> {
        self.sessions.delete_session(&token.digest()).await
    }

    /// A slot in the e-mail's and in the address's budget, reserved together; `Throttled`
    /// (with nothing left reserved) when either is spent.
    async fn reserve(
        &self,
        email: Option<&OwnerEmail>,
        client: &ClientAddress,
    ) -> Result<ReservedSlots, SignInError> {
        // An unparseable e-mail matches no account; all of them share one window, so that
        // junk names cannot each get a budget of their own.
        let email = email.map_or("-", OwnerEmail::as_str);
        let budgets = [
            (format!("signin:email:{email}"), self.limits.per_email, ()),
            (format!("signin:ip:{client}"), self.limits.per_address, ()),
        ];
        self.windows
            .reserve_all(budgets, self.clock.now())
            .await
            .map_err(|((), status)| SignInError::Throttled {
                retry_after_seconds: status.retry_after_seconds(),
            })
    }
}

/// A wait in whole seconds, rounded up and at least one, as `Retry-After` says it.
fn whole_seconds(millis: i64) -> i64 {
    ((millis.max(0) + 999) / 1_000).max(1)
}

#[cfg(test)]
mod tests;
