//! `GET /clients` and `GET /clients/:id`.

use std::sync::Arc;

use shop_domain::client::{Client, ClientListQuery, client_cursor};
use shop_domain::id::{ClientId, ShopId};
use shop_domain::pagination::Page;

use super::ReadError;
use crate::port::ClientRepository;

pub struct ClientDirectory {
    repository: Arc<dyn ClientRepository>,
}

impl ClientDirectory {
    pub fn new(repository: Arc<dyn ClientRepository>) -> Self {
        Self { repository }
    }

    pub async fn list(
        &self,
        shop: &ShopId,
        query: &ClientListQuery,
    ) -> Result<Page<Client>, ReadError> {
        let rows = self.repository.list_clients(shop, query).await?;
        Ok(Page::from_overfetch(rows, query.limit, |client| {
            client_cursor(&client.id)
        }))
    }

    pub async fn get(&self, shop: &ShopId, id: &ClientId) -> Result<Client, ReadError> {
        self.repository
            .find_client(shop, id)
            .await?
            .ok_or(ReadError::NotFound)
    }
}
