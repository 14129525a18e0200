use shop_domain::api_key::{KeyPrefix, KeySecret, PresentedKey};
use shop_ports::port::{KeyMaterial, RandomTokens};

/// Draws prefixes and secrets from the operating system's generator.
pub struct OsKeyMaterial;

impl KeyMaterial for OsKeyMaterial {
    fn generate(&self) -> PresentedKey {
        let mut prefix = [0u8; 4];
        let mut secret = [0u8; 32];
        // The OS generator failing means the machine cannot make keys safely at all; there is
        // no sensible fallback. Keys are made only at an owner's request (the CLI's
        // `key create` and `demo`, the console's new-key form), never on an API request.
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

impl RandomTokens for OsKeyMaterial {
    fn random_bytes(&self) -> [u8; 32] {
        let mut bytes = [0u8; 32];
        // As above: a session id must never be predictable, and there is nothing to fall
        // back on.
        #[expect(clippy::expect_used, reason = "no safe fallback without OS randomness")]
        getrandom::fill(&mut bytes).expect("the OS random generator is unavailable");
        bytes
    }
}
