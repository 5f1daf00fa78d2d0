//! Rate limits per seat token and per client address.
//!
//! Each key (a bearer token as sent, a client address) has a token bucket of `Quota::requests`
//! that refills evenly over `Quota::per` (a minute, from the flags): a client may send a burst
//! of the whole quota, then one request per `per / requests`. The bucket is kept as the
//! generic cell rate algorithm's one number per key (the time at which the bucket will be full
//! again), so a check is a hash lookup and two additions. A request past either limit is
//! answered `429` `/problems/rate-limited` with `Retry-After`; every limited answer carries
//! the IETF draft's fields (draft-ietf-httpapi-ratelimit-headers-10): `RateLimit-Policy`, each
//! limit that applies to it (`"token";q=1200;w=60, "client";q=12000;w=60`), and `RateLimit`,
//! how each stands (`"token";r=1199;t=0, …`: requests left, and seconds until one more is). The
//! earlier draft's `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (seconds until
//! the bucket is full) are sent beside them for whichever bucket has fewer requests left, for
//! the clients written against it. A request answered `304 Not Modified` is given back to its
//! token's bucket (GitHub does not count them either): a client revalidating what it holds
//! should not be pushed towards fetching whole answers instead. Its address's bucket keeps it,
//! so a loop of revalidations from one address is still stopped.
//!
//! The buckets live in this instance's memory: with N instances behind a balancer a client
//! may send N times the quota. Memory is bounded: the keys are kept in two generations, the
//! current one and the one before; a generation is retired when it holds `max_keys / 2` keys
//! or is a whole `per` old, and the one before it is forgotten. A key forgotten after a whole
//! `per` idle had a full bucket anyway; one forgotten early (a flood of made-up tokens filled
//! the table) just starts again with a full bucket, which errs on the side of the client. A
//! key in use keeps being moved into the current generation, so a flood cannot free the
//! flooder's own bucket. Made-up tokens are charged to their client's bucket first, and a
//! client refused there never gets a token bucket at all. IPv6 clients are counted by their
//! /64 network, which is what one customer usually holds.
//!
//! Sign-in attempts (a sign-in code redeemed, a passkey ceremony begun or finished: the
//! `SIGN_IN_PATHS`) are charged a third bucket besides, per client address and much smaller
//! (`--sign-ins-per-minute`): whoever tries codes or floods ceremonies from one address is
//! stopped long before the address's general quota would stop them.
//!
//! Time is an input (`Clock`): the tests move a fake clock instead of sleeping.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, RandomState};
use std::net::{IpAddr, Ipv6Addr};
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderMap, HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{web, Error, HttpResponse};

use crate::error::{ApiError, Problem};

/// Requests a minute one seat token may send, by default: a busy player (or bot) moving and
/// reading twenty times a second is not troubled.
pub const DEFAULT_PER_TOKEN: u32 = 1_200;
/// Requests a minute one client address may send, by default: room for many players behind
/// one NAT address.
pub const DEFAULT_PER_CLIENT: u32 = 12_000;
/// The period a quota refills over when set by the flags.
pub const WINDOW: Duration = Duration::from_secs(60);
/// The most keys each table (tokens, clients) remembers, by default.
pub const DEFAULT_MAX_KEYS: usize = 100_000;
/// Sign-in attempts a minute one client address may make, by default: a person signing in on
/// a few devices, getting a passkey wrong twice, is not troubled; a guesser is.
pub const DEFAULT_SIGN_INS_PER_CLIENT: u32 = 10;
/// The routes that are sign-in attempts (no token needed, a credential tried).
pub const SIGN_IN_PATHS: &[&str] = &[
    "/v1/accounts/sign-in",
    "/v1/accounts/email-sign-in",
    "/v1/accounts/passkey-challenges",
    "/v1/accounts/passkey-sign-in",
    "/oauth/token",
];
/// Operational endpoints are never limited: a flood must not make a balancer's health check
/// or a monitoring scrape fail.
pub const UNLIMITED_PATHS: &[&str] = &["/healthz", "/readyz", "/metrics"];

/// `RateLimit-Policy`: each limit that applies to the request (the draft's current field).
pub const RATELIMIT_POLICY: HeaderName = HeaderName::from_static("ratelimit-policy");
/// `RateLimit`: how each of those limits stands (the draft's current field).
pub const RATELIMIT: HeaderName = HeaderName::from_static("ratelimit");
/// `RateLimit-Limit`: the quota of the bucket reported.
pub const RATELIMIT_LIMIT: HeaderName = HeaderName::from_static("ratelimit-limit");
/// `RateLimit-Remaining`: requests left in it now.
pub const RATELIMIT_REMAINING: HeaderName = HeaderName::from_static("ratelimit-remaining");
/// `RateLimit-Reset`: seconds until it is full again.
pub const RATELIMIT_RESET: HeaderName = HeaderName::from_static("ratelimit-reset");

/// How many requests a key may send over a period.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quota {
    /// The bucket's size: requests allowed in a burst, and over each `per`.
    pub requests: u32,
    /// How long an empty bucket takes to fill.
    pub per: Duration,
}

impl Quota {
    /// `requests` a minute; 0 means no limit (`None`).
    pub fn per_minute(requests: u32) -> Option<Quota> {
        (requests > 0).then_some(Quota {
            requests,
            per: WINDOW,
        })
    }

    /// The time one request's share takes to come back.
    fn interval(&self) -> Duration {
        (self.per / self.requests.max(1)).max(Duration::from_nanos(1))
    }
}

/// A range of addresses (`10.0.0.7`, `10.0.0.0/8`, `fd00::/8`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AddressRange {
    network: IpAddr,
    prefix: u8,
}

impl AddressRange {
    /// Whether `ip` is in the range.
    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.network, ip.to_canonical()) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                masked(u128::from(u32::from(net)), 32, self.prefix)
                    == masked(u128::from(u32::from(ip)), 32, self.prefix)
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                masked(u128::from(net), 128, self.prefix)
                    == masked(u128::from(ip), 128, self.prefix)
            }
            _ => false,
        }
    }
}

/// The top `prefix` bits of a `width`-bit address.
fn masked(bits: u128, width: u8, prefix: u8) -> u128 {
    let host_bits = width.saturating_sub(prefix);
    if host_bits >= 128 {
        0
    } else {
        (bits >> host_bits) << host_bits
    }
}

impl FromStr for AddressRange {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        let (address, prefix) = match text.split_once('/') {
            Some((address, prefix)) => (address, Some(prefix)),
            None => (text, None),
        };
        let network: IpAddr = address
            .parse()
            .map_err(|_| format!("{text:?} is not an IP address or ADDRESS/PREFIX"))?;
        let network = network.to_canonical();
        let width = if network.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            None => width,
            Some(prefix) => prefix
                .parse::<u8>()
                .ok()
                .filter(|p| *p <= width)
                .ok_or_else(|| format!("{text:?}: the prefix must be 0 to {width}"))?,
        };
        Ok(AddressRange { network, prefix })
    }
}

/// The limits in force, and whose forwarded-for header is believed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateLimitSettings {
    /// Per bearer token (`None`: not limited).
    pub per_token: Option<Quota>,
    /// Per client address (`None`: not limited).
    pub per_client: Option<Quota>,
    /// Sign-in attempts per client address (`None`: not limited beyond `per_client`).
    pub sign_ins: Option<Quota>,
    /// Proxies whose `X-Forwarded-For` names the client; empty (the default): the client is
    /// the connection's peer, since anyone can send the header.
    pub trusted_proxies: Vec<AddressRange>,
    /// The most keys each table remembers.
    pub max_keys: usize,
}

impl RateLimitSettings {
    /// No limit at all (benchmarks, tests).
    pub fn off() -> Self {
        RateLimitSettings {
            per_token: None,
            per_client: None,
            sign_ins: None,
            ..RateLimitSettings::default()
        }
    }
}

impl Default for RateLimitSettings {
    fn default() -> Self {
        RateLimitSettings {
            per_token: Quota::per_minute(DEFAULT_PER_TOKEN),
            per_client: Quota::per_minute(DEFAULT_PER_CLIENT),
            sign_ins: Quota::per_minute(DEFAULT_SIGN_INS_PER_CLIENT),
            trusted_proxies: Vec::new(),
            max_keys: DEFAULT_MAX_KEYS,
        }
    }
}

/// Where the limiter reads the time: since some fixed moment of the clock's own choosing.
pub trait Clock: Send + Sync {
    /// The time elapsed since the clock's origin; it never goes back.
    fn now(&self) -> Duration;
}

/// The monotonic system clock.
#[derive(Debug)]
pub struct SystemClock(Instant);

impl Default for SystemClock {
    fn default() -> Self {
        SystemClock(Instant::now())
    }
}

impl Clock for SystemClock {
    fn now(&self) -> Duration {
        self.0.elapsed()
    }
}

/// Where a key's bucket stands after a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Standing {
    /// Whose bucket it is: the policy's name in `RateLimit-Policy` and `RateLimit`.
    pub policy: Limited,
    /// The bucket's quota.
    pub limit: u32,
    /// The time the quota refills over.
    pub window: Duration,
    /// Requests it may still send at once.
    pub remaining: u64,
    /// How long until its bucket is full again.
    pub reset: Duration,
    /// How long until it may send one more than `remaining` (zero when it is full).
    pub next: Duration,
}

impl Standing {
    /// How `quota`'s bucket stands when its "full again" time is `used` from now.
    fn of(policy: Limited, quota: Quota, used: Duration) -> Standing {
        let interval = quota.interval();
        let left = quota.per.saturating_sub(used).as_nanos() / interval.as_nanos().max(1);
        let remaining = u64::try_from(left)
            .unwrap_or(u64::MAX)
            .min(u64::from(quota.requests));
        // One more is there once `used` has fallen to what `remaining + 1` requests leave.
        let next = if remaining >= u64::from(quota.requests) {
            Duration::ZERO
        } else {
            let room = interval.saturating_mul(u32::try_from(remaining + 1).unwrap_or(u32::MAX));
            used.saturating_sub(quota.per.saturating_sub(room))
        };
        Standing {
            policy,
            limit: quota.requests,
            window: quota.per,
            remaining,
            reset: used,
            next,
        }
    }
}

/// How every bucket a request was charged to stands after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Standings {
    /// The token's bucket, if a token was sent and tokens are limited.
    pub token: Option<Standing>,
    /// The client address's bucket, if addresses are limited.
    pub client: Option<Standing>,
    /// The client address's sign-in bucket, if the request is a sign-in attempt.
    pub sign_in: Option<Standing>,
}

impl Standings {
    /// The one with fewer requests left (on a tie, the smaller quota).
    pub fn tightest(&self) -> Option<Standing> {
        self.each()
            .fold(None, |tightest, one| Some(tighter(tightest, one)))
    }

    fn each(&self) -> impl Iterator<Item = Standing> {
        self.token
            .into_iter()
            .chain(self.client)
            .chain(self.sign_in)
    }
}

/// Which limit refused a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limited {
    /// The seat token's.
    Token,
    /// The client address's.
    Client,
    /// The client address's sign-in attempts'.
    SignIn,
}

impl Limited {
    /// The policy's name in the `RateLimit-Policy` and `RateLimit` fields.
    pub fn policy(self) -> &'static str {
        match self {
            Limited::Token => "token",
            Limited::Client => "client",
            Limited::SignIn => "sign-in",
        }
    }
}

/// What the limiter says about one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// No limit applies to it.
    Unlimited,
    /// It may go ahead; its buckets stand so.
    Allowed(Standings),
    /// It is refused until `retry_after` has passed.
    Refused {
        /// The bucket that refused it.
        by: Limited,
        /// How that bucket stands.
        standing: Standing,
        /// How long until it would be allowed.
        retry_after: Duration,
    },
}

/// The keys of one kind, in two generations (see the module's comment).
#[derive(Debug)]
struct Buckets<K> {
    /// Whose buckets these are.
    policy: Limited,
    quota: Quota,
    max_keys: usize,
    /// Each key's "full again" time, for keys used in this generation.
    current: HashMap<K, Duration>,
    /// The same for keys used in the one before and not since.
    previous: HashMap<K, Duration>,
    /// When this generation began.
    since: Duration,
}

impl<K: Hash + Eq> Buckets<K> {
    fn new(policy: Limited, quota: Quota, max_keys: usize, now: Duration) -> Self {
        Buckets {
            policy,
            quota,
            max_keys: max_keys.max(2),
            current: HashMap::new(),
            previous: HashMap::new(),
            since: now,
        }
    }

    /// Charges one request to `key` at `now` if its bucket has room.
    fn take(&mut self, key: K, now: Duration) -> Result<Standing, (Standing, Duration)> {
        if self.current.len() >= self.max_keys / 2
            || now.saturating_sub(self.since) >= self.quota.per
        {
            self.previous = std::mem::take(&mut self.current);
            self.since = now;
        }
        let full_at = match self.current.get(&key) {
            Some(at) => *at,
            None => self.previous.remove(&key).unwrap_or(now),
        };
        let interval = self.quota.interval();
        let start = full_at.max(now);
        let used = start + interval - now;
        if used > self.quota.per {
            // Refused requests cost nothing, so a client that waits `retry_after` gets in.
            self.current.insert(key, full_at);
            let standing = Standing::of(self.policy, self.quota, start - now);
            return Err((standing, used - self.quota.per));
        }
        self.current.insert(key, start + interval);
        Ok(Standing::of(self.policy, self.quota, used))
    }

    /// Gives back the request last charged to `key` (its answer was a 304), and how its
    /// bucket stands then. A key no longer tracked had a full bucket anyway.
    fn give_back(&mut self, key: &K, now: Duration) -> Standing {
        let interval = self.quota.interval();
        let full_at = match self.current.get_mut(key) {
            Some(at) => at,
            None => match self.previous.get_mut(key) {
                Some(at) => at,
                None => return Standing::of(self.policy, self.quota, Duration::ZERO),
            },
        };
        *full_at = full_at.saturating_sub(interval);
        Standing::of(self.policy, self.quota, full_at.saturating_sub(now))
    }

    fn len(&self) -> usize {
        self.current.len() + self.previous.len()
    }
}

/// How many keys the limiter holds and how many requests it refused: for `/metrics`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LimiterCounts {
    /// Tokens with a bucket in memory.
    pub tokens: usize,
    /// Client addresses with a bucket in memory.
    pub clients: usize,
    /// Requests refused by a token's limit since start.
    pub refused_by_token: u64,
    /// Requests refused by a client address's limit since start.
    pub refused_by_client: u64,
    /// Client addresses with a sign-in bucket in memory.
    pub sign_in_clients: usize,
    /// Sign-in attempts refused by a client address's sign-in limit since start.
    pub refused_by_sign_in: u64,
}

/// The rate limits of one instance.
pub struct RateLimiter {
    clock: Arc<dyn Clock>,
    trusted_proxies: Vec<AddressRange>,
    tokens: Option<Mutex<Buckets<u64>>>,
    clients: Option<Mutex<Buckets<IpAddr>>>,
    sign_ins: Option<Mutex<Buckets<IpAddr>>>,
    /// Tokens are remembered by a keyed hash, so a long token costs no more memory than a
    /// short one, and nobody can choose tokens that collide.
    hasher: RandomState,
    refused_by_token: AtomicU64,
    refused_by_client: AtomicU64,
    refused_by_sign_in: AtomicU64,
}

impl std::fmt::Debug for RateLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimiter")
            .field("counts", &self.counts())
            .finish_non_exhaustive()
    }
}

impl RateLimiter {
    /// A limiter on the system clock.
    pub fn new(settings: &RateLimitSettings) -> Self {
        Self::with_clock(settings, Arc::new(SystemClock::default()))
    }

    /// A limiter reading the time from `clock`.
    pub fn with_clock(settings: &RateLimitSettings, clock: Arc<dyn Clock>) -> Self {
        let now = clock.now();
        RateLimiter {
            trusted_proxies: settings.trusted_proxies.clone(),
            tokens: table(Limited::Token, settings.per_token, settings.max_keys, now),
            clients: table(Limited::Client, settings.per_client, settings.max_keys, now),
            sign_ins: table(Limited::SignIn, settings.sign_ins, settings.max_keys, now),
            clock,
            hasher: RandomState::new(),
            refused_by_token: AtomicU64::new(0),
            refused_by_client: AtomicU64::new(0),
            refused_by_sign_in: AtomicU64::new(0),
        }
    }

    /// Whether no limit is in force.
    pub fn is_off(&self) -> bool {
        self.tokens.is_none() && self.clients.is_none() && self.sign_ins.is_none()
    }

    /// Charges a request from `client` with `token` (if any): the client's bucket first, so a
    /// client refused there never makes a token bucket; then, for a sign-in attempt, the
    /// client's sign-in bucket.
    pub fn check(&self, token: Option<&str>, client: IpAddr, sign_in: bool) -> Verdict {
        let now = self.clock.now();
        let mut standings = Standings::default();
        if let Some(clients) = &self.clients {
            let mut clients = clients.lock().unwrap_or_else(|e| e.into_inner());
            match clients.take(client_key(client), now) {
                Ok(standing) => standings.client = Some(standing),
                Err((standing, retry_after)) => {
                    self.refused_by_client.fetch_add(1, Ordering::Relaxed);
                    return Verdict::Refused {
                        by: Limited::Client,
                        standing,
                        retry_after,
                    };
                }
            }
        }
        if let (Some(sign_ins), true) = (&self.sign_ins, sign_in) {
            let mut sign_ins = sign_ins.lock().unwrap_or_else(|e| e.into_inner());
            match sign_ins.take(client_key(client), now) {
                Ok(standing) => standings.sign_in = Some(standing),
                Err((standing, retry_after)) => {
                    self.refused_by_sign_in.fetch_add(1, Ordering::Relaxed);
                    return Verdict::Refused {
                        by: Limited::SignIn,
                        standing,
                        retry_after,
                    };
                }
            }
        }
        if let (Some(tokens), Some(token)) = (&self.tokens, token) {
            let key = self.hasher.hash_one(token);
            let mut tokens = tokens.lock().unwrap_or_else(|e| e.into_inner());
            match tokens.take(key, now) {
                Ok(standing) => standings.token = Some(standing),
                Err((standing, retry_after)) => {
                    self.refused_by_token.fetch_add(1, Ordering::Relaxed);
                    return Verdict::Refused {
                        by: Limited::Token,
                        standing,
                        retry_after,
                    };
                }
            }
        }
        if standings.tightest().is_some() {
            Verdict::Allowed(standings)
        } else {
            Verdict::Unlimited
        }
    }

    /// Gives back to `token`'s bucket a request [`RateLimiter::check`] allowed, whose answer
    /// was a 304: how the bucket stands then (`None` with no token, or tokens unlimited). The
    /// client address's bucket keeps the request: it is what stops a flood, and a flood of
    /// revalidations costs the server a lookup each.
    pub fn give_back(&self, token: Option<&str>) -> Option<Standing> {
        let (Some(tokens), Some(token)) = (&self.tokens, token) else {
            return None;
        };
        let key = self.hasher.hash_one(token);
        let mut tokens = tokens.lock().unwrap_or_else(|e| e.into_inner());
        Some(tokens.give_back(&key, self.clock.now()))
    }

    /// The client a request comes from: the connection's peer, or, when the peer is a trusted
    /// proxy, the last address in `X-Forwarded-For` that is not one of the trusted proxies
    /// (each proxy appends the address it was reached from, so only the right-hand end of the
    /// list is vouched for).
    pub fn client_address(&self, peer: Option<IpAddr>, headers: &HeaderMap) -> IpAddr {
        let peer = peer.map_or(IpAddr::from([0, 0, 0, 0]), |p| p.to_canonical());
        let trusted = |ip: IpAddr| self.trusted_proxies.iter().any(|r| r.contains(ip));
        if !trusted(peer) {
            return peer;
        }
        let hops: Vec<&str> = headers
            .get_all(HeaderName::from_static("x-forwarded-for"))
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .collect();
        let mut client = peer;
        for hop in hops.iter().rev() {
            match hop.parse::<IpAddr>() {
                Ok(ip) => {
                    client = ip.to_canonical();
                    if !trusted(client) {
                        break;
                    }
                }
                // What a trusted proxy did not write cannot be believed: stop at the last
                // address it did.
                Err(_) => break,
            }
        }
        client
    }

    /// How many keys it holds and how many requests it refused.
    pub fn counts(&self) -> LimiterCounts {
        LimiterCounts {
            tokens: tracked(&self.tokens),
            clients: tracked(&self.clients),
            refused_by_token: self.refused_by_token.load(Ordering::Relaxed),
            refused_by_client: self.refused_by_client.load(Ordering::Relaxed),
            sign_in_clients: tracked(&self.sign_ins),
            refused_by_sign_in: self.refused_by_sign_in.load(Ordering::Relaxed),
        }
    }
}

/// A table of `policy`'s buckets for `quota`, if there is one.
fn table<K: Hash + Eq>(
    policy: Limited,
    quota: Option<Quota>,
    max_keys: usize,
    now: Duration,
) -> Option<Mutex<Buckets<K>>> {
    quota.map(|q| Mutex::new(Buckets::new(policy, q, max_keys, now)))
}

/// How many keys a table holds.
fn tracked<K: Hash + Eq>(table: &Option<Mutex<Buckets<K>>>) -> usize {
    table
        .as_ref()
        .map_or(0, |t| t.lock().unwrap_or_else(|e| e.into_inner()).len())
}

/// The tighter of two standings: fewer requests left, or on a tie the smaller quota.
fn tighter(this: Option<Standing>, other: Standing) -> Standing {
    match this {
        Some(this) if (this.remaining, this.limit) <= (other.remaining, other.limit) => this,
        _ => other,
    }
}

/// The key a client is counted under: IPv4 addresses alone, IPv6 addresses by their /64.
fn client_key(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V6(v6) => IpAddr::V6(Ipv6Addr::from(masked(u128::from(v6), 128, 64))),
        v4 => v4,
    }
}

/// Whole seconds, rounded up: a client told to wait 0 seconds would try again at once.
fn seconds_up(duration: Duration) -> u64 {
    duration.as_secs() + u64::from(duration.subsec_nanos() > 0)
}

/// Writes `RateLimit-Policy` and `RateLimit` for every bucket in `standings`, and the earlier
/// draft's `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` for the tightest.
fn write_standings(standings: &Standings, headers: &mut HeaderMap) {
    let Some(tightest) = standings.tightest() else {
        return;
    };
    let policies: Vec<String> = standings
        .each()
        .map(|s| {
            format!(
                "\"{}\";q={};w={}",
                s.policy.policy(),
                s.limit,
                seconds_up(s.window).max(1)
            )
        })
        .collect();
    let limits: Vec<String> = standings
        .each()
        .map(|s| {
            format!(
                "\"{}\";r={};t={}",
                s.policy.policy(),
                s.remaining,
                seconds_up(s.next)
            )
        })
        .collect();
    // Made only of names, digits and punctuation, so always a valid field value.
    if let Ok(value) = HeaderValue::from_str(&policies.join(", ")) {
        headers.insert(RATELIMIT_POLICY, value);
    }
    if let Ok(value) = HeaderValue::from_str(&limits.join(", ")) {
        headers.insert(RATELIMIT, value);
    }
    headers.insert(RATELIMIT_LIMIT, HeaderValue::from(tightest.limit));
    headers.insert(RATELIMIT_REMAINING, HeaderValue::from(tightest.remaining));
    headers.insert(
        RATELIMIT_RESET,
        HeaderValue::from(seconds_up(tightest.reset)),
    );
}

/// The bearer token of a request, as sent (not checked: that needs the database).
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim_start().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// The answer to a request past a limit.
fn refusal(by: Limited, standing: &Standing, retry_after: Duration) -> HttpResponse {
    let wait = seconds_up(retry_after).max(1);
    let detail = match by {
        Limited::Token => format!(
            "this token has sent its {} requests for now; try again in {wait} s",
            standing.limit
        ),
        Limited::Client => format!(
            "your address has sent its {} requests for now; try again in {wait} s",
            standing.limit
        ),
        Limited::SignIn => format!(
            "your address has made its {} sign-in attempts for now; try again in {wait} s",
            standing.limit
        ),
    };
    let mut response = HttpResponse::from_error(ApiError::new(Problem::RateLimited, detail));
    let headers = response.headers_mut();
    let standings = match by {
        Limited::Token => Standings {
            token: Some(*standing),
            ..Standings::default()
        },
        Limited::Client => Standings {
            client: Some(*standing),
            ..Standings::default()
        },
        Limited::SignIn => Standings {
            sign_in: Some(*standing),
            ..Standings::default()
        },
    };
    write_standings(&standings, headers);
    headers.insert(header::RETRY_AFTER, HeaderValue::from(wait));
    response
}

/// Charges each request to its token and client address, refusing what is past a limit and
/// telling every limited answer how its bucket stands.
pub async fn limit(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, Error> {
    let limiter = req.app_data::<web::Data<RateLimiter>>().cloned();
    let Some(limiter) = limiter.filter(|l| !l.is_off() && !UNLIMITED_PATHS.contains(&req.path()))
    else {
        return Ok(next.call(req).await?.map_into_left_body());
    };
    let client = limiter.client_address(req.peer_addr().map(|a| a.ip()), req.headers());
    let token = bearer(req.headers()).map(str::to_string);
    let sign_in = SIGN_IN_PATHS.contains(&req.path());
    let verdict = limiter.check(token.as_deref(), client, sign_in);
    match verdict {
        Verdict::Unlimited => Ok(next.call(req).await?.map_into_left_body()),
        Verdict::Allowed(standings) => {
            let mut res = next.call(req).await?;
            let standings = if res.status() == actix_web::http::StatusCode::NOT_MODIFIED {
                Standings {
                    token: limiter.give_back(token.as_deref()).or(standings.token),
                    ..standings
                }
            } else {
                standings
            };
            write_standings(&standings, res.headers_mut());
            Ok(res.map_into_left_body())
        }
        Verdict::Refused {
            by,
            standing,
            retry_after,
        } => {
            let response = refusal(by, &standing, retry_after);
            Ok(req.into_response(response).map_into_right_body())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A clock the test moves by hand.
    #[derive(Default)]
    struct FakeClock(Mutex<Duration>);

    impl FakeClock {
        fn advance(&self, by: Duration) {
            *self.0.lock().unwrap() += by;
        }
    }

    impl Clock for FakeClock {
        fn now(&self) -> Duration {
            *self.0.lock().unwrap()
        }
    }

    fn limiter(per_token: u32, per_client: u32) -> (RateLimiter, Arc<FakeClock>) {
        let clock = Arc::new(FakeClock::default());
        let settings = RateLimitSettings {
            per_token: Quota::per_minute(per_token),
            per_client: Quota::per_minute(per_client),
            sign_ins: None,
            ..RateLimitSettings::default()
        };
        (RateLimiter::with_clock(&settings, clock.clone()), clock)
    }

    fn ip(last: u8) -> IpAddr {
        IpAddr::from([10, 0, 0, last])
    }

    fn allowed(verdict: Verdict) -> Standing {
        match verdict {
            Verdict::Allowed(standings) => standings.tightest().unwrap(),
            other => panic!("expected allowed, got {other:?}"),
        }
    }

    #[test]
    fn a_full_bucket_allows_its_quota_at_once_then_refuses() {
        let (limiter, _) = limiter(0, 3);
        let remaining: Vec<u64> = (0..3)
            .map(|_| allowed(limiter.check(None, ip(1), false)).remaining)
            .collect();
        assert_eq!(remaining, [2, 1, 0]);
        let Verdict::Refused {
            by,
            standing,
            retry_after,
        } = limiter.check(None, ip(1), false)
        else {
            panic!("the fourth request was not refused");
        };
        assert_eq!(by, Limited::Client);
        assert_eq!(standing.remaining, 0);
        assert_eq!(standing.limit, 3);
        // One request's share (60 s / 3) comes back 20 s after the first was taken.
        assert_eq!(retry_after, Duration::from_secs(20));
        assert_eq!(standing.reset, Duration::from_secs(60));
    }

    #[test]
    fn a_request_given_back_leaves_its_tokens_bucket_as_it_was_and_its_address_charged() {
        let (limiter, clock) = limiter(2, 3);
        let before = allowed(limiter.check(Some("t"), ip(1), false));
        assert_eq!((before.limit, before.remaining), (2, 1));
        clock.advance(Duration::from_secs(5));
        let charged = allowed(limiter.check(Some("t"), ip(1), false));
        assert_eq!(charged.remaining, 0);
        let given_back = limiter.give_back(Some("t")).unwrap();
        assert_eq!((given_back.limit, given_back.remaining), (2, 1));
        // As if the second request had never come to the token: its next is allowed (its
        // last). The address kept all three, so a fourth from it is refused.
        assert_eq!(allowed(limiter.check(Some("t"), ip(1), false)).remaining, 0);
        assert!(matches!(
            limiter.check(None, ip(1), false),
            Verdict::Refused {
                by: Limited::Client,
                ..
            }
        ));
        // No token, nothing to give back; a token nobody charged has a full bucket.
        assert_eq!(limiter.give_back(None), None);
        assert_eq!(limiter.give_back(Some("u")).unwrap().remaining, 2);
    }

    #[test]
    fn a_standing_says_when_one_more_request_is_there() {
        let (limiter, clock) = limiter(0, 3);
        let first = allowed(limiter.check(None, ip(1), false));
        assert_eq!(first.policy, Limited::Client);
        assert_eq!(first.window, Duration::from_secs(60));
        // One request's share (20 s) comes back 20 s after it was taken, filling the bucket.
        assert_eq!((first.remaining, first.next), (2, Duration::from_secs(20)));
        clock.advance(Duration::from_secs(5));
        allowed(limiter.check(None, ip(1), false));
        let third = allowed(limiter.check(None, ip(1), false));
        assert_eq!(third.remaining, 0);
        assert_eq!(
            third.next,
            Duration::from_secs(15),
            "the first share is back at 20 s"
        );
        assert_eq!(
            third.reset,
            Duration::from_secs(55),
            "all three are back at 60 s"
        );
        let untouched = allowed(limiter.check(None, ip(2), false));
        assert_eq!(
            (untouched.remaining, untouched.next),
            (2, Duration::from_secs(20))
        );
    }

    #[test]
    fn the_bucket_refills_one_request_per_interval() {
        let (limiter, clock) = limiter(0, 3);
        for _ in 0..3 {
            allowed(limiter.check(None, ip(1), false));
        }
        clock.advance(Duration::from_secs(19));
        assert!(
            matches!(limiter.check(None, ip(1), false), Verdict::Refused { retry_after, .. } if retry_after == Duration::from_secs(1))
        );
        clock.advance(Duration::from_secs(1));
        assert_eq!(allowed(limiter.check(None, ip(1), false)).remaining, 0);
        clock.advance(Duration::from_secs(60));
        let standing = allowed(limiter.check(None, ip(1), false));
        assert_eq!(standing.remaining, 2);
        assert_eq!(standing.reset, Duration::from_secs(20));
    }

    #[test]
    fn refused_requests_cost_nothing() {
        let (limiter, clock) = limiter(0, 1);
        allowed(limiter.check(None, ip(1), false));
        for _ in 0..100 {
            assert!(matches!(
                limiter.check(None, ip(1), false),
                Verdict::Refused { .. }
            ));
        }
        clock.advance(Duration::from_secs(60));
        allowed(limiter.check(None, ip(1), false));
    }

    #[test]
    fn a_token_past_its_limit_is_refused_while_other_tokens_and_clients_go_on() {
        let (limiter, _) = limiter(2, 100);
        allowed(limiter.check(Some("a"), ip(1), false));
        allowed(limiter.check(Some("a"), ip(1), false));
        assert!(matches!(
            limiter.check(Some("a"), ip(2), false),
            Verdict::Refused {
                by: Limited::Token,
                ..
            }
        ));
        allowed(limiter.check(Some("b"), ip(1), false));
        allowed(limiter.check(None, ip(1), false));
        assert_eq!(limiter.counts().refused_by_token, 1);
    }

    #[test]
    fn the_answer_reports_the_tighter_bucket() {
        let (limiter, _) = limiter(5, 100);
        let standing = allowed(limiter.check(Some("a"), ip(1), false));
        assert_eq!((standing.limit, standing.remaining), (5, 4));
        let standing = allowed(limiter.check(None, ip(1), false));
        assert_eq!((standing.limit, standing.remaining), (100, 98));
    }

    #[test]
    fn a_client_refused_makes_no_token_bucket() {
        let (limiter, _) = limiter(10, 1);
        allowed(limiter.check(Some("t0"), ip(1), false));
        for i in 1..50 {
            let token = format!("t{i}");
            assert!(matches!(
                limiter.check(Some(&token), ip(1), false),
                Verdict::Refused {
                    by: Limited::Client,
                    ..
                }
            ));
        }
        assert_eq!(limiter.counts().tokens, 1);
    }

    #[test]
    fn no_quota_means_no_limit() {
        let (limiter, _) = limiter(0, 0);
        assert!(limiter.is_off());
        for _ in 0..1000 {
            assert_eq!(limiter.check(Some("a"), ip(1), false), Verdict::Unlimited);
        }
        assert_eq!(Quota::per_minute(0), None);
    }

    #[test]
    fn a_flood_of_made_up_tokens_keeps_the_table_bounded_and_the_flooder_limited() {
        let clock = Arc::new(FakeClock::default());
        let settings = RateLimitSettings {
            per_token: Quota::per_minute(2),
            per_client: None,
            max_keys: 1_000,
            ..RateLimitSettings::default()
        };
        let limiter = RateLimiter::with_clock(&settings, clock.clone());
        allowed(limiter.check(Some("real"), ip(1), false));
        allowed(limiter.check(Some("real"), ip(1), false));
        for i in 0..50_000 {
            let _ = limiter.check(Some(&format!("fake-{i}")), ip(2), false);
            if i % 100 == 0 {
                // A key in use stays remembered, so its bucket stays empty.
                assert!(matches!(
                    limiter.check(Some("real"), ip(1), false),
                    Verdict::Refused { .. }
                ));
            }
            assert!(limiter.counts().tokens <= 1_000);
        }
    }

    #[test]
    fn an_idle_key_is_forgotten_once_its_bucket_would_be_full_anyway() {
        let (limiter, clock) = limiter(0, 3);
        for _ in 0..3 {
            allowed(limiter.check(None, ip(1), false));
        }
        clock.advance(Duration::from_secs(61));
        allowed(limiter.check(None, ip(2), false));
        clock.advance(Duration::from_secs(61));
        allowed(limiter.check(None, ip(3), false));
        assert_eq!(limiter.counts().clients, 2, "ip(1) is still remembered");
        assert_eq!(allowed(limiter.check(None, ip(1), false)).remaining, 2);
    }

    #[test]
    fn ipv6_clients_are_counted_by_their_64_bit_network() {
        let (limiter, _) = limiter(0, 2);
        let a: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        let elsewhere: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        allowed(limiter.check(None, a, false));
        allowed(limiter.check(None, b, false));
        assert!(matches!(
            limiter.check(None, a, false),
            Verdict::Refused { .. }
        ));
        allowed(limiter.check(None, elsewhere, false));
        let mapped: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
        assert_eq!(client_key(mapped), ip(1));
    }

    fn forwarded(values: &[&str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(
                HeaderName::from_static("x-forwarded-for"),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        headers
    }

    #[test]
    fn x_forwarded_for_is_believed_only_from_a_trusted_proxy() {
        let settings = RateLimitSettings {
            trusted_proxies: vec!["10.0.0.0/24".parse().unwrap()],
            ..RateLimitSettings::default()
        };
        let limiter = RateLimiter::new(&settings);
        let headers = forwarded(&["203.0.113.9, 198.51.100.7"]);
        let proxy = Some(ip(5));
        assert_eq!(
            limiter.client_address(proxy, &headers),
            "198.51.100.7".parse::<IpAddr>().unwrap()
        );
        let stranger: IpAddr = "192.0.2.1".parse().unwrap();
        assert_eq!(limiter.client_address(Some(stranger), &headers), stranger);
        // Proxies of our own on the way are skipped; the first address before them is the
        // client's.
        let headers = forwarded(&["203.0.113.9", "198.51.100.7, 10.0.0.3"]);
        assert_eq!(
            limiter.client_address(proxy, &headers),
            "198.51.100.7".parse::<IpAddr>().unwrap()
        );
        // What cannot be read stops the walk at the last address a trusted proxy wrote.
        let headers = forwarded(&["198.51.100.7, garbage, 10.0.0.3"]);
        assert_eq!(limiter.client_address(proxy, &headers), ip(3));
        assert_eq!(limiter.client_address(proxy, &HeaderMap::new()), ip(5));
        let untrusting = RateLimiter::new(&RateLimitSettings::default());
        assert_eq!(
            untrusting.client_address(proxy, &forwarded(&["198.51.100.7"])),
            ip(5)
        );
    }

    #[test]
    fn address_ranges_parse_and_match() {
        let range: AddressRange = "10.1.0.0/16".parse().unwrap();
        assert!(range.contains("10.1.200.3".parse().unwrap()));
        assert!(!range.contains("10.2.0.1".parse().unwrap()));
        assert!(range.contains("::ffff:10.1.0.1".parse().unwrap()));
        let one: AddressRange = "192.0.2.1".parse().unwrap();
        assert!(one.contains("192.0.2.1".parse().unwrap()));
        assert!(!one.contains("192.0.2.2".parse().unwrap()));
        let v6: AddressRange = "fd00::/8".parse().unwrap();
        assert!(v6.contains("fd12::1".parse().unwrap()));
        assert!(!v6.contains("10.1.0.1".parse().unwrap()));
        let all: AddressRange = "0.0.0.0/0".parse().unwrap();
        assert!(all.contains("8.8.8.8".parse().unwrap()));
        for bad in ["10.0.0.0/33", "not-an-address", "10.0.0.0/", "::/129"] {
            assert!(bad.parse::<AddressRange>().is_err(), "{bad}");
        }
    }

    #[test]
    fn the_bearer_token_is_read_as_sent_in_any_case_of_the_scheme() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("bEaReR  abc "),
        );
        assert_eq!(bearer(&headers), Some("abc"));
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Basic abc"));
        assert_eq!(bearer(&headers), None);
    }

    #[test]
    fn waits_are_rounded_up_to_whole_seconds() {
        assert_eq!(seconds_up(Duration::from_millis(1)), 1);
        assert_eq!(seconds_up(Duration::from_secs(2)), 2);
        assert_eq!(seconds_up(Duration::from_millis(2_001)), 3);
        assert_eq!(seconds_up(Duration::ZERO), 0);
    }
}
