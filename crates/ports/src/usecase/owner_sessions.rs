//! Signing owners in and out of the console, and recognising their sessions.
//!
//! Sign-in answers one way for an unknown e-mail, a wrong password and a disabled owner, and
//! costs one argon2 verification in each case (an unknown e-mail is verified against a
//! decoy), so neither the answer nor its time tells which accounts exist. Failures are
//! limited over sliding windows, exactly: each attempt reserves a slot in its budgets before
//! its verification runs (an attempt over one is refused before any), and a successful one
//! gives them back (`usecase::reserved_slots`).
//!
//! Which budgets, after OWASP's device cookies (`shop_domain::owner_device`): a browser that
//! presents a valid device cookie for the e-mail it signs in as is counted alone, per e-mail
//! and device, and is locked out alone when it keeps failing; any other attempt counts
//! against the e-mail's budget for unrecognised browsers and the client address's. So
//! strangers who spend an e-mail's budget do not lock its owner out of their own browser, and
//! guessing from elsewhere stays limited as before. Each successful sign-in hands the browser
//! a new device cookie.
//!
//! Each sign-in starts a new session (the id is never reused, so a fixated id is worthless)
//! and ends the one the browser came with.

use std::sync::Arc;

use shop_domain::client_address::ClientAddress;
use shop_domain::owner::{OwnerEmail, Password};
use shop_domain::owner_device::{DeviceCookie, OwnerDevice};
use shop_domain::owner_session::{
    ABSOLUTE_TIMEOUT_MILLIS, CsrfToken, IDLE_TIMEOUT_MILLIS, OwnerSession, SessionToken,
};
use shop_domain::rate_limit::RateBudget;

use crate::StoreError;
use crate::port::{
    Clock, DeviceSecretStore, HashError, OwnerStore, PasswordHasher, RandomTokens, RateLimitStore,
    SessionStore, SignedIn,
};
use crate::usecase::client_gate::ClientGate;
use crate::usecase::reserved_slots::{FailOpenSlots, ReservedSlots};

mod trusted_devices;

use trusted_devices::TrustedDevices;

/// The budgets of failed sign-ins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignInLimits {
    /// An e-mail's, from browsers without its device cookie.
    pub per_email: RateBudget,
    /// A client address's, from browsers without a device cookie for the e-mail they try.
    pub per_address: RateBudget,
    /// One browser's for the e-mail its device cookie names.
    pub per_device: RateBudget,
}

impl SignInLimits {
    const WINDOW_MILLIS: i64 = 15 * 60 * 1_000;
}

impl Default for SignInLimits {
    /// In any 15 minutes: 10 failures per e-mail from unrecognised browsers, 30 per client
    /// address, and 10 per e-mail and device.
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
            per_device: RateBudget {
                limit: 10,
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
    /// Too many failures for this e-mail, from this address or from this device; nothing
    /// was verified.
    #[error("too many failed sign-ins; retry in {retry_after_seconds} s")]
    Throttled { retry_after_seconds: i64 },
    /// Another sign-in from the same address is being verified (one at a time per address):
    /// nothing failed, nothing was verified; a place is free within a second.
    #[error("another sign-in from this address is being checked; retry in {retry_after_seconds} s")]
    Busy { retry_after_seconds: i64 },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Hashing(#[from] HashError),
}

/// A session just started: the token goes to the browser once, in a cookie, and so does a
/// new device cookie for the owner's e-mail.
#[derive(Debug)]
pub struct StartedSession {
    pub token: SessionToken,
    pub signed_in: SignedIn,
    pub device: DeviceCookie,
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
    devices: TrustedDevices,
    tokens: Arc<dyn RandomTokens>,
    clock: Arc<dyn Clock>,
    limits: SignInLimits,
}

impl OwnerSessions {
    #[expect(
        clippy::too_many_arguments,
        reason = "one port each; the wiring names them all"
    )]
    pub fn new(
        owners: Arc<dyn OwnerStore>,
        sessions: Arc<dyn SessionStore>,
        hasher: Arc<dyn PasswordHasher>,
        windows: Arc<dyn RateLimitStore>,
        device_secret: Arc<dyn DeviceSecretStore>,
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
            devices: TrustedDevices::new(device_secret, Arc::clone(&tokens)),
            tokens,
            clock,
            limits,
        }
    }

    /// Checks `email` and `password` and starts a session; `client` is the caller's address,
    /// `previous` the session the browser came with, if any (ended either way), and `device`
    /// the device cookie it presented, if any.
    pub async fn sign_in(
        &self,
        email: &str,
        password: &Password,
        client: &ClientAddress,
        previous: Option<&SessionToken>,
        device: Option<&DeviceCookie>,
    ) -> Result<StartedSession, SignInError> {
        if let Some(previous) = previous {
            self.sessions.delete_session(&previous.digest()).await?;
        }
        let email = OwnerEmail::parse(email).ok();
        let device = match (&email, device) {
            (Some(email), Some(cookie)) => self.devices.recognise(cookie, email).await?,
            _ => None,
        };
        let reserved = self
            .reserve(email.as_ref(), device.as_ref(), client)
            .await?;
        let admission = match self.verification_gate.admit(client, self.clock.now()) {
            Ok(admission) => admission,
            Err(refused) => {
                self.windows.give_back(reserved).await;
                return Err(SignInError::Busy {
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
        let device = self.devices.issue(&owner.email).await?;

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
            device,
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

    /// A slot in the budgets this attempt counts against, reserved together: the device's
    /// alone for a recognised browser, else the e-mail's and the address's; `Throttled` (with
    /// nothing left reserved) when one is spent.
    async fn reserve(
        &self,
        email: Option<&OwnerEmail>,
        device: Option<&OwnerDevice>,
        client: &ClientAddress,
    ) -> Result<ReservedSlots, SignInError> {
        // An unparseable e-mail matches no account; all of them share one window, so that
        // junk names cannot each get a budget of their own.
        let email = email.map_or("-", OwnerEmail::as_str);
        let budgets = match device {
            Some(device) => vec![(
                format!("signin:email:{email}:device:{}", device.as_str()),
                self.limits.per_device,
                (),
            )],
            None => vec![
                (format!("signin:email:{email}"), self.limits.per_email, ()),
                (format!("signin:ip:{client}"), self.limits.per_address, ()),
            ],
        };
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
