//! The wrappers of spec §2 and §8: `{"data": [...], "pageInfo": {...}}` for lists and
//! `{"data": ...}` for single objects.

use actix_web::HttpResponse;
use actix_web::http::header::ContentType;
use serde::Serialize;
use shop_domain::Timestamp;
use shop_domain::pagination::Page;
use utoipa::ToSchema;

use crate::dto::as_text;
use crate::error::ApiError;

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
    /// The checkpoint of an incremental sync: keep the first page's, page to the end, then pass
    /// it as `updatedSince` next time. The time this page was read minus a 60-second overlap,
    /// so that no change is missed (some may be seen twice). UTC, milliseconds.
    #[schema(
        value_type = String,
        format = DateTime,
        required = true,
        example = "2026-11-21T09:29:00.000Z"
    )]
    #[serde(serialize_with = "as_text::serialize_optional")]
    synced_at: Option<Timestamp>,
}

/// What a list reserves per item before it is written: a product or an order with a few
/// variants or items is about 1 KB of JSON (docs/PERFORMANCE.md, "Bytes reserved per list
/// item"). A client or a stock entry is smaller; the excess lasts until the response is
/// written.
const RESERVED_BYTES_PER_ITEM: usize = 1_024;

impl<T: Serialize> ListDto<T> {
    /// The 200 response. Its buffer is reserved for the whole page at once: grown by doubling
    /// from serde_json's 128 bytes, a 20 KB page was reallocated 8 times, each time copying
    /// what it held so far.
    pub fn into_response(self) -> Result<HttpResponse, ApiError> {
        let mut body = Vec::with_capacity((self.data.len() + 1) * RESERVED_BYTES_PER_ITEM);
        serde_json::to_writer(&mut body, &self).map_err(ApiError::internal)?;
        Ok(HttpResponse::Ok()
            .content_type(ContentType::json())
            .body(body))
    }
}

impl<T> ListDto<T> {
    pub fn from_page<'page, U>(page: &'page Page<U>, to_dto: impl Fn(&'page U) -> T) -> Self {
        Self {
            data: page.items.iter().map(to_dto).collect(),
            page_info: PageInfoDto {
                has_more: page.has_more,
                next_cursor: page.next_cursor.clone(),
                limit: page.limit.get(),
                synced_at: page.synced_at,
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
