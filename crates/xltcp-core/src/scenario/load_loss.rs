//! `[wireless.loss.down]` / `[wireless.loss.up]`: a direction's frame-loss
//! process, including `model = "list"`, which names the frames to lose
//! (inline as `frames = [3, 17, 120]` or in a `file`), so that a loss
//! pattern can be replayed exactly, in this tool and in another one fed the
//! same list (ns-3's `ReceiveListErrorModel` counts the packets it sees in
//! the same order, from 0).

use std::path::Path;
use std::sync::Arc;

use super::model::*;
use super::reader::{self as rd, Cx, Tab};
use super::tree::Val;

const LOSS_MODELS: &[(&str, u8)] = &[("none", 0), ("iid", 1), ("gilbert", 2), ("list", 3)];

const LOSS_STEPS: &[(&str, LossSteps)] = &[("own", LossSteps::Own), ("both", LossSteps::Both)];

/// Most frame numbers a list may hold (8 bytes each in memory).
const MAX_FRAMES: usize = 8_000_000;

/// What a frame list must be, for messages.
const FRAMES_ALLOWED: &str = "frame numbers >= 1 (counted from the direction's first frame), \
                              strictly increasing";

/// `[wireless.loss.down]` / `[wireless.loss.up]`; `p2p` says whether the hop
/// is the point-to-point one (the only one whose chain `steps = "both"` can
/// share); `base_dir` is where a list's `file` is looked for.
pub(super) fn read_loss(cx: &mut Cx, t: &mut Tab, p2p: bool, base_dir: &Path) -> LossSpec {
    if !t.exists() {
        return LossSpec::None;
    }
    let model = t.required(cx, "model", "\"iid\"", rd::choice(LOSS_MODELS));
    match model {
        Some(1) => {
            let p = t.required(cx, "p", "0.01", rd::prob).unwrap_or(0.0);
            check_loss_probability(cx, t, "p", p);
            LossSpec::Iid { p }
        }
        Some(2) => read_gilbert(cx, t, p2p),
        Some(3) => read_list(cx, t, base_dir),
        _ => LossSpec::None,
    }
}

fn read_gilbert(cx: &mut Cx, t: &mut Tab, p2p: bool) -> LossSpec {
    let mean_loss = t.required(cx, "mean_loss", "0.01", rd::prob).unwrap_or(0.0);
    check_loss_probability(cx, t, "mean_loss", mean_loss);
    let mean_burst = t.required(cx, "mean_burst", "3", rd::number).unwrap_or(1.0);
    if mean_burst < 1.0 {
        let msg = format!("{mean_burst} frames is shorter than one frame");
        t.invalid(cx, "mean_burst", msg, "mean_burst >= 1");
    } else if (0.0..1.0).contains(&mean_loss) && mean_loss > mean_burst / (1.0 + mean_burst) {
        // Simple Gilbert: p = P_L / (L_b (1 - P_L)) must be <= 1.
        let msg = format!(
            "mean_loss {mean_loss} is impossible with mean_burst {mean_burst}: \
             it needs mean_loss <= mean_burst / (1 + mean_burst) = {:.4}",
            mean_burst / (1.0 + mean_burst)
        );
        t.invalid(
            cx,
            "mean_loss",
            msg,
            "mean_loss <= mean_burst / (1 + mean_burst)",
        );
    }
    let steps = t.read(cx, "steps", LossSteps::Own, rd::choice(LOSS_STEPS));
    if steps == LossSteps::Both && !p2p {
        let msg = "the 802.15.4 and 802.11 hops draw each direction's losses apart";
        t.invalid(cx, "steps", msg, "steps = \"both\" with kind = \"p2p\"");
    }
    LossSpec::Gilbert {
        mean_loss,
        mean_burst,
        steps,
    }
}

/// `model = "list"`: `frames = [...]` or `file = "..."`, one of the two.
fn read_list(cx: &mut Cx, t: &mut Tab, base_dir: &Path) -> LossSpec {
    let none = LossSpec::List {
        frames: Arc::from(Vec::new()),
    };
    let inline = t.read_opt(cx, "frames", frames_from_val);
    let file = t.read_opt(cx, "file", rd::string);
    let frames = match (inline, file) {
        (Some(_), Some(_)) => {
            let msg = "does not go with frames (give the list inline or in a file)";
            t.invalid(cx, "file", msg, "frames or file, not both");
            return none;
        }
        (Some(Ok(list)), None) => list,
        (Some(Err(msg)), None) => {
            t.invalid(cx, "frames", msg, FRAMES_ALLOWED);
            return none;
        }
        (None, Some(file)) => {
            let path = base_dir.join(&file);
            match read_frame_file(&path) {
                Ok(list) => list,
                Err(msg) => {
                    t.invalid(cx, "file", msg, FRAMES_ALLOWED);
                    return none;
                }
            }
        }
        (None, None) => {
            if !t.has("frames") && !t.has("file") {
                let msg = "missing; model = \"list\" needs the frames to lose \
                           (e.g. frames = [3, 17, 120] or file = \"drops.txt\")";
                t.invalid(cx, "frames", msg, FRAMES_ALLOWED);
            }
            return none;
        }
    };
    LossSpec::List {
        frames: Arc::from(frames),
    }
}

fn check_loss_probability(cx: &mut Cx, t: &Tab, key: &str, p: f64) {
    if !(0.0..1.0).contains(&p) {
        t.invalid(cx, key, format!("{p} is out of range"), "0 <= p < 1");
    }
}

/// An inline `frames` array. The outer `Err` is a wrong type (reported at
/// the key by the reader), the inner one a list that breaks the rules.
fn frames_from_val(val: &Val) -> Result<Result<Vec<u64>, String>, String> {
    let Val::Array(items) = val else {
        return Err(format!(
            "expected a list of frame numbers like [3, 17, 120], got {}",
            val.type_name()
        ));
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let n = match item.val {
            Val::Int(n) => n,
            ref other => {
                return Ok(Err(format!(
                    "entry {i} is {}, not a frame number",
                    other.type_name()
                )))
            }
        };
        if let Err(e) = push_frame(&mut out, n) {
            return Ok(Err(format!("entry {i}: {e}")));
        }
    }
    Ok(Ok(out))
}

/// Reads the frame file at `path`: frame numbers separated by white space,
/// commas or newlines; `#` starts a comment.
pub(crate) fn read_frame_file(path: &Path) -> Result<Vec<u64>, String> {
    let text = super::files::read_named(path, super::files::MAX_TRACE_BYTES)?;
    parse_frames(&text).map_err(|(line, msg)| format!("{}:{line}: {msg}", path.display()))
}

/// Parses a frame file's text; `Err` is (1-based line, message).
pub(crate) fn parse_frames(text: &str) -> Result<Vec<u64>, (usize, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let content = line.split('#').next().unwrap_or("");
        let words = content
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|w| !w.is_empty());
        for w in words {
            let n: i128 = w
                .parse()
                .map_err(|_| (i + 1, format!("\"{w}\" is not a frame number")))?;
            push_frame(&mut out, n).map_err(|e| (i + 1, e))?;
        }
    }
    Ok(out)
}

/// Appends frame `n`, keeping the list's rules.
fn push_frame(out: &mut Vec<u64>, n: i128) -> Result<(), String> {
    if out.len() >= MAX_FRAMES {
        return Err(format!("more than {MAX_FRAMES} frames"));
    }
    let Ok(n) = u64::try_from(n) else {
        return Err(format!("{n} is not a frame number (frames count from 1)"));
    };
    if n == 0 {
        return Err("0 is not a frame number (frames count from 1)".into());
    }
    if let Some(&last) = out.last() {
        if n <= last {
            return Err(format!("{n} does not come after {last}"));
        }
    }
    out.push(n);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_file_takes_spaces_commas_lines_and_comments() {
        let text = "# lost frames\n3 5,8\n\n13 # the last\n";
        assert_eq!(parse_frames(text).unwrap(), vec![3, 5, 8, 13]);
    }

    #[test]
    fn a_frame_file_names_the_line_of_a_bad_entry() {
        assert_eq!(parse_frames("1\n2\nx\n").unwrap_err().0, 3);
        let (line, msg) = parse_frames("4\n4\n").unwrap_err();
        assert_eq!(line, 2);
        assert!(msg.contains("does not come after 4"), "{msg}");
        assert!(parse_frames("0").unwrap_err().1.contains("count from 1"));
        assert!(parse_frames("-3").unwrap_err().1.contains("count from 1"));
    }
}
