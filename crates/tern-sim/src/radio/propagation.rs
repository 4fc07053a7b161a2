//! Path loss, shadowing, RSSI and SNR (placeholder, being written).
