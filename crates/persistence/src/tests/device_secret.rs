//! `DeviceSecretStore`: the first candidate offered is kept, and every later call, with any
//! candidate, gets that one back.

use shop_domain::owner_device::DeviceSecret;
use shop_ports::port::DeviceSecretStore;

use super::test_databases;

#[tokio::test]
async fn the_first_secret_stored_is_everyones() {
    for t in test_databases().await {
        let first = DeviceSecret::from_random_bytes([0xa1; 32]);
        let later = DeviceSecret::from_random_bytes([0xb2; 32]);
        assert_eq!(
            t.db.device_secret(&first).await.unwrap(),
            first,
            "{}",
            t.backend()
        );
        assert_eq!(
            t.db.device_secret(&later).await.unwrap(),
            first,
            "{}",
            t.backend()
        );
    }
}
