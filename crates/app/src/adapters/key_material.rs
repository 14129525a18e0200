use shop_domain::api_key::{KeyPrefix, KeySecret, PresentedKey};
use shop_ports::port::KeyMaterial;

/// Draws prefixes and secrets from the operating system's generator.
pub struct OsKeyMaterial;

impl KeyMaterial for OsKeyMaterial {
    fn generate(&self) -> PresentedKey {
        let mut prefix = [0u8; 4];
        let mut secret = [0u8; 32];
        // The OS generator failing means the machine cannot make keys safely at all; there is
        // no sensible fallback, and this runs only in the owner's CLI.
        #[expect(clippy::expect_used, reason = "no safe fallback without OS randomness")]
        {
            getrandom::fill(&mut prefix).expect("the OS random generator is unavailable");
            getrandom::fill(&mut secret).expect("the OS random generator is unavailable");
        }
        PresentedKey::new(
            KeyPrefix::from_random_bytes(prefix),
            KeySecret::from_random_bytes(secret),
        )
    }
}
