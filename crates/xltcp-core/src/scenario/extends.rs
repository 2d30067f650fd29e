//! `extends = "base.toml"`: a scenario written as another plus differences.
//!
//! The base file (a path relative to the extending file) is read first,
//! itself extending others if it says so, and the extending file is laid
//! over it: a table merges key by key, any other value (a number, a
//! string, an array such as the `[[flow]]` entries) replaces the base's
//! whole. `--set` overrides apply after. A file that extends itself, even
//! through others, is refused with the chain of files; at most
//! [`MAX_DEPTH`] files deep. Every key keeps the location it was written
//! at, so an error in a base names the base's file and line. Paths inside a
//! base ([`PATH_KEYS`]: an availability `file`, an SNR `trace`, a key file)
//! are relative to the base's own folder, as written; they are rewritten
//! relative to the extending file's folder, so the echo names files that
//! open from there. `name` is not inherited (unset, it is the extending file's
//! stem). `extends` is not in the scenario echo: the echo is the result.

use std::path::{Path, PathBuf};

use super::reader::Cx;
use super::tree::{self, Entry, Loc, Node, Val};

/// The most files one chain of `extends` may hold.
pub const MAX_DEPTH: usize = 16;

/// Keys whose string values are paths of files, relative to the folder of
/// the scenario file that writes them.
pub const PATH_KEYS: &[&str] = &["file", "trace", "mean_trace", "identity", "trusted"];

/// The name a file is known by in a chain: its canonical path when it
/// exists, else the path as given.
pub(crate) fn identity(origin: &str, base_dir: &Path) -> PathBuf {
    let path = Path::new(origin);
    let path = if path.is_file() {
        path.to_path_buf()
    } else {
        base_dir.join(path.file_name().unwrap_or(path.as_os_str()))
    };
    path.canonicalize().unwrap_or(path)
}

/// `doc` laid over the files it extends (recursively), with `extends`
/// taken out; problems go to `cx`. `chain` holds the files being read, the
/// extending one last.
pub(crate) fn resolve(cx: &mut Cx, mut doc: Node, dir: &Path, chain: &mut Vec<PathBuf>) -> Node {
    let Val::Table(table) = &mut doc.val else {
        return doc;
    };
    let Some(entry) = table.remove("extends") else {
        return doc;
    };
    let Val::Str(name) = &entry.node.val else {
        let msg = format!(
            "expected the path of a scenario file like \"base.toml\", got {}",
            entry.node.val.type_name()
        );
        cx.err(&entry.node.loc, "extends", msg, None);
        return doc;
    };
    let path = dir.join(name);
    let id = path.canonicalize().unwrap_or_else(|_| path.clone());
    if chain.contains(&id) {
        let files: Vec<String> = chain
            .iter()
            .chain(std::iter::once(&id))
            .map(|p| p.display().to_string())
            .collect();
        let msg = format!("a cycle: {}", files.join(" extends "));
        cx.err(
            &entry.node.loc,
            "extends",
            msg,
            Some("a chain of files that ends"),
        );
        return doc;
    }
    if chain.len() >= MAX_DEPTH {
        let msg = format!("more than {MAX_DEPTH} files deep");
        cx.err(&entry.node.loc, "extends", msg, None);
        return doc;
    }
    let text = match super::files::read_text(&path, super::files::MAX_SCENARIO_BYTES) {
        Ok(text) => text,
        Err(e) => {
            let msg = format!("cannot read {}: {e}", path.display());
            cx.err(&entry.node.loc, "extends", msg, Some("a scenario file"));
            return doc;
        }
    };
    let parsed = tree::parse_document(&text);
    let start = cx.add_base(path.display().to_string(), text.clone());
    let base = match parsed {
        Ok(mut base) => {
            shift(&mut base, start);
            base
        }
        Err(syntax) => {
            for (offset, key, msg) in super::syntax::explain(&text, syntax) {
                let loc = offset.map_or(Loc::Nowhere, |o| Loc::At(o + start));
                cx.err(&loc, &key, format!("TOML syntax: {msg}"), None);
            }
            return doc;
        }
    };
    chain.push(id);
    let mut base = resolve(cx, base, path.parent().unwrap_or(Path::new(".")), chain);
    chain.pop();
    // The base's paths, from the extending file's folder.
    if let Some(folder) = Path::new(name)
        .parent()
        .filter(|f| !f.as_os_str().is_empty())
    {
        rebase(&mut base, folder);
    }
    // A name is the file's own: not set, it is the extending file's stem.
    if let Val::Table(t) = &mut base.val {
        t.remove("name");
    }
    merge(base, doc)
}

/// `top` laid over `base`: tables merge, anything else replaces.
fn merge(base: Node, top: Node) -> Node {
    match (base.val, top.val) {
        (Val::Table(mut under), Val::Table(over)) => {
            for (key, entry) in over {
                let merged = match under.remove(&key) {
                    Some(old) => Entry {
                        key_loc: entry.key_loc,
                        node: merge(old.node, entry.node),
                    },
                    None => entry,
                };
                under.insert(key, merged);
            }
            Node {
                loc: top.loc,
                val: Val::Table(under),
            }
        }
        (_, val) => Node { loc: top.loc, val },
    }
}

/// Rewrites the relative paths of `node` ([`PATH_KEYS`]) as seen from a
/// folder where `folder` leads to the node's own.
fn rebase(node: &mut Node, folder: &Path) {
    match &mut node.val {
        Val::Table(t) => {
            for (key, entry) in t.iter_mut() {
                match &mut entry.node.val {
                    Val::Str(path) if PATH_KEYS.contains(&key.as_str()) => {
                        if Path::new(path.as_str()).is_relative() {
                            *path = folder.join(path.as_str()).display().to_string();
                        }
                    }
                    _ => rebase(&mut entry.node, folder),
                }
            }
        }
        Val::Array(items) => items.iter_mut().for_each(|n| rebase(n, folder)),
        _ => {}
    }
}

/// Moves every file location of `node` by `by` bytes.
fn shift(node: &mut Node, by: usize) {
    if let Loc::At(o) = &mut node.loc {
        *o += by;
    }
    match &mut node.val {
        Val::Table(t) => {
            for entry in t.values_mut() {
                if let Loc::At(o) = &mut entry.key_loc {
                    *o += by;
                }
                shift(&mut entry.node, by);
            }
        }
        Val::Array(items) => items.iter_mut().for_each(|n| shift(n, by)),
        _ => {}
    }
}
