//! The owners' browsers the console recognises by their device cookie
//! (`shop_domain::owner_device`), and the secret that signs those cookies: read from the
//! store once per instance, and stored there by the first instance that needs one.

use std::sync::{Arc, OnceLock};

use shop_domain::owner::OwnerEmail;
use shop_domain::owner_device::{DeviceCookie, DeviceSecret, OwnerDevice};

use crate::StoreError;
use crate::port::{DeviceSecretStore, RandomTokens};

pub(super) struct TrustedDevices {
    store: Arc<dyn DeviceSecretStore>,
    tokens: Arc<dyn RandomTokens>,
    /// Never changes once stored (rotating it means deleting the row and restarting).
    secret: OnceLock<DeviceSecret>,
}

impl TrustedDevices {
    pub(super) fn new(store: Arc<dyn DeviceSecretStore>, tokens: Arc<dyn RandomTokens>) -> Self {
        Self {
            store,
            tokens,
            secret: OnceLock::new(),
        }
    }

    /// The browser `cookie` stands for, if it is a device cookie this service signed for
    /// `login`; a cookie of another e-mail, forged or altered, is none.
    pub(super) async fn recognise(
        &self,
        cookie: &DeviceCookie,
        login: &OwnerEmail,
    ) -> Result<Option<OwnerDevice>, StoreError> {
        Ok(cookie.device_for(self.secret().await?, login))
    }

    /// A new cookie for the browser that just signed in as `login`.
    pub(super) async fn issue(&self, login: &OwnerEmail) -> Result<DeviceCookie, StoreError> {
        let secret = self.secret().await?;
        Ok(DeviceCookie::issue(
            secret,
            login,
            self.tokens.random_bytes(),
        ))
    }

    async fn secret(&self) -> Result<&DeviceSecret, StoreError> {
        if let Some(secret) = self.secret.get() {
            return Ok(secret);
        }
        let candidate = DeviceSecret::from_random_bytes(self.tokens.random_bytes());
        let stored = self.store.device_secret(&candidate).await?;
        // Two first requests may both read it: the store gave them the same one.
        Ok(self.secret.get_or_init(|| stored))
    }
}
