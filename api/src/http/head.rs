//! `HEAD` on every route that answers `GET` (RFC 9110 §9.3.2: a general-purpose server must
//! support it). The request is routed as the `GET` it stands for, so it passes the same
//! checks and gets the same status and headers; the connection then sends the head alone
//! (actix-http writes no body to a `HEAD`, and keeps the `Content-Length` a sized body
//! gives). A streaming answer (an event stream, a long-poll) is ended at once instead of
//! being held open for a body that is never sent.

use actix_web::body::{self, BodySize, EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::middleware::Next;
use actix_web::Error;

/// Routes a `HEAD` as its `GET`.
pub async fn as_get(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody, body::None>>, Error> {
    let head = req.method() == Method::HEAD;
    if head {
        req.head_mut().method = Method::GET;
    }
    let response = next.call(req).await?;
    Ok(response.map_body(|_, body| {
        if head && matches!(body.size(), BodySize::Stream) {
            EitherBody::right(body::None::new())
        } else {
            EitherBody::left(body)
        }
    }))
}
