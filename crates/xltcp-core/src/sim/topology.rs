//! Who is where: each flow's wired host (its own) and wireless host (its
//! own by default; flows that name the same `host` share one), the
//! station of each wireless host on the hop, and the addresses.
//!
//! Addresses: the wired host of flow `i` is `10.1.x.y`, wireless host `h`
//! is `10.2.x.y`, with x.y = index + 1.

use super::flow::{address, Side};
use crate::hop::Station;
use crate::scenario::{host_names, Scenario};
use std::collections::BTreeMap;
use std::net::Ipv4Addr;

/// The topology of a scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Topology {
    host_of: Vec<u32>,
    /// Endpoints at each wireless host: (flow, side).
    host_endpoints: Vec<Vec<(usize, Side)>>,
    /// The endpoint at each wired host.
    wired_endpoints: Vec<[(usize, Side); 1]>,
}

impl Topology {
    /// The topology of `scenario`: wireless hosts numbered in the order of
    /// their first flow.
    pub fn of(scenario: &Scenario) -> Topology {
        let names = host_names(&scenario.flows);
        let index: BTreeMap<&str, u32> = names.iter().zip(0..).map(|(&n, i)| (n, i)).collect();
        let host_of: Vec<u32> = scenario
            .flows
            .iter()
            .map(|f| index[f.host_name()])
            .collect();
        let mut host_endpoints = vec![Vec::new(); names.len()];
        for (i, &h) in host_of.iter().enumerate() {
            host_endpoints[h as usize].push((i, Side::Sh));
        }
        Topology {
            host_of,
            host_endpoints,
            wired_endpoints: (0..scenario.flows.len()).map(|i| [(i, Side::Ch)]).collect(),
        }
    }

    /// Number of wireless hosts.
    pub fn hosts(&self) -> usize {
        self.host_endpoints.len()
    }

    /// The wireless host of each flow.
    pub fn host_of(&self) -> &[u32] {
        &self.host_of
    }

    /// The hop station of flow `flow`'s wireless host.
    pub fn station_of_flow(&self, flow: usize) -> Station {
        self.host_of[flow] as Station + 1
    }

    /// The endpoints at wireless host `h`.
    pub fn endpoints_of_host(&self, h: usize) -> &[(usize, Side)] {
        &self.host_endpoints[h]
    }

    /// The endpoint at flow `f`'s wired host.
    pub fn endpoint_of_wired(&self, f: usize) -> &[(usize, Side)] {
        &self.wired_endpoints[f]
    }

    /// (source, destination) of what `side` of `flow` sends.
    pub fn addresses(&self, flow: usize, side: Side) -> (Ipv4Addr, Ipv4Addr) {
        let ch = address(Side::Ch, flow as u32);
        let sh = address(Side::Sh, self.host_of[flow]);
        match side {
            Side::Ch => (ch, sh),
            Side::Sh => (sh, ch),
        }
    }
}
