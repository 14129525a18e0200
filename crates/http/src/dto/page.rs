//! The wrappers of spec §2 and §8: `{"data": [...], "pageInfo": {...}}` for lists and
//! `{"data": ...}` for single objects.

use serde::Serialize;
use shop_domain::pagination::Page;

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListDto<T> {
    data: Vec<T>,
    page_info: PageInfoDto,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct PageInfoDto {
    has_more: bool,
    /// `null` on the last page.
    next_cursor: Option<String>,
    /// The page size applied, defaulted or not.
    limit: usize,
}

impl<T> ListDto<T> {
    pub fn from_page<U>(page: &Page<U>, to_dto: impl Fn(&U) -> T) -> Self {
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

#[derive(Debug, Serialize)]
pub struct DataDto<T> {
    data: T,
}

impl<T> DataDto<T> {
    pub fn new(data: T) -> Self {
        Self { data }
    }
}
