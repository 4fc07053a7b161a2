//! Radio: where nodes are ([`mobility`]) and what they receive from each other
//! ([`propagation`]).

pub mod mobility;
pub mod propagation;
