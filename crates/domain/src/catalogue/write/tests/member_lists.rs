use crate::catalogue::write::members::*;

#[test]
fn read_only_members_are_the_ones_the_representation_shows_and_no_write_takes() {
    assert_eq!(
        PRODUCT_READ_ONLY_MEMBERS,
        [
            "id",
            "trackStock",
            "stockQuantity",
            "createdAt",
            "updatedAt"
        ]
    );
    assert_eq!(VARIANT_READ_ONLY_MEMBERS, ["id", "stock", "tracked"]);
    for member in PRODUCT_READ_ONLY_MEMBERS {
        assert!(
            !PRODUCT_MEMBERS.contains(member) && *member != VARIANTS,
            "{member}"
        );
    }
    for member in VARIANT_READ_ONLY_MEMBERS {
        assert!(!VARIANT_MEMBERS.contains(member), "{member}");
    }
}

#[test]
fn required_and_nullable_members_are_writable_ones() {
    for member in PRODUCT_REQUIRED_MEMBERS
        .iter()
        .chain(PRODUCT_NULLABLE_MEMBERS)
    {
        assert!(
            PRODUCT_MEMBERS.contains(member) || *member == VARIANTS,
            "{member}"
        );
    }
    for member in VARIANT_REQUIRED_MEMBERS
        .iter()
        .chain(VARIANT_NULLABLE_MEMBERS)
    {
        assert!(VARIANT_MEMBERS.contains(member), "{member}");
    }
    for required in PRODUCT_REQUIRED_MEMBERS {
        assert!(!PRODUCT_NULLABLE_MEMBERS.contains(required), "{required}");
    }
}
