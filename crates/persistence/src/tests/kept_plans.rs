//! PostgreSQL keeps one plan for each list page and each read by id: after its first five
//! executions a statement runs on its generic plan instead of being planned again at every
//! request, which cost more than running it (`first_rows.rs`, `one_of.rs`). Only with enough
//! rows does a bound `LIMIT` make the generic plan look costlier, hence the bulk-loaded shop.

use diesel::sql_types::{BigInt, Text};
use diesel::{QueryableByName, sql_query};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use shop_domain::catalogue::ProductListQuery;
use shop_domain::client::ClientListQuery;
use shop_domain::id::{OrderId, ProductId};
use shop_domain::order::OrderListQuery;
use shop_seed::BulkLoader;

use super::bulk_load::batches;
use super::fixtures::two_shops;
use super::test_databases;
use crate::DatabaseUrl;
use crate::catalogue::{CatalogueQueries, Selection};
use crate::clients::{ClientQueries, ClientSelection};
use crate::orders::{OrderQueries, OrderSelection};

#[derive(Debug, QueryableByName)]
struct PlanCounts {
    #[diesel(sql_type = Text)]
    statement: String,
    #[diesel(sql_type = BigInt)]
    generic_plans: i64,
    #[diesel(sql_type = BigInt)]
    custom_plans: i64,
}

#[tokio::test]
async fn each_page_and_read_by_id_runs_on_a_kept_plan() {
    for t in test_databases().await {
        let DatabaseUrl::Postgres(url) = &t.url else {
            continue;
        };
        let (a, _) = two_shops(&t.db).await;
        for batch in batches() {
            t.db.insert_batch(&a.id, batch).await.unwrap();
        }
        t.db.analyze().await.unwrap();

        let mut conn = AsyncPgConnection::establish(url).await.unwrap();
        let (products, orders, clients) = (
            ProductListQuery::default(),
            OrderListQuery::default(),
            ClientListQuery::default(),
        );
        let product = [ProductId::parse("bulk-p01234").unwrap()];
        let order = [OrderId::parse("bulk-o01234").unwrap()];
        for _ in 0..8 {
            let page = conn.load_products(&a.id, Selection::Page(&products));
            assert_eq!(page.await.unwrap().len(), products.limit.get() + 1);
            let one = conn.load_products(&a.id, Selection::Ids(&product));
            assert_eq!(one.await.unwrap().len(), 1);
            let page = conn.load_orders(&a.id, OrderSelection::Page(&orders));
            assert_eq!(page.await.unwrap().len(), orders.limit.get() + 1);
            let one = conn.load_orders(&a.id, OrderSelection::Ids(&order));
            assert_eq!(one.await.unwrap().len(), 1);
            let page = conn.load_clients(&a.id, ClientSelection::Page(&clients));
            assert_eq!(page.await.unwrap().len(), clients.limit.get() + 1);
        }

        let plans: Vec<PlanCounts> = sql_query(
            "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements \
             WHERE (statement LIKE 'SELECT%' OR statement LIKE '(SELECT%') \
             AND statement NOT LIKE '%pg_prepared_statements%'",
        )
        .load(&mut conn)
        .await
        .unwrap();
        assert_eq!(
            plans.len(),
            5,
            "one prepared statement per read: {plans:#?}"
        );
        for plan in &plans {
            let PlanCounts {
                statement,
                generic_plans,
                custom_plans,
            } = plan;
            assert_eq!(generic_plans + custom_plans, 8, "{statement}");
            assert!(
                *generic_plans >= 3,
                "planned again at every execution ({custom_plans} custom plans of 8): {statement}"
            );
        }
    }
}
