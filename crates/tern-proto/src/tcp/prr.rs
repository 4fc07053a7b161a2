//! Proportional Rate Reduction (RFC 9937, which obsoletes the experimental RFC 6937): how
//! much SACK fast recovery may send on each ACK, in place of RFC 6675's `cwnd - pipe`.
//!
//! While `pipe` exceeds ssthresh, PRR sends in proportion to what the receiver reports
//! delivered (`prr_delivered * ssthresh / RecoverFS`), so the window comes down to ssthresh
//! smoothly across one round trip instead of in a burst of silence and then a burst of
//! sending; once `pipe` has fallen below ssthresh (more losses than the reduction), it
//! sends no more than was delivered (the conservative reduction bound, PRR-CRB), plus one
//! segment when the ACK is a "safe" one — SND.UNA advanced and no further loss was
//! indicated — (the slow-start reduction bound, PRR-SSRB), never above ssthresh. Linux
//! (`tcp_cwnd_reduction`, PRR by default since 3.2, CRB with the safe-ACK SSRB since 4.2)
//! and ns-3 (`TcpPrrRecovery`, the default `RecoveryType` of `TcpL4Protocol`) do this.
//!
//! The state is RFC 9937 §4's: `RecoverFS`, `prr_delivered`, `prr_out`; what the latest
//! ACK allows (`sndcnt`) is kept and spent by the transmissions that follow it.

/// PRR's state for one recovery episode.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Prr {
    /// RecoverFS: the bytes in flight at the start of recovery that the receiver can
    /// still report delivered (sent, not acknowledged and not SACKed).
    recover_fs: u64,
    /// prr_delivered: bytes the receiver reported delivered during recovery.
    delivered: u64,
    /// prr_out: bytes sent during recovery.
    out: u64,
    /// What the latest ACK allows to send, less what was sent since.
    sndcnt: u64,
}

impl Prr {
    /// Recovery starts with `recover_fs` bytes in flight (RFC 9937 §4 initialization).
    pub fn enter(recover_fs: u64) -> Prr {
        Prr {
            recover_fs: recover_fs.max(1),
            ..Prr::default()
        }
    }

    /// An ACK during (or starting) recovery that reported `delivered` bytes
    /// (DeliveredData: the advance of SND.UNA plus the change in SACKed bytes), with
    /// `pipe` (RFC 6675 §4) after it, the congestion controller's `ssthresh`, and whether
    /// it is a safe ACK (SND.UNA advanced, no new loss marked). An ACK that delivers
    /// nothing changes nothing (RFC 9937 §4: DeliveredData of zero sends no data).
    pub fn on_ack(&mut self, delivered: u64, pipe: u64, ssthresh: u64, smss: u64, safe: bool) {
        if delivered == 0 {
            return;
        }
        self.delivered += delivered;
        self.sndcnt = if pipe > ssthresh {
            // Proportional rate reduction: CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out.
            let target = (u128::from(self.delivered) * u128::from(ssthresh))
                .div_ceil(u128::from(self.recover_fs)) as u64;
            target.saturating_sub(self.out)
        } else {
            // The reduction bound: PRR-CRB, plus one segment on a safe ACK (PRR-SSRB).
            let limit = self.delivered.saturating_sub(self.out).max(delivered)
                + if safe { smss } else { 0 };
            (ssthresh - pipe).min(limit)
        };
    }

    /// Bytes the latest ACK still allows to send.
    pub fn allowance(&self) -> u64 {
        self.sndcnt
    }

    /// `bytes` of data (new or retransmitted) sent during recovery.
    pub fn on_sent(&mut self, bytes: u64) {
        self.out += bytes;
        self.sndcnt = self.sndcnt.saturating_sub(bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// One loss in a window of 20 segments, ssthresh 10 (RFC 6937 §5's example shape):
    /// PRR sends about one segment for every two delivered, so once the 19 segments
    /// above the hole are reported it has sent CEIL(19 * 10 / 20) = 10 (the
    /// retransmission among them), at most one per ACK, and pipe ends at ssthresh; RFC
    /// 6675 would send nothing for the first 9 ACKs and then one per ACK.
    #[test]
    fn one_loss_sends_one_segment_per_two_delivered() {
        let ssthresh = 10 * MSS;
        let mut prr = Prr::enter(20 * MSS);
        let mut pipe = 19 * MSS; // the lost segment is not in pipe
        let mut sent = Vec::new();
        for _ in 0..19 {
            pipe -= MSS; // one more segment SACKed
            prr.on_ack(MSS, pipe, ssthresh, MSS, false);
            let mut n = 0;
            while prr.allowance() >= MSS {
                prr.on_sent(MSS);
                pipe += MSS;
                n += 1;
            }
            sent.push(n);
        }
        assert_eq!(sent.iter().sum::<u64>(), 10);
        assert!(sent.iter().all(|&n| n <= 1));
        assert_eq!(pipe, ssthresh);
    }

    /// Below ssthresh (a burst of losses): the conservative bound sends what was
    /// delivered, and a safe ACK one segment more, never above ssthresh.
    #[test]
    fn below_ssthresh_the_reduction_bound_applies() {
        let ssthresh = 10 * MSS;
        let mut prr = Prr::enter(20 * MSS);
        prr.on_ack(2 * MSS, 4 * MSS, ssthresh, MSS, false);
        // CRB: max(prr_delivered - prr_out, DeliveredData) = 2 segments.
        assert_eq!(prr.allowance(), 2 * MSS);
        prr.on_sent(2 * MSS);
        prr.on_ack(MSS, 5 * MSS, ssthresh, MSS, true);
        // SSRB on a safe ACK: max(3 - 2, 1) + 1 = 2 segments.
        assert_eq!(prr.allowance(), 2 * MSS);
        prr.on_ack(8 * MSS, 9 * MSS, ssthresh, MSS, true);
        // Capped at ssthresh - pipe = 1 segment.
        assert_eq!(prr.allowance(), MSS);
    }

    #[test]
    fn an_ack_that_delivers_nothing_changes_nothing() {
        let mut prr = Prr::enter(10 * MSS);
        prr.on_ack(MSS, 9 * MSS, 5 * MSS, MSS, false);
        let before = prr.clone();
        prr.on_ack(0, 9 * MSS, 5 * MSS, MSS, true);
        assert_eq!(prr, before);
    }
}
