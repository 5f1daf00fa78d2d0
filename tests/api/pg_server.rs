//! The Postgres server the tests use, found or brought once per test binary, and the rule that
//! every test database on it is dropped when its test ends.
//!
//! Where the server comes from, in order:
//! 1. `DATABASE_URL`, when it names a Postgres: used as it is, after one quick check that it
//!    answers (a server that is down fails every Postgres test at once with what was tried,
//!    instead of each waiting out sqlx's 30 s connect timeout);
//! 2. a server on this machine that accepts a trust login as `postgres`, over TCP or its Unix
//!    socket (a developer's or CI machine set up that way);
//! 3. a private throwaway cluster: `initdb` and `pg_ctl` from the machine's Postgres server
//!    binaries, trust authentication on a Unix socket in a temporary directory only this run
//!    can reach, run as `nobody` when the tests run as root (Postgres refuses root), shared by
//!    the whole binary and stopped and removed when the binary exits, however it exits;
//! 4. a testcontainers Postgres, one per test, when Docker answers.
//!
//! With none of them, every Postgres test fails at once with one message saying what was tried
//! and what to install (a test is never skipped silently).

use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::helpers::Guard;

/// Where the tests look for a Postgres of the machine's own when `DATABASE_URL` names none:
/// TCP and the Debian Unix socket, user `postgres`, trust authentication.
pub const LOCAL_POSTGRES: [&str; 2] = [
    "postgres://postgres@127.0.0.1:5432/postgres",
    "postgres://postgres@localhost/postgres?host=/var/run/postgresql",
];

/// Where the Postgres tests get their databases, decided once per test binary.
#[derive(Debug)]
pub enum Source {
    /// A server that answers at this URL (named, local, or the private cluster's).
    Server(String),
    /// A private cluster of this run's own: its URL is `PrivateCluster::url`.
    Private(PrivateCluster),
    /// A new testcontainers Postgres for each test.
    Docker,
}

impl Source {
    /// A URL to the same database as `url` that can use TLS: `url` itself, but for the
    /// private cluster, whose `url` is a Unix socket, its TCP address.
    pub fn over_tcp(&self, url: &str) -> String {
        match self {
            Source::Private(cluster) => {
                crate::helpers::with_database(&cluster.tcp_url, &database_name(url))
            }
            _ => url.to_string(),
        }
    }

    /// The server's URL for its `postgres` database, when there is one server for the run.
    pub fn url(&self) -> Option<&str> {
        match self {
            Source::Server(url) => Some(url),
            Source::Private(cluster) => Some(&cluster.url),
            Source::Docker => None,
        }
    }
}

/// The search's answer for this test binary: the first test that needs Postgres finds it, and
/// every other test gets the same answer (the same server, or the same failure) at once.
pub fn source() -> Result<&'static Source, String> {
    static SOURCE: OnceLock<Result<Source, String>> = OnceLock::new();
    SOURCE
        .get_or_init(|| {
            // The search connects with sqlx, which needs a runtime; each test has its own and
            // this answer outlives them all, so it is found on a runtime of its own.
            on_own_runtime(|| async {
                let named = std::env::var("DATABASE_URL").ok();
                find_postgres(
                    named,
                    &LOCAL_POSTGRES,
                    PrivateCluster::start,
                    docker_answers,
                )
                .await
                .map_err(|tried| tried.to_string())
            })
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Runs `work` to the end on a new single-threaded runtime on a new thread: usable from inside
/// a test's runtime (where blocking on another future would panic) and from `Drop`.
pub fn on_own_runtime<F, Fut, T>(work: F) -> T
where
    F: FnOnce() -> Fut + Send,
    Fut: std::future::Future<Output = T>,
    T: Send,
{
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("a runtime for the Postgres harness")
                    .block_on(work())
            })
            .join()
            .expect("the Postgres harness's thread")
    })
}

/// The search itself, with the places to try given, so that each way it ends can be tested.
pub async fn find_postgres<P, D, DFut>(
    named: Option<String>,
    local: &[&str],
    private: P,
    docker: D,
) -> Result<Source, NoPostgres>
where
    P: FnOnce() -> Result<PrivateCluster, String>,
    D: FnOnce() -> DFut,
    DFut: std::future::Future<Output = Result<(), String>>,
{
    if let Some(url) = named.filter(|url| url.starts_with("postgres")) {
        return match answers(&url).await {
            Ok(()) => Ok(Source::Server(url)),
            Err(why) => Err(NoPostgres::NamedDown { url, why }),
        };
    }
    let mut refused = Vec::new();
    for url in local {
        match answers(url).await {
            Ok(()) => return Ok(Source::Server((*url).to_string())),
            Err(why) => refused.push(format!("{url} ({why})")),
        }
    }
    let private = match private() {
        Ok(cluster) => return Ok(Source::Private(cluster)),
        Err(why) => why,
    };
    match docker().await {
        Ok(()) => Ok(Source::Docker),
        Err(docker) => Err(NoPostgres::Nowhere {
            local: refused,
            private,
            docker,
        }),
    }
}

/// Whether a Postgres server accepts a login at `url` within a few seconds, and if not, why.
pub async fn answers(url: &str) -> Result<(), String> {
    use sqlx::Connection;
    // One connection, not a pool: a pool retries a refused connection until its timeout and
    // then reports only the timeout, where this says "connection refused" or "password
    // authentication failed".
    let connect = sqlx::PgConnection::connect(url);
    match tokio::time::timeout(Duration::from_secs(4), connect).await {
        Ok(Ok(connection)) => {
            let _ = connection.close().await;
            Ok(())
        }
        Ok(Err(error)) => Err(error.to_string()),
        Err(_) => Err("no answer within 4 s".to_string()),
    }
}

/// Why the Postgres half of the tests cannot run.
#[derive(Debug)]
pub enum NoPostgres {
    /// `DATABASE_URL` names a server that does not answer or refuses the login.
    NamedDown { url: String, why: String },
    /// No server anywhere: what each place said.
    Nowhere {
        local: Vec<String>,
        private: String,
        docker: String,
    },
}

impl std::fmt::Display for NoPostgres {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoPostgres::NamedDown { url, why } => write!(
                f,
                "the Postgres tests cannot use DATABASE_URL={url}: {why}. Start that server, \
                 correct the URL, or unset DATABASE_URL to let the tests find or start a \
                 Postgres of their own"
            ),
            NoPostgres::Nowhere {
                local,
                private,
                docker,
            } => write!(
                f,
                "the Postgres tests found no Postgres: DATABASE_URL names none; no local server \
                 accepted a trust login at {}; a private cluster could not be started ({private}); \
                 and Docker could not start one ({docker}). Install PostgreSQL's server binaries \
                 (Debian: apt-get install postgresql, which brings initdb and pg_ctl; no need to \
                 start or configure it), or set DATABASE_URL=postgres://…",
                local.join("; ")
            ),
        }
    }
}

/// Whether a Docker engine answers, so that testcontainers can start a Postgres per test.
async fn docker_answers() -> Result<(), String> {
    // Starting a container is the only check testcontainers offers; the first one is kept for
    // nothing and dropped (removed) at once.
    start_container().await.map(drop)
}

/// A testcontainers Postgres: its URL, and the container, removed when the guard goes.
pub async fn start_container() -> Result<(String, Guard), String> {
    use testcontainers_modules::postgres::Postgres;
    use testcontainers_modules::testcontainers::runners::AsyncRunner;
    let container = Postgres::default()
        .start()
        .await
        .map_err(|e| e.to_string())?;
    let port = container
        .get_host_port_ipv4(5432)
        .await
        .map_err(|e| e.to_string())?;
    Ok((
        format!("postgres://postgres:postgres@127.0.0.1:{port}/postgres"),
        Some(Arc::new(container)),
    ))
}

/// A throwaway Postgres cluster of this run's own, in a temporary directory.
///
/// Nothing in the process stops it: a static is never dropped, and a test binary may be
/// killed. A watchdog shell started beside it reads a pipe whose only writer is this process;
/// when the process ends, however it ends, the pipe closes and the watchdog stops the cluster
/// and removes its directory.
#[derive(Debug)]
pub struct PrivateCluster {
    /// `postgres://postgres@localhost:<port>/postgres?host=<dir>`: trust login on the socket
    /// in `dir`.
    pub url: String,
    /// The same server over TCP on 127.0.0.1 with a password, and TLS (a self-signed
    /// certificate, when `openssl` is there to make one).
    pub tcp_url: String,
    /// The temporary directory: the data, the socket, the log.
    pub dir: PathBuf,
    /// The write end of the watchdog's pipe: closing it stops the cluster.
    watchdog_pipe: Option<ChildStdin>,
    watchdog: Child,
}

impl PrivateCluster {
    /// Creates and starts a cluster, or says why it could not.
    pub fn start() -> Result<PrivateCluster, String> {
        let bin = server_binaries()?;
        let owner = unprivileged_owner()?;
        let dir = tempfile::Builder::new()
            .prefix("parlour-pg-")
            .tempdir()
            .map_err(|e| format!("no temporary directory: {e}"))?
            .keep();
        if let Some((uid, gid)) = owner {
            std::os::unix::fs::chown(&dir, Some(uid), Some(gid))
                .map_err(|e| format!("cannot give {} to uid {uid}: {e}", dir.display()))?;
        }
        let data = dir.join("data");
        let as_owner = |program: &Path| {
            use std::os::unix::process::CommandExt;
            let mut command = Command::new(program);
            command.stdin(Stdio::null()).current_dir(&dir);
            if let Some((uid, gid)) = owner {
                command.uid(uid).gid(gid);
            }
            command
        };

        // The watchdog first, so that even a failed start leaves nothing behind. It has its own
        // process group: a Ctrl-C at the terminal must not kill it before it cleans up (the
        // pipe's end tells it when to), and it ignores the signals a terminal sends.
        let script = "trap '' INT TERM HUP; cat >/dev/null; \
                      \"$1\" -D \"$2\" -m immediate stop; rm -rf \"$3\"";
        let mut watchdog = {
            use std::os::unix::process::CommandExt;
            as_owner(Path::new("sh"))
                .args(["-c", script, "sh"])
                .arg(bin.join("pg_ctl"))
                .arg(&data)
                .arg(&dir)
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .process_group(0)
                .spawn()
                .map_err(|e| format!("cannot start the cluster's watchdog: {e}"))?
        };
        let watchdog_pipe = watchdog.stdin.take();
        let mut cluster = PrivateCluster {
            url: format!(
                "postgres://postgres@localhost/postgres?host={}",
                dir.display()
            ),
            tcp_url: String::new(),
            dir: dir.clone(),
            watchdog_pipe,
            watchdog,
        };

        // Trust on the socket, which only this run can reach; a password over TCP, which is
        // there for the one test that needs TLS (Postgres has no TLS on a Unix socket).
        let password = uuid::Uuid::new_v4().simple().to_string();
        let password_file = dir.join("password");
        std::fs::write(&password_file, &password)
            .map_err(|e| format!("cannot write {}: {e}", password_file.display()))?;
        let initdb = as_owner(&bin.join("initdb"))
            .arg("-D")
            .arg(&data)
            .arg(format!("--pwfile={}", password_file.display()))
            .args([
                "--auth-local=trust",
                "--auth-host=scram-sha-256",
                "--username=postgres",
                "--encoding=UTF8",
                "--locale=C",
                "--no-sync",
            ])
            .output()
            .map_err(|e| format!("cannot run {}: {e}", bin.join("initdb").display()))?;
        if !initdb.status.success() {
            let why = format!("initdb failed: {}", String::from_utf8_lossy(&initdb.stderr));
            cluster.stop();
            return Err(why);
        }
        let tls = as_owner(Path::new("openssl"))
            .args([
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            ])
            .args(["-subj", "/CN=localhost", "-keyout"])
            .arg(data.join("server.key"))
            .arg("-out")
            .arg(data.join("server.crt"))
            .output()
            .is_ok_and(|out| out.status.success())
            && {
                use std::os::unix::fs::PermissionsExt;
                // Postgres refuses a key others may read.
                let private = std::fs::Permissions::from_mode(0o600);
                std::fs::set_permissions(data.join("server.key"), private).is_ok()
            };
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .map_err(|e| format!("no free port: {e}"))?
            .port();
        // The socket in our own directory, TCP on loopback only. Durability is not wanted from
        // a cluster that is thrown away.
        let options = format!(
            "-p {port} -c listen_addresses=127.0.0.1 -k {} -c ssl={} -c max_connections=400 \
             -c fsync=off -c synchronous_commit=off -c full_page_writes=off",
            dir.display(),
            if tls { "on" } else { "off" },
        );
        let started = as_owner(&bin.join("pg_ctl"))
            .arg("-D")
            .arg(&data)
            .arg("-l")
            .arg(dir.join("log"))
            .args(["-w", "-t", "60", "-o", &options, "start"])
            .stdout(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run {}: {e}", bin.join("pg_ctl").display()))?;
        if !started.status.success() {
            let log = std::fs::read_to_string(dir.join("log")).unwrap_or_default();
            let why = format!(
                "pg_ctl start failed: {}{log}",
                String::from_utf8_lossy(&started.stderr)
            );
            cluster.stop();
            return Err(why);
        }
        cluster.url = format!(
            "postgres://postgres@localhost:{port}/postgres?host={}",
            dir.display()
        );
        cluster.tcp_url = format!("postgres://postgres:{password}@127.0.0.1:{port}/postgres");
        Ok(cluster)
    }

    /// Stops the cluster and removes its directory now, waiting for both.
    pub fn stop(&mut self) {
        drop(self.watchdog_pipe.take());
        let _ = self.watchdog.wait();
    }
}

/// The folder holding this machine's `initdb` and `pg_ctl`: `pg_config --bindir`, else the
/// distributions' usual places (newest version first), else `PATH`.
fn server_binaries() -> Result<PathBuf, String> {
    let mut candidates = Vec::new();
    if let Ok(out) = Command::new("pg_config").arg("--bindir").output() {
        if out.status.success() {
            candidates.push(PathBuf::from(
                String::from_utf8_lossy(&out.stdout).trim().to_string(),
            ));
        }
    }
    for parent in ["/usr/lib/postgresql", "/usr/pgsql", "/opt/homebrew/opt"] {
        let Ok(entries) = std::fs::read_dir(parent) else {
            continue;
        };
        let mut versions: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|entry| entry.path().join("bin"))
            .collect();
        // Newest first: "16" after "9.6" as numbers, not as text.
        versions.sort_by_key(|path| {
            let version = path
                .parent()
                .and_then(Path::file_name)
                .map(|name| name.to_string_lossy().to_string())
                .unwrap_or_default();
            std::cmp::Reverse(
                version
                    .split(|c: char| !c.is_ascii_digit())
                    .find(|part| !part.is_empty())
                    .and_then(|part| part.parse::<u32>().ok())
                    .unwrap_or(0),
            )
        });
        candidates.extend(versions);
    }
    for dir in ["/usr/pgsql/bin", "/usr/local/bin", "/usr/bin"] {
        candidates.push(PathBuf::from(dir));
    }
    if let Some(path) = std::env::var_os("PATH") {
        candidates.extend(std::env::split_paths(&path));
    }
    candidates
        .into_iter()
        .find(|dir| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file())
        .ok_or_else(|| {
            "no initdb and pg_ctl (not in pg_config --bindir, /usr/lib/postgresql/*/bin, \
             /usr/pgsql-*/bin or PATH)"
                .to_string()
        })
}

/// Who runs the cluster: this process's own user, or `nobody` (its uid and gid) when this
/// process is root, which Postgres refuses to run as.
fn unprivileged_owner() -> Result<Option<(u32, u32)>, String> {
    let id = |args: &[&str]| -> Result<u32, String> {
        let out = Command::new("id")
            .args(args)
            .output()
            .map_err(|e| format!("cannot run id: {e}"))?;
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .map_err(|_| format!("id {} answered no number", args.join(" ")))
    };
    if id(&["-u"])? != 0 {
        return Ok(None);
    }
    Ok(Some((id(&["-u", "nobody"])?, id(&["-g", "nobody"])?)))
}

/// One test's database: dropped when the last clone of its guard goes, when its test ends,
/// passed or failed (a panicking test drops its locals as it unwinds).
pub struct TestDatabase {
    pub server_url: String,
    pub name: String,
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let (server_url, name) = (self.server_url.clone(), self.name.clone());
        let dropped = on_own_runtime(|| async move { drop_database(&server_url, &name).await });
        if let Err(why) = dropped {
            // Not a panic: this may run while a failed test unwinds, and a second panic would
            // abort the whole run. The name is enough to drop it by hand.
            eprintln!("the test database {} was not dropped: {why}", self.name);
        }
    }
}

/// Drops `name` on the server at `server_url`, closing whatever connections the test's servers
/// (still running in its runtime) hold to it.
pub async fn drop_database(server_url: &str, name: &str) -> Result<(), String> {
    let admin = sqlx::postgres::PgPoolOptions::new()
        .max_connections(1)
        .acquire_timeout(Duration::from_secs(10))
        .connect(server_url)
        .await
        .map_err(|e| e.to_string())?;
    let mut last = String::new();
    // A server's pool may open a new connection between the forced close and the drop; the
    // drop is then refused ("being accessed by other users") and tried again.
    for _ in 0..10 {
        match sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            .execute(&admin)
            .await
        {
            Ok(_) => {
                admin.close().await;
                return Ok(());
            }
            Err(error) => last = error.to_string(),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    admin.close().await;
    Err(last)
}

/// Whether the server at `server_url` holds a database called `name`.
async fn holds_database(server_url: &str, name: &str) -> bool {
    let admin = sqlx::PgPool::connect(server_url).await.unwrap();
    let (count,): (i64,) = sqlx::query_as("SELECT count(*) FROM pg_database WHERE datname = $1")
        .bind(name)
        .fetch_one(&admin)
        .await
        .unwrap();
    admin.close().await;
    count == 1
}

/// The server every Postgres test of this run uses (its `postgres` database).
fn shared_server() -> String {
    let source = source().unwrap_or_else(|tried| panic!("{tried}"));
    source
        .url()
        .expect("these checks need one server for the run, not a container per test")
        .to_string()
}

/// The name of the database a Postgres URL names: its path, before the query (which may name
/// a socket folder, slashes and all).
pub fn database_name(url: &str) -> String {
    let base = url.split('?').next().unwrap_or(url);
    base.rsplit('/').next().unwrap_or(base).to_string()
}

#[tokio::test]
async fn a_named_database_url_that_answers_is_used_as_it_is() {
    let reachable = shared_server();
    let found = find_postgres(
        Some(reachable.clone()),
        &[],
        || Err("not asked".to_string()),
        || async { Err("not asked".to_string()) },
    )
    .await
    .unwrap();
    assert_eq!(found.url(), Some(reachable.as_str()));
}

#[tokio::test]
async fn a_named_database_url_that_does_not_answer_fails_at_once_saying_so() {
    let down = "postgres://postgres@127.0.0.1:1/postgres".to_string();
    // The bound is the point of the check (sqlx alone waits 30 s), and generous for a busy
    // machine: a refused connection answers in milliseconds.
    let tried = tokio::time::timeout(
        Duration::from_secs(10),
        find_postgres(
            Some(down.clone()),
            &LOCAL_POSTGRES,
            || Err("not asked".to_string()),
            || async { Err("not asked".to_string()) },
        ),
    )
    .await
    .expect("the named server is given up on within seconds")
    .expect_err("a server that is down is not used");
    let message = tried.to_string();
    assert!(
        message.contains(&format!("DATABASE_URL={down}")),
        "{message}"
    );
    assert!(message.contains("unset DATABASE_URL"), "{message}");
}

#[tokio::test]
async fn without_a_database_url_the_first_local_server_that_answers_is_found() {
    let reachable = shared_server();
    let here = [
        "postgres://postgres@127.0.0.1:1/postgres",
        reachable.as_str(),
    ];
    let found = find_postgres(
        Some("sqlite://x.db".into()),
        &here,
        || Err("not asked".to_string()),
        || async { Err("not asked".to_string()) },
    )
    .await
    .unwrap();
    assert_eq!(found.url(), Some(reachable.as_str()));
}

#[tokio::test]
async fn with_no_postgres_anywhere_the_tests_fail_saying_what_was_tried_and_what_to_install() {
    let nowhere = ["postgres://postgres@127.0.0.1:1/postgres"];
    let tried = find_postgres(
        None,
        &nowhere,
        || Err("no initdb here".to_string()),
        || async { Err("no Docker engine".to_string()) },
    )
    .await
    .expect_err("no Postgres is found");
    let message = tried.to_string();
    assert!(message.contains("DATABASE_URL names none"), "{message}");
    assert!(
        message.contains("127.0.0.1:1/postgres (") && message.contains("refused"),
        "{message}"
    );
    assert!(message.contains("no initdb here"), "{message}");
    assert!(message.contains("no Docker engine"), "{message}");
    assert!(message.contains("apt-get install postgresql"), "{message}");
}

#[tokio::test]
async fn a_local_server_that_refuses_the_login_is_reported_as_refusing_not_as_silent() {
    // A server that answers but refuses the login: the shared server asked for a database
    // that does not exist stands in for one that wants a password.
    let refusing = crate::helpers::with_database(&shared_server(), "parlour_no_such_database");
    let tried = find_postgres(
        None,
        &[refusing.as_str()],
        || Err("no initdb here".to_string()),
        || async { Err("no Docker engine".to_string()) },
    )
    .await
    .expect_err("the refusing server is not used");
    let message = tried.to_string();
    assert!(
        message.contains("parlour_no_such_database\" does not exist"),
        "{message}"
    );
}

#[tokio::test]
async fn when_nothing_else_answers_a_private_cluster_is_started_and_used() {
    let found = find_postgres(
        None,
        &["postgres://postgres@127.0.0.1:1/postgres"],
        PrivateCluster::start,
        || async { Err("not asked".to_string()) },
    )
    .await
    .expect("the machine's initdb and pg_ctl start a cluster");
    let Source::Private(mut cluster) = found else {
        panic!("not a private cluster: {found:?}");
    };
    answers(&cluster.url)
        .await
        .expect("the private cluster accepts a trust login on its socket");
    let url = cluster.url.clone();
    on_own_runtime(|| async move {
        let pool = sqlx::PgPool::connect(&url).await.unwrap();
        sqlx::query("CREATE DATABASE parlour_private_check")
            .execute(&pool)
            .await
            .unwrap();
        pool.close().await;
    });

    // What the end of the test binary does: the watchdog's pipe closes.
    cluster.stop();
    assert!(!cluster.dir.exists(), "{} is left", cluster.dir.display());
    assert!(answers(&cluster.url).await.is_err());
}

#[tokio::test]
async fn a_test_database_is_dropped_when_its_test_ends() {
    let server = shared_server();
    let (url, guard) = crate::helpers::fresh_database(crate::helpers::Backend::Postgres).await;
    let name = database_name(&url);
    let app = crate::helpers::spawn_app_on(&url, guard).await;
    app.create_game("girl", 2, None, serde_json::json!({}))
        .await;
    assert!(holds_database(&server, &name).await);

    // The test ends with its server still connected to the database.
    drop(app);
    assert!(!holds_database(&server, &name).await, "{name} is left");
}

#[tokio::test]
async fn a_test_database_is_dropped_when_its_test_fails() {
    let server = shared_server();
    let (names, named) = std::sync::mpsc::channel();
    let failed = std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(async move {
                let app = crate::helpers::spawn_app(crate::helpers::Backend::Postgres).await;
                names.send(database_name(&app.database_url)).unwrap();
                panic!("a failing test");
            })
    })
    .join();
    assert!(failed.is_err(), "the test failed");
    let name = named.recv().unwrap();
    assert!(!holds_database(&server, &name).await, "{name} is left");
}
