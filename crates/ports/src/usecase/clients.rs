//! `GET /clients` and `GET /clients/:id`.

use std::sync::Arc;

use shop_domain::client::{Client, ClientListQuery, client_cursor};
use shop_domain::id::{ClientId, ShopId};
use shop_domain::pagination::{CursorKind, Page};
use shop_domain::sync::changed_cursor;

use super::ReadError;
use crate::port::{ClientRepository, Clock, ReadFrom};

pub struct ClientDirectory {
    repository: Arc<dyn ClientRepository>,
    clock: Arc<dyn Clock>,
}

impl ClientDirectory {
    pub fn new(repository: Arc<dyn ClientRepository>, clock: Arc<dyn Clock>) -> Self {
        Self { repository, clock }
    }

    /// One page of the shop's clients, read `from` the database named.
    pub async fn list(
        &self,
        shop: &ShopId,
        query: &ClientListQuery,
        from: ReadFrom,
    ) -> Result<Page<Client>, ReadError> {
        let read_started = self.clock.now();
        let rows = self.repository.list_clients(shop, query, from).await?;
        let changed = query.changed.is_some();
        Ok(Page::from_overfetch(rows, query.limit, |client| {
            if changed {
                changed_cursor(
                    CursorKind::ClientsChanged,
                    client.updated_at,
                    client.id.as_str(),
                )
            } else {
                client_cursor(&client.id)
            }
        })
        .read_at(read_started))
    }

    /// One client, read `from` the database named.
    pub async fn get(
        &self,
        shop: &ShopId,
        id: &ClientId,
        from: ReadFrom,
    ) -> Result<Client, ReadError> {
        self.repository
            .find_client(shop, id, from)
            .await?
            .ok_or(ReadError::NotFound)
    }
}
