//! Rows only the bulk loader writes (the `seed` feature).

use diesel::prelude::*;
use shop_domain::client::Client;
use shop_domain::id::ShopId;

use crate::error::DbError;
use crate::rows::{ClientRow, ClientSearchRow};
use crate::schema::clients;

/// A new client's public and search columns, as one insertable row so that clients can be
/// inserted many per statement. The confidential columns are left out (NULL).
#[derive(Insertable)]
#[diesel(table_name = clients)]
pub(crate) struct NewClientRow {
    #[diesel(embed)]
    pub client: ClientRow,
    #[diesel(embed)]
    pub search: ClientSearchRow,
}

impl NewClientRow {
    pub fn from_domain(shop: &ShopId, client: &Client) -> Result<Self, DbError> {
        Ok(Self {
            client: ClientRow::from_domain(shop, client)?,
            search: ClientSearchRow::from_domain(client),
        })
    }
}
