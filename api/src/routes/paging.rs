//! One way to page every list that grows (the log, the checkpoints, the inbox's history, the
//! notices, a webhook's deliveries): the request takes `cursor` (a page's `next`, opaque) and
//! `limit`; the answer has `next` (null on the last page) and, while there is a next page, a
//! `Link: <…>; rel="next"` header holding the same request with `cursor` set. The older names
//! (`after`, `before`) still work, as the same thing as `cursor`.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponseBuilder};

use crate::error::{ApiError, Problem};

/// `limit`, or `default` when absent; a 400 outside 1 to `most`.
pub fn limit(limit: Option<u64>, default: u64, most: u64) -> Result<u64, ApiError> {
    let limit = limit.unwrap_or(default);
    if (1..=most).contains(&limit) {
        Ok(limit)
    } else {
        Err(ApiError::new(
            Problem::MalformedRequest,
            format!("`limit` must be between 1 and {most}"),
        ))
    }
}

/// The cursor asked for: `cursor`, or else the older name of the same thing. When both are
/// sent, `cursor` is the one followed (a client moving to the new name may keep sending the
/// old one; the document cannot forbid sending both, so neither does the server).
pub fn cursor<'a>(cursor: Option<&'a str>, older: Option<&'a str>) -> Option<&'a str> {
    cursor.or(older)
}

/// A cursor that is a position in a numbered list (the log's sequence numbers, the
/// checkpoints'): at most 2⁶³ − 1, as the stores keep them.
pub fn position(cursor: Option<&str>) -> Result<Option<u64>, ApiError> {
    let Some(text) = cursor else { return Ok(None) };
    text.parse::<u64>()
        .ok()
        .filter(|n| i64::try_from(*n).is_ok())
        .map(Some)
        .ok_or_else(|| {
            ApiError::new(
                Problem::MalformedRequest,
                format!("`cursor` is the `next` of an earlier page, not {text:?}"),
            )
        })
}

/// A cursor that is the id of the last row of an earlier page (the inbox's history, the open
/// tables): ids are time-ordered, so the next page is the rows before it.
pub fn id_cursor(cursor: Option<&str>) -> Result<Option<uuid::Uuid>, ApiError> {
    let Some(text) = cursor else { return Ok(None) };
    text.parse::<uuid::Uuid>().map(Some).map_err(|_| {
        ApiError::new(
            Problem::MalformedRequest,
            format!("`cursor` is the `next` of an earlier page, not {text:?}"),
        )
    })
}

/// A `game` filter: a catalogue id, as the document's pattern says, which no other text can
/// name (one the catalogue does not have simply matches nothing).
pub fn game_filter(game: Option<&str>) -> Result<(), ApiError> {
    let Some(game) = game else { return Ok(()) };
    let id_like = (1..=64).contains(&game.len())
        && game
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-');
    if id_like {
        Ok(())
    } else {
        Err(ApiError::new(
            Problem::MalformedRequest,
            "`game` must be a catalogue id: 1 to 64 lowercase letters, digits, `_` or `-`",
        ))
    }
}

/// Adds `Link: <request with cursor=next>; rel="next"` when there is a next page: the
/// request's own path and query, its paging parameters replaced.
pub fn link_next(response: &mut HttpResponseBuilder, request: &HttpRequest, next: Option<&str>) {
    let Some(next) = next else { return };
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    for (name, value) in url::form_urlencoded::parse(request.query_string().as_bytes()) {
        if !matches!(name.as_ref(), "cursor" | "after" | "before") {
            query.append_pair(&name, &value);
        }
    }
    query.append_pair("cursor", next);
    let link = format!("<{}?{}>; rel=\"next\"", request.path(), query.finish());
    response.insert_header((header::LINK, link));
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;
    use actix_web::HttpResponse;

    #[test]
    fn the_next_link_is_the_same_request_with_the_cursor_replaced() {
        let request = TestRequest::get()
            .uri("/v1/me/games?status=finished&after=x&limit=5&cursor=old")
            .to_http_request();
        let mut response = HttpResponse::Ok();
        link_next(&mut response, &request, Some("a b&c"));
        let response = response.finish();
        assert_eq!(
            response.headers().get(header::LINK).unwrap(),
            "</v1/me/games?status=finished&limit=5&cursor=a+b%26c>; rel=\"next\""
        );
        let mut last = HttpResponse::Ok();
        link_next(&mut last, &request, None);
        assert!(last.finish().headers().get(header::LINK).is_none());
    }

    #[test]
    fn a_limit_outside_its_range_is_refused_and_cursor_wins_over_its_older_name() {
        assert_eq!(limit(None, 20, 100).unwrap(), 20);
        assert!(limit(Some(0), 20, 100).is_err());
        assert!(limit(Some(101), 20, 100).is_err());
        assert_eq!(cursor(Some("7"), Some("8")), Some("7"));
        assert_eq!(cursor(None, Some("7")), Some("7"));
        assert_eq!(cursor(None, None), None);
    }
}
