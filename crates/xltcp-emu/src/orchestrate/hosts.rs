//! What the emulator sets in each host namespace: the socket buffers a
//! flow's window needs, the sysctls that follow the scenario's `[tcp]`, and
//! the warnings for what a namespace can only set for all its flows.

use crate::hop::host_address;
use crate::plumbing::HostConfig;
use std::path::Path;
use xltcp_core::scenario::Scenario;
use xltcp_core::sim::flow::Side;

/// The smallest receive-buffer maximum the namespaces get (bytes).
const RMEM_FLOOR: u64 = 131072;

/// The smallest send-buffer maximum the namespaces get (bytes).
const WMEM_FLOOR: u64 = 16384;

/// Memory Linux charges a buffer per segment besides its payload (the
/// socket buffer's `truesize`: the `sk_buff`, its shared info, headers and
/// headroom). Measured: a receiver whose buffer may grow to B advertises
/// at most 0.627 B with 1448-byte segments from the TUN device, a
/// truesize of 2308 bytes per segment.
const SEGMENT_OVERHEAD: u64 = 860;

/// The buffer maximum Linux needs to hold `payload` bytes in `mss`-byte
/// segments: the simulator's buffers count payload, Linux's count memory
/// (at a 1448-byte MSS about 1.6 times the payload, at 94 bytes about 10).
fn linux_buffer(payload: u64, mss: u32) -> u64 {
    let mss = u64::from(mss.max(1));
    payload.saturating_mul(mss + SEGMENT_OVERHEAD).div_ceil(mss)
}

/// Settings Linux applies per namespace, taken from the first flow.
pub(super) fn namespace_wide_warnings(s: &Scenario) -> Vec<String> {
    let first = &s.flows[0].tcp;
    let differs = s.flows.iter().any(|f| {
        let t = &f.tcp;
        (
            t.mss,
            t.sack,
            t.timestamps,
            t.window_scale,
            t.initial_window,
            t.min_rto,
            t.rcv_buffer,
            t.snd_buffer,
            t.frto,
            t.rack,
            t.tlp,
            t.dsack,
        ) != (
            first.mss,
            first.sack,
            first.timestamps,
            first.window_scale,
            first.initial_window,
            first.min_rto,
            first.rcv_buffer,
            first.snd_buffer,
            first.frto,
            first.rack,
            first.tlp,
            first.dsack,
        ) || t.syn_linear_timeouts != first.syn_linear_timeouts
    });
    let mut w = Vec::new();
    if differs {
        w.push("flows differ in TCP settings Linux applies per namespace (mss, sack, timestamps, window scaling, initial window, min RTO, buffers, F-RTO, RACK, TLP, DSACK, linear SYN timeouts): the first flow's are used".into());
    }
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    if first.sack && !first.rack && rack_always_on(release.trim()) {
        w.push(format!(
            "tcp.rack = false is not honoured: Linux {} always detects losses by RACK when SACK is on (Linux 6.17 removed RFC 6675's detection, and net.ipv4.tcp_recovery = 0 no longer turns RACK off); compare with the simulator's tcp.rack = true",
            release.trim()
        ));
    }
    if first.syn_linear_timeouts > 0 && !Path::new(SYN_LINEAR_TIMEOUTS).exists() {
        w.push(format!(
            "tcp.syn_linear_timeouts = {} is not honoured: Linux {} has no net.ipv4.tcp_syn_linear_timeouts (before 6.5 every SYN timeout doubles the RTO, as with 0)",
            first.syn_linear_timeouts,
            release.trim()
        ));
    }
    w
}

/// Linux's linear SYN timeouts (6.5 and later), per namespace.
const SYN_LINEAR_TIMEOUTS: &str = "/proc/sys/net/ipv4/tcp_syn_linear_timeouts";

/// Whether the kernel of release `release` ("6.18.44-...") runs RACK loss
/// detection whatever `net.ipv4.tcp_recovery` says (Linux 6.17 and later).
fn rack_always_on(release: &str) -> bool {
    let mut parts = release
        .split(|c: char| !c.is_ascii_digit())
        .map(|p| p.parse::<u32>().ok());
    matches!(
        (parts.next().flatten(), parts.next().flatten()),
        (Some(major), Some(minor)) if (major, minor) >= (6, 17)
    )
}

/// Namespace configuration from the first flow's TCP settings.
pub(super) fn host_configs(s: &Scenario) -> (HostConfig, HostConfig) {
    let t = &s.flows[0].tcp;
    // The MTU makes Linux's MSS carry the scenario's payload per segment.
    let mtu = t.mss + 40 + if t.timestamps { 12 } else { 0 };
    let mut sysctls = vec![
        format!("net.ipv4.tcp_sack={}", t.sack as u8),
        format!("net.ipv4.tcp_timestamps={}", t.timestamps as u8),
        format!("net.ipv4.tcp_window_scaling={}", t.window_scale as u8),
        // F-RTO as the scenario says (Linux has one F-RTO of its own,
        // whatever `tcp.frto_variant` says: "linux" is the simulator's
        // model of it).
        format!("net.ipv4.tcp_frto={}", if t.frto { 2 } else { 0 }),
        // RACK and the Tail Loss Probe as the scenario says (Linux's
        // defaults, 1 and 3, run both; from Linux 6.17 RACK runs with SACK
        // whatever the first says, see `namespace_wide_warnings`).
        format!("net.ipv4.tcp_recovery={}", u8::from(t.rack)),
        format!("net.ipv4.tcp_early_retrans={}", if t.tlp { 3 } else { 0 }),
        // DSACK from the receivers as the scenario says (Linux's default
        // sends it).
        format!("net.ipv4.tcp_dsack={}", u8::from(t.dsack)),
        format!(
            "net.ipv4.tcp_rmem=4096 131072 {}",
            linux_buffer(t.rcv_buffer, t.mss).max(RMEM_FLOOR)
        ),
        format!(
            "net.ipv4.tcp_wmem=4096 16384 {}",
            linux_buffer(t.snd_buffer, t.mss).max(WMEM_FLOOR)
        ),
        "net.ipv4.tcp_no_metrics_save=1".into(),
        // iperf3 sets the flow's congestion control (`-C`) only once the
        // connection is open, under the namespace's default; a pacing
        // default (BBR, on some machines) turns Linux's internal pacing
        // on for good (`sk_pacing_status`), and the Reno flow would then
        // send at 1.2 times cwnd per SRTT, off the ACK clock. Reno never
        // asks for pacing.
        "net.ipv4.tcp_congestion_control=reno".into(),
    ];
    // The SYN's timeouts as the scenario says (Linux's default, 4, keeps
    // the RTO for the first four; 0 doubles it on each, as RFC 6298 and
    // kernels before 6.5 do).
    if Path::new(SYN_LINEAR_TIMEOUTS).exists() {
        sysctls.push(format!(
            "net.ipv4.tcp_syn_linear_timeouts={}",
            t.syn_linear_timeouts
        ));
    }
    let mut route = format!(
        "initcwnd {} rto_min {}ms",
        t.initial_window,
        t.min_rto.as_nanos().div_ceil(1_000_000)
    );
    if t.delayed_ack_segments == 1 {
        route.push_str(" quickack 1");
    }
    // The buffer maximum leaves room for Linux's overhead (and keeps its
    // floor); the route clamps the window each receiver advertises to the
    // scenario's buffer.
    route.push_str(&format!(" window {}", t.rcv_buffer));
    let host = |side: Side| HostConfig {
        addresses: (0..s.flows.len() as u32)
            .map(|i| host_address(side, i))
            .collect(),
        mtu,
        sysctls: sysctls.clone(),
        route_options: route.clone(),
        user_sysctls: Vec::new(),
    };
    (host(Side::Ch), host(Side::Sh))
}

#[cfg(test)]
mod tests {
    use super::linux_buffer;

    #[test]
    fn rack_cannot_be_turned_off_from_linux_6_17() {
        use super::rack_always_on;
        assert!(rack_always_on("6.18.44-fc-v669"));
        assert!(rack_always_on("6.17.0"));
        assert!(rack_always_on("7.0.1-arch1"));
        assert!(!rack_always_on("6.16.9-200.fc42.x86_64"));
        assert!(!rack_always_on("5.15.0-91-generic"));
        assert!(!rack_always_on(""));
    }

    /// Both hosts' configurations for a one-flow scenario with `sets`.
    fn hosts(sets: &[String]) -> (super::HostConfig, super::HostConfig) {
        let text = "[wired]\nrate = \"10Mbps\"\ndelay = \"10ms\"\n[wireless]\nrate = \"5Mbps\"\ndelay = \"5ms\"\n[[flow]]\n";
        let s = xltcp_core::scenario::load_str(text, "t.toml", std::path::Path::new("."), sets)
            .expect("valid");
        super::host_configs(&s)
    }

    #[test]
    fn no_socket_starts_under_a_pacing_congestion_control() {
        let (ch, sh) = hosts(&[]);
        for host in [ch, sh] {
            assert!(host
                .sysctls
                .contains(&"net.ipv4.tcp_congestion_control=reno".to_string()));
        }
    }

    #[test]
    fn linux_times_its_syns_as_the_scenario_says() {
        let sysctls = |sets: &[String]| hosts(sets).1.sysctls;
        if !std::path::Path::new(super::SYN_LINEAR_TIMEOUTS).exists() {
            return; // a kernel before 6.5: every SYN timeout doubles the RTO
        }
        let key = "net.ipv4.tcp_syn_linear_timeouts";
        assert!(sysctls(&[]).contains(&format!("{key}=0")));
        let linux = sysctls(&["tcp.syn_linear_timeouts=4".to_string()]);
        assert!(linux.contains(&format!("{key}=4")));
    }

    #[test]
    fn linux_buffers_leave_room_for_each_segments_overhead() {
        // 256 KiB of 1448-byte segments: 182 segments, 860 B each on top.
        assert_eq!(linux_buffer(256 * 1024, 1448), 417_838);
        // Paper 000's 2 KiB of 94-byte segments: ten times the payload.
        assert_eq!(linux_buffer(2048, 94), 20_786);
        assert_eq!(linux_buffer(0, 1448), 0);
    }
}
