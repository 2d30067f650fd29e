//! Loader tests for what a new user trips on: one error per mistake, names
//! that can title a plot.

use std::path::Path;

use super::*;

const LINKS: &str = "[wired]\nrate = \"100Mbps\"\ndelay = \"10ms\"\n\
                     [wireless]\nrate = \"10Mbps\"\ndelay = \"1ms\"\n";

fn errors(text: &str) -> Vec<String> {
    match load_str(text, "t.toml", Path::new("."), &[]) {
        Ok(_) => panic!("expected errors"),
        Err(e) => e.errors.iter().map(ToString::to_string).collect(),
    }
}

#[test]
fn an_unknown_model_is_one_error_not_one_per_key() {
    let text = format!(
        "{LINKS}[wireless.loss.down]\nmodel = \"gilbertt\"\nmean_loss = 0.1\nmean_burst = 3\n[[flow]]\n"
    );
    let errors = errors(&text);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("wireless.loss.down.model: expected one of"),
        "{}",
        errors[0]
    );
}

#[test]
fn a_missing_model_is_one_error_too() {
    let text = format!("{LINKS}[wireless.loss.down]\np = 0.1\n[[flow]]\n");
    let errors = errors(&text);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("wireless.loss.down.model: missing"),
        "{}",
        errors[0]
    );
}

#[test]
fn unknown_keys_are_still_reported_under_a_valid_model() {
    let text = format!("{LINKS}[wireless.loss.down]\nmodel = \"iid\"\np = 0.1\npp = 1\n[[flow]]\n");
    let errors = errors(&text);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("wireless.loss.down.pp: unknown key"),
        "{}",
        errors[0]
    );
}

#[test]
fn a_name_with_a_control_character_is_refused() {
    for name in ["\\u0000", "a\\tb", "x\\u001b[31m"] {
        let errors = errors(&format!("name = \"{name}\"\n{LINKS}[[flow]]\n"));
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].contains("name: contains the control character U+"),
            "{}",
            errors[0]
        );
    }
    let ok = load_str(
        &format!("name = \"ünï cödé\"\n{LINKS}[[flow]]\n"),
        "t.toml",
        Path::new("."),
        &[],
    );
    assert!(ok.is_ok());
}
