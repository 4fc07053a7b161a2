//! Rate adaptation (placeholder, being written).
