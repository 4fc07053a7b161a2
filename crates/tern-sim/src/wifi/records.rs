//! 802.11's trace records: PPDUs on the air, MPDUs at receivers, retry-out declarations, roaming and beacon RSSI.

use crate::engine::SimTime;

crate::record! {
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
        /// Whether the rate control chose the rate to probe it (Minstrel-HT's sampling: the
        /// probe frame's first try, alone in its PPDU).
        probe: bool,
        /// MPDUs of those the sender gave up after this try (its retry limit reached).
        dropped: u32,
        /// Whether this try ended the sender's submission of its frames: an Ack or a Block
        /// Ack came, or the try was the last the sender's hardware makes of them (ath9k's
        /// rate series under Linux 3.x Minstrel-HT, [`crate::wifi::rate::minstrel`]; every
        /// other rate control and a BlockAckReq: each try). A submission is the tries up to
        /// and including the one that ends it; the rate control hears of it at its end.
        series_end: bool,
    }
}

crate::record! {
    /// An MPDU an 802.11 receiver's PHY passed up, with a good or a bad FCS: every MPDU of a
    /// PPDU whose PHY header it decoded (none of one whose header it lost, nor of a collision).
    WifiRxRecord<'a> => "wifi_rx" {
        time: SimTime,
        bss: &'a str,
        from: &'a str,
        to: &'a str,
        /// The MPDU's sequence number.
        sn: u32,
        /// The sequence number the receiver's driver reads from its MAC header: `sn`,
        /// unless the FCS failed and bits of the field with it (`wifi::bss::misread`).
        sn_read: u32,
        /// Whether its FCS was good.
        fcs_ok: bool,
        /// PHY data rate it was sent at.
        rate_mbps: f64,
    }
}

crate::record! {
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

crate::record! {
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

crate::record! {
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

/// This slice's record kinds and tables, gathered with every other slice's into the
/// trace's lists ([`crate::trace::records`]).
macro_rules! records {
    ($then:ident { $($state:tt)* }) => {
        $crate::$then! {
            { $($state)* }
            kinds {
                /// 802.11: every PPDU on the air (sender, receiver, kind, rate and MCS, MPDUs sent and
                /// acknowledged, collision, the receiver's SNR, whether a rate-control probe).
                Wifi = "wifi",
                /// 802.11: every MPDU a receiver's PHY delivered, with a good or a bad FCS, and its
                /// sequence number (what a receiver's driver sees: nothing of a PPDU whose PHY
                /// header it could not decode).
                WifiRx = "wifi_rx",
                /// 802.11n: every MPDU an AP's retry-out index declared lost (`wifi.retry_out`), with
                /// its failed receptions, the index and the station's smoothed data rate.
                RetryOut = "retry_out",
                /// 802.11 roaming: every time a station leaves an AP or joins one.
                Roaming = "roaming",
                /// 802.11: the RSSI of every AP's beacons at each of its stations, every beacon
                /// interval (102.4 ms).
                Rssi = "rssi",
            }
            tables {
                WifiRecord in wifi::records => Wifi,
                WifiRxRecord in wifi::records => WifiRx,
                RetryOutRecord in wifi::records => RetryOut,
                RoamingRecord in wifi::records => Roaming,
                RssiRecord in wifi::records => Rssi,
            }
        }
    };
}
pub(crate) use records;
