//! The trace record kinds: one struct per table, its fields the table's columns in order.
//!
//! Times (`SimTime`) are written in seconds, flags (`bool`) as 0/1, `Option` fields as
//! nullable columns. The `tables!` list at the end names every table once, with the kind
//! of `record = [...]` that turns it on; [`SCHEMAS`] and [`TableId`] come from it.

use crate::engine::SimTime;

record! {
    /// Queue length of a link direction, at every change.
    QueueRecord<'a> => "queue" {
        time: SimTime,
        link: &'a str,
        direction: &'a str,
        packets: u64,
        bytes: u64,
    }
}

record! {
    /// A message reached its receiving application: its one-way delay.
    DelayRecord<'a> => "delay" {
        time: SimTime,
        flow: &'a str,
        seq: u64,
        /// When the sending application sent it.
        sent: SimTime,
        /// One-way delay: arrival at the receiving application minus `sent`.
        delay: SimTime,
        size: u32,
        /// The TCP connection that carried it (1 = the first; 0 for UDP).
        conn: u64,
    }
}

record! {
    /// A packet dropped, with where and why.
    DropRecord<'a> => "drops" {
        time: SimTime,
        link: &'a str,
        direction: &'a str,
        /// Why, e.g. "queue" (the queue was full), "aqm" (CoDel dropped it), "loss" (the
        /// link's loss model), "rlc-discard" (RLC AM gave the SDU up), "disassociated" (roaming).
        reason: &'a str,
        flow: &'a str,
        uid: u64,
        size: u32,
    }
}

record! {
    /// A ping reply came back `rtt` after its request left.
    RttRecord<'a> => "rtt" {
        time: SimTime,
        flow: &'a str,
        seq: u64,
        /// Round-trip time of the echo request.
        rtt: SimTime,
    }
}

record! {
    /// A TCP endpoint's congestion window changed.
    CwndRecord<'a> => "cwnd" {
        time: SimTime,
        flow: &'a str,
        endpoint: &'a str,
        /// Congestion window, bytes.
        cwnd: u64,
        /// Null until the first loss sets it (TCP starts with an "infinite" ssthresh).
        ssthresh: Option<u64>,
        /// Bytes sent and not yet acknowledged.
        in_flight: u64,
        /// Pacing rate, bytes per second; null when the endpoint does not pace (`pacing`).
        pacing_rate: Option<u64>,
    }
}

record! {
    /// A TCP segment an endpoint sent, for time-sequence graphs (sequence number against
    /// time, as tcptrace draws them from a capture). Sequence and acknowledgment numbers are
    /// offsets from the endpoint's and its peer's initial sequence numbers (the SYN is 0,
    /// the first data byte 1), so a transfer's bytes count from 1 whatever the ISNs.
    SegmentRecord<'a> => "segments" {
        time: SimTime,
        flow: &'a str,
        endpoint: &'a str,
        /// Offset of the first byte (of the SYN or FIN for those flags).
        seq: u64,
        /// Payload bytes (0 for a pure ACK).
        len: u32,
        /// Offset of the acknowledgment; null on a segment without ACK (the first SYN).
        ack: Option<u64>,
        /// Whether the bytes had been sent before (a retransmission of any kind).
        retransmission: bool,
    }
}

record! {
    /// A TCP endpoint's RTT estimator after a sample (RFC 6298).
    RtoRecord<'a> => "rto" {
        time: SimTime,
        flow: &'a str,
        endpoint: &'a str,
        /// Smoothed RTT (RFC 6298 §2).
        srtt: SimTime,
        /// RTT variation (RFC 6298 §2).
        rttvar: SimTime,
        /// The retransmission timeout after the sample.
        rto: SimTime,
    }
}

record! {
    /// A TCP retransmission (`kind` fast, rto, sack, probe, speculative), an RTO expiry
    /// (`rto_expiry`) or a spurious RTO found (`spurious_rto`).
    RetransmitRecord<'a> => "retransmits" {
        time: SimTime,
        flow: &'a str,
        endpoint: &'a str,
        kind: &'a str,
        /// The first sequence number retransmitted; null for expiries and spurious RTOs.
        seq: Option<u32>,
        /// Bytes retransmitted; for `spurious_rto`, the restored congestion window; null
        /// for expiries.
        len: Option<u64>,
        /// For expiries: the back-off count; null otherwise.
        backoff: Option<u32>,
        /// For expiries: the timer's new value; null otherwise.
        rto: Option<SimTime>,
    }
}

record! {
    /// A cellular handover completed.
    HandoverRecord<'a> => "handovers" {
        time: SimTime,
        link: &'a str,
        /// The UE's node (`ends[0]` of the link).
        ue: &'a str,
        /// 1 for the first handover of the link (the UE starts in cell 0).
        cell: u32,
        /// Start of the handover's burst-loss period.
        loss_start: SimTime,
    }
}

record! {
    /// A `ConnectionSwitcher` event: a notice sent or received, a handover, a switch.
    SwitcherRecord<'a> => "switcher" {
        time: SimTime,
        flow: &'a str,
        /// What happened, e.g. "notice_sent" or "switch".
        event: &'a str,
        /// The notice's last-sent time; null for events without a notice.
        last_sent: Option<SimTime>,
        /// The decision a received notice led to; null for other events.
        decision: Option<&'a str>,
    }
}

record! {
    /// RLC AM in one TTI and direction: sender buffer, PDUs sent and retransmitted.
    RlcRecord<'a> => "rlc" {
        time: SimTime,
        link: &'a str,
        direction: &'a str,
        /// Bytes waiting in the RLC sender's buffer.
        buffer_bytes: u64,
        /// PDUs sent in the TTI.
        pdus_sent: u64,
        /// PDUs of those that were retransmissions.
        pdus_retransmitted: u64,
    }
}

record! {
    /// An SDU reassembled by RLC AM: its delay across the RLC.
    RlcSduRecord<'a> => "rlc_sdu" {
        time: SimTime,
        link: &'a str,
        direction: &'a str,
        uid: u64,
        /// The SDU's delay across the RLC.
        delay: SimTime,
    }
}

record! {
    /// An 802.11 PPDU on the air.
    WifiRecord<'a> => "wifi" {
        time: SimTime,
        bss: &'a str,
        from: &'a str,
        to: &'a str,
        /// "data", "ampdu" or "bar".
        kind: &'a str,
        /// PHY data rate of the PPDU.
        rate_mbps: f64,
        /// The HT MCS index; null for non-HT PPDUs.
        mcs: Option<f64>,
        /// MPDUs in the PPDU (1 unless an A-MPDU).
        mpdus: u32,
        /// MPDUs of those the receiver acknowledged.
        acked: u32,
        /// Whether it collided with another transmission on the medium.
        collision: bool,
        /// SNR at the receiver.
        snr_db: f64,
    }
}

record! {
    /// An MPDU an 802.11 receiver's PHY passed up, with a good or a bad FCS.
    WifiRxRecord<'a> => "wifi_rx" {
        time: SimTime,
        bss: &'a str,
        from: &'a str,
        to: &'a str,
        /// The MPDU's sequence number.
        sn: u32,
        /// Whether its FCS was good.
        fcs_ok: bool,
        /// PHY data rate it was sent at.
        rate_mbps: f64,
    }
}

record! {
    /// An 802.11n AP's driver declared an MPDU from a station lost: it failed its FCS more
    /// times than the retry-out index allows (the wlan-bufferbloat study's mechanism,
    /// [`crate::wifi::retry_out`]).
    RetryOutRecord<'a> => "retry_out" {
        time: SimTime,
        bss: &'a str,
        station: &'a str,
        /// The MPDU's sequence number.
        sn: u32,
        /// Receptions with a bad FCS counted for the MPDU.
        failures: u32,
        /// The retry-out index in force.
        index: u32,
        /// The station's smoothed A-MPDU data rate the index came from.
        ewma_mbps: f64,
    }
}

record! {
    /// An 802.11 station left an AP or joined one.
    RoamingRecord<'a> => "roaming" {
        time: SimTime,
        station: &'a str,
        /// "left" or "joined".
        event: &'a str,
        from_bss: &'a str,
        to_bss: &'a str,
        /// RSSI of the AP's beacons at the station at the event.
        rssi_dbm: f64,
    }
}

record! {
    /// The RSSI of an AP's beacon at one of its stations.
    RssiRecord<'a> => "rssi" {
        time: SimTime,
        station: &'a str,
        bss: &'a str,
        /// RSSI of the beacon at the station.
        rssi_dbm: f64,
        /// Whether the station is associated with that BSS.
        associated: bool,
    }
}

record! {
    /// A QUIC endpoint's path state from the stack's own statistics, whenever its congestion
    /// window, bytes in flight, smoothed RTT, PTO count or lost-packet count changed; keyed by
    /// path id from the start (0 for single-path QUIC).
    QuicRecord<'a> => "quic" {
        time: SimTime,
        flow: &'a str,
        /// "client" or "server".
        endpoint: &'a str,
        /// The path id (0 for single-path QUIC; with multipath, the index in `paths`).
        path: u64,
        /// Congestion window, bytes.
        cwnd: u64,
        /// Bytes of ack-eliciting packets sent and not yet acknowledged or declared lost
        /// (RFC 9002 §B.2 `bytes_in_flight`), as the stack reports it in its qlog
        /// (`recovery_metrics_updated`); its path statistics do not have it.
        bytes_in_flight: u64,
        /// Smoothed RTT (RFC 9002 §5.3).
        srtt: SimTime,
        /// Probe timeouts since the last acknowledgment (RFC 9002 §6.2.1: the PTO period is
        /// multiplied by 2^pto_count), as the stack reports it in its qlog
        /// (`recovery_metrics_updated`); it has no other way to tell.
        pto_count: u64,
        /// Packets sent so far.
        sent_packets: u64,
        /// Packets declared lost so far (RFC 9002 §6.1).
        lost_packets: u64,
        /// Congestion events so far (RFC 9002 §7.3.2).
        congestion_events: u64,
        /// Largest UDP payload the path carries (PMTUD, RFC 9000 §14.3).
        mtu: u64,
    }
}

record! {
    /// A change of class of the RSSI-threshold scheduler (mpquic-rssi), with the status it
    /// gives each path ("available" or "backup"; "none" before the first sample).
    PathStatusRecord<'a> => "path_status" {
        time: SimTime,
        flow: &'a str,
        /// The Wi-Fi interface's RSSI sample (−inf: not associated).
        rssi_dbm: f64,
        /// The RSSI class before the change.
        old_class: &'a str,
        /// The RSSI class after it.
        new_class: &'a str,
        /// The Wi-Fi path's status before the change.
        wifi_old: &'a str,
        /// The Wi-Fi path's status after it.
        wifi_new: &'a str,
        /// The cellular path's status before the change.
        cell_old: &'a str,
        /// The cellular path's status after it.
        cell_new: &'a str,
    }
}

record! {
    /// A TFRC sender's state after every feedback packet and every no-feedback timeout
    /// (RFC 5348 §4.3–4.4).
    TfrcRecord<'a> => "tfrc" {
        time: SimTime,
        flow: &'a str,
        /// "feedback" or "nofeedback".
        event: &'a str,
        /// The allowed sending rate X, bit/s.
        x_bps: f64,
        /// The receive rate X_recv the receiver reported last, bit/s.
        x_recv_bps: f64,
        /// The loss event rate p reported last.
        p: f64,
        /// The RTT estimate R (§4.3), once there is one.
        rtt: Option<SimTime>,
    }
}

tables! {
    QueueRecord<'a> => Queue,
    DelayRecord<'a> => Delay,
    DropRecord<'a> => Drops,
    RttRecord<'a> => Rtt,
    CwndRecord<'a> => Cwnd,
    RtoRecord<'a> => Rto,
    RetransmitRecord<'a> => Retransmits,
    HandoverRecord<'a> => Handovers,
    SwitcherRecord<'a> => Switcher,
    RlcRecord<'a> => Rlc,
    RlcSduRecord<'a> => Rlc,
    WifiRecord<'a> => Wifi,
    WifiRxRecord<'a> => WifiRx,
    RetryOutRecord<'a> => RetryOut,
    RoamingRecord<'a> => Roaming,
    RssiRecord<'a> => Rssi,
    QuicRecord<'a> => Quic,
    SegmentRecord<'a> => Segments,
    PathStatusRecord<'a> => PathStatus,
    TfrcRecord<'a> => Tfrc,
}
