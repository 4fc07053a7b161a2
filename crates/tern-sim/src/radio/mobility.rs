//! Node positions over time (placeholder, being written).
