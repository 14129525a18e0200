//! What makes two creates one request for `Idempotency-Key` (`POST /products`, `POST
//! /products/{id}/variants`): the request as validated, so that spacing, member order and
//! defaults written out or left out do not make a retry another request.

use sha2::{Digest, Sha256};

use super::new_product::NewProduct;
use super::variant_fields::NewVariant;
use crate::id::ProductId;

/// The digest of a validated request's every value. Its `Debug` form names every member, with
/// `None` and `Some` apart and texts quoted and escaped, so two different requests never share
/// it; a build that changed the form could only make a retry across a deploy, within the keys'
/// 24 hours, a different request (`IDEMPOTENCY_KEY_REUSED`), never replay another's answer.
fn digest(operation: &str, request: &impl std::fmt::Debug) -> String {
    let digest = Sha256::new()
        .chain_update(operation.as_bytes())
        .chain_update([0])
        .chain_update(format!("{request:?}").as_bytes())
        .finalize();
    crate::hex::to_lower_hex(&digest)
}

impl NewProduct {
    pub fn fingerprint(&self) -> String {
        digest("product-create", self)
    }
}

impl NewVariant {
    /// An added variant's request includes the product it is added to.
    pub fn fingerprint(&self, product: &ProductId) -> String {
        digest(&format!("variant-add\0{product}"), self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::write::{ProductInput, VariantInput};

    fn product(name: &str, price: i64) -> NewProduct {
        NewProduct::try_from(ProductInput {
            name: Some(name.into()),
            price_cents: Some(price),
            tax_rate: Some("20.00".into()),
            variants: Some(vec![VariantInput {
                label: Some("M".into()),
                ..VariantInput::default()
            }]),
            ..ProductInput::default()
        })
        .unwrap()
    }

    #[test]
    fn one_request_one_fingerprint() {
        assert_eq!(
            product("Mug", 5).fingerprint(),
            product(" Mug ", 5).fingerprint()
        );
        assert_ne!(
            product("Mug", 5).fingerprint(),
            product("Mug", 6).fingerprint()
        );
        let variant = NewVariant::try_from(VariantInput {
            label: Some("L".into()),
            ..VariantInput::default()
        })
        .unwrap();
        let (a, b) = (
            ProductId::parse("p1").unwrap(),
            ProductId::parse("p2").unwrap(),
        );
        assert_ne!(variant.fingerprint(&a), variant.fingerprint(&b));
    }
}
