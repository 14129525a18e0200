use shop_domain::client::{Client, ClientConfidential, ClientListQuery, ClientSearch};
use shop_domain::id::ClientId;
use shop_domain::import::ShopImport;
use shop_domain::pagination::PageLimit;
use shop_domain::shop::Shop;
use shop_ports::port::ClientRepository;
use shop_ports::port::ReadFrom;

use super::fixtures::{at, client, imported_client, store, two_shops};
use super::{TestDb, test_databases};

fn ids(clients: &[Client]) -> Vec<&str> {
    clients.iter().map(|c| c.id.as_str()).collect()
}

async fn store_clients(t: &TestDb, shop: &Shop, clients: Vec<Client>) {
    let private = ClientConfidential {
        note: Some("pays late".into()),
        anonymous_client_id: Some("anon-1".into()),
    };
    let data = ShopImport {
        clients: clients
            .into_iter()
            .map(|c| imported_client(c, 1_000, private.clone()))
            .collect(),
        ..ShopImport::default()
    };
    store(&t.db, shop, data).await;
}

fn search(term: &str) -> ClientListQuery {
    ClientListQuery {
        search: ClientSearch::parse(term).unwrap(),
        ..ClientListQuery::default()
    }
}

/// Marie (mobile, e-mail), Jean (landline, no e-mail), Zoé (no phone), a "50%" company.
fn directory() -> Vec<Client> {
    let mut marie = client("c-marie", "Marie Dupont");
    marie.display_name = None;
    marie.phone = Some("+33 6 12 34 56 78".into());
    marie.email = Some("Marie.Dupont@Example.com".into());
    let mut jean = client("c-jean", "Jean Martin");
    jean.display_name = Some("Jeannot".into());
    jean.phone = Some("01.45.67.89.10".into());
    let mut zoe = client("c-zoe", "ZOÉ Lefèvre");
    zoe.email = Some("zoe@mail.example".into());
    let mut promo = client("c-promo", "Promo 50% Club");
    promo.display_name = None;
    vec![marie, jean, zoe, promo]
}

#[tokio::test]
async fn search_covers_name_email_and_phone_in_any_spelling() {
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        store_clients(&t, &a, directory()).await;
        let found = |term: &str| {
            let db = t.db.clone();
            let shop = a.id.clone();
            let query = search(term);
            async move {
                db.list_clients(&shop, &query, ReadFrom::Primary)
                    .await
                    .unwrap()
            }
        };
        let backend = t.backend();
        let cases: &[(&str, &[&str])] = &[
            // Names and display names, case-folded beyond ASCII.
            ("dupont", &["c-marie"]),
            ("MARIE", &["c-marie"]),
            ("zoé", &["c-zoe"]),
            ("LEFÈVRE", &["c-zoe"]),
            ("jeannot", &["c-jean"]),
            // E-mail, whole or partial.
            ("marie.dupont@example.com", &["c-marie"]),
            ("@MAIL.EXAMPLE", &["c-zoe"]),
            // The same mobile in every spelling, whole or partial.
            ("06 12 34 56 78", &["c-marie"]),
            ("0612345678", &["c-marie"]),
            ("+33 6 12 34 56 78", &["c-marie"]),
            ("+33612345678", &["c-marie"]),
            ("0033 6 12", &["c-marie"]),
            ("06.12.34", &["c-marie"]),
            ("34-56-78", &["c-marie"]),
            // A landline stored with dots, searched with spaces.
            ("01 45 67", &["c-jean"]),
            ("+33 1 45 67 89 10", &["c-jean"]),
            // LIKE wildcards are literal.
            ("50%", &["c-promo"]),
            ("%", &["c-promo"]),
            ("_", &[]),
            // Matches nothing.
            ("07 12", &[]),
            ("nobody", &[]),
        ];
        for (term, expected) in cases {
            assert_eq!(ids(&found(term).await), *expected, "{backend}: {term:?}");
        }
    }
}

#[tokio::test]
async fn pages_follow_byte_order_of_ids_with_a_keyset() {
    let expected = ["B", "Z1", "a", "a-b", "a_b", "ab", "b"];
    for t in test_databases().await {
        let (a, _) = two_shops(&t.db).await;
        let mut shuffled: Vec<Client> = expected.iter().map(|id| client(id, "Same")).collect();
        shuffled.reverse();
        store_clients(&t, &a, shuffled).await;

        let mut seen = Vec::new();
        let mut page = ClientListQuery {
            limit: PageLimit::new(2).unwrap(),
            ..search("same")
        };
        loop {
            let rows =
                t.db.list_clients(&a.id, &page, ReadFrom::Primary)
                    .await
                    .unwrap();
            assert!(rows.len() <= 3, "{}: overfetch is limit + 1", t.backend());
            let has_more = rows.len() == 3;
            seen.extend(rows.into_iter().take(2).map(|c| c.id.into_string()));
            if !has_more {
                break;
            }
            page.after = seen.last().map(|id| ClientId::parse(id.as_str()).unwrap());
        }
        assert_eq!(seen, expected, "{}", t.backend());
    }
}

#[tokio::test]
async fn a_client_round_trips_without_its_private_fields_and_only_in_its_shop() {
    for t in test_databases().await {
        let (a, b) = two_shops(&t.db).await;
        let mut bare = client("c-bare", "Bare");
        bare.display_name = None;
        bare.birth_date = None;
        bare.billing = Default::default();
        bare.billing.country = "BE".into();
        bare.loyalty = Default::default();
        bare.tags = vec![];
        bare.receipt_by_email = false;
        let full = client("c-full", "Full");
        store_clients(&t, &a, vec![bare.clone(), full.clone()]).await;
        store_clients(&t, &b, vec![client("c-theirs", "Theirs")]).await;

        let stamped = |mut c: Client| {
            c.created_at = at(1_000);
            c.updated_at = at(1_000);
            c
        };
        let found =
            t.db.find_client(&a.id, &bare.id, ReadFrom::Primary)
                .await
                .unwrap();
        assert_eq!(found, Some(stamped(bare)), "{}", t.backend());
        let listed =
            t.db.list_clients(&a.id, &ClientListQuery::default(), ReadFrom::Primary)
                .await
                .unwrap();
        assert_eq!(listed.len(), 2, "{}", t.backend());
        assert_eq!(listed[1], stamped(full), "{}", t.backend());

        let theirs = ClientId::parse("c-theirs").unwrap();
        assert_eq!(
            t.db.find_client(&a.id, &theirs, ReadFrom::Primary)
                .await
                .unwrap(),
            None
        );
        assert!(
            t.db.find_client(&b.id, &theirs, ReadFrom::Primary)
                .await
                .unwrap()
                .is_some()
        );
        // "a" is in every name: the shop still scopes the search.
        let everyone = search("a");
        let mine =
            t.db.list_clients(&a.id, &everyone, ReadFrom::Primary)
                .await
                .unwrap();
        assert_eq!(ids(&mine), ["c-bare", "c-full"], "{}", t.backend());
    }
}
