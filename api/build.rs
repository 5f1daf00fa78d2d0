//! `sqlx::migrate!` reads `../migrations` at compile time, and cargo does not track files a
//! macro reads: without this, a changed or added migration left the binary applying the old
//! ones until some Rust source changed.
fn main() {
    println!("cargo:rerun-if-changed=../migrations");
}
