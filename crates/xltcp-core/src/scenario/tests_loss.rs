//! Loader tests of `[wireless.loss.*] model = "list"`.

use std::path::Path;
use std::sync::Arc;

use super::tests::load;
use super::*;

const LOSSY: &str = r#"
[wired]
rate = "100Mbps"
delay = "10ms"

[wireless]
rate = "10Mbps"
delay = "1ms"

[[flow]]
"#;

fn with_loss(table: &str) -> String {
    format!("{LOSSY}\n[wireless.loss.down]\n{table}\n")
}

fn first_error(text: &str) -> String {
    match load(text, &[]) {
        Ok(_) => panic!("expected an error:\n{text}"),
        Err(e) => e.errors[0].to_string(),
    }
}

fn list(frames: &[u64]) -> LossSpec {
    LossSpec::List {
        frames: Arc::from(frames.to_vec()),
    }
}

#[test]
fn an_inline_list_loads_and_round_trips_through_the_echo() {
    let s = load(&with_loss("model = \"list\"\nframes = [3, 17, 120]"), &[]).unwrap();
    assert_eq!(s.wireless.loss_down, list(&[3, 17, 120]));
    let again = load_str(&to_toml(&s), "echo.toml", Path::new("."), &[]).unwrap();
    assert_eq!(again, s);
}

#[test]
fn a_list_file_is_read_relative_to_the_scenario_and_set_replaces_the_table() {
    let dir = std::env::temp_dir().join(format!("xltcp-loss-list-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("drops.txt"), "# lost\n2 5\n9,11\n").unwrap();
    std::fs::write(dir.join("bad.txt"), "2\n7\n7\n").unwrap();
    let text = with_loss("model = \"iid\"\np = 0.01");
    std::fs::write(dir.join("s.toml"), &text).unwrap();
    let set = "wireless.loss.down={model = \"list\", file = \"drops.txt\"}";
    let s = load_file(&dir.join("s.toml"), &[set.into()]).unwrap();
    assert_eq!(s.wireless.loss_down, list(&[2, 5, 9, 11]));
    let set = "wireless.loss.down={model = \"list\", file = \"bad.txt\"}";
    let e = load_file(&dir.join("s.toml"), &[set.into()]).unwrap_err();
    let msg = e.errors[0].to_string();
    assert!(msg.contains("wireless.loss.down.file"), "{msg}");
    assert!(msg.contains("bad.txt:3: 7 does not come after 7"), "{msg}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_bad_list_is_refused_with_the_key_and_the_rule() {
    let cases = [
        ("model = \"list\"", "frames", "missing"),
        (
            "model = \"list\"\nframes = [4, 2]",
            "frames",
            "2 does not come after 4",
        ),
        ("model = \"list\"\nframes = [0]", "frames", "count from 1"),
        (
            "model = \"list\"\nframes = [1, \"x\"]",
            "frames",
            "entry 1 is a string",
        ),
        (
            "model = \"list\"\nframes = 3",
            "frames",
            "expected a list of frame numbers",
        ),
        (
            "model = \"list\"\nframes = [1]\nfile = \"d.txt\"",
            "file",
            "frames or file, not both",
        ),
        (
            "model = \"list\"\nfile = \"no-such-file.txt\"",
            "file",
            "cannot read",
        ),
        ("model = \"list\"\nframes = [1]\np = 0.1", "p", "p"),
    ];
    for (table, key, needle) in cases {
        let msg = first_error(&with_loss(table));
        assert!(
            msg.contains(&format!("wireless.loss.down.{key}")),
            "{table}: {msg}"
        );
        assert!(msg.contains(needle), "{table}: {msg}");
    }
}
