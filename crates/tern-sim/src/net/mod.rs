//! The network: packets, links and their queues and loss models, routing.

pub mod link;
pub mod loss;
pub mod packet;
pub mod qdisc;
pub mod route;
