use super::*;

fn text(value: &str) -> Option<Option<String>> {
    Some(Some(value.to_owned()))
}

fn paths(problems: Vec<MemberProblem>) -> Vec<String> {
    problems.into_iter().map(|problem| problem.path).collect()
}

fn full_input() -> ClientInput {
    ClientInput {
        name: Some(" Ana Martin ".to_owned()),
        display_name: text("Ana"),
        phone: text("+33 6 12 34 56 78"),
        email: text("Ana@Example.com"),
        billing: Some(BillingInput {
            company: text("Atelier Martin"),
            vat_number: text("FR123"),
            address: text("1 rue de la Paix"),
            city: text("Lyon"),
            postal_code: text("69001"),
            country: Some("be".to_owned()),
        }),
        birth_date: text("1990-05-17"),
        receipt_by_email: Some(true),
        tags: Some(vec!["vip".to_owned(), "web".to_owned()]),
    }
}

fn at(millis: i64) -> Timestamp {
    Timestamp::from_millis(millis)
}

#[test]
fn a_create_writes_every_member_as_validated() {
    let new = NewClient::try_from(full_input()).unwrap();
    let client = new.client(ClientId::parse("cli_1").unwrap(), at(5));
    assert_eq!(client.name, "Ana Martin");
    assert_eq!(client.display_name.as_deref(), Some("Ana"));
    assert_eq!(client.phone.as_deref(), Some("+33 6 12 34 56 78"));
    assert_eq!(client.email.as_deref(), Some("Ana@Example.com"));
    assert_eq!(client.billing.city.as_deref(), Some("Lyon"));
    assert_eq!(client.billing.country, "BE");
    assert_eq!(client.birth_date.as_deref(), Some("1990-05-17"));
    assert!(client.receipt_by_email);
    assert_eq!(client.tags, ["vip", "web"]);
    assert_eq!(client.loyalty, ClientLoyalty::default());
    assert_eq!((client.created_at, client.updated_at), (at(5), at(5)));
}

#[test]
fn a_create_needs_only_a_name_and_defaults_the_rest() {
    let input = ClientInput {
        name: Some("Bo".to_owned()),
        ..ClientInput::default()
    };
    let client = NewClient::try_from(input)
        .unwrap()
        .client(ClientId::parse("cli_2").unwrap(), at(1));
    assert_eq!(client.billing.country, DEFAULT_COUNTRY);
    assert!(!client.receipt_by_email && client.tags.is_empty() && client.email.is_none());
    let nameless = NewClient::try_from(ClientInput::default()).unwrap_err();
    assert!(
        nameless.is_empty(),
        "the reader reports the missing name: {nameless:?}"
    );
}

#[test]
fn every_bad_member_is_named_by_its_path() {
    let input = ClientInput {
        name: Some("  ".to_owned()),
        display_name: text(&"d".repeat(201)),
        phone: text("call me"),
        email: text("ana@"),
        billing: Some(BillingInput {
            city: text(&"c".repeat(201)),
            country: Some("France".to_owned()),
            ..BillingInput::default()
        }),
        birth_date: text("1990-02-30"),
        receipt_by_email: None,
        tags: Some((0..51).map(|i| format!("t{i}")).collect()),
    };
    assert_eq!(
        paths(ClientPatch::try_from(input).unwrap_err()),
        [
            "displayName",
            "billing.city",
            "name",
            "phone",
            "email",
            "billing.country",
            "birthDate",
            "tags"
        ]
    );
}

#[test]
fn a_merge_patch_changes_what_it_names_and_clears_what_it_nulls() {
    let client = NewClient::try_from(full_input())
        .unwrap()
        .client(ClientId::parse("cli_1").unwrap(), at(5));
    let patch = ClientPatch::try_from(ClientInput {
        display_name: Some(None),
        phone: text(""),
        billing: Some(BillingInput {
            city: text("Paris"),
            ..BillingInput::default()
        }),
        receipt_by_email: Some(false),
        ..ClientInput::default()
    })
    .unwrap();
    let next = patch.apply(&client);
    assert_eq!(next.display_name, None);
    assert_eq!(next.phone, None, "an empty text clears as null does");
    assert_eq!(next.billing.city.as_deref(), Some("Paris"));
    assert_eq!(next.billing.company.as_deref(), Some("Atelier Martin"));
    assert_eq!(next.billing.country, "BE");
    assert!(!next.receipt_by_email);
    assert_eq!(
        (next.name.as_str(), next.email.as_deref()),
        ("Ana Martin", Some("Ana@Example.com"))
    );
    assert_eq!(patch.new_email(), None);
    let resent = ClientPatch::try_from(ClientInput {
        name: Some("Ana Martin".to_owned()),
        email: text("Ana@Example.com"),
        ..ClientInput::default()
    })
    .unwrap();
    assert_eq!(
        resent.apply(&client),
        client,
        "resending a value changes nothing"
    );
    assert_eq!(
        ClientPatch::changed_members(&client, &next),
        ["displayName", "phone", "billing.city", "receiptByEmail"]
    );
    assert!(ClientPatch::changed_members(&client, &resent.apply(&client)).is_empty());
    assert_eq!(resent.new_email(), Some("Ana@Example.com"));
}

#[test]
fn one_request_has_one_fingerprint() {
    let fingerprint = |input: ClientInput| NewClient::try_from(input).unwrap().fingerprint();
    let first = fingerprint(full_input());
    let mut spaced = full_input();
    spaced.name = Some("Ana Martin".to_owned());
    assert_eq!(first, fingerprint(spaced));
    let mut other = full_input();
    other.tags = Some(vec!["vip".to_owned()]);
    assert_ne!(first, fingerprint(other));
    let mut nulled = full_input();
    nulled.phone = Some(None);
    let mut absent = full_input();
    absent.phone = None;
    assert_ne!(fingerprint(nulled), fingerprint(absent));
    let mut moved = full_input();
    moved.display_name = text("Ana Martin");
    moved.name = Some("Ana".to_owned());
    assert_ne!(first, fingerprint(moved));
}
