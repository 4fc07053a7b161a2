//! Block Ack agreements (placeholder, being written).
