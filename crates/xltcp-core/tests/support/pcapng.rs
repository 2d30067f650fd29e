//! A reader of the pcapng files xltcp writes, to check them without
//! Wireshark: every block's lengths, the interfaces' names, link types,
//! snapshot lengths and timestamp resolutions, each record's interface,
//! timestamp, lengths, bytes and comment.

use std::path::Path;

/// A capture point of a file (an Interface Description Block).
#[derive(Clone, Debug, PartialEq)]
pub struct Iface {
    /// `if_name`.
    pub name: String,
    /// `if_description`.
    pub description: String,
    /// The link type.
    pub link_type: u16,
    /// The snapshot length.
    pub snaplen: u32,
    /// `if_tsresol` (9 = nanoseconds).
    pub tsresol: Option<u8>,
}

/// A record (an Enhanced Packet Block).
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// Its interface's id.
    pub iface: u32,
    /// Timestamp, in units of the interface's resolution.
    pub ts: u64,
    /// The bytes captured.
    pub data: Vec<u8>,
    /// The length of the whole packet.
    pub orig_len: u32,
    /// `opt_comment`, if any.
    pub comment: Option<String>,
}

/// What a file holds.
#[derive(Clone, Debug, Default)]
pub struct Capture {
    /// Interfaces by id.
    pub ifaces: Vec<Iface>,
    /// Records in file order.
    pub records: Vec<Record>,
}

impl Capture {
    /// The records of the interface named `name`.
    pub fn of(&self, name: &str) -> Vec<&Record> {
        let id = self
            .ifaces
            .iter()
            .position(|i| i.name == name)
            .unwrap_or_else(|| panic!("no interface {name}: {:?}", self.ifaces));
        self.records
            .iter()
            .filter(|r| r.iface as usize == id)
            .collect()
    }
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(b[at..at + 2].try_into().unwrap())
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// Options from `b` on: (code, value) until `opt_endofopt` or the end.
fn options(b: &[u8]) -> Vec<(u16, Vec<u8>)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at + 4 <= b.len() {
        let (code, len) = (u16_at(b, at), u16_at(b, at + 2) as usize);
        if code == 0 {
            break;
        }
        out.push((code, b[at + 4..at + 4 + len].to_vec()));
        at += 4 + ((len + 3) & !3);
    }
    out
}

/// Reads `path`, panicking (failing the test) on anything malformed.
pub fn read(path: &Path) -> Capture {
    let b = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parse(&b)
}

/// Parses a pcapng byte stream.
pub fn parse(b: &[u8]) -> Capture {
    assert_eq!(u32_at(b, 0), 0x0A0D_0D0A, "starts with a section header");
    assert_eq!(u32_at(b, 8), 0x1A2B_3C4D, "little-endian section");
    let mut cap = Capture::default();
    let mut at = 0;
    while at < b.len() {
        let (ty, len) = (u32_at(b, at), u32_at(b, at + 4) as usize);
        assert!(len >= 12 && len % 4 == 0, "block length {len} at {at}");
        assert_eq!(
            u32_at(b, at + len - 4) as usize,
            len,
            "trailing length at {at}"
        );
        let body = &b[at + 8..at + len - 4];
        match ty {
            1 => {
                let opts = options(&body[8..]);
                let text = |code| {
                    opts.iter()
                        .find(|(c, _)| *c == code)
                        .map(|(_, v)| String::from_utf8(v.clone()).unwrap())
                        .unwrap_or_default()
                };
                cap.ifaces.push(Iface {
                    name: text(2),
                    description: text(3),
                    link_type: u16_at(body, 0),
                    snaplen: u32_at(body, 4),
                    tsresol: opts.iter().find(|(c, _)| *c == 9).map(|(_, v)| v[0]),
                });
            }
            6 => {
                let iface = u32_at(body, 0);
                assert!(
                    (iface as usize) < cap.ifaces.len(),
                    "record before its interface"
                );
                let ts = (u64::from(u32_at(body, 4)) << 32) | u64::from(u32_at(body, 8));
                let caplen = u32_at(body, 12) as usize;
                let orig_len = u32_at(body, 16);
                assert!(caplen as u32 <= orig_len);
                assert!(caplen as u32 <= cap.ifaces[iface as usize].snaplen);
                let data = body[20..20 + caplen].to_vec();
                let opts = options(&body[20 + ((caplen + 3) & !3)..]);
                let comment = opts
                    .iter()
                    .find(|(c, _)| *c == 1)
                    .map(|(_, v)| String::from_utf8(v.clone()).unwrap());
                cap.records.push(Record {
                    iface,
                    ts,
                    data,
                    orig_len,
                    comment,
                });
            }
            0x0A0D_0D0A => {}
            other => panic!("unexpected block type {other:#x}"),
        }
        at += len;
    }
    cap
}
