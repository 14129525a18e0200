//! The ids of seeded rows: derived from the shop's slug and the row's index, so that scripts
//! and benchmarks can name rows without querying. The widest (an order item) is the slug plus
//! 13 characters, hence [`MAX_SLUG_LEN`].

use shop_domain::id::MAX_ID_LEN;
use shop_domain::shop::ShopSlug;

/// `{slug}-o{i:08}-i{k}` must fit in an id.
pub const MAX_SLUG_LEN: usize = MAX_ID_LEN - 13;
/// Indexes keep their fixed width (and so the ids their order) up to these counts.
pub const MAX_PRODUCTS: usize = 9_999_999;
pub const MAX_CLIENTS: usize = 9_999_999;
pub const MAX_ORDERS: usize = 99_999_999;

#[derive(Clone, Debug)]
pub struct SeedIds {
    slug: String,
}

impl SeedIds {
    pub fn new(slug: &ShopSlug) -> Self {
        Self {
            slug: slug.as_str().to_owned(),
        }
    }

    pub fn tier(&self, k: usize) -> String {
        format!("{}-tier{k}", self.slug)
    }

    pub fn category(&self, k: usize) -> String {
        format!("{}-cat{k:02}", self.slug)
    }

    pub fn brand(&self, k: usize) -> String {
        format!("{}-brand{k:02}", self.slug)
    }

    pub fn product(&self, i: usize) -> String {
        format!("{}-p{i:07}", self.slug)
    }

    /// Variant 0 is the product's default one.
    pub fn variant(&self, product: usize, j: usize) -> String {
        format!("{}-p{product:07}-v{j}", self.slug)
    }

    pub fn client(&self, i: usize) -> String {
        format!("{}-c{i:07}", self.slug)
    }

    pub fn order(&self, i: usize) -> String {
        format!("{}-o{i:08}", self.slug)
    }

    pub fn order_item(&self, order: usize, k: usize) -> String {
        format!("{}-o{order:08}-i{k}", self.slug)
    }

    pub fn ticket(&self, i: usize) -> String {
        format!("{}-t{i:08}", self.slug)
    }

    pub fn spin(&self, i: usize) -> String {
        format!("{}-s{i:08}", self.slug)
    }
}

#[cfg(test)]
mod tests {
    use shop_domain::id::{OrderItemId, ProductId, VariantId};

    use super::*;

    #[test]
    fn ids_follow_the_documented_patterns() {
        let ids = SeedIds::new(&ShopSlug::parse("big").unwrap());
        assert_eq!(ids.product(42), "big-p0000042");
        assert_eq!(ids.variant(42, 0), "big-p0000042-v0");
        assert_eq!(ids.client(7), "big-c0000007");
        assert_eq!(ids.order(123), "big-o00000123");
        assert_eq!(ids.order_item(123, 5), "big-o00000123-i5");
        assert_eq!(ids.ticket(3), "big-t00000003");
        assert_eq!(ids.spin(3), "big-s00000003");
    }

    #[test]
    fn the_longest_slug_still_makes_valid_ids() {
        let slug = ShopSlug::parse(&"a".repeat(MAX_SLUG_LEN)).unwrap();
        let ids = SeedIds::new(&slug);
        assert!(OrderItemId::parse(ids.order_item(MAX_ORDERS, 5)).is_ok());
        assert!(VariantId::parse(ids.variant(MAX_PRODUCTS, 7)).is_ok());
        assert!(ProductId::parse(ids.brand(19)).is_ok());
    }
}
