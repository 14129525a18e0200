//! argon2id with the crate's defaults (OWASP: 19 MiB, 2 passes, 1 lane).
//!
//! Each verification costs ~26 ms of CPU and 19 MiB of memory, so it never runs on the async
//! workers: it goes to tokio's blocking pool, and a semaphore sized to the cores bounds how
//! many run at once. A flood of wrong keys therefore queues instead of exhausting memory.

use std::sync::Arc;

use argon2::{Argon2, PasswordHasher, PasswordVerifier};
use async_trait::async_trait;
use shop_domain::api_key::KeySecret;
use shop_ports::port::{HashError, SecretHasher};
use tokio::sync::Semaphore;

pub struct Argon2Hasher {
    permits: Arc<Semaphore>,
}

impl Argon2Hasher {
    pub fn new() -> Self {
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        Self {
            permits: Arc::new(Semaphore::new(cores)),
        }
    }

    async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, HashError> {
        let _permit = self
            .permits
            .acquire()
            .await
            .map_err(|e| HashError(e.into()))?;
        tokio::task::spawn_blocking(work)
            .await
            .map_err(|e| HashError(e.into()))
    }
}

impl Default for Argon2Hasher {
    fn default() -> Self {
        Self::new()
    }
}

#[async_trait]
impl SecretHasher for Argon2Hasher {
    async fn hash(&self, secret: &KeySecret) -> Result<String, HashError> {
        let secret = secret.expose().to_owned();
        self.run(move || {
            Argon2::default()
                .hash_password(secret.as_bytes())
                .map(|hash| hash.to_string())
        })
        .await?
        .map_err(|e| HashError(e.to_string().into()))
    }

    async fn verify(&self, secret: &KeySecret, phc: &str) -> Result<bool, HashError> {
        let secret = secret.expose().to_owned();
        let phc = phc.to_owned();
        self.run(move || {
            Argon2::default()
                .verify_password(secret.as_bytes(), phc.as_str())
                .is_ok()
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn hashes_verify_only_their_own_secret() {
        let hasher = Argon2Hasher::new();
        let secret = KeySecret::from_random_bytes([3; 32]);
        let phc = hasher.hash(&secret).await.unwrap();
        assert!(phc.starts_with("$argon2id$"));
        assert!(!phc.contains(secret.expose()));
        assert!(hasher.verify(&secret, &phc).await.unwrap());
        assert!(
            !hasher
                .verify(&KeySecret::from_random_bytes([4; 32]), &phc)
                .await
                .unwrap()
        );
        assert!(!hasher.verify(&secret, "not a hash").await.unwrap());
    }
}
