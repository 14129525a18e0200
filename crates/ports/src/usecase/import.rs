//! `shop-api import`: load a shop's data, all or nothing.

use std::sync::Arc;

use shop_domain::import::{ImportProblem, ShopImport};
use shop_domain::shop::ShopSlug;

use crate::StoreError;
use crate::port::{Clock, ImportReport, ImportRepository, ImportStoreError, ShopStore};

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("no shop has the slug `{0}`")]
    UnknownShop(String),
    /// The file is refused; nothing was written.
    #[error("the file has {} problem(s)", .0.len())]
    Invalid(Vec<ImportProblem>),
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub struct ImportShopData {
    shops: Arc<dyn ShopStore>,
    repository: Arc<dyn ImportRepository>,
    clock: Arc<dyn Clock>,
}

impl ImportShopData {
    pub fn new(
        shops: Arc<dyn ShopStore>,
        repository: Arc<dyn ImportRepository>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            shops,
            repository,
            clock,
        }
    }

    pub async fn run(
        &self,
        shop: &ShopSlug,
        data: ShopImport,
    ) -> Result<ImportReport, ImportError> {
        let duplicates = data.duplicate_ids();
        if !duplicates.is_empty() {
            return Err(ImportError::Invalid(duplicates));
        }
        let shop = self
            .shops
            .find_shop_by_slug(shop)
            .await?
            .ok_or_else(|| ImportError::UnknownShop(shop.to_string()))?;
        match self
            .repository
            .import(&shop.id, data, self.clock.now())
            .await
        {
            Ok(report) => Ok(report),
            Err(ImportStoreError::Rejected(problems)) => Err(ImportError::Invalid(problems)),
            Err(ImportStoreError::Store(error)) => Err(error.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use shop_domain::Timestamp;
    use shop_domain::id::{ShopId, TierId};
    use shop_domain::loyalty::LoyaltyTier;
    use shop_domain::shop::{Shop, SubscriptionStatus};

    use super::*;
    use crate::port::{ImportCounts, MockClock, MockImportRepository, MockShopStore};

    fn tier(id: &str) -> LoyaltyTier {
        LoyaltyTier {
            id: TierId::parse(id).unwrap(),
            name: "Gold".into(),
            min_points_lifetime: 100,
            color: shop_domain::color::HexColor::parse("#FFD700").unwrap(),
        }
    }

    fn use_case(repository: MockImportRepository) -> ImportShopData {
        let mut shops = MockShopStore::new();
        shops.expect_find_shop_by_slug().returning(|slug| {
            Ok(Some(Shop {
                id: ShopId::parse("shop_1").unwrap(),
                slug: slug.clone(),
                name: "B".into(),
                public_api_in_plan: true,
                subscription: SubscriptionStatus::Active,
            }))
        });
        let mut clock = MockClock::new();
        clock.expect_now().return_const(Timestamp::from_millis(5));
        ImportShopData::new(Arc::new(shops), Arc::new(repository), Arc::new(clock))
    }

    #[tokio::test]
    async fn duplicate_ids_refuse_the_file_before_any_write() {
        let data = ShopImport {
            tiers: vec![tier("t1"), tier("t1")],
            ..ShopImport::default()
        };
        let result = use_case(MockImportRepository::new())
            .run(&ShopSlug::parse("b").unwrap(), data)
            .await;
        let Err(ImportError::Invalid(problems)) = result else {
            panic!("expected a refusal")
        };
        assert_eq!(
            problems[0].to_string(),
            "loyaltyTiers[1].id: duplicate id in this file"
        );
    }

    #[tokio::test]
    async fn foreign_ids_are_reported_as_file_problems() {
        let mut repository = MockImportRepository::new();
        repository.expect_import().returning(|_, _, _| {
            Err(ImportStoreError::Rejected(vec![ImportProblem::new(
                "loyaltyTiers[0].id",
                "belongs to another shop",
            )]))
        });
        let data = ShopImport {
            tiers: vec![tier("t1")],
            ..ShopImport::default()
        };
        let result = use_case(repository)
            .run(&ShopSlug::parse("b").unwrap(), data)
            .await;
        assert!(matches!(result, Err(ImportError::Invalid(p)) if p.len() == 1));
    }

    #[tokio::test]
    async fn a_valid_file_is_imported_into_the_shop_at_now() {
        let mut repository = MockImportRepository::new();
        repository
            .expect_import()
            .withf(|shop, data, now| {
                shop.as_str() == "shop_1" && data.tiers.len() == 1 && now.millis() == 5
            })
            .times(1)
            .returning(|_, _, _| {
                Ok(ImportReport {
                    tiers: ImportCounts {
                        written: 1,
                        unchanged: 0,
                    },
                    ..ImportReport::default()
                })
            });
        let data = ShopImport {
            tiers: vec![tier("t1")],
            ..ShopImport::default()
        };
        let report = use_case(repository)
            .run(&ShopSlug::parse("b").unwrap(), data)
            .await
            .unwrap();
        assert_eq!(report.tiers.written, 1);
    }
}
