//! The network: packets, links and their queues and loss models, routing.

pub mod body;
pub mod device;
pub mod loss;
pub mod p2p;
pub mod packet;
pub mod qdisc;
pub mod route;
pub mod service;
pub mod udp;
