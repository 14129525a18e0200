//! The endpoints' rules against a mocked store: what is refused before anything is stored,
//! and what a key's scopes let `*` cover.

use std::sync::{Arc, Mutex};

use shop_domain::Timestamp;
use shop_domain::id::ShopId;
use shop_domain::scope::ScopeSet;
use shop_domain::webhook::{EventType, NetworkPolicy};

use super::{EndpointError, EndpointInput, WebhookEndpoints};
use crate::port::{
    EndpointCreation, MockClock, MockIdGenerator, MockRandomTokens, MockWebhookEndpointStore,
    NewEndpoint,
};

fn endpoints(store: MockWebhookEndpointStore) -> WebhookEndpoints {
    let mut ids = MockIdGenerator::new();
    ids.expect_new_id().returning(|| "0001".into());
    let mut clock = MockClock::new();
    clock
        .expect_now()
        .return_const(Timestamp::from_millis(1_000));
    let mut random = MockRandomTokens::new();
    random.expect_random_bytes().returning(|| [3; 32]);
    WebhookEndpoints::new(
        Arc::new(store),
        Arc::new(ids),
        Arc::new(clock),
        Arc::new(random),
        NetworkPolicy::PublicOnly,
    )
}

fn input(url: &str, events: &[&str]) -> EndpointInput {
    EndpointInput {
        url: Some(url.to_owned()),
        events: Some(events.iter().map(|e| (*e).to_owned()).collect()),
        ..EndpointInput::default()
    }
}

fn shop() -> ShopId {
    ShopId::parse("shop_a").unwrap()
}

fn scopes(list: &str) -> ScopeSet {
    ScopeSet::parse_list(list).unwrap()
}

fn field(result: Result<super::CreatedEndpoint, EndpointError>) -> &'static str {
    match result {
        Err(EndpointError::Invalid { field, .. }) => field,
        other => panic!("expected a validation error, got {other:?}"),
    }
}

#[tokio::test]
async fn an_invalid_endpoint_is_refused_naming_its_field_and_nothing_is_stored() {
    // The store has no expectation: a call would panic.
    let endpoints = endpoints(MockWebhookEndpointStore::new());
    let all = ScopeSet::all();
    let shop = shop();
    let create = |input| endpoints.create(&shop, all, input);
    assert_eq!(
        field(create(input("http://hooks.example.com/", &["*"])).await),
        "url"
    );
    assert_eq!(
        field(create(input("https://10.0.0.1/", &["*"])).await),
        "url"
    );
    assert_eq!(
        field(create(input("https://hooks.example.com/", &[])).await),
        "events"
    );
    assert_eq!(
        field(create(input("https://hooks.example.com/", &["order.shipped"])).await),
        "events"
    );
    assert_eq!(
        field(create(input("https://hooks.example.com/", &["ping"])).await),
        "events"
    );
    assert_eq!(
        field(create(input("https://hooks.example.com/", &["*", "order.created"])).await),
        "events"
    );
    let long = EndpointInput {
        description: Some("x".repeat(501)),
        ..input("https://hooks.example.com/", &["*"])
    };
    assert_eq!(field(create(long).await), "description");
    assert_eq!(field(create(EndpointInput::default()).await), "url");
}

#[tokio::test]
async fn a_type_the_key_cannot_read_is_refused_and_star_covers_only_what_it_can() {
    let endpoints = endpoints(MockWebhookEndpointStore::new());
    let refused = endpoints
        .create(
            &shop(),
            scopes("stock:read"),
            input("https://h.example.com/", &["order.created"]),
        )
        .await;
    assert!(
        matches!(&refused, Err(EndpointError::Unreadable(types)) if types == &[EventType::OrderCreated]),
        "{refused:?}"
    );

    let stored = Arc::new(Mutex::new(None::<NewEndpoint>));
    let kept = stored.clone();
    let mut store = MockWebhookEndpointStore::new();
    store.expect_create_endpoint().returning(move |new| {
        *kept.lock().unwrap() = Some(new.clone());
        Ok(EndpointCreation::LimitReached)
    });
    let endpoints = self::endpoints(store);
    let result = endpoints
        .create(
            &shop(),
            scopes("stock:read,products:read"),
            input("https://h.example.com/", &["*"]),
        )
        .await;
    assert!(matches!(result, Err(EndpointError::LimitReached)));
    let new = stored.lock().unwrap().clone().expect("stored");
    assert_eq!(
        new.receives,
        vec![
            EventType::ProductCreated,
            EventType::ProductUpdated,
            EventType::StockUpdated
        ]
    );
    assert_eq!(new.shop, shop());
    assert!(new.secret.expose().starts_with("whsec_"));
}
