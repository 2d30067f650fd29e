//! Namespaces, TUN devices and child processes: set-up and a teardown you
//! can trust.
//!
//! Everything a run creates is named after the owning process: namespaces
//! `xltcp-<pid>-ch` / `xltcp-<pid>-sh`, interfaces `xl<pid>c` / `xl<pid>s`
//! (15-byte interface names), and a marker `/run/xltcp-emu/<pid>` holding
//! the process's start time. A later run removes the namespaces of owners
//! that are gone (or whose pid now belongs to another process), killing the
//! processes still inside them, and never touches anything else.
//!
//! Teardown runs on [`Drop`], so a normal return, an error, a panic and a
//! stop on Ctrl-C all clean up; children also get `SIGKILL` from the
//! kernel when the thread that spawned them dies (`PR_SET_PDEATHSIG`), and
//! TUN devices vanish with their descriptors. What no code of a process
//! killed outright (`kill -9`) can remove, its namespaces and marker, a
//! [`Guardian`] removes: a small shell in a session of its own, started
//! before anything is created, that waits on a pipe only the run holds.
//! The kernel closes the pipe when the run dies, however it dies; the
//! guardian then kills what runs in the namespaces and deletes them. A run
//! that tears down normally tells it to leave without acting.

use crate::tun::Tun;
use crate::EmuError;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// Prefix of every namespace the emulator creates.
pub const NS_PREFIX: &str = "xltcp-";
/// Where `ip netns` keeps its namespaces.
const NETNS_DIR: &str = "/run/netns";
/// Where owners leave their markers.
const MARKER_DIR: &str = "/run/xltcp-emu";

/// The names of one run's namespaces and devices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Names {
    /// Owning process.
    pub pid: u32,
    /// Namespace of the wired hosts (CH).
    pub ns_ch: String,
    /// Namespace of the wireless hosts (SH).
    pub ns_sh: String,
    /// TUN device of the CH namespace.
    pub dev_ch: String,
    /// TUN device of the SH namespace.
    pub dev_sh: String,
}

impl Names {
    /// The namespace of the hosts of `side`.
    pub fn ns(&self, side: xltcp_core::sim::flow::Side) -> &str {
        match side {
            xltcp_core::sim::flow::Side::Ch => &self.ns_ch,
            xltcp_core::sim::flow::Side::Sh => &self.ns_sh,
        }
    }

    /// The names owned by process `pid`.
    pub fn for_pid(pid: u32) -> Names {
        Names {
            pid,
            ns_ch: format!("{NS_PREFIX}{pid}-ch"),
            ns_sh: format!("{NS_PREFIX}{pid}-sh"),
            dev_ch: format!("xl{pid}c"),
            dev_sh: format!("xl{pid}s"),
        }
    }
}

/// The owner pid of a namespace name the emulator would create, if it is one.
pub fn owner_of(ns: &str) -> Option<u32> {
    let rest = ns.strip_prefix(NS_PREFIX)?;
    let (pid, side) = rest.split_once('-')?;
    if side != "ch" && side != "sh" || pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok()
}

/// Checks that the emulator can run here; the error says what is missing.
pub fn preflight() -> Result<(), EmuError> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Err(EmuError::Unavailable("the emulator needs root (it creates network namespaces and TUN devices); run it with sudo".into()));
    }
    if let Err(e) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/net/tun")
    {
        return Err(EmuError::Unavailable(format!(
            "/dev/net/tun is not usable ({e}); load the tun module or run where it exists"
        )));
    }
    match Command::new("ip")
        .args(["netns", "list"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
    {
        Ok(s) if s.success() => {}
        _ => {
            return Err(EmuError::Unavailable(
                "`ip netns` is not available; install iproute2".into(),
            ))
        }
    }
    match Command::new("iperf3")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
    {
        Ok(_) => Ok(()),
        Err(_) => Err(EmuError::Unavailable(
            "iperf3 is not installed; run scripts/setup.sh (apt-get install iperf3)".into(),
        )),
    }
}

/// Start time of process `pid` (field 22 of /proc/<pid>/stat), if it exists.
fn start_time(pid: u32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces: count fields after its ')'.
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(19).map(str::to_string)
}

/// Whether the run of `pid` is still alive (same process, not a reused pid).
fn owner_alive(pid: u32) -> bool {
    let Some(now) = start_time(pid) else {
        return false;
    };
    match std::fs::read_to_string(Path::new(MARKER_DIR).join(pid.to_string())) {
        Ok(recorded) => recorded.trim() == now,
        // No marker: a live process with that pid may own it; leave it be.
        Err(_) => true,
    }
}

/// Namespaces that look like the emulator's, with their owners.
pub fn emulator_namespaces() -> Vec<(String, u32)> {
    let mut found = Vec::new();
    if let Ok(dir) = std::fs::read_dir(NETNS_DIR) {
        for entry in dir.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(pid) = owner_of(&name) {
                found.push((name, pid));
            }
        }
    }
    found.sort();
    found
}

/// Removes the namespaces (and the processes inside them) of runs whose
/// owner is gone; returns the namespaces removed.
pub fn clean_leftovers() -> Vec<String> {
    let mut removed = Vec::new();
    for (ns, pid) in emulator_namespaces() {
        if !owner_alive(pid) {
            remove_namespace(&ns);
            let _ = std::fs::remove_file(Path::new(MARKER_DIR).join(pid.to_string()));
            removed.push(ns);
        }
    }
    removed
}

/// Kills every process inside `ns`, then deletes it.
fn remove_namespace(ns: &str) {
    if let Ok(out) = Command::new("ip").args(["netns", "pids", ns]).output() {
        for pid in String::from_utf8_lossy(&out.stdout).split_whitespace() {
            if let Ok(pid) = pid.parse::<i32>() {
                // SAFETY: kill has no memory preconditions.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        }
    }
    let _ = Command::new("ip")
        .args(["netns", "del", ns])
        .stderr(Stdio::null())
        .status();
}

/// Linux's TCP counters (`TcpExt` of /proc/net/netstat) of namespace `ns`
/// that tell how losses were recovered, and its count of TCP segments
/// that arrived with a bad checksum (`InCsumErrors`, /proc/net/snmp);
/// empty if they cannot be read.
pub fn tcp_counters(ns: &str) -> std::collections::BTreeMap<String, u64> {
    const KEEP: &[&str] = &[
        "TCPTimeouts",
        "TCPLossProbes",
        "TCPLossProbeRecovery",
        "TCPSackRecovery",
        "TCPRenoRecovery",
        "TCPFastRetrans",
        "TCPSlowStartRetrans",
        "TCPLostRetransmit",
        "TCPSpuriousRTOs",
        "TCPFullUndo",
        "TCPPartialUndo",
        "TCPDSACKUndo",
        "TCPLossUndo",
        "TCPSACKReneging",
        "TCPSACKReorder",
        "TCPDSACKRecv",
        "TCPDSACKOfoRecv",
        "TCPDSACKIgnoredOld",
        "TCPDSACKIgnoredNoUndo",
        "TCPDSACKIgnoredDubious",
        "TCPSynRetrans",
    ];
    let mut out = std::collections::BTreeMap::new();
    let Ok(text) = Command::new("ip")
        .args([
            "netns",
            "exec",
            ns,
            "cat",
            "/proc/net/netstat",
            "/proc/net/snmp",
        ])
        .output()
    else {
        return out;
    };
    let text = String::from_utf8_lossy(&text.stdout);
    // `TcpExt:` of netstat, and `Tcp:` of snmp for the segments that
    // arrived with a bad checksum (`InCsumErrors`).
    for (prefix, keep) in [("TcpExt:", KEEP), ("Tcp:", &["InCsumErrors"][..])] {
        let lines: Vec<&str> = text.lines().filter(|l| l.starts_with(prefix)).collect();
        if let [names, values] = lines[..] {
            for (k, v) in names
                .split_whitespace()
                .zip(values.split_whitespace())
                .skip(1)
            {
                if let (true, Ok(v)) = (keep.contains(&k), v.parse()) {
                    out.insert(k.to_string(), v);
                }
            }
        }
    }
    out
}

/// Retransmitted segments of the TCP connection from `src` to port `port`
/// in namespace `ns` that has sent the most bytes (an iperf3 test's data
/// connection, beside its control connection): the socket's
/// `tcpi_total_retrans`, which iperf3's report also gives. `None` if no
/// such socket is open or `ss` cannot be read.
pub fn socket_retransmissions(ns: &str, src: std::net::Ipv4Addr, port: u16) -> Option<u64> {
    let out = Command::new("ip")
        .args(["netns", "exec", ns, "ss", "-tinHO", "state", "all"])
        .args(["src", &src.to_string(), "dport", "=", &format!(":{port}")])
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    parse_ss_retransmissions(&String::from_utf8_lossy(&out.stdout))
}

/// The total retransmissions (`retrans:now/total`, absent when none) of
/// the line of `ss -tinHO` output with the most `bytes_sent`.
fn parse_ss_retransmissions(text: &str) -> Option<u64> {
    let field = |line: &str, key: &str| -> Option<String> {
        line.split_whitespace()
            .find_map(|w| w.strip_prefix(key).map(str::to_string))
    };
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let sent: u64 = field(l, "bytes_sent:")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            let total = field(l, "retrans:")
                .and_then(|v| v.split('/').nth(1).and_then(|t| t.parse().ok()))
                .unwrap_or(0);
            (sent, total)
        })
        .max_by_key(|&(sent, _)| sent)
        .map(|(_, total)| total)
}

/// Datagrams the kernel dropped at device `dev` of namespace `ns` before
/// the emulator read them (`tx_dropped`: the device queue was full).
pub fn device_drops(ns: &str, dev: &str) -> u64 {
    let path = format!("/sys/class/net/{dev}/statistics/tx_dropped");
    Command::new("ip")
        .args(["netns", "exec", ns, "cat", &path])
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
        .unwrap_or(0)
}

/// Runs a command, turning failure into an error naming it.
fn run(cmd: &mut Command, input: Option<&str>) -> Result<(), EmuError> {
    let what = format!("{cmd:?}");
    cmd.stdin(if input.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::null())
    .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| EmuError::Setup(format!("{what}: {e}")))?;
    if let (Some(text), Some(mut stdin)) = (input, child.stdin.take()) {
        stdin
            .write_all(text.as_bytes())
            .map_err(|e| EmuError::Setup(format!("{what}: {e}")))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| EmuError::Setup(format!("{what}: {e}")))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(EmuError::Setup(format!("{what} failed: {}", err.trim())));
    }
    Ok(())
}

/// How one host namespace is configured.
#[derive(Clone, Debug, Default)]
pub struct HostConfig {
    /// Addresses of the hosts in this namespace (one per flow).
    pub addresses: Vec<std::net::Ipv4Addr>,
    /// MTU of the TUN device.
    pub mtu: u32,
    /// `key=value` sysctls set inside the namespace.
    pub sysctls: Vec<String>,
    /// The user's `key=value` sysctls (`--sysctl`), set after `sysctls`,
    /// one at a time so a refusal names its own.
    pub user_sysctls: Vec<String>,
    /// Extra options of the route to the other side (`initcwnd 10 rto_min 1000ms`).
    pub route_options: String,
}

/// One run's namespaces, devices and children; removed on drop.
#[derive(Debug)]
pub struct Plumbing {
    /// The names in use.
    pub names: Names,
    /// TUN device of the CH namespace.
    pub tun_ch: Option<Tun>,
    /// TUN device of the SH namespace.
    pub tun_sh: Option<Tun>,
    children: Vec<Child>,
    namespaces: Vec<String>,
    marker: Option<PathBuf>,
    guardian: Option<Guardian>,
}

/// A process that removes a run's namespaces and marker if the run dies
/// without tearing down (see the module documentation).
#[derive(Debug)]
pub struct Guardian {
    child: Child,
}

impl Guardian {
    /// Starts the guardian of `names`' namespaces and of `marker`.
    pub fn start(names: &Names, marker: &Path) -> Result<Guardian, EmuError> {
        // `read` returns "done" on a normal teardown, and fails on end of
        // file when the run died: only then does the guardian act.
        let script = format!(
            "read word; [ \"$word\" = done ] && exit 0; \
             for ns in {ch} {sh}; do \
               for p in $(ip netns pids \"$ns\" 2>/dev/null); do kill -9 \"$p\"; done; \
               ip netns del \"$ns\" 2>/dev/null; \
             done; rm -f {marker}",
            ch = names.ns_ch,
            sh = names.ns_sh,
            marker = marker.display(),
        );
        let mut cmd = Command::new("sh");
        cmd.args(["-c", &script])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // SAFETY: only async-signal-safe calls between fork and exec. A
        // session of its own: a Ctrl-C or a kill of the run's process group
        // does not reach it.
        unsafe {
            cmd.pre_exec(|| {
                libc::setsid();
                Ok(())
            });
        }
        let child = cmd
            .spawn()
            .map_err(|e| EmuError::Setup(format!("the cleanup guardian (sh): {e}")))?;
        Ok(Guardian { child })
    }

    /// Tells the guardian the run tore down, and waits for it to leave.
    pub fn dismiss(mut self) {
        if let Some(mut stdin) = self.child.stdin.take() {
            let _ = stdin.write_all(b"done\n");
        }
        let _ = self.child.wait();
    }
}

impl Plumbing {
    /// Creates both namespaces with their TUN devices, configured.
    pub fn create(names: Names, ch: &HostConfig, sh: &HostConfig) -> Result<Plumbing, EmuError> {
        let mut p = Plumbing {
            names,
            tun_ch: None,
            tun_sh: None,
            children: Vec::new(),
            namespaces: Vec::new(),
            marker: None,
            guardian: None,
        };
        p.write_marker()?;
        let marker = p.marker.clone().expect("written");
        p.guardian = Some(Guardian::start(&p.names, &marker)?);
        let (ns_ch, ns_sh) = (p.names.ns_ch.clone(), p.names.ns_sh.clone());
        let (dev_ch, dev_sh) = (p.names.dev_ch.clone(), p.names.dev_sh.clone());
        p.tun_ch = Some(p.host(&ns_ch, &dev_ch, ch)?);
        p.tun_sh = Some(p.host(&ns_sh, &dev_sh, sh)?);
        Ok(p)
    }

    fn write_marker(&mut self) -> Result<(), EmuError> {
        let start = start_time(self.names.pid).unwrap_or_default();
        let path = Path::new(MARKER_DIR).join(self.names.pid.to_string());
        std::fs::create_dir_all(MARKER_DIR)
            .and_then(|_| std::fs::write(&path, start))
            .map_err(|e| EmuError::Setup(format!("{}: {e}", path.display())))?;
        self.marker = Some(path);
        Ok(())
    }

    /// One host namespace: created, IPv6 off, TCP sysctls, the TUN device
    /// moved in, addressed and routed.
    fn host(&mut self, ns: &str, dev: &str, cfg: &HostConfig) -> Result<Tun, EmuError> {
        run(Command::new("ip").args(["netns", "add", ns]), None)?;
        self.namespaces.push(ns.to_string());
        // IPv6 off before the device arrives, so it never sends router
        // solicitations.
        let mut sysctls = vec![
            "net.ipv6.conf.all.disable_ipv6=1".to_string(),
            "net.ipv6.conf.default.disable_ipv6=1".to_string(),
        ];
        sysctls.extend(cfg.sysctls.iter().cloned());
        run(
            Command::new("ip")
                .args(["netns", "exec", ns, "sysctl", "-q", "-w"])
                .args(&sysctls),
            None,
        )?;
        for s in &cfg.user_sysctls {
            run(
                Command::new("ip").args(["netns", "exec", ns, "sysctl", "-q", "-w", s]),
                None,
            )
            .map_err(|e| {
                let why = e.to_string();
                let why = why.rsplit(" failed: ").next().unwrap_or(&why);
                EmuError::Unsupported(format!("--sysctl {s}: the kernel refused it ({why})"))
            })?;
        }
        let tun =
            Tun::create(dev).map_err(|e| EmuError::Setup(format!("TUN device {dev}: {e}")))?;
        run(
            Command::new("ip").args(["link", "set", "dev", dev, "netns", ns]),
            None,
        )?;
        let mut batch = String::new();
        batch.push_str("link set dev lo up\n");
        batch.push_str(&format!("link set dev {dev} mtu {} up\n", cfg.mtu));
        for a in &cfg.addresses {
            batch.push_str(&format!("addr add {a}/32 dev {dev}\n"));
        }
        batch.push_str(&format!(
            "route add 10.0.0.0/8 dev {dev} {}\n",
            cfg.route_options
        ));
        run(
            Command::new("ip").args(["-n", ns, "-batch", "-"]),
            Some(&batch),
        )?;
        // A FIFO whatever `net.core.default_qdisc` says: fq would pace
        // every TCP flow at its pacing rate, which the simulator does not.
        run(
            Command::new("ip")
                .args(["netns", "exec", ns, "tc", "qdisc", "replace", "dev", dev])
                .args(["root", "pfifo_fast"]),
            None,
        )?;
        Ok(tun)
    }

    /// Starts `program args` inside namespace `ns` in its own process
    /// group, killed by the kernel if the spawning thread dies.
    pub fn spawn(&mut self, ns: &str, program: &str, args: &[String]) -> Result<usize, EmuError> {
        let mut cmd = Command::new("ip");
        cmd.args(["netns", "exec", ns, program])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                libc::setpgid(0, 0);
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
                Ok(())
            });
        }
        let child = cmd
            .spawn()
            .map_err(|e| EmuError::Setup(format!("{program} in {ns}: {e}")))?;
        self.children.push(child);
        Ok(self.children.len() - 1)
    }

    /// A child started by [`Plumbing::spawn`].
    pub fn child(&mut self, index: usize) -> &mut Child {
        &mut self.children[index]
    }

    /// Kills the children, closes the devices and deletes the namespaces.
    /// Safe to call more than once.
    pub fn teardown(&mut self) {
        for c in &mut self.children {
            if let Ok(None) = c.try_wait() {
                // SAFETY: kill has no memory preconditions; the child leads its group.
                unsafe { libc::kill(-(c.id() as i32), libc::SIGKILL) };
                let _ = c.kill();
            }
            let _ = c.wait();
        }
        self.children.clear();
        self.tun_ch = None;
        self.tun_sh = None;
        for ns in self.namespaces.drain(..) {
            remove_namespace(&ns);
        }
        if let Some(m) = self.marker.take() {
            let _ = std::fs::remove_file(m);
        }
        if let Some(g) = self.guardian.take() {
            g.dismiss();
        }
    }
}

impl Drop for Plumbing {
    fn drop(&mut self) {
        self.teardown();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_fit_interface_limits_and_parse_back() {
        let n = Names::for_pid(4_194_304);
        assert_eq!(n.ns_ch, "xltcp-4194304-ch");
        assert!(n.dev_ch.len() < libc::IFNAMSIZ && n.dev_sh.len() < libc::IFNAMSIZ);
        assert_eq!(owner_of(&n.ns_ch), Some(4_194_304));
        assert_eq!(owner_of(&n.ns_sh), Some(4_194_304));
    }

    #[test]
    fn foreign_names_are_never_claimed() {
        for name in [
            "xltcp-12-xx",
            "xltcp--ch",
            "xltcp-1a-ch",
            "other-12-ch",
            "xltcp-12-ch-2",
            "xltcp-12",
        ] {
            assert_eq!(owner_of(name), None, "{name}");
        }
    }

    #[test]
    fn the_data_connection_gives_the_retransmissions() {
        // A control connection (no retransmissions, few bytes) and a data
        // connection, as `ss -tinHO` prints them.
        let text = "ESTAB 0 0 10.0.0.1:42472 10.0.1.1:5201 cubic rto:204 bytes_sent:164 bytes_acked:165\n\
                    ESTAB 0 1081 10.0.0.1:42484 10.0.1.1:5201 cubic rto:204 bytes_sent:1818753 bytes_retrans:3928 retrans:1/6 dsack_dups:6\n";
        assert_eq!(parse_ss_retransmissions(text), Some(6));
        let clean = "ESTAB 0 0 10.0.0.1:42484 10.0.1.1:5201 cubic bytes_sent:99\n";
        assert_eq!(parse_ss_retransmissions(clean), Some(0));
        assert_eq!(parse_ss_retransmissions(""), None);
    }
}
