//! Builds every use case on its adapters.

use std::sync::Arc;

use anyhow::Context;
use shop_http::ApiState;
use shop_persistence::{Database, DatabaseUrl, PoolOptions};
use shop_ports::port::{Clock, SecretHasher};
use shop_ports::usecase::{
    Authenticator, ClientDirectory, ImportShopData, KeyAdmin, LoyaltyOverview, OrderHistory,
    ProductCatalogue, ShopAdmin, StockKeeper,
};

use crate::adapters::{Argon2Hasher, OsKeyMaterial, SystemClock, UuidV7Ids};

pub struct Services {
    pub database: Database,
    pub clock: Arc<dyn Clock>,
    pub authenticator: Arc<Authenticator>,
    pub catalogue: Arc<ProductCatalogue>,
    pub orders: Arc<OrderHistory>,
    pub clients: Arc<ClientDirectory>,
    pub loyalty: Arc<LoyaltyOverview>,
    pub stock: Arc<StockKeeper>,
    pub shops: ShopAdmin,
    pub keys: KeyAdmin,
    pub import: ImportShopData,
}

impl Services {
    /// Connects and migrates the database (every command works on a current schema), then
    /// wires the use cases.
    pub async fn open(database_url: &str) -> anyhow::Result<Self> {
        let url = DatabaseUrl::parse(database_url)?;
        let database = Database::open(&url, PoolOptions::default())
            .await
            .with_context(|| format!("cannot open the {} database", url.backend_name()))?;
        Ok(Self::wire(database))
    }

    fn wire(database: Database) -> Self {
        let store = Arc::new(database.clone());
        let clock: Arc<dyn Clock> = Arc::new(SystemClock);
        let hasher: Arc<dyn SecretHasher> = Arc::new(Argon2Hasher::new());
        let ids = Arc::new(UuidV7Ids);
        Self {
            authenticator: Arc::new(Authenticator::new(
                store.clone(),
                hasher.clone(),
                clock.clone(),
            )),
            catalogue: Arc::new(ProductCatalogue::new(store.clone())),
            orders: Arc::new(OrderHistory::new(store.clone())),
            clients: Arc::new(ClientDirectory::new(store.clone())),
            loyalty: Arc::new(LoyaltyOverview::new(store.clone(), store.clone())),
            stock: Arc::new(StockKeeper::new(store.clone(), ids.clone(), clock.clone())),
            shops: ShopAdmin::new(store.clone(), ids, clock.clone()),
            keys: KeyAdmin::new(
                store.clone(),
                store.clone(),
                hasher,
                Arc::new(OsKeyMaterial),
                clock.clone(),
            ),
            import: ImportShopData::new(store.clone(), store, clock.clone()),
            clock,
            database,
        }
    }

    pub fn api_state(&self) -> ApiState {
        ApiState {
            authenticator: self.authenticator.clone(),
            catalogue: self.catalogue.clone(),
            orders: self.orders.clone(),
            clients: self.clients.clone(),
            loyalty: self.loyalty.clone(),
            stock: self.stock.clone(),
        }
    }
}
