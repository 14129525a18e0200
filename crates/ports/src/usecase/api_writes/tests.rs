use shop_domain::Timestamp;
use shop_domain::api_key::KeyPrefix;
use shop_domain::api_write::{
    ApiWritePosition, ResourceWrite, WriteAction, WrittenChange, WrittenResource,
};
use shop_domain::id::ApiWriteId;
use shop_domain::pagination::PageLimit;

use super::*;
use crate::port::MockApiWriteLog;
use shop_domain::timeline::TimelineLine;

fn line(n: i64) -> ApiWrite {
    ApiWrite {
        key_prefix: KeyPrefix::parse("0a1b2c3d").unwrap(),
        key_label: "ERP".into(),
        change: WrittenChange::Resource(ResourceWrite {
            id: ApiWriteId::parse(format!("wrt_{n}")).unwrap(),
            resource: WrittenResource::Client,
            resource_id: format!("cli_{n}"),
            action: WriteAction::Created,
            changed: vec!["name".into()],
            at: Timestamp::from_millis(n * 1_000),
        }),
    }
}

fn query(limit: i64, before: Option<ApiWritePosition>) -> ApiWriteQuery {
    ApiWriteQuery {
        before,
        limit: PageLimit::new(limit).unwrap(),
    }
}

/// A log holding `lines` for `shop_a` and asked for exactly `expected`.
fn history(lines: Vec<ApiWrite>, expected: ApiWriteQuery) -> ApiWriteHistory {
    let mut log = MockApiWriteLog::new();
    log.expect_list_api_writes()
        .withf(move |shop, query| shop.as_str() == "shop_a" && *query == expected)
        .times(1)
        .returning(move |_, _| Ok(lines.clone()));
    ApiWriteHistory::new(Arc::new(log))
}

fn shop() -> ShopId {
    ShopId::parse("shop_a").unwrap()
}

#[tokio::test]
async fn the_line_past_the_limit_only_says_there_is_more_and_the_cursor_names_the_last_kept() {
    let asked = query(2, None);
    let page = history(vec![line(3), line(2), line(1)], asked.clone())
        .page(&shop(), &asked)
        .await
        .unwrap();
    assert_eq!(page.items, [line(3), line(2)]);
    assert!(page.has_more);
    let cursor = page.next_cursor.expect("a next page");
    assert_eq!(
        ApiWritePosition::from_cursor(&cursor),
        Ok(line(2).position())
    );
    assert_eq!(page.synced_at, None, "a console page has no checkpoint");
}

#[tokio::test]
async fn the_last_page_has_no_cursor_and_a_cursor_is_passed_on_to_the_log() {
    let asked = query(2, Some(line(2).position()));
    let page = history(vec![line(1)], asked.clone())
        .page(&shop(), &asked)
        .await
        .unwrap();
    assert_eq!(page.items, [line(1)]);
    assert!(!page.has_more);
    assert_eq!(page.next_cursor, None);
}

#[tokio::test]
async fn a_store_failure_is_the_pages_error() {
    let mut log = MockApiWriteLog::new();
    log.expect_list_api_writes()
        .returning(|_, _| Err(StoreError::Unavailable("pool timed out".into())));
    let failed = ApiWriteHistory::new(Arc::new(log))
        .page(&shop(), &ApiWriteQuery::newest())
        .await;
    assert!(
        matches!(failed, Err(StoreError::Unavailable(_))),
        "{failed:?}"
    );
}
