//! The console's list of API writes: clients created and patched, a product patched (through
//! the very `ClientWriter` and `ProductWriter` the API calls, so the rows are the real ones)
//! and points adjusted, interleaved newest first with their keys' labels, paged by
//! `(time, id)` without a gap or a repeat, within the shop.

use shop_domain::Timestamp;
use shop_domain::api_key::KeyPrefix;
use shop_domain::api_write::{
    ApiWrite, ApiWritePosition, ApiWriteQuery, ResourceWrite, WriteAction, WrittenChange,
    WrittenResource,
};
use shop_domain::catalogue::write::ProductPatch;
use shop_domain::client::BillingInput;
use shop_domain::client::{ClientInput, ClientPatch, NewClient};
use shop_domain::id::{ApiWriteId, BrandId, CategoryId, ClientId, LoyaltyAdjustmentId, ProductId};
use shop_domain::loyalty::{PointsDelta, PointsReason};
use shop_domain::pagination::PageLimit;
use shop_domain::shop::Shop;
use shop_ports::port::{
    ApiWriteLog, ClientWriter, CreateClientCommand, CreateClientOutcome, CreateClientResult,
    PatchClientCommand, PatchClientResult, PatchProductCommand, PointsCommand, PointsLedger,
    PointsOutcome, PointsResult, ProductWriteContext, ProductWriteResult, ProductWriter,
};

use super::fixtures::{KEY_A, KEY_A2, KEY_B, at, imported, keyed_shops, product, store_products};
use super::{TestDb, test_databases};
use crate::Database;
use shop_domain::timeline::TimelineLine;

async fn page(
    t: &TestDb,
    shop: &Shop,
    before: Option<ApiWritePosition>,
    limit: i64,
) -> Vec<ApiWrite> {
    let query = ApiWriteQuery {
        before,
        limit: PageLimit::new(limit).unwrap(),
    };
    t.db.list_api_writes(&shop.id, &query).await.unwrap()
}

fn positions(lines: &[ApiWrite]) -> Vec<(Timestamp, String)> {
    lines
        .iter()
        .map(|line| (line.at(), line.id().to_owned()))
        .collect()
}

fn prefix(key: &str) -> KeyPrefix {
    KeyPrefix::parse(key).unwrap()
}

pub(super) async fn create_client(
    db: &Database,
    shop: &Shop,
    key: &str,
    n: u32,
    at_ms: i64,
) -> ClientId {
    let id = ClientId::parse(format!("cli_{}_{n}", shop.id)).unwrap();
    let client = NewClient::try_from(ClientInput {
        name: Some(format!("Client {n}")),
        email: Some(Some(format!("client{n}@example.com"))),
        ..ClientInput::default()
    })
    .unwrap();
    let command = CreateClientCommand {
        shop: shop.id.clone(),
        id: id.clone(),
        client,
        key_prefix: prefix(key),
        write_id: ApiWriteId::parse(format!("wrt_{}_c{n}", shop.id)).unwrap(),
        at: at(at_ms),
        idempotency: None,
    };
    let outcome = db.create_client(&command).await.unwrap();
    assert!(
        matches!(
            outcome,
            CreateClientOutcome::Fresh(CreateClientResult::Created(_))
        ),
        "{outcome:?}"
    );
    id
}

pub(super) async fn patch_client(
    db: &Database,
    shop: &Shop,
    id: &ClientId,
    write: &str,
    patch: ClientPatch,
    at_ms: i64,
) {
    let command = PatchClientCommand {
        shop: shop.id.clone(),
        id: id.clone(),
        patch,
        key_prefix: prefix(KEY_A2),
        write_id: ApiWriteId::parse(write).unwrap(),
        at: at(at_ms),
        precondition: None,
    };
    let result = db.patch_client(&command).await.unwrap();
    assert!(
        matches!(result, PatchClientResult::Patched(_)),
        "{result:?}"
    );
}

pub(super) fn new_address() -> ClientPatch {
    ClientPatch::try_from(ClientInput {
        email: Some(Some("ana@example.com".into())),
        billing: Some(BillingInput {
            city: Some(Some("Lyon".into())),
            ..BillingInput::default()
        }),
        ..ClientInput::default()
    })
    .unwrap()
}

pub(super) async fn adjust_points(
    db: &Database,
    shop: &Shop,
    client: &ClientId,
    delta: i64,
    at_ms: i64,
) {
    let command = PointsCommand {
        shop: shop.id.clone(),
        client_id: client.clone(),
        delta: PointsDelta::new(delta).unwrap(),
        reason: PointsReason::parse("web order 42").unwrap(),
        key_prefix: prefix(KEY_A),
        adjustment_id: LoyaltyAdjustmentId::parse(format!("lpa_{at_ms}")).unwrap(),
        at: at(at_ms),
        idempotency: None,
    };
    let outcome = db.adjust_points(&command).await.unwrap();
    assert!(
        matches!(outcome, PointsOutcome::Fresh(PointsResult::Applied(_))),
        "{outcome:?}"
    );
}

pub(super) async fn rename_product(
    db: &Database,
    shop: &Shop,
    write: &str,
    name: &str,
    at_ms: i64,
) {
    let command = PatchProductCommand {
        context: ProductWriteContext {
            shop: shop.id.clone(),
            key_prefix: prefix(KEY_A),
            write_id: ApiWriteId::parse(write).unwrap(),
            new_category_id: CategoryId::parse("cat_new").unwrap(),
            new_brand_id: BrandId::parse("brand_new").unwrap(),
            at: at(at_ms),
        },
        id: ProductId::parse("p1").unwrap(),
        patch: ProductPatch {
            name: Some(name.to_owned()),
            ..ProductPatch::default()
        },
        precondition: None,
    };
    let result = db.patch_product(&command).await.unwrap();
    assert!(
        matches!(result, ProductWriteResult::Written(_)),
        "{result:?}"
    );
}

/// Shop a: a client created at 1000 (key A), patched at 2000 (key A2) and credited at 2000
/// (key A), a product renamed at 3000 (key A) and again to the same name at 4000 (which
/// writes nothing); shop b: a client created at 1500 (key B). Returns shop a's positions,
/// newest first.
async fn history(t: &TestDb) -> (Shop, Shop, Vec<(Timestamp, String)>) {
    let (a, b) = keyed_shops(&t.db).await;
    store_products(&t.db, &a, vec![imported(product("p1"))]).await;
    let client = create_client(&t.db, &a, KEY_A, 1, 1_000).await;
    patch_client(&t.db, &a, &client, "wrt_shop_a_c1_2", new_address(), 2_000).await;
    adjust_points(&t.db, &a, &client, 120, 2_000).await;
    rename_product(&t.db, &a, "wrt_shop_a_p1_1", "Mug bleu", 3_000).await;
    rename_product(&t.db, &a, "wrt_shop_a_p1_2", "Mug bleu", 4_000).await;
    create_client(&t.db, &b, KEY_B, 1, 1_500).await;
    let expected = [
        (3_000, "wrt_shop_a_p1_1"),
        // A tie in time: the larger id first.
        (2_000, "wrt_shop_a_c1_2"),
        (2_000, "lpa_2000"),
        (1_000, "wrt_shop_a_c1"),
    ]
    .map(|(ms, id)| (at(ms), id.to_owned()))
    .to_vec();
    (a, b, expected)
}

fn resource(line: &ApiWrite) -> &ResourceWrite {
    match &line.change {
        WrittenChange::Resource(write) => write,
        WrittenChange::Points(_) => panic!("a resource's write: {line:?}"),
    }
}

#[tokio::test]
async fn api_writes_list_each_kind_newest_first_with_the_keys_label_and_what_changed() {
    for t in test_databases().await {
        let backend = t.backend();
        let (a, _, expected) = history(&t).await;
        let lines = page(&t, &a, None, 20).await;
        assert_eq!(positions(&lines), expected, "{backend}");

        let product = resource(&lines[0]);
        assert_eq!(product.resource, WrittenResource::Product, "{backend}");
        assert_eq!(product.action, WriteAction::Updated, "{backend}");
        assert_eq!(product.resource_id, "p1", "{backend}");
        assert_eq!(product.changed, ["name"], "{backend}");
        assert_eq!(
            (lines[0].key_prefix.as_str(), lines[0].key_label.as_str()),
            (KEY_A, "key 0a1b2c3d"),
            "{backend}"
        );

        let patch = resource(&lines[1]);
        assert_eq!(patch.resource, WrittenResource::Client, "{backend}");
        assert_eq!(patch.action, WriteAction::Updated, "{backend}");
        assert_eq!(patch.resource_id, "cli_shop_a_1", "{backend}");
        assert_eq!(patch.changed, ["email", "billing.city"], "{backend}");
        assert_eq!(
            (lines[1].key_prefix.as_str(), lines[1].key_label.as_str()),
            (KEY_A2, "key 1b2c3d4e"),
            "{backend}"
        );

        let WrittenChange::Points(points) = &lines[2].change else {
            panic!("{backend}: the credit: {:?}", lines[2]);
        };
        assert_eq!(points.client_id.as_str(), "cli_shop_a_1", "{backend}");
        assert_eq!(
            (points.delta, points.previous_points, points.new_points),
            (120, 0, 120),
            "{backend}"
        );
        assert_eq!(points.reason, "web order 42", "{backend}");
        assert_eq!(lines[2].key_label, "key 0a1b2c3d", "{backend}");

        let create = resource(&lines[3]);
        assert_eq!(create.action, WriteAction::Created, "{backend}");
        // A create's members are those it gave a value (the country is the default's).
        assert!(
            create
                .changed
                .starts_with(&["name".to_owned(), "email".to_owned()]),
            "{backend}: {:?}",
            create.changed
        );
    }
}

#[tokio::test]
async fn api_writes_pages_follow_each_other_without_a_gap_or_a_repeat() {
    for t in test_databases().await {
        let backend = t.backend();
        let (a, _, expected) = history(&t).await;
        for limit in 1..=4 {
            let mut seen = Vec::new();
            let mut before = None;
            loop {
                let lines = page(&t, &a, before.clone(), limit).await;
                let limit = usize::try_from(limit).unwrap();
                assert!(
                    lines.len() <= limit + 1,
                    "{backend}: over-fetch by one at most"
                );
                let kept = &lines[..lines.len().min(limit)];
                seen.extend(positions(kept));
                if lines.len() <= limit {
                    break;
                }
                before = kept.last().map(TimelineLine::position);
            }
            assert_eq!(seen, expected, "{backend}: limit {limit}");
        }
        // Past the oldest line: nothing.
        let (at, id) = expected.last().unwrap().clone();
        let oldest = ApiWritePosition::new(at, id);
        assert!(page(&t, &a, Some(oldest), 20).await.is_empty(), "{backend}");
    }
}

#[tokio::test]
async fn api_writes_of_another_shop_never_appear() {
    for t in test_databases().await {
        let backend = t.backend();
        let (a, b, expected) = history(&t).await;
        let theirs = page(&t, &b, None, 20).await;
        assert_eq!(
            positions(&theirs),
            [(at(1_500), "wrt_shop_b_c1".to_owned())],
            "{backend}"
        );
        assert_eq!(theirs[0].key_prefix.as_str(), KEY_B, "{backend}");
        // Their cursor read in shop a gives shop a's older lines only.
        let from_theirs = page(&t, &a, Some(theirs[0].position()), 20).await;
        assert_eq!(positions(&from_theirs), expected[3..].to_vec(), "{backend}");
    }
}
