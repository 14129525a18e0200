//! `GET /products` and `GET /products/:id`.

use std::sync::Arc;

use shop_domain::catalogue::{ProductListQuery, ProductListing, product_cursor};
use shop_domain::id::{ProductId, ShopId};
use shop_domain::pagination::Page;

use super::ReadError;
use crate::port::{CatalogueRepository, Clock, ReadFrom};

pub struct ProductCatalogue {
    repository: Arc<dyn CatalogueRepository>,
    clock: Arc<dyn Clock>,
}

impl ProductCatalogue {
    pub fn new(repository: Arc<dyn CatalogueRepository>, clock: Arc<dyn Clock>) -> Self {
        Self { repository, clock }
    }

    /// One page of the shop's products, read `from` the database named. The stock quantity
    /// counts every variant; inactive variants are then hidden unless the query shows them.
    pub async fn list(
        &self,
        shop: &ShopId,
        query: &ProductListQuery,
        from: ReadFrom,
    ) -> Result<Page<ProductListing>, ReadError> {
        let read_started = self.clock.now();
        let rows = self.repository.list_products(shop, query, from).await?;
        let page = Page::from_overfetch(rows, query.limit, |product| product_cursor(&product.id))
            .read_at(read_started);
        let show_inactive = query.active.shows_inactive_variants();
        Ok(page.map(|product| product.into_listing(show_inactive)))
    }

    /// One product with all its variants, read `from` the database named.
    pub async fn get(
        &self,
        shop: &ShopId,
        id: &ProductId,
        from: ReadFrom,
    ) -> Result<ProductListing, ReadError> {
        let product = self.repository.find_product(shop, id, from).await?;
        product
            .map(|p| p.into_listing(true))
            .ok_or(ReadError::NotFound)
    }
}

#[cfg(test)]
mod tests {
    use shop_domain::Timestamp;
    use shop_domain::catalogue::{ActiveFilter, Product, Variant};
    use shop_domain::id::VariantId;
    use shop_domain::money::Cents;
    use shop_domain::pagination::PageLimit;
    use shop_domain::tax_rate::TaxRate;

    use super::*;

    const READ_AT: Timestamp = Timestamp::from_millis(1_732_181_400_000);
    use crate::port::MockCatalogueRepository;

    fn shop() -> ShopId {
        ShopId::parse("shop_a").unwrap()
    }

    fn product(id: &str, variant_active: [bool; 2]) -> Product {
        let variant = |n: usize| Variant {
            id: VariantId::parse(format!("{id}_v{n}")).unwrap(),
            label: format!("V{n}"),
            sku: None,
            barcode: None,
            swatch_color: None,
            price: Cents(100),
            stock: 3,
            low_stock_threshold: 1,
            is_default: n == 0,
            active: variant_active[n],
            order: n as i32,
            tracked: true,
        };
        Product {
            id: ProductId::parse(id).unwrap(),
            name: id.into(),
            product_type: "simple".into(),
            ean: None,
            sku: None,
            price: Cents(100),
            list_price: Cents(100),
            compare_at_price: None,
            promo_active: false,
            tax_rate: TaxRate::parse("20.00").unwrap(),
            active: true,
            track_stock: true,
            tags: vec![],
            photos: vec![],
            category: None,
            brand: None,
            variants: vec![variant(0), variant(1)],
            created_at: Timestamp::from_millis(0),
            updated_at: Timestamp::from_millis(0),
        }
    }

    fn query(limit: i64, active: ActiveFilter) -> ProductListQuery {
        ProductListQuery {
            limit: PageLimit::new(limit).unwrap(),
            active,
            ..ProductListQuery::default()
        }
    }

    #[tokio::test]
    async fn list_pages_with_a_cursor_on_the_last_kept_product() {
        let mut repository = MockCatalogueRepository::new();
        repository
            .expect_list_products()
            .withf(|shop_id, q, _| shop_id.as_str() == "shop_a" && q.limit.get() == 2)
            .returning(|_, _, _| {
                Ok(vec![
                    product("p1", [true; 2]),
                    product("p2", [true; 2]),
                    product("p3", [true; 2]),
                ])
            });
        let page = ProductCatalogue::new(
            Arc::new(repository),
            crate::usecase::test_clock::at(READ_AT),
        )
        .list(&shop(), &query(2, ActiveFilter::Active), ReadFrom::Primary)
        .await
        .unwrap();
        assert_eq!(page.items.len(), 2);
        assert!(page.has_more);
        let after =
            shop_domain::catalogue::product_cursor_position(page.next_cursor.as_deref().unwrap())
                .unwrap();
        assert_eq!(after.as_str(), "p2");
    }

    #[tokio::test]
    async fn default_list_hides_inactive_variants_but_all_shows_them() {
        let mut repository = MockCatalogueRepository::new();
        repository
            .expect_list_products()
            .returning(|_, _, _| Ok(vec![product("p1", [true, false])]));
        let catalogue = ProductCatalogue::new(
            Arc::new(repository),
            crate::usecase::test_clock::at(READ_AT),
        );

        let default = catalogue
            .list(&shop(), &query(20, ActiveFilter::Active), ReadFrom::Primary)
            .await
            .unwrap();
        assert_eq!(default.items[0].product.variants.len(), 1);
        assert_eq!(
            default.items[0].stock_quantity,
            Some(6),
            "inactive stock still counts"
        );
        assert!(!default.has_more);
        assert_eq!(default.next_cursor, None);

        let all = catalogue
            .list(&shop(), &query(20, ActiveFilter::All), ReadFrom::Primary)
            .await
            .unwrap();
        assert_eq!(all.items[0].product.variants.len(), 2);
    }

    #[tokio::test]
    async fn get_shows_inactive_variants() {
        let mut repository = MockCatalogueRepository::new();
        repository
            .expect_find_product()
            .returning(|_, _, _| Ok(Some(product("p1", [false, false]))));
        let listing = ProductCatalogue::new(
            Arc::new(repository),
            crate::usecase::test_clock::at(READ_AT),
        )
        .get(&shop(), &ProductId::parse("p1").unwrap(), ReadFrom::Primary)
        .await
        .unwrap();
        assert_eq!(listing.product.variants.len(), 2);
    }

    // An id that cannot exist never gets this far: `shop-http`'s `PathId` answers it with the
    // same 404 before any use case runs.
    #[tokio::test]
    async fn a_missing_id_is_not_found() {
        let mut repository = MockCatalogueRepository::new();
        repository
            .expect_find_product()
            .times(1)
            .returning(|_, _, _| Ok(None));
        let catalogue = ProductCatalogue::new(
            Arc::new(repository),
            crate::usecase::test_clock::at(READ_AT),
        );
        assert!(matches!(
            catalogue
                .get(
                    &shop(),
                    &ProductId::parse("p404").unwrap(),
                    ReadFrom::Primary
                )
                .await,
            Err(ReadError::NotFound)
        ));
    }
}
