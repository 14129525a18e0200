//! `GET /me` (spec §2 "Shop and key info"), unwrapped.

use serde::Serialize;
use shop_domain::scope::Scope;
use shop_ports::usecase::Principal;
use utoipa::ToSchema;

use crate::api_version::ApiVersion;
use crate::dto::schemas::ScopeName;

/// The shop and the API key the caller authenticated with.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = Me)]
pub struct MeDto {
    shop: ShopDto,
    api_key: ApiKeyDto,
}

/// The shop the key belongs to.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = Shop)]
struct ShopDto {
    id: String,
    name: String,
    slug: String,
}

/// The key itself (never its secret).
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = ApiKey)]
struct ApiKeyDto {
    /// The label given at creation.
    label: String,
    /// The scopes the key holds, in the order of the scope list.
    #[schema(value_type = Vec<ScopeName>)]
    scopes: Vec<&'static str>,
}

impl MeDto {
    /// v1 shows only the scopes of its spec: `/api/v1` answers as it always has.
    pub fn new(principal: &Principal, version: ApiVersion) -> Self {
        let scopes = match version {
            ApiVersion::V1 => principal.scopes.only_v1(),
            ApiVersion::V2 => principal.scopes,
        };
        Self {
            shop: ShopDto {
                id: principal.shop.id.to_string(),
                name: principal.shop.name.clone(),
                slug: principal.shop.slug.to_string(),
            },
            api_key: ApiKeyDto {
                label: principal.key_label.clone(),
                scopes: scopes.iter().map(Scope::as_str).collect(),
            },
        }
    }
}
