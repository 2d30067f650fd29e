//! Node identities (static X25519 key pairs) and the set of peers a node
//! trusts, generated from a seed for simulation or loaded from key files.
//!
//! # Key file format
//!
//! Plain text, one key a line, each key as 64 hexadecimal digits (32
//! bytes, either case). Blank lines and lines starting with `#` are
//! ignored; anything after the key on its line, separated by white space,
//! is a label (the peer's name in a trusted-peers file).
//!
//! - An **identity file** holds exactly one line: the node's X25519
//!   *private* key. Its public key is computed from it.
//! - A **trusted-peers file** holds the *public* keys of the peers this
//!   node accepts, one a line, each optionally followed by a name.
//!
//! Every problem is a [`KeyFileError`] naming the file, the line and what
//! is wrong; nothing here panics on bad input.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use rand::Rng as _;
use snow::params::DHChoice;
use snow::resolvers::{CryptoResolver, DefaultResolver};

/// Length of an X25519 key, private or public, in bytes.
pub const KEY_LEN: usize = 32;

/// A static X25519 public key: how a node is known to its peers.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PublicKey(pub [u8; KEY_LEN]);

impl PublicKey {
    /// The key's bytes.
    pub fn as_bytes(&self) -> &[u8; KEY_LEN] {
        &self.0
    }

    /// The key as 64 lower-case hexadecimal digits (the key file format).
    pub fn to_hex(&self) -> String {
        to_hex(&self.0)
    }
}

impl fmt::Display for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PublicKey({})", self.to_hex())
    }
}

/// A node's static key pair and name.
///
/// `Debug` shows the name and the public key, never the private key.
#[derive(Clone)]
pub struct Identity {
    name: String,
    private: [u8; KEY_LEN],
    public: PublicKey,
}

impl fmt::Debug for Identity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Identity")
            .field("name", &self.name)
            .field("public", &self.public)
            .finish_non_exhaustive()
    }
}

impl Identity {
    /// A deterministic identity for simulation: the private key is the
    /// first 32 bytes of the named stream `ucl.identity.<name>` of the run
    /// seeded with `seed`. The same (seed, name) always gives the same key;
    /// such keys are for simulation only (the stream is not a
    /// cryptographic generator), real deployments load theirs with
    /// [`Identity::load`].
    pub fn generate(seed: u64, name: &str) -> Identity {
        let mut private = [0u8; KEY_LEN];
        crate::rng::stream(seed, &format!("ucl.identity.{name}")).fill_bytes(&mut private);
        Identity::from_private(name, private)
    }

    /// The identity with this X25519 private key (any 32 bytes are a valid
    /// key: X25519 clamps them).
    pub fn from_private(name: &str, private: [u8; KEY_LEN]) -> Identity {
        let public = public_of(&private);
        Identity {
            name: name.to_owned(),
            private,
            public,
        }
    }

    /// Loads an identity file (one private key in hex; see the module doc).
    /// The identity's name is the file's stem.
    pub fn load(path: &Path) -> Result<Identity, KeyFileError> {
        let text = read(path)?;
        Identity::parse(path, &text)
    }

    /// Parses the text of an identity file; `path` only names it in errors.
    pub fn parse(path: &Path, text: &str) -> Result<Identity, KeyFileError> {
        let mut keys = key_lines(path, text);
        let (line, key, _) = match keys.next() {
            Some(k) => k?,
            None => return Err(KeyFileError::new(path, 0, KeyFileProblem::NoKey)),
        };
        if let Some(extra) = keys.next() {
            let line2 = match extra {
                Ok((l, _, _)) => l,
                Err(e) => e.line,
            };
            return Err(KeyFileError::new(
                path,
                line2,
                KeyFileProblem::MoreThanOneKey { first: line },
            ));
        }
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(Identity::from_private(&name, key))
    }

    /// The identity file's text for this identity (one line, private key in
    /// hex). Handle it as a secret.
    pub fn to_file_string(&self) -> String {
        format!("{}\n", to_hex(&self.private))
    }

    /// The node's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The node's static public key.
    pub fn public(&self) -> PublicKey {
        self.public
    }

    /// The private key, for the handshake only.
    pub(super) fn private(&self) -> &[u8; KEY_LEN] {
        &self.private
    }
}

/// The peers a node accepts: static public keys, each with a name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustedPeers {
    peers: BTreeMap<PublicKey, String>,
}

impl TrustedPeers {
    /// No trusted peer (every handshake fails).
    pub fn new() -> TrustedPeers {
        TrustedPeers::default()
    }

    /// Trusts `key`, known as `name`.
    pub fn insert(&mut self, key: PublicKey, name: &str) {
        self.peers.insert(key, name.to_owned());
    }

    /// Trusts the public key of `peer`.
    pub fn with(mut self, peer: &Identity) -> TrustedPeers {
        self.insert(peer.public(), peer.name());
        self
    }

    /// Whether `key` is trusted.
    pub fn contains(&self, key: &PublicKey) -> bool {
        self.peers.contains_key(key)
    }

    /// The name of a trusted key.
    pub fn name_of(&self, key: &PublicKey) -> Option<&str> {
        self.peers.get(key).map(String::as_str)
    }

    /// How many peers are trusted.
    pub fn len(&self) -> usize {
        self.peers.len()
    }

    /// Whether no peer is trusted.
    pub fn is_empty(&self) -> bool {
        self.peers.is_empty()
    }

    /// Loads a trusted-peers file (public keys in hex, one a line, each
    /// optionally followed by a name; see the module doc). An empty file is
    /// an error: it would make every handshake fail.
    pub fn load(path: &Path) -> Result<TrustedPeers, KeyFileError> {
        let text = read(path)?;
        TrustedPeers::parse(path, &text)
    }

    /// Parses the text of a trusted-peers file; `path` only names it in
    /// errors.
    pub fn parse(path: &Path, text: &str) -> Result<TrustedPeers, KeyFileError> {
        let mut peers = TrustedPeers::new();
        for k in key_lines(path, text) {
            let (line, key, label) = k?;
            let name = if label.is_empty() {
                format!("line {line}")
            } else {
                label.to_owned()
            };
            peers.insert(PublicKey(key), &name);
        }
        if peers.is_empty() {
            return Err(KeyFileError::new(path, 0, KeyFileProblem::NoKey));
        }
        Ok(peers)
    }
}

/// A key file that could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{}: {problem}", path.display(), if *line > 0 { format!(":{line}") } else { String::new() })]
pub struct KeyFileError {
    /// The file.
    pub path: PathBuf,
    /// The 1-based line, or 0 when the problem is the whole file.
    pub line: usize,
    /// What is wrong.
    pub problem: KeyFileProblem,
}

impl KeyFileError {
    fn new(path: &Path, line: usize, problem: KeyFileProblem) -> KeyFileError {
        KeyFileError {
            path: path.to_owned(),
            line,
            problem,
        }
    }
}

/// What is wrong with a key file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyFileProblem {
    /// The file could not be read.
    #[error("cannot read the file: {0}")]
    Io(String),
    /// The file holds no key (only blank lines and comments).
    #[error("no key in the file (expected one key a line, 64 hex digits)")]
    NoKey,
    /// An identity file holds a second key.
    #[error("a second key (the first is on line {first}); an identity file holds exactly one private key")]
    MoreThanOneKey {
        /// The line of the first key.
        first: usize,
    },
    /// A key is not 64 digits long.
    #[error("the key has {digits} characters; expected 64 hex digits (32 bytes)")]
    WrongLength {
        /// How many characters the key has.
        digits: usize,
    },
    /// A key holds a character that is not a hexadecimal digit.
    #[error("{found:?} at column {column} is not a hex digit (0-9, a-f)")]
    NotHex {
        /// The character.
        found: char,
        /// Its 1-based column.
        column: usize,
    },
}

fn read(path: &Path) -> Result<String, KeyFileError> {
    std::fs::read_to_string(path)
        .map_err(|e| KeyFileError::new(path, 0, KeyFileProblem::Io(e.to_string())))
}

/// The keys of a key file: (line, key, label) per non-blank, non-comment
/// line, or the error of a bad one.
fn key_lines<'a>(
    path: &'a Path,
    text: &'a str,
) -> impl Iterator<Item = Result<(usize, [u8; KEY_LEN], &'a str), KeyFileError>> + 'a {
    text.lines().enumerate().filter_map(move |(i, raw)| {
        let line = i + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            return None;
        }
        let (word, label) = match trimmed.split_once(char::is_whitespace) {
            Some((w, l)) => (w, l.trim()),
            None => (trimmed, ""),
        };
        Some(
            parse_hex_key(word)
                .map(|k| (line, k, label))
                .map_err(|p| KeyFileError::new(path, line, p)),
        )
    })
}

fn parse_hex_key(word: &str) -> Result<[u8; KEY_LEN], KeyFileProblem> {
    let digits: Vec<char> = word.chars().collect();
    for (i, &c) in digits.iter().enumerate() {
        if !c.is_ascii_hexdigit() {
            return Err(KeyFileProblem::NotHex {
                found: c,
                column: i + 1,
            });
        }
    }
    if digits.len() != 2 * KEY_LEN {
        return Err(KeyFileProblem::WrongLength {
            digits: digits.len(),
        });
    }
    let mut key = [0u8; KEY_LEN];
    for (i, byte) in key.iter_mut().enumerate() {
        let hi = digits[2 * i].to_digit(16).unwrap_or(0) as u8;
        let lo = digits[2 * i + 1].to_digit(16).unwrap_or(0) as u8;
        *byte = hi << 4 | lo;
    }
    Ok(key)
}

fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The X25519 public key of a private key, computed by the handshake's own
/// Curve25519 implementation.
fn public_of(private: &[u8; KEY_LEN]) -> PublicKey {
    let mut dh = DefaultResolver
        .resolve_dh(&DHChoice::Curve25519)
        .expect("snow is built with its Curve25519 implementation");
    dh.set(private);
    let mut public = [0u8; KEY_LEN];
    public.copy_from_slice(&dh.pubkey()[..KEY_LEN]);
    PublicKey(public)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host() -> Identity {
        Identity::generate(7, "host")
    }

    fn bs() -> Identity {
        Identity::generate(7, "bs")
    }

    #[test]
    fn identity_files_round_trip() {
        let id = Identity::generate(3, "node");
        let text = id.to_file_string();
        let back = Identity::parse(Path::new("node.key"), &format!("# comment\n\n{text}")).unwrap();
        assert_eq!(back.public(), id.public());
        assert_eq!(back.name(), "node");
        assert!(
            !format!("{back:?}").contains(text.trim()),
            "Debug leaks the key"
        );
    }

    #[test]
    fn identity_and_trusted_files_load_from_disk() {
        let dir = std::env::temp_dir().join(format!("xltcp-ucl-keys-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (h, b) = (host(), bs());
        let id_path = dir.join("host.key");
        std::fs::write(&id_path, h.to_file_string()).unwrap();
        let peers_path = dir.join("trusted");
        std::fs::write(&peers_path, format!("{} bs\n", b.public())).unwrap();
        let loaded = Identity::load(&id_path).unwrap();
        let peers = TrustedPeers::load(&peers_path).unwrap();
        assert_eq!(loaded.public(), h.public());
        assert!(peers.contains(&b.public()));
        assert_eq!(peers.name_of(&b.public()), Some("bs"));
        let missing = Identity::load(&dir.join("absent.key")).unwrap_err();
        assert!(matches!(missing.problem, KeyFileProblem::Io(_)));
        assert!(missing.to_string().contains("absent.key"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bad_key_files_say_which_file_line_and_what() {
        let p = Path::new("scenarios/ucl/host.key");
        let cases: [(&str, usize, KeyFileProblem); 4] = [
            ("# nothing\n\n", 0, KeyFileProblem::NoKey),
            ("abcd\n", 1, KeyFileProblem::WrongLength { digits: 4 }),
            (
                &format!("\n{}\n", "0g".repeat(32)),
                2,
                KeyFileProblem::NotHex {
                    found: 'g',
                    column: 2,
                },
            ),
            (
                &format!("{0}\n{0}\n", "ab".repeat(32)),
                2,
                KeyFileProblem::MoreThanOneKey { first: 1 },
            ),
        ];
        for (text, line, problem) in cases {
            let e = Identity::parse(p, text).unwrap_err();
            assert_eq!((e.line, &e.problem), (line, &problem), "{text:?}");
            let msg = e.to_string();
            assert!(msg.starts_with("scenarios/ucl/host.key"), "{msg}");
        }
        let e = TrustedPeers::parse(Path::new("trusted"), "\n").unwrap_err();
        assert_eq!(e.problem, KeyFileProblem::NoKey);
        let e = TrustedPeers::parse(
            Path::new("trusted"),
            &format!("{} a\nzz b\n", "00".repeat(32)),
        )
        .unwrap_err();
        assert_eq!(e.line, 2);
        assert_eq!(
            e.to_string(),
            "trusted:2: 'z' at column 1 is not a hex digit (0-9, a-f)"
        );
    }
}
