//! The bodies of API v2's product writes as domain inputs: `POST /products` and `PATCH
//! /products/{id}` (a `ProductInput`), `POST …/variants` and `PATCH …/variants/{variantId}`
//! (a `VariantInput`), each member read by its JSON type under its path.

use shop_domain::catalogue::write::members::{
    PRODUCT_READ_ONLY_MEMBERS, PRODUCT_REQUIRED_MEMBERS, REFERENCE_MEMBERS,
    VARIANT_READ_ONLY_MEMBERS, VARIANT_REQUIRED_MEMBERS, VARIANTS,
};
use shop_domain::catalogue::write::{ProductInput, ReferenceInput, VariantInput};

use crate::body::members::Members;

/// A create requires its required members; a patch none, and takes no `variants` (the domain
/// refuses the member; its items are not read).
pub(crate) fn product(mut members: Members, create: bool) -> ProductInput {
    if create {
        for name in PRODUCT_REQUIRED_MEMBERS {
            members.require(name);
        }
    }
    let variants = members.objects(VARIANTS).map(|items| {
        if create {
            items.into_iter().map(|item| variant(item, true)).collect()
        } else {
            Vec::new()
        }
    });
    let input = ProductInput {
        name: members.string("name"),
        product_type: members.string("productType"),
        ean: members.nullable_string("ean"),
        sku: members.nullable_string("sku"),
        price_cents: members.integer("priceCents"),
        list_price_cents: members.integer("listPriceCents"),
        compare_at_price_cents: members.nullable_integer("compareAtPriceCents"),
        promo_active: members.boolean("promoActive"),
        tax_rate: members.string("taxRate"),
        active: members.boolean("active"),
        tags: members.strings("tags"),
        photos: members.strings("photos"),
        category: reference(&mut members, "category"),
        brand: reference(&mut members, "brand"),
        variants,
    };
    members.finish(PRODUCT_READ_ONLY_MEMBERS);
    input
}

/// A variant of a create, an added one (`create`: its `label` is required) or a variant's
/// patch.
pub(crate) fn variant(mut members: Members, create: bool) -> VariantInput {
    if create {
        for name in VARIANT_REQUIRED_MEMBERS {
            members.require(name);
        }
    }
    let input = VariantInput {
        label: members.string("label"),
        sku: members.nullable_string("sku"),
        barcode: members.nullable_string("barcode"),
        swatch_color: members.nullable_string("swatchColor"),
        price_cents: members.integer("priceCents"),
        low_stock_threshold: members.integer("lowStockThreshold"),
        is_default: members.boolean("isDefault"),
        active: members.boolean("active"),
        order: members.integer("order"),
    };
    members.finish(VARIANT_READ_ONLY_MEMBERS);
    input
}

fn reference(members: &mut Members, name: &str) -> Option<Option<ReferenceInput>> {
    let object = members.nullable_object(name)?;
    Some(object.map(|mut object| {
        let input = ReferenceInput {
            id: object.string(REFERENCE_MEMBERS[0]),
            name: object.string(REFERENCE_MEMBERS[1]),
        };
        object.finish(&[]);
        input
    }))
}
