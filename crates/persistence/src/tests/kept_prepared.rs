//! `KeptPrepared`: an `UPDATE` stays prepared on its connection (PostgreSQL shows it in
//! `pg_prepared_statements`; SQLite has no such view), where diesel alone prepares it anew at
//! every call.

use diesel::prelude::*;
use diesel::sql_types::BigInt;
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};

use super::test_databases;
use crate::DatabaseUrl;
use crate::kept_prepared::KeptPrepared;
use crate::schema::variants;

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

async fn prepared_updates(conn: &mut AsyncPgConnection) -> i64 {
    let sql = "SELECT count(*) AS n FROM pg_prepared_statements \
               WHERE statement LIKE 'UPDATE \"variants\"%'";
    diesel::sql_query(sql)
        .get_result::<Count>(conn)
        .await
        .unwrap()
        .n
}

fn add_stock(
    variant: &str,
) -> impl diesel::query_builder::QueryFragment<diesel::pg::Pg> + diesel::query_builder::QueryId + Send + '_
{
    diesel::update(variants::table)
        .filter(variants::shop_id.eq("shop-none"))
        .filter(variants::id.eq(variant))
        .set(variants::stock.eq(variants::stock + 1))
}

#[tokio::test]
async fn an_update_is_prepared_once_per_connection() {
    for t in test_databases().await {
        let DatabaseUrl::Postgres(url) = &t.url else {
            continue;
        };
        let mut conn = AsyncPgConnection::establish(url).await.unwrap();
        for variant in ["v-1", "v-2", "v-3"] {
            add_stock(variant).execute(&mut conn).await.unwrap();
        }
        assert_eq!(
            prepared_updates(&mut conn).await,
            0,
            "diesel alone keeps none"
        );
        for variant in ["v-1", "v-2", "v-3"] {
            KeptPrepared(add_stock(variant))
                .execute(&mut conn)
                .await
                .unwrap();
        }
        assert_eq!(prepared_updates(&mut conn).await, 1, "one statement, kept");
    }
}
