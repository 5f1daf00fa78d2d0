//! Files embedded in the binary (the web client's page, script, style and icon; the API
//! documentation's assets), sent as a client asks: brotli or gzip when it accepts them,
//! compressed once on first asking, each representation with its own strong `ETag` so a
//! revalidation answers 304. They are the same public bytes for everyone, so compressing
//! them reveals nothing (unlike an answer holding a secret beside what a client sends, BREACH).

use std::io::Write;
use std::sync::OnceLock;

use actix_web::http::header::{self, EntityTag, Header, IfNoneMatch};
use actix_web::{HttpRequest, HttpResponse};
use sha2::{Digest, Sha256};

/// A content coding this server can send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Coding {
    Identity,
    Gzip,
    Brotli,
}

impl Coding {
    /// The `Content-Encoding` token, and the suffix that keeps its `ETag` apart.
    fn token(self) -> Option<&'static str> {
        match self {
            Coding::Identity => None,
            Coding::Gzip => Some("gzip"),
            Coding::Brotli => Some("br"),
        }
    }
}

/// One representation: its bytes (none for the identity, which is the asset's own) and tag.
struct Representation {
    bytes: Option<Vec<u8>>,
    tag: EntityTag,
}

/// The three representations, made on first asking.
struct Encoded {
    identity: Representation,
    gzip: Option<Representation>,
    brotli: Option<Representation>,
}

/// One embedded file.
pub struct Asset {
    body: &'static [u8],
    content_type: &'static str,
    cache_control: &'static str,
    encoded: OnceLock<Encoded>,
}

impl Asset {
    /// A file sent with this `Content-Type` and `Cache-Control`.
    pub const fn new(
        body: &'static str,
        content_type: &'static str,
        cache_control: &'static str,
    ) -> Self {
        Self::binary(body.as_bytes(), content_type, cache_control)
    }

    /// An asset that is not text (an image).
    pub const fn binary(
        body: &'static [u8],
        content_type: &'static str,
        cache_control: &'static str,
    ) -> Self {
        Asset {
            body,
            content_type,
            cache_control,
            encoded: OnceLock::new(),
        }
    }

    fn encoded(&self) -> &Encoded {
        self.encoded.get_or_init(|| {
            let digest = hex::encode(&Sha256::digest(self.body)[..16]);
            let tagged = |coding: Coding, bytes: Option<Vec<u8>>| Representation {
                bytes,
                tag: EntityTag::new_strong(match coding.token() {
                    Some(token) => format!("{digest}.{token}"),
                    None => digest.clone(),
                }),
            };
            // Compressing in memory does not fail; if it somehow did, only the bytes it
            // would have saved are lost: the file goes as it is.
            Encoded {
                identity: tagged(Coding::Identity, None),
                gzip: gzip(self.body).map(|bytes| tagged(Coding::Gzip, Some(bytes))),
                brotli: brotli(self.body).map(|bytes| tagged(Coding::Brotli, Some(bytes))),
            }
        })
    }

    /// The file in the coding the client prefers, or 304 when its copy is that one.
    /// `extra` headers go on both answers (a page's security policy, say).
    pub fn serve(
        &self,
        req: &HttpRequest,
        extra: &[(header::HeaderName, &'static str)],
    ) -> HttpResponse {
        let encoded = self.encoded();
        let accepted = req
            .headers()
            .get(header::ACCEPT_ENCODING)
            .and_then(|value| value.to_str().ok())
            .map(accepted_codings)
            .unwrap_or_default();
        let (coding, chosen) = [
            (Coding::Brotli, encoded.brotli.as_ref()),
            (Coding::Gzip, encoded.gzip.as_ref()),
        ]
        .into_iter()
        .find_map(|(coding, representation)| {
            representation
                .filter(|_| accepted.contains(&coding))
                .map(|representation| (coding, representation))
        })
        .unwrap_or((Coding::Identity, &encoded.identity));
        let fresh = match req
            .headers()
            .get(header::IF_NONE_MATCH)
            .map(|_| IfNoneMatch::parse(req))
        {
            Some(Ok(IfNoneMatch::Any)) => true,
            Some(Ok(IfNoneMatch::Items(tags))) => tags.iter().any(|t| t.weak_eq(&chosen.tag)),
            _ => false,
        };
        let mut response = if fresh {
            HttpResponse::NotModified()
        } else {
            HttpResponse::Ok()
        };
        response
            .insert_header((header::ETAG, chosen.tag.clone()))
            .insert_header((header::CACHE_CONTROL, self.cache_control))
            .insert_header((header::VARY, "Accept-Encoding"));
        for (name, value) in extra {
            response.insert_header((name.clone(), *value));
        }
        if fresh {
            return response.finish();
        }
        if let Some(token) = coding.token() {
            response.insert_header((header::CONTENT_ENCODING, token));
        }
        response.content_type(self.content_type);
        match &chosen.bytes {
            Some(bytes) => response.body(bytes.clone()),
            None => response.body(self.body),
        }
    }
}

/// The codings an `Accept-Encoding` value accepts: named (or `*`) without `q=0`.
fn accepted_codings(value: &str) -> Vec<Coding> {
    let mut codings = Vec::new();
    for item in value.split(',') {
        let mut parts = item.split(';').map(str::trim);
        let name = parts.next().unwrap_or_default();
        let refused = parts.any(|param| {
            param
                .strip_prefix("q=")
                .and_then(|q| q.trim().parse::<f32>().ok())
                .is_some_and(|q| q <= 0.0)
        });
        if refused {
            continue;
        }
        if name.eq_ignore_ascii_case("br") {
            codings.push(Coding::Brotli);
        } else if name.eq_ignore_ascii_case("gzip") || name.eq_ignore_ascii_case("x-gzip") {
            codings.push(Coding::Gzip);
        } else if name == "*" {
            codings.extend([Coding::Brotli, Coding::Gzip]);
        }
    }
    codings
}

fn gzip(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(bytes).ok()?;
    encoder.finish().ok()
}

fn brotli(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    // Quality 9 with a 4 MiB window: within a few per cent of 11 on these files, and quick
    // enough (well under a second for the 1.9 MB of the docs) to make on first asking.
    let params = brotli::enc::BrotliEncoderParams {
        quality: 9,
        lgwin: 22,
        ..Default::default()
    };
    brotli::BrotliCompress(&mut &bytes[..], &mut out, &params).ok()?;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_gets_brotli_or_gzip_only_when_it_accepts_them() {
        assert_eq!(
            accepted_codings("gzip, deflate, br"),
            vec![Coding::Gzip, Coding::Brotli]
        );
        assert_eq!(accepted_codings("br;q=0, gzip;q=0.5"), vec![Coding::Gzip]);
        assert_eq!(accepted_codings("GZIP;q=0.0"), vec![]);
        assert_eq!(accepted_codings("identity"), vec![]);
        assert_eq!(accepted_codings("*"), vec![Coding::Brotli, Coding::Gzip]);
        assert_eq!(accepted_codings("br, gzip; q=0.0"), vec![Coding::Brotli]);
        assert_eq!(accepted_codings("gzipped, brotli"), vec![]);
    }

    #[test]
    fn both_compressed_forms_give_back_the_file() {
        use std::io::Read;
        let text = "a played card moves where it goes ".repeat(200);
        let gz = gzip(text.as_bytes()).unwrap();
        let mut unzipped = String::new();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_string(&mut unzipped)
            .unwrap();
        assert_eq!(unzipped, text);
        let br = brotli(text.as_bytes()).unwrap();
        let mut unbrotlied = Vec::new();
        brotli::BrotliDecompress(&mut &br[..], &mut unbrotlied).unwrap();
        assert_eq!(unbrotlied, text.as_bytes());
        assert!(br.len() < text.len() / 10 && gz.len() < text.len() / 10);
    }
}
