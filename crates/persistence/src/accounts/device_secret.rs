//! `DeviceSecretStore`: the key that signs the console's device cookies, one row of
//! `console_secrets`, stored by the first instance that asks and read back by every other.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::owner_device::DeviceSecret;
use shop_ports::StoreError;
use shop_ports::port::DeviceSecretStore;

use crate::database::{Database, with_conn};
use crate::schema::console_secrets;

const PURPOSE: &str = "device_cookies";

#[async_trait]
impl DeviceSecretStore for Database {
    async fn device_secret(&self, candidate: &DeviceSecret) -> Result<DeviceSecret, StoreError> {
        let candidate = candidate.to_stored();
        // Whoever inserts first wins; the others' candidates are dropped, and all read the
        // winner's.
        with_conn!(self, |conn| diesel::insert_into(console_secrets::table)
            .values((
                console_secrets::purpose.eq(PURPOSE),
                console_secrets::secret_hex.eq(&candidate),
            ))
            .on_conflict_do_nothing()
            .execute(conn)
            .await)?;
        let stored: String = with_conn!(self, |conn| console_secrets::table
            .filter(console_secrets::purpose.eq(PURPOSE))
            .select(console_secrets::secret_hex)
            .first(conn)
            .await)?;
        DeviceSecret::from_stored(&stored)
            .ok_or_else(|| StoreError::failure("the stored device-cookie secret is malformed"))
    }
}
