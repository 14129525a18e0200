//! `embed_migrations!` reads `migrations/` at compile time, but cargo does not know that: a new
//! migration folder would not trigger a rebuild, and the binary would silently ship without it.
fn main() {
    println!("cargo:rerun-if-changed=../../migrations");
}
