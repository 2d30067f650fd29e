//! Reading the files a scenario names, bounded: the scenario file itself,
//! the files it `extends`, the UCL's key files (`identity`, `trusted`),
//! availability interval files and SNR traces (`trace`, `mean_trace`).
//!
//! Every one is checked to be a regular file no larger than its bound
//! before a byte is read, so that a name such as `/dev/zero` or a FIFO is
//! refused at once instead of reading without end or blocking; the read
//! itself stops one byte past the bound, in case the file grew meanwhile.

use std::io::Read;
use std::path::Path;

/// Largest scenario file (and file it `extends`), and largest key file.
pub const MAX_SCENARIO_BYTES: u64 = 16 << 20;

/// Largest side file of data: an availability interval file, an SNR trace.
pub const MAX_TRACE_BYTES: u64 = 64 << 20;

/// `16 MiB`, `64 MiB`: a bound as the messages write it.
fn human(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes.is_multiple_of(1 << 10) {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{bytes} bytes")
    }
}

/// What a file that is not a regular one is, for messages.
fn kind(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a folder";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "not a regular file"
}

/// Checks that `path` is a regular file of at most `max` bytes (following
/// symbolic links); returns its size. The error says what the file is and
/// what is allowed; callers put the file's name before it.
pub(crate) fn check(path: &Path, max: u64) -> Result<u64, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    let allowed = format!("a regular file of at most {}", human(max));
    if !meta.is_file() {
        let what = kind(&meta);
        let what = if what.starts_with("not ") {
            what.to_string()
        } else {
            format!("{what}, not a regular file")
        };
        return Err(format!("{what} (allowed: {allowed})"));
    }
    if meta.len() > max {
        return Err(format!(
            "{} bytes, larger than the bound (allowed: {allowed})",
            meta.len()
        ));
    }
    Ok(meta.len())
}

/// The text of the file at `path`: a regular file of at most `max` bytes
/// ([`check`]), in UTF-8. The error is as [`check`]'s.
pub(crate) fn read_text(path: &Path, max: u64) -> Result<String, String> {
    let size = check(path, max)?;
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::with_capacity(size as usize);
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > max {
        let allowed = format!("a regular file of at most {}", human(max));
        return Err(format!(
            "it grew past the bound while read (allowed: {allowed})"
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        format!("not UTF-8 text (byte {at} is not) (allowed: a text file)")
    })
}

/// [`read_text`], the error starting `cannot read "PATH": `.
pub(crate) fn read_named(path: &Path, max: u64) -> Result<String, String> {
    read_text(path, max).map_err(|e| format!("cannot read \"{}\": {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!(
            "xltcp-files-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_regular_file_within_the_bound_is_read() {
        let d = dir();
        let p = d.join("ok.txt");
        std::fs::write(&p, "a = 1\n").unwrap();
        assert_eq!(read_text(&p, 16).unwrap(), "a = 1\n");
        assert_eq!(check(&p, 6).unwrap(), 6);
    }

    #[test]
    fn a_file_over_the_bound_is_refused_with_the_bound() {
        let d = dir();
        let p = d.join("big.txt");
        std::fs::write(&p, vec![b'x'; 2048]).unwrap();
        let e = read_named(&p, 1024).unwrap_err();
        assert!(e.contains("big.txt\": 2048 bytes"), "{e}");
        assert!(e.contains("a regular file of at most 1 KiB"), "{e}");
    }

    #[test]
    fn devices_folders_and_fifos_are_refused_without_reading() {
        let e = read_named(Path::new("/dev/zero"), MAX_SCENARIO_BYTES).unwrap_err();
        assert!(
            e.contains("/dev/zero") && e.contains("a character device"),
            "{e}"
        );
        assert!(e.contains("at most 16 MiB"), "{e}");
        let d = dir();
        let e = read_text(&d, MAX_TRACE_BYTES).unwrap_err();
        assert!(e.contains("a folder, not a regular file"), "{e}");
        let fifo = d.join("fifo");
        let _ = std::fs::remove_file(&fifo);
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            // Refused by its kind: opening it would block until a writer came.
            let e = read_text(&fifo, MAX_TRACE_BYTES).unwrap_err();
            assert!(e.contains("a FIFO (named pipe), not a regular file"), "{e}");
        }
    }

    #[test]
    fn binary_content_is_refused_as_not_text() {
        let d = dir();
        let p = d.join("bin");
        std::fs::write(&p, [b'a', 0xff, 0xfe]).unwrap();
        let e = read_text(&p, 1024).unwrap_err();
        assert!(e.contains("not UTF-8 text (byte 1 is not)"), "{e}");
    }

    #[test]
    fn a_missing_file_names_itself() {
        let e = read_named(Path::new("/nonexistent/x.key"), 1024).unwrap_err();
        assert!(e.starts_with("cannot read \"/nonexistent/x.key\": "), "{e}");
    }
}
