//! The world's bookkeeping of agents: each agent's slot (its node and its
//! armed deadline), the counters of the signal bus and of the agents'
//! local retransmissions at their receivers.

use crate::schemes::{Agent, Node};
use crate::time::Time;
use serde::Serialize;
use std::collections::BTreeMap;

/// An agent placed on a node.
#[derive(Debug)]
pub struct AgentSlot {
    /// Where it sits.
    pub node: Node,
    /// The scheme's state machine.
    pub agent: Box<dyn Agent>,
    /// The earliest deadline scheduled for it.
    pub armed: Time,
}

impl AgentSlot {
    /// A slot with nothing scheduled.
    pub fn new(node: Node, agent: Box<dyn Agent>) -> AgentSlot {
        AgentSlot {
            node,
            agent,
            armed: Time::NEVER,
        }
    }

    /// The agent's deadline, if it must be scheduled (earlier than what
    /// is already scheduled); records it as armed.
    pub fn arm(&mut self, now: Time) -> Option<Time> {
        let at = self.agent.poll_timeout()?.max(now);
        (at < self.armed).then(|| {
            self.armed = at;
            at
        })
    }
}

/// Signals published and delivered, by type name.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SignalStats {
    /// Signals published by the radios, by type.
    pub published: BTreeMap<&'static str, u64>,
    /// Deliveries to agents (signals an agent used), by type.
    pub delivered: BTreeMap<&'static str, u64>,
}

impl SignalStats {
    /// One more signal of type `name` published.
    pub fn count_published(&mut self, name: &'static str) {
        *self.published.entry(name).or_insert(0) += 1;
    }

    /// One more signal of type `name` used by an agent.
    pub fn count_delivered(&mut self, name: &'static str) {
        *self.delivered.entry(name).or_insert(0) += 1;
    }
}

/// Agents' local retransmissions (data copies marked forged) as the
/// receiving endpoint found them: `summary.json` `"local_retransmissions"`,
/// present once one reached an endpoint.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LocalRxmitStats {
    /// Handed to the receiving endpoint.
    pub delivered: u64,
    /// Of those, segments whose every byte the endpoint had already
    /// received (below its RCV.NXT or in one out-of-order range): a local
    /// retransmission that was not needed.
    pub unnecessary: u64,
}
