//! The client: one method per endpoint, paging streams, and the retry loop.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use futures::{Stream, TryStreamExt, stream};
use reqwest::header::{
    ACCEPT, AUTHORIZATION, CONTENT_TYPE, ETAG, HeaderMap, HeaderValue, IF_MATCH, IF_NONE_MATCH,
    USER_AGENT,
};
use reqwest::{Method, StatusCode, Url};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::conditional::Conditional;
use crate::error::{ApiError, Envelope};
use crate::models::{
    AdjustmentOutcome, Client as ShopClient, Data, LoyaltySummary, Me, Order, Page, Product,
    StockAdjustment, StockEntry,
};
use crate::query::{ClientQuery, ListQuery, OrderQuery, Params, ProductQuery, StockQuery};
use crate::retry::{self, RetryEvent, RetryHook, RetryPolicy, RetryReason};

/// The header that makes a stock adjustment (or any v2 create) safe to repeat.
pub const IDEMPOTENCY_KEY_HEADER: &str = "Idempotency-Key";
const JSON: &str = "application/json";
/// RFC 7396: the `Content-Type` of v2's `PATCH`es (clients, products, variants).
const MERGE_PATCH_JSON: &str = "application/merge-patch+json";
const REPLAYED_HEADER: &str = "Idempotent-Replayed";
const DEFAULT_USER_AGENT: &str = concat!("shop-api-client/", env!("CARGO_PKG_VERSION"));
/// How many characters of an undecodable body an [`ApiError::Decode`] keeps.
const BODY_EXCERPT_CHARS: usize = 2048;

/// A client of one shop's API, for one API key. Cheap to clone (the connection pool is
/// shared); use one per key for the whole program.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    http: reqwest::Client,
    base: Url,
    authorization: HeaderValue,
    user_agent: HeaderValue,
    timeout: Option<Duration>,
    policy: RetryPolicy,
    on_retry: Option<RetryHook>,
}

/// Settings of a [`Client`], from [`Client::builder`].
#[must_use]
pub struct ClientBuilder {
    base_url: String,
    api_key: String,
    timeout: Option<Duration>,
    connect_timeout: Duration,
    user_agent: String,
    policy: RetryPolicy,
    on_retry: Option<RetryHook>,
    http: Option<reqwest::Client>,
}

impl Client {
    /// A client with the default settings: 30 s per attempt, up to 3 retries.
    ///
    /// `base_url` is the server's root (`https://shop.example.com`, or a prefix it is mounted
    /// under); the client adds `/api/v1/...`. `api_key` is the full `svc_live_...` key.
    pub fn new(base_url: impl Into<String>, api_key: impl Into<String>) -> Result<Self, ApiError> {
        Self::builder(base_url, api_key).build()
    }

    pub fn builder(base_url: impl Into<String>, api_key: impl Into<String>) -> ClientBuilder {
        ClientBuilder {
            base_url: base_url.into(),
            api_key: api_key.into(),
            timeout: Some(Duration::from_secs(30)),
            connect_timeout: Duration::from_secs(10),
            user_agent: DEFAULT_USER_AGENT.to_owned(),
            policy: RetryPolicy::default(),
            on_retry: None,
            http: None,
        }
    }

    /// `GET /me`: the shop and the key.
    pub async fn me(&self) -> Result<Me, ApiError> {
        self.get(&["me"], Params::new()).await
    }

    /// One page of `GET /products`.
    pub async fn products(&self, query: ProductQuery) -> Result<Page<Product>, ApiError> {
        self.page(&query, query.cursor()).await
    }

    /// Every product matching `query`, page after page, from `query.cursor` (or the start)
    /// until the last page. The stream ends after the first error it yields.
    pub fn products_stream(
        &self,
        query: ProductQuery,
    ) -> impl Stream<Item = Result<Product, ApiError>> + Send + 'static {
        self.paginate(query)
    }

    /// `GET /products/:id`, inactive variants included.
    pub async fn product(&self, id: &str) -> Result<Product, ApiError> {
        self.get_data(&["products", checked_id(id)?], Params::new())
            .await
    }

    /// One page of `GET /orders`, newest first.
    pub async fn orders(&self, query: OrderQuery) -> Result<Page<Order>, ApiError> {
        self.page(&query, query.cursor()).await
    }

    /// Every order matching `query`; see [`Client::products_stream`].
    pub fn orders_stream(
        &self,
        query: OrderQuery,
    ) -> impl Stream<Item = Result<Order, ApiError>> + Send + 'static {
        self.paginate(query)
    }

    /// `GET /orders/:id`.
    pub async fn order(&self, id: &str) -> Result<Order, ApiError> {
        self.get_data(&["orders", checked_id(id)?], Params::new())
            .await
    }

    /// One page of `GET /clients`.
    pub async fn clients(&self, query: ClientQuery) -> Result<Page<ShopClient>, ApiError> {
        self.page(&query, query.cursor()).await
    }

    /// Every client matching `query`; see [`Client::products_stream`].
    pub fn clients_stream(
        &self,
        query: ClientQuery,
    ) -> impl Stream<Item = Result<ShopClient, ApiError>> + Send + 'static {
        self.paginate(query)
    }

    /// `GET /clients/:id`.
    pub async fn client(&self, id: &str) -> Result<ShopClient, ApiError> {
        self.get_data(&["clients", checked_id(id)?], Params::new())
            .await
    }

    /// `GET /clients/:id/loyalty`.
    pub async fn loyalty(&self, client_id: &str) -> Result<LoyaltySummary, ApiError> {
        self.get_data(
            &["clients", checked_id(client_id)?, "loyalty"],
            Params::new(),
        )
        .await
    }

    /// One page of `GET /stock`.
    pub async fn stock(&self, query: StockQuery) -> Result<Page<StockEntry>, ApiError> {
        self.page(&query, query.cursor()).await
    }

    /// Every stock entry matching `query`; see [`Client::products_stream`].
    pub fn stock_stream(
        &self,
        query: StockQuery,
    ) -> impl Stream<Item = Result<StockEntry, ApiError>> + Send + 'static {
        self.paginate(query)
    }

    /// `POST /stock/adjustments`: adds `quantity` (negative to remove) to a variant's stock.
    ///
    /// A fresh `Idempotency-Key` (a UUID v4) is generated and sent again, unchanged, on every
    /// retry of this call (after a 429, a 503, a lost connection or a timeout), so the
    /// adjustment is applied once however many attempts it takes. The key is in the outcome.
    /// To make retries across calls (or restarts) safe as well, generate the key yourself,
    /// store it with the pending adjustment and use [`Client::adjust_stock_with_key`].
    pub async fn adjust_stock(
        &self,
        variant_id: &str,
        quantity: i64,
        reason: &str,
    ) -> Result<AdjustmentOutcome, ApiError> {
        self.adjust_stock_with_key(variant_id, quantity, reason, &new_idempotency_key())
            .await
    }

    /// [`Client::adjust_stock`] with your own `Idempotency-Key` (1–255 visible ASCII
    /// characters, scoped to the API key, remembered by the server for 24 hours). The same
    /// key with the same adjustment replays the first result (`replayed` is then `true`);
    /// with a different adjustment it is refused with [`ErrorCode::IdempotencyKeyReused`].
    ///
    /// [`ErrorCode::IdempotencyKeyReused`]: crate::ErrorCode::IdempotencyKeyReused
    pub async fn adjust_stock_with_key(
        &self,
        variant_id: &str,
        quantity: i64,
        reason: &str,
        idempotency_key: &str,
    ) -> Result<AdjustmentOutcome, ApiError> {
        check_idempotency_key(idempotency_key)?;
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Body<'a> {
            variant_id: &'a str,
            quantity: i64,
            reason: &'a str,
        }
        let body = json_body(&Body {
            variant_id,
            quantity,
            reason,
        })?;
        let url = self.url(&["stock", "adjustments"], &Params::new())?;
        let (adjustment, replayed) = self
            .post_idempotent::<StockAdjustment>(url, body, idempotency_key)
            .await?;
        Ok(AdjustmentOutcome {
            adjustment,
            idempotency_key: idempotency_key.to_owned(),
            replayed,
        })
    }

    /// POSTs `body` to `url` under `idempotency_key` (sent again on every retry) and decodes
    /// the `data` of the answer, with whether it was the first answer replayed.
    pub(crate) async fn post_idempotent<T: DeserializeOwned>(
        &self,
        url: Url,
        body: Vec<u8>,
        idempotency_key: &str,
    ) -> Result<(T, bool), ApiError> {
        let request = Request {
            body: Some(body),
            idempotency_key: Some(idempotency_key),
            ..Request::new(Method::POST, url)
        };
        let response = self.execute(&request).await?;
        let replayed = is_replayed(&response.headers);
        let answer: Data<T> = decode(response)?;
        Ok((answer.data, replayed))
    }

    /// Sends a v2 write of one resource (`POST` with an optional `Idempotency-Key`, sent again
    /// on every retry; `PATCH` as a merge patch with an optional `If-Match`) and decodes the
    /// `data` of the answer with its `ETag` and whether it was replayed.
    pub(crate) async fn write_v2_tagged<T: DeserializeOwned>(
        &self,
        method: Method,
        segments: &[&str],
        body: Vec<u8>,
        condition: WriteCondition<'_>,
    ) -> Result<Tagged<T>, ApiError> {
        let content_type = if method == Method::PATCH {
            MERGE_PATCH_JSON
        } else {
            JSON
        };
        let request = Request {
            body: Some(body),
            content_type,
            idempotency_key: condition.idempotency_key,
            if_match: condition.if_match,
            ..Request::new(method, self.versioned_url("v2", segments, &Params::new())?)
        };
        let response = self.execute(&request).await?;
        let replayed = is_replayed(&response.headers);
        let etag = header_etag(&response.headers);
        let answer: Data<T> = decode(response)?;
        Ok(Tagged {
            data: answer.data,
            etag,
            replayed,
        })
    }

    /// `GET` of the v2 path `segments` (one product or client) with the `ETag` held: the
    /// resource and its new tag, or `NotModified` (`304`) while it did not change.
    pub(crate) async fn get_v2_if_changed<T: DeserializeOwned>(
        &self,
        segments: &[&str],
        etag: Option<&str>,
    ) -> Result<Conditional<T>, ApiError> {
        let request = Request {
            if_none_match: etag,
            ..Request::new(
                Method::GET,
                self.versioned_url("v2", segments, &Params::new())?,
            )
        };
        let response = self.execute(&request).await?;
        if response.status == StatusCode::NOT_MODIFIED {
            return Ok(Conditional::NotModified);
        }
        let etag = header_etag(&response.headers);
        let data: Data<T> = decode(response)?;
        Ok(Conditional::Modified {
            data: data.data,
            etag,
        })
    }

    /// Sends `method` to the v2 path `segments` with an optional JSON `body`, and decodes the
    /// answer (`None` for a 204).
    pub(crate) async fn send_v2<T: DeserializeOwned>(
        &self,
        method: Method,
        segments: &[&str],
        params: Params,
        body: Option<Vec<u8>>,
    ) -> Result<Option<T>, ApiError> {
        let request = Request {
            body,
            ..Request::new(method, self.versioned_url("v2", segments, &params)?)
        };
        let response = self.execute(&request).await?;
        if response.status == StatusCode::NO_CONTENT {
            return Ok(None);
        }
        decode(response).map(Some)
    }

    async fn get<T: DeserializeOwned>(
        &self,
        segments: &[&str],
        params: Params,
    ) -> Result<T, ApiError> {
        let request = Request::new(Method::GET, self.url(segments, &params)?);
        decode(self.execute(&request).await?)
    }

    async fn get_data<T: DeserializeOwned>(
        &self,
        segments: &[&str],
        params: Params,
    ) -> Result<T, ApiError> {
        let wrapped: Data<T> = self.get(segments, params).await?;
        Ok(wrapped.data)
    }

    async fn page<Q: ListQuery, T: DeserializeOwned>(
        &self,
        query: &Q,
        cursor: Option<&str>,
    ) -> Result<Page<T>, ApiError> {
        self.list_page(Q::PATH, query.filters(), cursor).await
    }

    /// One page of the list at `path`, with `filters` and then `cursor`.
    pub(crate) async fn list_page<T: DeserializeOwned>(
        &self,
        path: &'static str,
        mut filters: Params,
        cursor: Option<&str>,
    ) -> Result<Page<T>, ApiError> {
        if let Some(cursor) = cursor {
            filters.push(("cursor", cursor.to_owned()));
        }
        self.get(&[path], filters).await
    }

    /// Pages from the query's cursor until `nextCursor` is `null`, item by item.
    fn paginate<Q, T>(&self, query: Q) -> impl Stream<Item = Result<T, ApiError>> + Send + 'static
    where
        Q: ListQuery + Send + Sync + 'static,
        T: DeserializeOwned + Send + 'static,
    {
        let client = self.clone();
        let query = Arc::new(query);
        let start = query.cursor().map(str::to_owned);
        // The state is the cursor of the next page to fetch; `None` once the last one is in.
        let pages = stream::try_unfold(Some(start), move |next| {
            let client = client.clone();
            let query = Arc::clone(&query);
            async move {
                let Some(cursor) = next else {
                    return Ok(None);
                };
                let page: Page<T> = client.page(query.as_ref(), cursor.as_deref()).await?;
                let after = page.page_info.next_cursor.map(Some);
                let items = stream::iter(page.data.into_iter().map(Ok));
                Ok::<_, ApiError>(Some((items, after)))
            }
        });
        pages.try_flatten()
    }

    /// `{base}/api/v1/{segments...}?{params}`; every segment is percent-encoded.
    fn url(&self, segments: &[&str], params: &Params) -> Result<Url, ApiError> {
        self.versioned_url("v1", segments, params)
    }

    /// `{base}/api/{version}/{segments...}?{params}`.
    pub(crate) fn versioned_url(
        &self,
        version: &str,
        segments: &[&str],
        params: &Params,
    ) -> Result<Url, ApiError> {
        let mut url = self.inner.base.clone();
        url.path_segments_mut()
            .map_err(|()| ApiError::Invalid("the base URL cannot take a path".to_owned()))?
            .pop_if_empty()
            .extend(["api", version])
            .extend(segments);
        if !params.is_empty() {
            url.query_pairs_mut()
                .extend_pairs(params.iter().map(|(name, value)| (*name, value.as_str())));
        }
        Ok(url)
    }

    /// Sends `request`, repeating it on 429, 503 and transport errors as the policy allows.
    /// The last response (429 and 503 included) or transport error is returned.
    async fn execute(&self, request: &Request<'_>) -> Result<Response, ApiError> {
        let mut failures = 0;
        // Whether an attempt may have reached the server and had its answer lost.
        let mut answer_lost = false;
        loop {
            let outcome = self.attempt(request).await.map(|mut response| {
                response.after_lost_answer = answer_lost;
                response
            });
            let (reason, retry_after) = match &outcome {
                Ok(response) if response.status == StatusCode::TOO_MANY_REQUESTS => (
                    RetryReason::RateLimited,
                    retry::retry_after(&response.headers),
                ),
                Ok(response) if response.status == StatusCode::SERVICE_UNAVAILABLE => (
                    RetryReason::ServiceUnavailable,
                    retry::retry_after(&response.headers),
                ),
                // A lost answer leaves unknown whether the request was applied: it is sent
                // again only when repeating it changes nothing more (a read, a `PATCH` or
                // `DELETE`, a keyed write). A 429 or 503 was not applied at all.
                Err(error) if retry::is_retryable(error) && request.safe_to_repeat() => {
                    // A connection never made carried nothing to the server.
                    answer_lost |= !error.is_connect();
                    (RetryReason::Transport, None)
                }
                _ => return outcome.map_err(ApiError::Transport),
            };
            failures += 1;
            let Some(wait) = self.inner.policy.delay(failures, retry_after) else {
                return outcome.map_err(ApiError::Transport);
            };
            if let Some(hook) = &self.inner.on_retry {
                hook(&RetryEvent {
                    method: request.method.to_string(),
                    path: request.url.path().to_owned(),
                    failures,
                    reason,
                    wait,
                    idempotency_key: request.idempotency_key.map(str::to_owned),
                });
            }
            tokio::time::sleep(wait).await;
        }
    }

    /// One attempt: the same method, URL, body and idempotency key every time.
    async fn attempt(&self, request: &Request<'_>) -> Result<Response, reqwest::Error> {
        let inner = &self.inner;
        let mut builder = inner
            .http
            .request(request.method.clone(), request.url.clone())
            .header(AUTHORIZATION, inner.authorization.clone())
            .header(USER_AGENT, inner.user_agent.clone())
            .header(ACCEPT, "application/json");
        if let Some(timeout) = inner.timeout {
            builder = builder.timeout(timeout);
        }
        if let Some(body) = &request.body {
            builder = builder
                .header(CONTENT_TYPE, request.content_type)
                .body(body.clone());
        }
        if let Some(key) = request.idempotency_key {
            builder = builder.header(IDEMPOTENCY_KEY_HEADER, key);
        }
        if let Some(etag) = request.if_none_match {
            builder = builder.header(IF_NONE_MATCH, etag);
        }
        if let Some(etag) = request.if_match {
            builder = builder.header(IF_MATCH, etag);
        }
        let response = builder.send().await?;
        let status = response.status();
        let headers = response.headers().clone();
        let body = response.bytes().await?.to_vec();
        Ok(Response {
            status,
            headers,
            body,
            after_lost_answer: false,
        })
    }
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("base", &self.inner.base.as_str())
            .field("api_key", &"<redacted>")
            .field("timeout", &self.inner.timeout)
            .field("policy", &self.inner.policy)
            .finish_non_exhaustive()
    }
}

impl ClientBuilder {
    /// The limit of each attempt, from connecting to the end of the body (default 30 s);
    /// `None` for none.
    pub fn timeout(mut self, timeout: Option<Duration>) -> Self {
        self.timeout = timeout;
        self
    }

    /// The limit to connect (default 10 s). Ignored with [`ClientBuilder::http_client`].
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// How many times a request is repeated after a 429, a 503 or a transport error (default
    /// 3; 0 never repeats). A 429 still there after them is [`ApiError::RateLimited`].
    pub fn max_retries(mut self, retries: u32) -> Self {
        self.policy.max_retries = retries;
        self
    }

    /// The first wait when the server gives no `Retry-After` (default 500 ms), doubled after
    /// each further failure up to [`ClientBuilder::max_retry_wait`].
    pub fn retry_backoff(mut self, first_wait: Duration) -> Self {
        self.policy.backoff = first_wait;
        self
    }

    /// The longest single wait accepted (default 60 s, the rate-limit window): a
    /// `Retry-After` beyond it is returned as an error at once instead of waited for.
    pub fn max_retry_wait(mut self, wait: Duration) -> Self {
        self.policy.max_wait = wait;
        self
    }

    /// The `User-Agent` (default `shop-api-client/<version>`).
    pub fn user_agent(mut self, user_agent: impl Into<String>) -> Self {
        self.user_agent = user_agent.into();
        self
    }

    /// Called before each wait of a retry: for logs and metrics.
    pub fn on_retry(mut self, hook: impl Fn(&RetryEvent) + Send + Sync + 'static) -> Self {
        self.on_retry = Some(Arc::new(hook));
        self
    }

    /// Sends through this `reqwest` client (e.g. one with a TLS backend, a proxy or root
    /// certificates of your choice). The timeout and user agent still apply per request.
    pub fn http_client(mut self, client: reqwest::Client) -> Self {
        self.http = Some(client);
        self
    }

    pub fn build(self) -> Result<Client, ApiError> {
        let base = Url::parse(self.base_url.trim())
            .map_err(|error| ApiError::Invalid(format!("base URL {:?}: {error}", self.base_url)))?;
        if !matches!(base.scheme(), "http" | "https") || base.cannot_be_a_base() {
            return Err(ApiError::Invalid(format!(
                "base URL {:?}: not an http(s) URL",
                self.base_url
            )));
        }
        let mut authorization = HeaderValue::try_from(format!("Bearer {}", self.api_key.trim()))
            .map_err(|_| ApiError::Invalid("the API key cannot be sent in a header".to_owned()))?;
        authorization.set_sensitive(true);
        let user_agent = HeaderValue::try_from(self.user_agent)
            .map_err(|_| ApiError::Invalid("the user agent is not a header value".to_owned()))?;
        let http = match self.http {
            Some(http) => http,
            None => reqwest::Client::builder()
                .connect_timeout(self.connect_timeout)
                .build()?,
        };
        Ok(Client {
            inner: Arc::new(Inner {
                http,
                base,
                authorization,
                user_agent,
                timeout: self.timeout,
                policy: self.policy,
                on_retry: self.on_retry,
            }),
        })
    }
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("base_url", &self.base_url)
            .field("api_key", &"<redacted>")
            .field("timeout", &self.timeout)
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

/// A fresh `Idempotency-Key`: a random UUID v4, e.g. `1b4e28ba-2fa1-41d2-883f-0016d3cca427`.
pub fn new_idempotency_key() -> String {
    uuid::Uuid::new_v4().to_string()
}

struct Request<'a> {
    method: Method,
    url: Url,
    body: Option<Vec<u8>>,
    /// The body's `Content-Type`: JSON, or a JSON Merge Patch.
    content_type: &'static str,
    idempotency_key: Option<&'a str>,
    /// The `ETag` held, sent as `If-None-Match` (API v2's reads of one product or client).
    if_none_match: Option<&'a str>,
    /// The `ETag` a write is based on, sent as `If-Match` (API v2's patches).
    if_match: Option<&'a str>,
}

impl Request<'_> {
    /// A request without body or conditions.
    fn new(method: Method, url: Url) -> Self {
        Self {
            method,
            url,
            body: None,
            content_type: JSON,
            idempotency_key: None,
            if_none_match: None,
            if_match: None,
        }
    }

    /// Whether sending it twice does what sending it once does.
    ///
    /// A `PATCH` is: every `PATCH` of the API replaces the members it names (v2's are JSON
    /// Merge Patches), so applying it twice leaves what applying it once does. One with
    /// `If-Match` can only be refused the second time, never applied twice: if the lost
    /// attempt was applied, the tag it named is no longer current and the retry answers
    /// `412`, which [`ApiError::PreconditionFailed`] then flags as `maybe_applied`.
    fn safe_to_repeat(&self) -> bool {
        self.idempotency_key.is_some()
            || matches!(
                self.method,
                Method::GET | Method::HEAD | Method::PATCH | Method::DELETE
            )
    }
}

struct Response {
    status: StatusCode,
    headers: HeaderMap,
    body: Vec<u8>,
    /// An earlier attempt of the request may have reached the server, and its answer was lost.
    after_lost_answer: bool,
}

/// What a v2 write of one resource answered: its `data`, its `ETag`, and whether it was the
/// first answer to its `Idempotency-Key` replayed.
pub(crate) struct Tagged<T> {
    pub data: T,
    pub etag: Option<String>,
    pub replayed: bool,
}

/// The headers that make a v2 write safe: an `Idempotency-Key` (a create) or `If-Match` (a
/// patch).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct WriteCondition<'a> {
    pub idempotency_key: Option<&'a str>,
    pub if_match: Option<&'a str>,
}

/// `Idempotent-Replayed: true`.
fn is_replayed(headers: &HeaderMap) -> bool {
    headers
        .get(REPLAYED_HEADER)
        .is_some_and(|value| value.as_bytes().eq_ignore_ascii_case(b"true"))
}

/// The `ETag`, as received (quotes included): what `If-Match` and `If-None-Match` send back.
fn header_etag(headers: &HeaderMap) -> Option<String> {
    headers
        .get(ETAG)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned)
}

/// A success body as `T`; anything else as the typed error.
fn decode<T: DeserializeOwned>(response: Response) -> Result<T, ApiError> {
    let status = response.status.as_u16();
    let decode_error = |source| ApiError::Decode {
        status,
        source,
        body: excerpt(&response.body),
    };
    if response.status.is_success() {
        return serde_json::from_slice(&response.body).map_err(decode_error);
    }
    let envelope: Envelope = serde_json::from_slice(&response.body).map_err(decode_error)?;
    if response.status == StatusCode::TOO_MANY_REQUESTS {
        return Err(ApiError::RateLimited {
            retry_after: retry::retry_after(&response.headers),
            message: envelope.error.message,
        });
    }
    if response.status == StatusCode::PRECONDITION_FAILED {
        return Err(ApiError::PreconditionFailed {
            current_etag: header_etag(&response.headers),
            maybe_applied: response.after_lost_answer,
            message: envelope.error.message,
        });
    }
    Err(ApiError::Api {
        status,
        code: envelope.error.code,
        message: envelope.error.message,
        details: envelope.error.details,
    })
}

fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    match text.char_indices().nth(BODY_EXCERPT_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.into_owned(),
    }
}

/// An id for a path segment: `.` and `..` would be resolved away by URL rules, and an empty
/// one would name the list.
pub(crate) fn checked_id(id: &str) -> Result<&str, ApiError> {
    if id.is_empty() || id == "." || id == ".." {
        return Err(ApiError::Invalid(format!("{id:?} is not a resource id")));
    }
    Ok(id)
}

/// A request body as JSON; a value that cannot be JSON (a map with non-string keys, say) is
/// refused before anything is sent.
pub(crate) fn json_body(value: &impl Serialize) -> Result<Vec<u8>, ApiError> {
    serde_json::to_vec(value).map_err(|error| ApiError::Invalid(error.to_string()))
}

pub(crate) fn check_idempotency_key(key: &str) -> Result<(), ApiError> {
    let visible_ascii = key.bytes().all(|byte| byte.is_ascii_graphic());
    if key.is_empty() || key.len() > 255 || !visible_ascii {
        return Err(ApiError::Invalid(
            "an Idempotency-Key is 1 to 255 visible ASCII characters".to_owned(),
        ));
    }
    Ok(())
}
