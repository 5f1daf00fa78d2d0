//! `parlour healthcheck`: asks a running server whether it is ready, for a container's
//! `HEALTHCHECK` (the runtime image has no curl, and needs none).

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// How long the whole check may take before the server counts as unhealthy.
pub const TIMEOUT: Duration = Duration::from_secs(3);

/// Why a server did not count as ready.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// Nothing answered at the address.
    #[error("cannot reach {0}: {1}")]
    Unreachable(String, std::io::Error),
    /// It answered, but not `200` on `/readyz`.
    #[error("{0} is not ready: {1}")]
    NotReady(String, String),
    /// No answer within `TIMEOUT`.
    #[error("{0} did not answer within {TIMEOUT:?}")]
    TimedOut(String),
}

/// The address to call for a server listening on `listen`: a wildcard listener (`0.0.0.0`,
/// `[::]`) is reached on the loopback address of its family.
pub fn local_address(listen: &str) -> String {
    if let Some(port) = listen.strip_prefix("0.0.0.0:") {
        format!("127.0.0.1:{port}")
    } else if let Some(port) = listen.strip_prefix("[::]:") {
        format!("[::1]:{port}")
    } else {
        listen.to_string()
    }
}

/// `GET /readyz` on the server at `address` (host:port): `Ok` when it answers 200.
pub async fn ready(address: &str) -> Result<(), ProbeError> {
    tokio::time::timeout(TIMEOUT, ask(address))
        .await
        .map_err(|_| ProbeError::TimedOut(address.to_string()))?
}

async fn ask(address: &str) -> Result<(), ProbeError> {
    let unreachable = |e| ProbeError::Unreachable(address.to_string(), e);
    let mut stream = TcpStream::connect(address).await.map_err(unreachable)?;
    let request = format!("GET /readyz HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
    stream
        .write_all(request.as_bytes())
        .await
        .map_err(unreachable)?;
    // The status line is all that is needed, and it comes first.
    let mut head = [0u8; 64];
    let mut read = 0;
    while read < head.len() {
        let n = stream.read(&mut head[read..]).await.map_err(unreachable)?;
        if n == 0 {
            break;
        }
        read += n;
        if head[..read].contains(&b'\n') {
            break;
        }
    }
    let status_line = String::from_utf8_lossy(&head[..read]);
    let status_line = status_line
        .lines()
        .next()
        .unwrap_or_default()
        .trim()
        .to_string();
    match status_line.split_whitespace().nth(1) {
        Some("200") => Ok(()),
        _ => Err(ProbeError::NotReady(address.to_string(), status_line)),
    }
}

#[cfg(test)]
mod tests {
    use super::local_address;

    #[test]
    fn a_wildcard_listener_is_probed_on_loopback() {
        assert_eq!(local_address("0.0.0.0:8080"), "127.0.0.1:8080");
        assert_eq!(local_address("[::]:8080"), "[::1]:8080");
        assert_eq!(local_address("127.0.0.1:9000"), "127.0.0.1:9000");
    }
}
