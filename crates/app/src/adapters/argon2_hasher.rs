//! argon2id with the crate's defaults (OWASP: 19 MiB, 2 passes, 1 lane), for API keys'
//! secrets and owners' passwords alike.
//!
//! Each verification costs 19 MiB of memory and many milliseconds of CPU (see
//! docs/performance-log.md, "argon2 verification"),
//! so it never runs on the async workers: it goes to tokio's blocking pool, and a semaphore
//! sized to the cores bounds how many run at once, keys and passwords together. A flood of
//! wrong keys or passwords therefore queues instead of exhausting memory.

use std::sync::Arc;

use argon2::{Argon2, PasswordHasher as _, PasswordVerifier};
use async_trait::async_trait;
use shop_domain::api_key::KeySecret;
use shop_domain::owner::Password;
use shop_ports::port::{HashError, PasswordHasher, SecretHasher};
use tokio::sync::{OnceCell, Semaphore};

pub struct Argon2Hasher {
    permits: Arc<Semaphore>,
    /// A hash of a random password nobody knows, made at the first sign-in without an
    /// account: verifying against it costs what a real verification does.
    decoy: OnceCell<String>,
}

impl Argon2Hasher {
    pub fn new() -> Self {
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        Self {
            permits: Arc::new(Semaphore::new(cores)),
            decoy: OnceCell::new(),
        }
    }

    /// The decoy hash, made now if it was not yet. Serving processes make it at startup
    /// (`Services`), so that the first unknown e-mail does not cost a hash more.
    pub async fn decoy(&self) -> Result<&str, HashError> {
        let decoy = self
            .decoy
            .get_or_try_init(|| async {
                let mut unknowable = [0u8; 32];
                getrandom::fill(&mut unknowable).map_err(|e| HashError(e.to_string().into()))?;
                self.hash_bytes(unknowable.to_vec()).await
            })
            .await?;
        Ok(decoy)
    }

    async fn hash_bytes(&self, secret: Vec<u8>) -> Result<String, HashError> {
        self.run(move || {
            Argon2::default()
                .hash_password(&secret)
                .map(|hash| hash.to_string())
        })
        .await?
        .map_err(|e| HashError(e.to_string().into()))
    }

    async fn verify_bytes(&self, secret: Vec<u8>, phc: String) -> Result<bool, HashError> {
        self.run(move || {
            Argon2::default()
                .verify_password(&secret, phc.as_str())
                .is_ok()
        })
        .await
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
        self.hash_bytes(secret.expose().as_bytes().to_vec()).await
    }

    async fn verify(&self, secret: &KeySecret, phc: &str) -> Result<bool, HashError> {
        self.verify_bytes(secret.expose().as_bytes().to_vec(), phc.to_owned())
            .await
    }
}

#[async_trait]
impl PasswordHasher for Argon2Hasher {
    async fn hash_password(&self, password: &Password) -> Result<String, HashError> {
        self.hash_bytes(password.expose().as_bytes().to_vec()).await
    }

    async fn verify_password(&self, password: &Password, phc: &str) -> Result<bool, HashError> {
        self.verify_bytes(password.expose().as_bytes().to_vec(), phc.to_owned())
            .await
    }

    async fn verify_decoy(&self, password: &Password) -> Result<(), HashError> {
        let decoy = self.decoy().await?;
        self.verify_bytes(password.expose().as_bytes().to_vec(), decoy.to_owned())
            .await?;
        Ok(())
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

    #[tokio::test]
    async fn passwords_use_the_same_argon2id_and_the_decoy_matches_nothing_typed() {
        let hasher = Argon2Hasher::new();
        let password = Password::new("correct horse battery").unwrap();
        let phc = hasher.hash_password(&password).await.unwrap();
        assert!(phc.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{phc}");
        assert!(hasher.verify_password(&password, &phc).await.unwrap());
        let typo = Password::attempt("correct horse batterY");
        assert!(!hasher.verify_password(&typo, &phc).await.unwrap());
        hasher.verify_decoy(&password).await.unwrap();
        let decoy = hasher.decoy().await.unwrap().to_owned();
        assert!(
            decoy.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "same cost: {decoy}"
        );
        assert!(!hasher.verify_password(&password, &decoy).await.unwrap());
    }
}
