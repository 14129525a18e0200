//! `GET /me` (spec §2 "Shop and key info"), unwrapped.

use serde::Serialize;
use shop_domain::scope::Scope;
use shop_ports::usecase::Principal;

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MeDto {
    shop: ShopDto,
    api_key: ApiKeyDto,
}

#[derive(Debug, Serialize)]
struct ShopDto {
    id: String,
    name: String,
    slug: String,
}

#[derive(Debug, Serialize)]
struct ApiKeyDto {
    label: String,
    /// In the spec's order of scopes.
    scopes: Vec<&'static str>,
}

impl From<&Principal> for MeDto {
    fn from(principal: &Principal) -> Self {
        Self {
            shop: ShopDto {
                id: principal.shop.id.to_string(),
                name: principal.shop.name.clone(),
                slug: principal.shop.slug.to_string(),
            },
            api_key: ApiKeyDto {
                label: principal.key_label.clone(),
                scopes: principal.scopes.iter().map(Scope::as_str).collect(),
            },
        }
    }
}
