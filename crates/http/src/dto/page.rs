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
/// variants or items is about that much JSON (docs/performance-log.md, "Bytes reserved per list
/// item"). A client or a stock entry is smaller; the excess lasts until the response is
/// written.
const RESERVED_BYTES_PER_ITEM: usize = 1_024;

impl<T: Serialize> ListDto<T> {
    /// The 200 response. Its buffer is reserved for the whole page at once: grown by doubling
    /// from serde_json's 128 bytes, a 20 KB page was reallocated 8 times, each time copying
    /// what it held so far. Written by sonic-rs, from the same `Serialize` impls and to the
    /// same bytes as serde_json: a page is mostly strings, and its SIMD escaping is the larger
    /// part of what a page's JSON costs (docs/performance-log.md, "One parent decoded once").
    pub fn into_response(self) -> Result<HttpResponse, ApiError> {
        let mut body = Vec::with_capacity((self.data.len() + 1) * RESERVED_BYTES_PER_ITEM);
        sonic_rs::to_writer(&mut body, &self).map_err(ApiError::internal)?;
        Ok(HttpResponse::Ok()
            .content_type(ContentType::json())
            .body(body))
    }
}

impl<T: Serialize> ListDto<T> {
    /// The 200 response, written by serde_json: for items that embed raw JSON
    /// (`serde_json::value::RawValue`, `GET /api/v2/events`), which serde_json writes as it is
    /// and sonic-rs does not know.
    pub fn into_exact_response(self) -> Result<HttpResponse, ApiError> {
        let body = serde_json::to_vec(&self).map_err(ApiError::internal)?;
        Ok(HttpResponse::Ok()
            .content_type(ContentType::json())
            .body(body))
    }
}

impl<T> ListDto<T> {
    /// A list whose items are made from the page's rows by a conversion that may fail (a
    /// corrupt row).
    pub fn try_from_page<'page, U, E>(
        page: &'page Page<U>,
        to_dto: impl Fn(&'page U) -> Result<T, E>,
    ) -> Result<Self, E> {
        Ok(Self {
            data: page.items.iter().map(to_dto).collect::<Result<_, _>>()?,
            page_info: PageInfoDto::of(page),
        })
    }

    pub fn from_page<'page, U>(page: &'page Page<U>, to_dto: impl Fn(&'page U) -> T) -> Self {
        Self {
            data: page.items.iter().map(to_dto).collect(),
            page_info: PageInfoDto::of(page),
        }
    }
}

impl PageInfoDto {
    fn of<U>(page: &Page<U>) -> Self {
        Self {
            has_more: page.has_more,
            next_cursor: page.next_cursor.clone(),
            limit: page.limit.get(),
            synced_at: page.synced_at,
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

#[cfg(test)]
mod tests {
    use actix_web::body::MessageBody;
    use shop_domain::pagination::{Page, PageLimit};

    use super::*;

    /// A page's body is what serde_json would write, byte for byte: integrators' parsers and
    /// the spec's examples were checked against serde_json's output.
    #[test]
    fn a_page_is_written_as_serde_json_writes_it() {
        let awkward = [
            "plain",
            "quote \" backslash \\ slash / tab \t newline \n return \r",
            "controls \u{0} \u{1} \u{8} \u{c} \u{1f} \u{7f}",
            "é ü 漢字 😀 </script>",
            "",
        ];
        let items: Vec<serde_json::Value> = awkward
            .iter()
            .enumerate()
            .map(|(n, text)| {
                serde_json::json!({"text": text, "n": n, "min": i64::MIN, "max": u64::MAX,
                    "none": null, "yes": true, "list": [text, {}]})
            })
            .collect();
        let page = Page {
            items,
            has_more: true,
            next_cursor: Some("c\"ursor".to_owned()),
            limit: PageLimit::new(5).unwrap(),
            synced_at: Some(Timestamp::from_millis(1_795_000_000_123)),
        };
        let dto = ListDto::from_page(&page, Clone::clone);
        let expected = serde_json::to_vec(&dto).unwrap();
        let body = dto.into_response().unwrap().into_body();
        assert_eq!(body.try_into_bytes().unwrap(), expected);
    }
}
