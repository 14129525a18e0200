//! The wrappers of spec §2 and §8: `{"data": [...], "pageInfo": {...}}` for lists and
//! `{"data": ...}` for single objects.

use serde::Serialize;
use shop_domain::pagination::Page;
use utoipa::ToSchema;

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListDto<T> {
    data: Vec<T>,
    page_info: PageInfoDto,
}

/// Where a list stands: whether more rows follow, and the cursor of the next page.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = PageInfo)]
pub struct PageInfoDto {
    /// Whether another page follows.
    has_more: bool,
    /// Opaque; pass it as `cursor` to get the next page. `null` on the last page.
    #[schema(required = true)]
    next_cursor: Option<String>,
    /// The page size applied, defaulted or not.
    #[schema(minimum = 1, maximum = 100)]
    limit: usize,
}

impl<T> ListDto<T> {
    pub fn from_page<'page, U>(page: &'page Page<U>, to_dto: impl Fn(&'page U) -> T) -> Self {
        Self {
            data: page.items.iter().map(to_dto).collect(),
            page_info: PageInfoDto {
                has_more: page.has_more,
                next_cursor: page.next_cursor.clone(),
                limit: page.limit.get(),
            },
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DataDto<T> {
    data: T,
}

impl<T> DataDto<T> {
    pub fn new(data: T) -> Self {
        Self { data }
    }
}
