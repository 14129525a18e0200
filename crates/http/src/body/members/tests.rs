use super::*;

fn issues(report: &Issues) -> Vec<(String, String)> {
    report
        .take()
        .into_iter()
        .map(|issue| (issue.field, issue.message))
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(field, message)| ((*field).to_owned(), (*message).to_owned()))
        .collect()
}

#[test]
fn nested_members_are_read_by_type_and_named_by_path() {
    let body = br#"{"name": "Mug", "price": 12, "active": true, "tags": ["a"],
        "billing": {"city": null, "country": "FR"},
        "variants": [{"sku": "A"}, {"sku": 5}, 3]}"#;
    let mut root = parse(body).unwrap();
    assert_eq!(root.string("name").as_deref(), Some("Mug"));
    assert_eq!(root.integer("price"), Some(12));
    assert_eq!(root.boolean("active"), Some(true));
    assert_eq!(root.strings("tags"), Some(vec!["a".to_owned()]));
    let mut billing = root.object("billing").unwrap();
    assert_eq!(billing.nullable_string("city"), Some(None));
    assert_eq!(billing.string("country").as_deref(), Some("FR"));
    billing.finish(&[]);
    let variants = root.objects("variants").unwrap();
    assert_eq!(variants.len(), 2, "the item that is no object is reported");
    let skus: Vec<_> = variants
        .into_iter()
        .map(|mut variant| {
            let sku = variant.string("sku");
            variant.finish(&[]);
            sku
        })
        .collect();
    assert_eq!(skus, [Some("A".to_owned()), None]);
    let report = root.issues().clone();
    root.finish(&[]);
    assert_eq!(
        issues(&report),
        pairs(&[
            ("variants[2]", "must be an object"),
            ("variants[1].sku", "must be a string"),
        ])
    );
}

#[test]
fn left_over_members_are_read_only_or_unknown_and_null_is_not_a_value() {
    let mut root = parse(br#"{"id": "x", "colour": "red", "name": null, "n": 1.0}"#).unwrap();
    assert_eq!(root.string("name"), None);
    assert_eq!(root.integer("n"), None);
    root.require("label");
    let report = root.issues().clone();
    root.finish(&["id", "createdAt"]);
    assert_eq!(
        issues(&report),
        pairs(&[
            ("name", "must not be null"),
            ("n", "must be an integer"),
            ("label", "is required"),
            ("id", "is read-only"),
            ("colour", "is not a known field"),
        ])
    );
}

#[test]
fn a_name_given_twice_at_any_depth_is_reported_and_neither_value_read() {
    let body = br#"{"a": 1, "a": 2, "o": {"b": "x", "b": "y", "c": [{"d": 1, "d": 1}]}}"#;
    let mut root = parse(body).unwrap();
    assert_eq!(root.integer("a"), None);
    let mut inner = root.object("o").unwrap();
    assert_eq!(inner.string("b"), None);
    assert_eq!(
        issues(root.issues()),
        pairs(&[
            ("a", "must be given at most once"),
            ("o.b", "must be given at most once"),
            ("o.c[0].d", "must be given at most once"),
        ])
    );
}

#[test]
fn the_body_must_be_one_json_object_without_nul() {
    assert!(matches!(parse(b"{"), Err(ApiError::InvalidJson)));
    assert!(matches!(parse(b"{} {}"), Err(ApiError::InvalidJson)));
    let not_object = parse(b"[1]").unwrap();
    assert_eq!(
        issues(not_object.issues()),
        pairs(&[("body", "must be a JSON object")])
    );
    let mut nul = parse(br#"{"a": "x\u0000", "t": ["\u0000"]}"#).unwrap();
    assert_eq!(nul.string("a"), None);
    assert_eq!(nul.strings("t"), None);
    assert_eq!(
        issues(nul.issues()),
        pairs(&[
            ("a", "must not contain the NUL character (U+0000)"),
            ("t", "must not contain the NUL character (U+0000)"),
        ])
    );
}

#[test]
fn nullable_members_tell_absent_null_and_value_apart() {
    let mut root = parse(br#"{"a": null, "b": "x", "c": 3, "o": null}"#).unwrap();
    assert_eq!(root.nullable_string("zz"), None);
    assert_eq!(root.nullable_string("a"), Some(None));
    assert_eq!(root.nullable_string("b"), Some(Some("x".to_owned())));
    assert_eq!(root.nullable_integer("c"), Some(Some(3)));
    assert!(matches!(root.nullable_object("o"), Some(None)));
    assert!(issues(root.issues()).is_empty());
}
