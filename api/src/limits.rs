//! The server's resource limits: how long a game's log may grow, how many event streams may be
//! open, and the process's open-file limit.
//!
//! A stream holds a connection (one file descriptor) for as long as the client likes, so
//! without a cap one client can open streams until the process runs out of descriptors and
//! nobody else can connect. Streams are therefore counted per seat token, per client address
//! and in total; a stream over a cap is refused at once, before any database work.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

/// The most events one game's log may hold. Far beyond any real game (a British Birds series
/// to the largest allowed `play_to` stays well under it); it bounds what one game can cost to
/// store, to replay into memory and to audit. A move that would pass it is refused.
pub const MAX_EVENTS_PER_GAME: u64 = 100_000;

/// Descriptors kept back from the stream cap for everything else: ordinary requests, the
/// database pool, the listener, log files.
const RESERVED_FILES: u64 = 1_024;

/// How many event streams may be open at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamLimits {
    /// Per seat token (a seat rarely needs more than a few devices).
    pub per_token: usize,
    /// Per client IP address (many players may share one address behind NAT).
    pub per_client: usize,
    /// In the whole server.
    pub total: usize,
}

impl StreamLimits {
    /// The default cap per token.
    pub const DEFAULT_PER_TOKEN: usize = 16;
    /// The default cap per client address.
    pub const DEFAULT_PER_CLIENT: usize = 512;
    /// The default cap in total.
    pub const DEFAULT_TOTAL: usize = 10_000;

    /// The same limits with the total lowered, if need be, to fit in `open_files`
    /// descriptors with `RESERVED_FILES` kept back, so streams alone can never exhaust them.
    pub fn fitted_to(self, open_files: u64) -> Self {
        let room = open_files.saturating_sub(RESERVED_FILES).max(1);
        let room = usize::try_from(room).unwrap_or(usize::MAX);
        StreamLimits {
            total: self.total.min(room),
            ..self
        }
    }
}

impl Default for StreamLimits {
    fn default() -> Self {
        StreamLimits {
            per_token: Self::DEFAULT_PER_TOKEN,
            per_client: Self::DEFAULT_PER_CLIENT,
            total: Self::DEFAULT_TOTAL,
        }
    }
}

/// Which cap refused a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum StreamRefused {
    /// This token already has its share of streams.
    #[error("this seat token already has {0} streams open; close one first")]
    PerToken(usize),
    /// This client address already has its share of streams.
    #[error("your address already has {0} streams open; close one first")]
    PerClient(usize),
    /// The server has as many streams as it will hold.
    #[error("the server has {0} streams open, as many as it holds; try again later")]
    Total(usize),
}

#[derive(Debug, Default)]
struct Counts {
    total: usize,
    per_token: HashMap<String, usize>,
    per_client: HashMap<IpAddr, usize>,
}

/// Counts open streams against `StreamLimits`.
#[derive(Debug)]
pub struct StreamGate {
    limits: StreamLimits,
    counts: Arc<Mutex<Counts>>,
}

impl StreamGate {
    /// A gate with nothing open yet.
    pub fn new(limits: StreamLimits) -> Self {
        StreamGate {
            limits,
            counts: Arc::new(Mutex::new(Counts::default())),
        }
    }

    /// The limits in force.
    pub fn limits(&self) -> StreamLimits {
        self.limits
    }

    /// Takes a slot for a stream from `client` with `token` (if any); the slot is given back
    /// when the permit is dropped, that is when the stream ends or its client goes away.
    pub fn admit(
        &self,
        token: Option<&str>,
        client: IpAddr,
    ) -> Result<StreamPermit, StreamRefused> {
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        if counts.total >= self.limits.total {
            return Err(StreamRefused::Total(self.limits.total));
        }
        if counts.per_client.get(&client).copied().unwrap_or(0) >= self.limits.per_client {
            return Err(StreamRefused::PerClient(self.limits.per_client));
        }
        if let Some(token) = token {
            if counts.per_token.get(token).copied().unwrap_or(0) >= self.limits.per_token {
                return Err(StreamRefused::PerToken(self.limits.per_token));
            }
            *counts.per_token.entry(token.to_string()).or_insert(0) += 1;
        }
        *counts.per_client.entry(client).or_insert(0) += 1;
        counts.total += 1;
        Ok(StreamPermit {
            counts: self.counts.clone(),
            token: token.map(str::to_string),
            client,
        })
    }

    /// How many streams are open.
    pub fn open(&self) -> usize {
        self.counts.lock().unwrap_or_else(|e| e.into_inner()).total
    }
}

/// One open stream's slot; dropping it frees the slot.
#[derive(Debug)]
pub struct StreamPermit {
    counts: Arc<Mutex<Counts>>,
    token: Option<String>,
    client: IpAddr,
}

fn release<K: std::hash::Hash + Eq>(map: &mut HashMap<K, usize>, key: &K) {
    if let Some(count) = map.get_mut(key) {
        *count = count.saturating_sub(1);
        if *count == 0 {
            // Forget the key altogether, so the maps only hold clients with streams open.
            map.remove(key);
        }
    }
}

impl Drop for StreamPermit {
    fn drop(&mut self) {
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        counts.total = counts.total.saturating_sub(1);
        release(&mut counts.per_client, &self.client);
        if let Some(token) = &self.token {
            release(&mut counts.per_token, token);
        }
    }
}

/// Raises the soft limit on open files to the hard limit (a server holding thousands of
/// streams needs far more than the usual 1,024) and returns the limit now in force.
pub fn raise_open_file_limit() -> std::io::Result<u64> {
    rlimit::increase_nofile_limit(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(last: u8) -> IpAddr {
        IpAddr::from([10, 0, 0, last])
    }

    #[test]
    fn each_cap_refuses_the_stream_past_it_and_a_dropped_permit_frees_its_slot() {
        let gate = StreamGate::new(StreamLimits {
            per_token: 2,
            per_client: 3,
            total: 4,
        });
        let a1 = gate.admit(Some("a"), ip(1)).unwrap();
        let _a2 = gate.admit(Some("a"), ip(1)).unwrap();
        assert_eq!(
            gate.admit(Some("a"), ip(2)).unwrap_err(),
            StreamRefused::PerToken(2)
        );
        let _b1 = gate.admit(Some("b"), ip(1)).unwrap();
        assert_eq!(
            gate.admit(None, ip(1)).unwrap_err(),
            StreamRefused::PerClient(3)
        );
        let _c = gate.admit(None, ip(2)).unwrap();
        assert_eq!(
            gate.admit(None, ip(3)).unwrap_err(),
            StreamRefused::Total(4)
        );
        assert_eq!(gate.open(), 4);
        drop(a1);
        assert_eq!(gate.open(), 3);
        let _a3 = gate.admit(Some("a"), ip(1)).unwrap();
    }

    #[test]
    fn the_total_is_lowered_to_fit_the_open_file_limit() {
        let limits = StreamLimits::default();
        assert_eq!(limits.fitted_to(1_048_576), limits);
        assert_eq!(
            limits.fitted_to(4_096).total,
            4_096 - usize::try_from(RESERVED_FILES).unwrap()
        );
        assert_eq!(limits.fitted_to(100).total, 1);
    }

    #[test]
    fn the_open_file_limit_can_be_raised_to_the_hard_limit() {
        let raised = raise_open_file_limit().unwrap();
        let (soft, hard) = rlimit::getrlimit(rlimit::Resource::NOFILE).unwrap();
        assert_eq!(soft, raised);
        assert!(soft <= hard);
    }
}
