//! Helpers shared by the integration tests. Each test binary uses only
//! some of them.
#![allow(dead_code)]

pub mod pcapng;
pub mod tshark;
