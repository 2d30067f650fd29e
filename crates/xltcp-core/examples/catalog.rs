//! Prints the catalogue of scenario keys (JSON) explored from the files given.
fn main() {
    let files: Vec<std::path::PathBuf> = std::env::args().skip(1).map(Into::into).collect();
    let keys = xltcp_core::scenario::catalog(&files).expect("files readable");
    println!("{}", serde_json::to_string_pretty(&keys).unwrap());
}
