//! The counts served at `GET /metrics`, in the Prometheus text format (version 0.0.4).
//!
//! Requests are counted by method, route pattern and status, and timed by method and route
//! pattern. The route is the pattern a request matched (`/v1/games/{id}`), or `unmatched`,
//! never the raw path, and methods outside the standard ones are `other`: whatever clients
//! send, the number of series stays bounded by the routes the server has. Everything else is
//! read when the page is asked for, from where it is kept (the service, the store, the stream
//! gate, the rate limiter). All of it is this instance's: sum over instances in the query.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::time::Duration;

use actix_web::http::Method;

use crate::http::rate_limit::LimiterCounts;
use crate::store::StoreErrorCounts;

/// The content type of the text format.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Upper bounds of the latency histogram's buckets, in seconds: from a cached read (about a
/// millisecond) to the longest long-poll (60 s).
pub const BUCKETS: [f64; 15] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
];

/// One method on one route.
#[derive(Debug, Default)]
struct RouteStats {
    /// Answers by status.
    statuses: BTreeMap<u16, u64>,
    /// Requests by the first bucket their time fits in (the last slot: over every bound).
    buckets: [u64; BUCKETS.len() + 1],
    /// Seconds taken, in all.
    seconds: f64,
}

/// Request counts and times, kept as requests end.
#[derive(Debug, Default)]
pub struct Metrics {
    routes: Mutex<BTreeMap<String, BTreeMap<&'static str, RouteStats>>>,
}

/// What the rest of the server holds at the moment `/metrics` is asked for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// Moves this instance recorded since it started.
    pub moves_recorded: u64,
    /// Commits this instance wrote for moves (a group commit holds several).
    pub commit_groups: u64,
    /// Appends in those commits.
    pub commit_group_appends: u64,
    /// Games held in memory.
    pub games_cached: usize,
    /// Of those, games not over.
    pub games_active: usize,
    /// What the games held in memory are estimated at, in bytes (`service::cache`).
    pub cache_bytes: usize,
    /// The budget they are kept within, in bytes.
    pub cache_budget_bytes: usize,
    /// The process's resident memory in bytes (Linux; 0 where it cannot be read).
    pub resident_bytes: u64,
    /// Store calls that failed.
    pub store_errors: StoreErrorCounts,
    /// Event streams open.
    pub streams_open: usize,
    /// The rate limiter's keys and refusals.
    pub limits: LimiterCounts,
}

/// The process's resident memory in bytes, from `/proc/self/status` (`VmRSS`): 0 where
/// there is no such file (not Linux) or it cannot be read.
pub fn resident_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kib * 1024)
        })
        .unwrap_or(0)
}

/// The method as a label: one of the standard methods, or `other`.
fn method_label(method: &Method) -> &'static str {
    const KNOWN: [(Method, &str); 9] = [
        (Method::GET, "GET"),
        (Method::HEAD, "HEAD"),
        (Method::POST, "POST"),
        (Method::PUT, "PUT"),
        (Method::PATCH, "PATCH"),
        (Method::DELETE, "DELETE"),
        (Method::OPTIONS, "OPTIONS"),
        (Method::CONNECT, "CONNECT"),
        (Method::TRACE, "TRACE"),
    ];
    KNOWN
        .iter()
        .find(|(known, _)| known == method)
        .map_or("other", |(_, label)| label)
}

/// A label value with `\`, `"` and line breaks escaped.
fn escaped(value: &str) -> String {
    value
        .replace('\\', r"\\")
        .replace('"', "\\\"")
        .replace('\n', r"\n")
}

impl Metrics {
    /// Counts one answered request.
    pub fn observe(&self, method: &Method, route: &str, status: u16, took: Duration) {
        let seconds = took.as_secs_f64();
        let bucket = BUCKETS
            .iter()
            .position(|bound| seconds <= *bound)
            .unwrap_or(BUCKETS.len());
        let mut routes = self.routes.lock().unwrap_or_else(|e| e.into_inner());
        if !routes.contains_key(route) {
            routes.insert(route.to_string(), BTreeMap::new());
        }
        let Some(methods) = routes.get_mut(route) else {
            return;
        };
        let stats = methods.entry(method_label(method)).or_default();
        *stats.statuses.entry(status).or_insert(0) += 1;
        stats.buckets[bucket] += 1;
        stats.seconds += seconds;
    }

    /// The whole page: the request counts and times, and `now`.
    pub fn render(&self, now: &Snapshot) -> String {
        let mut out = String::new();
        self.render_requests(&mut out);
        let mut family = |name: &str, kind: &str, help: &str, samples: &[(&str, u64)]| {
            let _ = writeln!(out, "# HELP {name} {help}");
            let _ = writeln!(out, "# TYPE {name} {kind}");
            for (labels, value) in samples {
                let _ = writeln!(out, "{name}{labels} {value}");
            }
        };
        let count = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
        family(
            "parlour_moves_recorded_total",
            "counter",
            "Moves this instance recorded since it started.",
            &[("", now.moves_recorded)],
        );
        family(
            "parlour_commit_groups_total",
            "counter",
            "Transactions that wrote moves; each may hold the moves of several games (group commit).",
            &[("", now.commit_groups)],
        );
        family(
            "parlour_commit_group_appends_total",
            "counter",
            "Moves written by those transactions: divided by parlour_commit_groups_total, the mean group.",
            &[("", now.commit_group_appends)],
        );
        family(
            "parlour_games_cached",
            "gauge",
            "Games held in this instance's memory.",
            &[("", count(now.games_cached))],
        );
        family(
            "parlour_games_active",
            "gauge",
            "Games held in memory that are not over.",
            &[("", count(now.games_active))],
        );
        family(
            "parlour_cache_bytes",
            "gauge",
            "What the games held in memory are estimated at, in bytes.",
            &[("", count(now.cache_bytes))],
        );
        family(
            "parlour_cache_budget_bytes",
            "gauge",
            "The estimate the games held in memory are kept within (--cache-budget-mb).",
            &[("", count(now.cache_budget_bytes))],
        );
        family(
            "parlour_resident_memory_bytes",
            "gauge",
            "The process's resident memory (VmRSS); divided by parlour_games_cached, the memory per cached game.",
            &[("", now.resident_bytes)],
        );
        family(
            "parlour_store_errors_total",
            "counter",
            "Store calls that failed: unavailable (the database did not answer in time) or fault (any other error).",
            &[
                ("{kind=\"unavailable\"}", now.store_errors.unavailable),
                ("{kind=\"fault\"}", now.store_errors.faults),
            ],
        );
        family(
            "parlour_streams_open",
            "gauge",
            "Event streams open now.",
            &[("", count(now.streams_open))],
        );
        family(
            "parlour_rate_limited_total",
            "counter",
            "Requests refused by a rate limit, by the limit that refused them.",
            &[
                ("{limit=\"token\"}", now.limits.refused_by_token),
                ("{limit=\"client\"}", now.limits.refused_by_client),
                ("{limit=\"sign-in\"}", now.limits.refused_by_sign_in),
            ],
        );
        family(
            "parlour_rate_limit_keys",
            "gauge",
            "Tokens and client addresses with a rate-limit bucket in memory.",
            &[
                ("{limit=\"token\"}", count(now.limits.tokens)),
                ("{limit=\"client\"}", count(now.limits.clients)),
                ("{limit=\"sign-in\"}", count(now.limits.sign_in_clients)),
            ],
        );
        out
    }

    fn render_requests(&self, out: &mut String) {
        let routes = self.routes.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(
            out,
            "# HELP parlour_http_requests_total Requests answered, by method, route pattern and status."
        );
        let _ = writeln!(out, "# TYPE parlour_http_requests_total counter");
        for (route, methods) in routes.iter() {
            let route = escaped(route);
            for (method, stats) in methods {
                for (status, n) in &stats.statuses {
                    let _ = writeln!(
                        out,
                        "parlour_http_requests_total{{method=\"{method}\",route=\"{route}\",status=\"{status}\"}} {n}"
                    );
                }
            }
        }
        let name = "parlour_http_request_duration_seconds";
        let _ = writeln!(
            out,
            "# HELP {name} Time from a request's arrival to its answer's head (a stream's first byte), by method and route pattern."
        );
        let _ = writeln!(out, "# TYPE {name} histogram");
        for (route, methods) in routes.iter() {
            let route = escaped(route);
            for (method, stats) in methods {
                let labels = format!("method=\"{method}\",route=\"{route}\"");
                let mut cumulative = 0;
                for (bound, n) in BUCKETS.iter().zip(&stats.buckets) {
                    cumulative += n;
                    let _ = writeln!(out, "{name}_bucket{{{labels},le=\"{bound}\"}} {cumulative}");
                }
                let total: u64 = stats.buckets.iter().sum();
                let _ = writeln!(out, "{name}_bucket{{{labels},le=\"+Inf\"}} {total}");
                let _ = writeln!(out, "{name}_sum{{{labels}}} {}", stats.seconds);
                let _ = writeln!(out, "{name}_count{{{labels}}} {total}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_counted_by_route_and_status_and_timed_in_cumulative_buckets() {
        let metrics = Metrics::default();
        let route = "/v1/games/{id}";
        metrics.observe(&Method::GET, route, 200, Duration::from_micros(500));
        metrics.observe(&Method::GET, route, 200, Duration::from_millis(20));
        metrics.observe(&Method::GET, route, 404, Duration::from_secs(100));
        let page = metrics.render(&Snapshot::default());
        let has = |line: &str| assert!(page.lines().any(|l| l == line), "no {line:?} in\n{page}");
        has(r#"parlour_http_requests_total{method="GET",route="/v1/games/{id}",status="200"} 2"#);
        has(r#"parlour_http_requests_total{method="GET",route="/v1/games/{id}",status="404"} 1"#);
        let bucket =
            r#"parlour_http_request_duration_seconds_bucket{method="GET",route="/v1/games/{id}","#;
        has(&format!(r#"{bucket}le="0.001"}} 1"#));
        has(&format!(r#"{bucket}le="0.01"}} 1"#));
        has(&format!(r#"{bucket}le="0.025"}} 2"#));
        has(&format!(r#"{bucket}le="60"}} 2"#));
        has(&format!(r#"{bucket}le="+Inf"}} 3"#));
        has(
            r#"parlour_http_request_duration_seconds_count{method="GET",route="/v1/games/{id}"} 3"#,
        );
    }

    #[test]
    fn odd_methods_share_one_label_and_label_values_are_escaped() {
        let metrics = Metrics::default();
        let odd = Method::from_bytes(b"BREW").unwrap();
        metrics.observe(&odd, "a\"b\\c\nd", 405, Duration::ZERO);
        let page = metrics.render(&Snapshot::default());
        assert!(
            page.contains(r#"{method="other",route="a\"b\\c\nd",status="405"} 1"#),
            "{page}"
        );
    }

    #[test]
    fn every_family_is_declared_once_with_help_and_type() {
        let page = Metrics::default().render(&Snapshot {
            moves_recorded: 7,
            streams_open: 2,
            ..Snapshot::default()
        });
        for name in [
            "parlour_http_requests_total",
            "parlour_http_request_duration_seconds",
            "parlour_moves_recorded_total",
            "parlour_commit_groups_total",
            "parlour_commit_group_appends_total",
            "parlour_games_cached",
            "parlour_games_active",
            "parlour_cache_bytes",
            "parlour_cache_budget_bytes",
            "parlour_resident_memory_bytes",
            "parlour_store_errors_total",
            "parlour_streams_open",
            "parlour_rate_limited_total",
            "parlour_rate_limit_keys",
        ] {
            assert_eq!(
                page.matches(&format!("# TYPE {name} ")).count(),
                1,
                "{name}"
            );
            assert_eq!(
                page.matches(&format!("# HELP {name} ")).count(),
                1,
                "{name}"
            );
        }
        assert!(
            page.contains("\nparlour_moves_recorded_total 7\n"),
            "{page}"
        );
        assert!(page.contains("\nparlour_streams_open 2\n"), "{page}");
    }
}
