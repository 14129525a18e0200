//! The ceilings of the benchmark. Ceiling A, the framework's (this module): the API's actix-web
//! server configuration answering fixed, pre-serialized bodies, with no authentication,
//! database or middleware. Ceiling B for SQLite, the database's: [`sqlite_ceiling`] (on
//! PostgreSQL, pgbench plays that part). And [`webhook_sink`], the receiver the webhook
//! fault scenario and benchmark deliver to.
//!
//! The benchmark captures a real endpoint's response body, serves the same bytes here and
//! drives both with the same load: the endpoint's throughput as a fraction of this one is the
//! share of the framework's capacity the API keeps after doing its work.

mod fixed_body;
pub mod sqlite_ceiling;
pub mod webhook_sink;

pub use fixed_body::{FixedBody, ParseFixedBodyError};

use std::io;
use std::net::TcpListener;

use actix_web::dev::Server;
use actix_web::http::header::ContentType;
use actix_web::{App, HttpResponse, web};
use shop_http::ServerOptions;

/// Serves every body at `GET /<name>` (200), `POST /<name>` (201) and `PATCH /<name>` (200),
/// the last two after reading the request body in full, as the API does. Anything else is a
/// 404 without a body.
///
/// Through `shop_http::serve_app`, the API's own server builder: the same workers, timeouts,
/// keep-alive and connection limits, so the ratio compares the work done, not two servers.
pub fn serve(
    listener: TcpListener,
    bodies: Vec<FixedBody>,
    options: ServerOptions,
) -> io::Result<Server> {
    shop_http::serve_app(listener, options, move || app(&bodies))
}

/// One App per worker, as `HttpServer` builds it; the bodies are shared, not copied.
pub fn app(
    bodies: &[FixedBody],
) -> App<
    impl actix_web::dev::ServiceFactory<
        actix_web::dev::ServiceRequest,
        Config = (),
        Response = actix_web::dev::ServiceResponse,
        Error = actix_web::Error,
        InitError = (),
    > + use<>,
> {
    bodies.iter().fold(App::new(), |app, fixed| {
        let get_body = fixed.body.clone();
        let post_body = fixed.body.clone();
        let patch_body = fixed.body.clone();
        app.service(
            web::resource(format!("/{}", fixed.name))
                .route(web::get().to(move || {
                    let body = get_body.clone();
                    async move {
                        HttpResponse::Ok()
                            .content_type(ContentType::json())
                            .body(body)
                    }
                }))
                .route(web::post().to(move |_request_body: web::Bytes| {
                    let body = post_body.clone();
                    async move {
                        HttpResponse::Created()
                            .content_type(ContentType::json())
                            .body(body)
                    }
                }))
                .route(web::patch().to(move |_request_body: web::Bytes| {
                    let body = patch_body.clone();
                    async move {
                        HttpResponse::Ok()
                            .content_type(ContentType::json())
                            .body(body)
                    }
                })),
        )
    })
}

#[cfg(test)]
mod tests {
    use actix_web::http::StatusCode;
    use actix_web::http::header::CONTENT_TYPE;
    use actix_web::test::{TestRequest, call_service, init_service, read_body};
    use actix_web::web::Bytes;

    use super::*;

    fn bodies() -> Vec<FixedBody> {
        vec![
            FixedBody {
                name: "me".to_owned(),
                body: Bytes::from_static(br#"{"data":{"shop":"s"}}"#),
            },
            FixedBody {
                name: "stock-adjustments".to_owned(),
                body: Bytes::from_static(b"{\"data\":{\"newStock\":7}}\n"),
            },
        ]
    }

    #[actix_web::test]
    async fn get_answers_the_given_bytes_as_json() {
        let service = init_service(app(&bodies())).await;
        let response = call_service(&service, TestRequest::get().uri("/me").to_request()).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(
            response.headers().get(CONTENT_TYPE).map(|v| v.as_bytes()),
            Some(&b"application/json"[..])
        );
        assert_eq!(read_body(response).await, r#"{"data":{"shop":"s"}}"#);
    }

    #[actix_web::test]
    async fn post_reads_the_request_and_answers_201_with_the_given_bytes() {
        let service = init_service(app(&bodies())).await;
        let request = TestRequest::post()
            .uri("/stock-adjustments")
            .insert_header((CONTENT_TYPE, "application/json"))
            .set_payload(r#"{"variantId":"v","quantity":1,"reason":"r"}"#)
            .to_request();
        let response = call_service(&service, request).await;
        assert_eq!(response.status(), StatusCode::CREATED);
        assert_eq!(
            response.headers().get(CONTENT_TYPE).map(|v| v.as_bytes()),
            Some(&b"application/json"[..])
        );
        assert_eq!(read_body(response).await, "{\"data\":{\"newStock\":7}}\n");
    }

    #[actix_web::test]
    async fn patch_reads_the_request_and_answers_200_with_the_given_bytes() {
        let service = init_service(app(&bodies())).await;
        let request = TestRequest::patch()
            .uri("/me")
            .insert_header((CONTENT_TYPE, "application/merge-patch+json"))
            .set_payload(r#"{"priceCents":4242}"#)
            .to_request();
        let response = call_service(&service, request).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(read_body(response).await, r#"{"data":{"shop":"s"}}"#);
    }

    #[actix_web::test]
    async fn unknown_names_are_not_found() {
        let service = init_service(app(&bodies())).await;
        let response = call_service(&service, TestRequest::get().uri("/orders").to_request()).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND);
    }

    #[test]
    fn no_worker_is_refused() {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let refused = serve(
            listener,
            bodies(),
            ServerOptions {
                workers: 0,
                ..ServerOptions::default()
            },
        );
        assert_eq!(
            refused.map(|_| ()).map_err(|e| e.kind()),
            Err(io::ErrorKind::InvalidInput)
        );
    }
}
