//! Reading clients: the list page (by ascending id, or changed since a time by `updatedAt`;
//! optionally searched) and one client.
//!
//! Only [`ClientRow`]'s columns are selected: the private note and the legacy link never leave
//! the database on this path.
//!
//! `loyalty.rs`: a client's loyalty, the shop's tiers and the client's latest tickets and spins.
//! `points.rs`: an adjustment of a client's points (`PointsLedger`); `write.rs`: an
//! integration's create and merge patch of a client (`ClientWriter`).

mod loyalty;
mod points;
mod write;

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shop_domain::client::{Client, ClientListQuery};
use shop_domain::id::{ClientId, ShopId};
use shop_ports::StoreError;
use shop_ports::port::{ClientRepository, ReadFrom};

use crate::catalogue::contains_pattern;
use crate::database::{Database, impl_for_each_backend, with_read_conn};
use crate::error::DbError;
use crate::rows::ClientRow;
use crate::schema::clients;
use crate::sql::first_rows::first_rows;
use crate::sql::one_of::one_of;

/// Which clients to load; either way by ascending id.
pub(crate) type ClientSelection<'a> =
    crate::sql::selection::Selection<'a, ClientListQuery, ClientId>;

/// Queries shared by the API's reads and the import, implemented for both backends'
/// connections so that the import can run them inside its transaction.
pub(crate) trait ClientQueries {
    fn load_clients(
        &mut self,
        shop: &ShopId,
        selection: ClientSelection<'_>,
    ) -> impl Future<Output = Result<Vec<Client>, DbError>> + Send;
}

impl_for_each_backend! {
    impl ClientQueries {
        async fn load_clients(
            &mut self,
            shop: &ShopId,
            selection: ClientSelection<'_>,
        ) -> Result<Vec<Client>, DbError> {
            let mut query = clients::table
                .filter(clients::shop_id.eq(shop.as_str()))
                .select(ClientRow::as_select())
                .order(clients::id.asc())
                .into_boxed();
            let rows: Vec<ClientRow> = match selection {
                ClientSelection::Page(page) => {
                    match &page.changed {
                        None => {
                            if let Some(after) = &page.after {
                                query = query.filter(clients::id.gt(after.as_str()));
                            }
                        }
                        // `updatedSince`: the walk is (shop_id, updated_at_ms, id), in order.
                        Some(changed) => {
                            query = query
                                .filter(clients::updated_at_ms.ge(changed.since.millis()))
                                .order((clients::updated_at_ms.asc(), clients::id.asc()));
                            if let Some((at, id)) = &changed.after {
                                query = query.filter(clients::updated_at_ms.ge(at.millis())).filter(
                                    clients::updated_at_ms
                                        .gt(at.millis())
                                        .or(clients::id.gt(id.as_str())),
                                );
                            }
                        }
                    }
                    if let Some(search) = &page.search {
                        let in_text = clients::search_text
                            .like(contains_pattern(search.text.as_str()))
                            .escape('\\');
                        query = match &search.phone_digits {
                            // A phone-like term also matches the normalised phone, so that
                            // "06 12" finds "+33 6 12 34 56 78".
                            Some(digits) => query.filter(
                                in_text.or(clients::phone_digits
                                    .like(contains_pattern(digits))
                                    .escape('\\')),
                            ),
                            None => query.filter(in_text),
                        };
                    }
                    first_rows(query, page.limit.get() + 1).load(self).await?
                }
                ClientSelection::Ids(ids) => {
                    query.filter(one_of(clients::id, ids)).load(self).await?
                }
            };
            rows.into_iter().map(ClientRow::into_domain).collect()
        }
    }
}

#[async_trait]
impl ClientRepository for Database {
    async fn list_clients(
        &self,
        shop: &ShopId,
        query: &ClientListQuery,
        from: ReadFrom,
    ) -> Result<Vec<Client>, StoreError> {
        let mut clients = with_read_conn!(self, from, |conn| conn
            .load_clients(shop, ClientSelection::Page(query))
            .await)?;
        // The statement may read a few more than asked for (first_rows.rs).
        clients.truncate(query.limit.get() + 1);
        Ok(clients)
    }

    async fn find_client(
        &self,
        shop: &ShopId,
        id: &ClientId,
        from: ReadFrom,
    ) -> Result<Option<Client>, StoreError> {
        let mut found = with_read_conn!(self, from, |conn| conn
            .load_clients(shop, ClientSelection::Ids(std::slice::from_ref(id)))
            .await)?;
        Ok(found.pop())
    }
}
