//! RLC AM (TS 25.322) state-machine stories: hand-fed PDUs with the exact next PDU
//! checked (the radio harness and property tests are in `rlc_radio.rs`). Expected values
//! come from the specification and hand computation, not from earlier runs.

mod util;

use tern_proto::rlc::{AmdPdu, Chunk, Config, Event, Li, Pdu, RlcAm, Sdu, Sn, StatusPdu, Sufi};
use util::ms;

fn entity(cfg: Config) -> RlcAm {
    RlcAm::new(cfg).expect("valid config")
}

fn data(p: &Pdu) -> &AmdPdu {
    p.as_data().expect("an AMD PDU")
}

fn status(p: &Pdu) -> &StatusPdu {
    p.as_status().expect("a STATUS PDU")
}

fn events(e: &mut RlcAm) -> Vec<Event> {
    std::iter::from_fn(|| e.poll_event()).collect()
}

fn delivered(e: &mut RlcAm) -> Vec<Sdu> {
    std::iter::from_fn(|| e.poll_delivered()).collect()
}

fn chunk(sdu: u64, len: u32) -> Chunk {
    Chunk { sdu, len }
}

// ---------------------------------------------------------------------------
// State-machine stories
// ---------------------------------------------------------------------------

/// One 150-octet SDU over 40-octet payloads (42-octet PDUs): 40 + 40 + 40,
/// then 30 octets with LI = 30, a padding LI and 40 - 32 = 8 octets of
/// padding (§9.2.2.8). The last PDU in the buffer polls (§9.7.1). PDU 1 is
/// lost; the gap (SN 2 > VR(H) = 1) triggers a STATUS (Missing PDU
/// Indicator) built when sent: LIST {(1, 0)} and ACK LSN = VR(H) = 4, in
/// 4 + 24 + 16 = 44 bits padded to 336. The sender resends SN 1 only,
/// polling as the last PDU of the retransmission buffer.
#[test]
fn lost_pdu_is_nacked_and_retransmitted() {
    let mut ue = entity(Config::default());
    let mut rnc = entity(Config::default());
    assert!(ue.push_sdu(ms(0), 7, 150));
    assert_eq!(ue.buffered_bytes(), 150);
    let pdus = ue.poll_tti(ms(0), 12);
    assert_eq!(pdus.len(), 4);
    for (i, p) in pdus.iter().enumerate() {
        let d = data(p);
        assert_eq!(d.sn, Sn::new(i as u64));
        assert_eq!(p.size(), 42);
        assert_eq!(d.poll, i == 3, "only the last PDU polls");
    }
    assert_eq!(data(&pdus[0]).lis, vec![]);
    assert_eq!(data(&pdus[0]).data, vec![chunk(7, 40)]);
    let last = data(&pdus[3]);
    assert_eq!(last.lis, vec![Li::End(30), Li::Padding]);
    assert_eq!(last.data, vec![chunk(7, 30)]);
    assert_eq!(last.padding_len(), 8);
    assert_eq!(ue.vt_s(), Sn::new(4));
    assert_eq!(ue.poll_timeout(), Some(ms(200)), "Timer_Poll");

    // PDU 1 is lost on the radio.
    for i in [0, 2, 3] {
        rnc.handle_pdu(ms(30), &pdus[i]);
    }
    assert_eq!(delivered(&mut rnc), vec![]);
    assert_eq!((rnc.vr_r(), rnc.vr_h()), (Sn::new(1), Sn::new(4)));
    let st = rnc.poll_tti(ms(30), 12);
    assert_eq!(st.len(), 1);
    let expected = StatusPdu {
        sufis: vec![
            Sufi::List(vec![(Sn::new(1), 0)]),
            Sufi::Ack { lsn: Sn::new(4) },
        ],
        size: 42,
    };
    assert_eq!(status(&st[0]), &expected);
    assert_eq!(expected.used_bits(), 44);
    assert_eq!(expected.padding_bits(), 292);

    ue.handle_pdu(ms(60), &st[0]);
    assert_eq!(ue.vt_a(), Sn::new(1));
    assert_eq!(ue.pending_retransmissions(), 1);
    assert_eq!(ue.poll_timeout(), None, "STATUS covered the poll");
    let re = ue.poll_tti(ms(60), 12);
    assert_eq!(re.len(), 1);
    let r = data(&re[0]);
    assert_eq!(r.sn, Sn::new(1));
    assert!(r.poll);
    assert_eq!(r.data, vec![chunk(7, 40)]);
    assert_eq!(
        events(&mut ue),
        vec![Event::Retransmit {
            sn: Sn::new(1),
            transmission: 2
        }]
    );
    assert_eq!(ue.poll_timeout(), Some(ms(260)));

    rnc.handle_pdu(ms(90), &re[0]);
    assert_eq!(delivered(&mut rnc), vec![Sdu { id: 7, len: 150 }]);
    assert_eq!(rnc.vr_r(), Sn::new(4));
    // The poll is answered when Timer_Status_Prohibit (100 ms from 30 ms)
    // expires.
    assert!(rnc.poll_tti(ms(90), 12).is_empty());
    assert!(!rnc.wants_transmit());
    assert_eq!(rnc.poll_timeout(), Some(ms(130)));
    rnc.handle_timeout(ms(130));
    let st2 = rnc.poll_tti(ms(130), 12);
    assert_eq!(status(&st2[0]).sufis, vec![Sufi::Ack { lsn: Sn::new(4) }]);

    ue.handle_pdu(ms(160), &st2[0]);
    assert_eq!(ue.vt_a(), Sn::new(4));
    assert_eq!((ue.buffered_bytes(), ue.buffered_sdus()), (0, 0));
    assert_eq!(ue.poll_timeout(), None);
    assert!(!ue.wants_transmit());
    assert_eq!(ue.stats().pdus_retransmitted, 1);
}

/// A = 100 octets, B = 45 octets, concatenated: PDU 0 and 1 carry A's
/// first 80 octets; PDU 2 carries A's last 20 (LI = 20) then B's first 19
/// (20 + 1 + 19 = 40, no padding); PDU 3 carries B's last 26 (LI = 26), a
/// padding LI and 40 - 28 = 12 octets of padding. Neither SDU is delivered
/// until PDU 1 arrives, then both are, in order; a duplicate is ignored.
#[test]
fn sdu_waits_for_all_its_pdus() {
    let mut ue = entity(Config::default());
    let mut rnc = entity(Config::default());
    ue.push_sdu(ms(0), 1, 100);
    ue.push_sdu(ms(0), 2, 45);
    let pdus = ue.poll_tti(ms(0), 12);
    assert_eq!(pdus.len(), 4);
    let p2 = data(&pdus[2]);
    assert_eq!(p2.lis, vec![Li::End(20)]);
    assert_eq!(p2.data, vec![chunk(1, 20), chunk(2, 19)]);
    assert_eq!(p2.padding_len(), 0);
    let p3 = data(&pdus[3]);
    assert_eq!(p3.lis, vec![Li::End(26), Li::Padding]);
    assert_eq!(p3.data, vec![chunk(2, 26)]);
    assert_eq!(p3.padding_len(), 12);

    for i in [3, 2, 0] {
        rnc.handle_pdu(ms(30), &pdus[i]);
        assert_eq!(delivered(&mut rnc), vec![], "after PDU {i}");
    }
    rnc.handle_pdu(ms(31), &pdus[3]);
    assert_eq!(rnc.stats().duplicate_pdus, 1);
    assert_eq!(rnc.vr_r(), Sn::new(1));
    rnc.handle_pdu(ms(32), &pdus[1]);
    assert_eq!(
        delivered(&mut rnc),
        vec![Sdu { id: 1, len: 100 }, Sdu { id: 2, len: 45 }]
    );
    assert_eq!(rnc.vr_r(), Sn::new(4));
    // A late copy of a delivered PDU is outside the window and ignored.
    rnc.handle_pdu(ms(33), &pdus[1]);
    assert_eq!(delivered(&mut rnc), vec![]);
    assert_eq!(rnc.stats().pdus_outside_window, 1);
    assert_eq!(rnc.stats().sdus_delivered, 2);
}

/// An 80-octet SDU exactly fills two 40-octet payloads, leaving no room
/// for its LI. Release 99: the next PDU opens with LI = 0 (§9.2.2.8), here
/// a PDU of LI = 0, padding LI and 38 octets of padding, and the SDU is
/// delivered only with that PDU. With the special HE value (§9.2.2.7) the
/// second PDU has HE = 2 and suffices.
#[test]
fn exact_fill_waits_for_li0_or_uses_special_he() {
    let mut ue = entity(Config::default());
    let mut rnc = entity(Config::default());
    ue.push_sdu(ms(0), 9, 80);
    let pdus = ue.poll_tti(ms(0), 12);
    assert_eq!(pdus.len(), 3);
    assert_eq!(data(&pdus[1]).lis, vec![]);
    assert_eq!(data(&pdus[1]).he(), 0);
    assert!(!data(&pdus[1]).poll);
    let p2 = data(&pdus[2]);
    assert_eq!(p2.lis, vec![Li::PreviousPduEnded, Li::Padding]);
    assert_eq!(p2.data, vec![]);
    assert_eq!(p2.padding_len(), 38);
    assert!(p2.poll);
    rnc.handle_pdu(ms(30), &pdus[0]);
    rnc.handle_pdu(ms(30), &pdus[1]);
    assert_eq!(delivered(&mut rnc), vec![], "end of SDU not yet known");
    rnc.handle_pdu(ms(30), &pdus[2]);
    assert_eq!(delivered(&mut rnc), vec![Sdu { id: 9, len: 80 }]);

    let cfg = Config {
        special_he: true,
        ..Config::default()
    };
    let mut ue = entity(cfg.clone());
    let mut rnc = entity(cfg);
    ue.push_sdu(ms(0), 9, 80);
    let pdus = ue.poll_tti(ms(0), 12);
    assert_eq!(pdus.len(), 2);
    assert_eq!(data(&pdus[1]).he(), 2);
    assert!(data(&pdus[1]).poll);
    rnc.handle_pdu(ms(30), &pdus[0]);
    assert_eq!(delivered(&mut rnc), vec![]);
    rnc.handle_pdu(ms(30), &pdus[1]);
    assert_eq!(delivered(&mut rnc), vec![Sdu { id: 9, len: 80 }]);
}

/// MaxDAT = 3: a PDU is sent at most MaxDAT - 1 = 2 times (§9.6 a).
/// A = 150 octets (PDUs 0-3, ending at LI 1 of PDU 3), B = 100 octets (its
/// first 9 octets in PDU 3 after A's 30 + LI, then PDUs 4-6). Every copy of
/// PDU 1 is lost. The NACK resends it once; when Timer_Poll expires (200
/// ms after that retransmission) the poll needs a carrier, PDU 1 is
/// scheduled a third time, VT(DAT) = MaxDAT, and A — the only SDU with
/// segments in VT(A)..=1 — is discarded. The MRW SUFI points at A's end:
/// SN_MRW = 3, N_LENGTH = 1 (§11.6). The receiver drops A's octets, keeps
/// B (which starts after LI 1 of PDU 3) and answers MRW_ACK with SN_ACK =
/// VR(R) = 7, N = 0 (VR(R) ≠ SN_MRW). Later SDUs still flow.
#[test]
fn max_dat_discards_the_sdu_and_the_link_carries_on() {
    let cfg = Config {
        max_dat: 3,
        ..Config::default()
    };
    let mut ue = entity(cfg.clone());
    let mut rnc = entity(cfg);
    ue.push_sdu(ms(0), 1, 150);
    ue.push_sdu(ms(0), 2, 100);
    let pdus = ue.poll_tti(ms(0), 12);
    assert_eq!(pdus.len(), 7);
    let p3 = data(&pdus[3]);
    assert_eq!(p3.lis, vec![Li::End(30)]);
    assert_eq!(p3.data, vec![chunk(1, 30), chunk(2, 9)]);
    let p6 = data(&pdus[6]);
    assert_eq!(p6.lis, vec![Li::End(11), Li::Padding]);
    assert_eq!(p6.padding_len(), 27);
    assert!(p6.poll);

    for (i, p) in pdus.iter().enumerate() {
        if i != 1 {
            rnc.handle_pdu(ms(30), p);
        }
    }
    let st = rnc.poll_tti(ms(30), 12);
    assert_eq!(
        status(&st[0]).sufis,
        vec![
            Sufi::List(vec![(Sn::new(1), 0)]),
            Sufi::Ack { lsn: Sn::new(7) }
        ]
    );
    ue.handle_pdu(ms(60), &st[0]);
    let re = ue.poll_tti(ms(60), 12);
    assert_eq!(data(&re[0]).sn, Sn::new(1)); // second transmission, lost
    assert_eq!(ue.poll_timeout(), Some(ms(260)));
    events(&mut ue);

    ue.handle_timeout(ms(260));
    let out = ue.poll_tti(ms(260), 12);
    assert_eq!(out.len(), 1, "no third copy of PDU 1, only the MRW");
    assert_eq!(
        status(&out[0]).sufis,
        vec![
            Sufi::Mrw {
                sn_mrw: Sn::new(3),
                n_length: 1
            },
            Sufi::NoMore
        ]
    );
    assert_eq!(status(&out[0]).used_bits(), 4 + 24 + 4);
    assert_eq!(
        events(&mut ue),
        vec![
            Event::PollTimerExpired,
            Event::SduDiscarded { id: 1, len: 150 },
            Event::MrwSent {
                sn_mrw: Sn::new(3),
                n_length: 1
            },
        ]
    );
    assert_eq!(ue.stats().pdus_retransmitted, 1, "PDU 1 sent twice in all");
    assert_eq!((ue.buffered_sdus(), ue.buffered_bytes()), (1, 100));
    assert_eq!(ue.poll_timeout(), Some(ms(460)), "Timer_MRW");

    rnc.handle_pdu(ms(290), &out[0]);
    assert_eq!(delivered(&mut rnc), vec![Sdu { id: 2, len: 100 }]);
    assert_eq!(rnc.vr_r(), Sn::new(7));
    let ack = rnc.poll_tti(ms(290), 12);
    assert_eq!(
        status(&ack[0]).sufis,
        vec![
            Sufi::MrwAck {
                n: 0,
                sn_ack: Sn::new(7)
            },
            Sufi::NoMore
        ]
    );
    ue.handle_pdu(ms(320), &ack[0]);
    assert_eq!(
        events(&mut ue),
        vec![Event::MrwAcked { sn_ack: Sn::new(7) }]
    );
    assert_eq!(ue.vt_a(), Sn::new(7));
    assert_eq!((ue.buffered_sdus(), ue.buffered_bytes()), (0, 0));
    assert_eq!(ue.poll_timeout(), None);

    ue.push_sdu(ms(320), 3, 10);
    let p7 = ue.poll_tti(ms(320), 12);
    assert_eq!(data(&p7[0]).sn, Sn::new(7));
    rnc.handle_pdu(ms(350), &p7[0]);
    assert_eq!(delivered(&mut rnc), vec![Sdu { id: 3, len: 10 }]);
}

/// The discarded SDU was only partly sent (the window of 2 PDUs held the
/// rest back). Its unsent tail takes SN 2 without being sent, so SN_MRW =
/// 3, N_LENGTH = 0: the receiver, which got PDU 1 with the SDU's middle,
/// cannot glue the head of A to B, and B (sent from SN 3 on) arrives whole.
#[test]
fn discard_of_a_partly_sent_sdu_skips_its_tail() {
    let cfg = Config {
        max_dat: 2,
        tx_window: 2,
        rx_window: 2,
        ..Config::default()
    };
    let mut ue = entity(cfg.clone());
    let mut rnc = entity(cfg);
    ue.push_sdu(ms(0), 1, 200);
    ue.push_sdu(ms(0), 2, 30);
    let pdus = ue.poll_tti(ms(0), 12);
    assert_eq!(pdus.len(), 2, "window of 2");
    assert!(data(&pdus[1]).poll, "the PDU that fills the window polls");
    rnc.handle_pdu(ms(30), &pdus[1]); // PDU 0 lost
    let st = rnc.poll_tti(ms(30), 12);
    assert_eq!(
        status(&st[0]).sufis,
        vec![
            Sufi::List(vec![(Sn::new(0), 0)]),
            Sufi::Ack { lsn: Sn::new(2) }
        ]
    );
    ue.handle_pdu(ms(60), &st[0]);
    // VT(DAT) of PDU 0 would reach MaxDAT = 2: discard instead of resending.
    let out = ue.poll_tti(ms(60), 12);
    assert_eq!(out.len(), 1);
    assert_eq!(
        status(&out[0]).sufis,
        vec![
            Sufi::Mrw {
                sn_mrw: Sn::new(3),
                n_length: 0
            },
            Sufi::NoMore
        ]
    );
    assert_eq!(ue.unsent_bytes(), 30, "only B is left to send");
    rnc.handle_pdu(ms(90), &out[0]);
    assert_eq!(rnc.vr_r(), Sn::new(3));
    let ack = rnc.poll_tti(ms(90), 12);
    assert_eq!(
        status(&ack[0]).sufis,
        vec![
            Sufi::MrwAck {
                n: 0,
                sn_ack: Sn::new(3)
            },
            Sufi::NoMore
        ]
    );
    ue.handle_pdu(ms(120), &ack[0]);
    let b = ue.poll_tti(ms(120), 12);
    assert_eq!(data(&b[0]).sn, Sn::new(3));
    assert_eq!(data(&b[0]).data, vec![chunk(2, 30)]);
    rnc.handle_pdu(ms(150), &b[0]);
    assert_eq!(delivered(&mut rnc), vec![Sdu { id: 2, len: 30 }]);
}

/// 40 one-SDU PDUs (39 octets + LI = 40), 16 of them lost, scattered over
/// SNs 3..=37. VR(R) = 3, VR(H) = 40. LIST would need 14 pairs (runs 33-34
/// and 36-37 take one pair each): 8 + 14 x 16 = 232 bits. BITMAP: from SN
/// 3 the span to 37 needs 5 octets, but bits may not pass VR(H) - 1 = 39
/// and cannot start below VR(R), so the first bitmap takes 4 octets (SNs
/// 3..=34) and the second, moved back to end at 39, covers 32..=39: 20 +
/// 32 + 20 + 8 = 80 bits. BITMAP wins; the sender resends exactly the 16.
#[test]
fn scattered_losses_are_reported_as_a_bitmap() {
    let mut ue = entity(Config::default());
    let mut rnc = entity(Config::default());
    for id in 0..40 {
        ue.push_sdu(ms(0), id, 39);
    }
    let pdus = ue.poll_tti(ms(0), 40);
    assert_eq!(pdus.len(), 40);
    let lost: Vec<u64> = vec![3, 5, 8, 11, 13, 16, 18, 21, 23, 26, 28, 31, 33, 34, 36, 37];
    for (i, p) in pdus.iter().enumerate() {
        if !lost.contains(&(i as u64)) {
            rnc.handle_pdu(ms(30), p);
        }
    }
    assert_eq!((rnc.vr_r(), rnc.vr_h()), (Sn::new(3), Sn::new(40)));
    let bitmap =
        |from: u64, to: u64| -> Vec<bool> { (from..=to).map(|sn| !lost.contains(&sn)).collect() };
    let st = rnc.poll_tti(ms(30), 1);
    assert_eq!(
        status(&st[0]).sufis,
        vec![
            Sufi::Bitmap {
                fsn: Sn::new(3),
                bits: bitmap(3, 34)
            },
            Sufi::Bitmap {
                fsn: Sn::new(32),
                bits: bitmap(32, 39)
            },
            Sufi::Ack { lsn: Sn::new(40) },
        ]
    );
    assert_eq!(status(&st[0]).used_bits(), 4 + 52 + 28 + 16);
    ue.handle_pdu(ms(60), &st[0]);
    assert_eq!(ue.vt_a(), Sn::new(3));
    assert_eq!(ue.pending_retransmissions(), 16);
    let re = ue.poll_tti(ms(60), 20);
    let sns: Vec<u64> = re.iter().map(|p| u64::from(data(p).sn.value())).collect();
    assert_eq!(sns, lost);
    assert!(data(re.last().unwrap()).poll);
}

/// 12-octet PDUs leave 96 - 4 (header) - 16 (ACK) = 76 bits for NACKs:
/// LIST pairs cost 24 + 16 + 16 + 16 = 72 bits, so at most 4 pairs; a
/// BITMAP at most 20 + 7 x 8 = 76 bits.
/// 1) Every even SN of 0..=38 lost, VR(H) = 41: the LIST would stop at SN
///    8, one 5-octet BITMAP from SN 0 (60 bits) names all 20 and wins.
/// 2) SNs 0, 20, 40, 60, 80, 100 lost, VR(H) = 102: the LIST names four
///    and stops at 80; a 7-octet BITMAP reaches only SN 55 (three losses).
///    The LIST wins and LSN = 80, the first SN left out, so the sender
///    acknowledges everything else below 80 and nothing above.
#[test]
fn truncated_report_sets_lsn_to_first_unreported() {
    let cfg = Config {
        pdu_size: 12,
        ..Config::default()
    };
    let mut ue = entity(cfg.clone());
    let mut rnc = entity(cfg.clone());
    for id in 0..41 {
        ue.push_sdu(ms(0), id, 9); // 9 + LI = 10 = payload: one SDU per PDU
    }
    let pdus = ue.poll_tti(ms(0), 41);
    assert_eq!(pdus.len(), 41);
    for p in pdus.iter().filter(|p| data(p).sn.value() % 2 == 1) {
        rnc.handle_pdu(ms(30), p);
    }
    rnc.handle_pdu(ms(30), &pdus[40]);
    // SNs 0, 2, ..., 38 missing (20), VR(H) = 41.
    let st = rnc.poll_tti(ms(30), 1);
    let sufis = &status(&st[0]).sufis;
    let Sufi::Bitmap { fsn, bits } = &sufis[0] else {
        panic!("{sufis:?}");
    };
    assert_eq!(*fsn, Sn::new(0));
    assert_eq!(bits.len(), 40);
    assert_eq!(sufis[1], Sufi::Ack { lsn: Sn::new(41) });

    let mut ue = entity(cfg.clone());
    let mut rnc = entity(cfg);
    for id in 0..102 {
        ue.push_sdu(ms(0), id, 9);
    }
    let pdus = ue.poll_tti(ms(0), 102);
    let lost = [0, 20, 40, 60, 80, 100];
    for p in &pdus {
        if !lost.contains(&data(p).sn.value()) {
            rnc.handle_pdu(ms(30), p);
        }
    }
    let st = rnc.poll_tti(ms(30), 1);
    assert_eq!(
        status(&st[0]).sufis,
        vec![
            Sufi::List(vec![
                (Sn::new(0), 0),
                (Sn::new(20), 0),
                (Sn::new(40), 0),
                (Sn::new(60), 0)
            ]),
            Sufi::Ack { lsn: Sn::new(80) },
        ]
    );
    ue.handle_pdu(ms(60), &st[0]);
    // Below LSN 80 everything not NACKed is acknowledged; 80 and 100 are not.
    assert_eq!(ue.vt_a(), Sn::new(0));
    assert_eq!(ue.pending_retransmissions(), 4);
    assert_eq!(ue.unacked_pdus(), 102);
}

/// Three 100-octet SDUs A, B, C in 40-octet payloads: A ends in PDU 2 (LI
/// 20, then B's first 19 octets), B in PDU 5 (LI 1, then C's first 38), C in
/// PDU 7 (LI 22, padding). With "Every Poll_SDU SDU" (§9.7.1, VT(SDU) of
/// §9.4) and no last-PDU poll, Poll_SDU = 1 polls in PDUs 2, 5 and 7 and
/// Poll_SDU = 2 only in PDU 5 (VT(SDU) reaches 2 with B, then C leaves it
/// at 1).
#[test]
fn every_poll_sdu_sdu_polls_in_the_pdu_that_ends_it() {
    for (poll_sdu, polled) in [(1, vec![2, 5, 7]), (2, vec![5])] {
        let mut ue = entity(Config {
            poll_sdu: Some(poll_sdu),
            poll_last_transmission: false,
            ..Config::default()
        });
        for id in 0..3 {
            ue.push_sdu(ms(0), id, 100);
        }
        let pdus = ue.poll_tti(ms(0), 12);
        assert_eq!(pdus.len(), 8);
        assert_eq!(data(&pdus[2]).lis, vec![Li::End(20)]);
        assert_eq!(data(&pdus[5]).lis, vec![Li::End(1)]);
        assert_eq!(data(&pdus[7]).lis, vec![Li::End(22), Li::Padding]);
        let got: Vec<usize> = (0..8).filter(|&i| data(&pdus[i]).poll).collect();
        assert_eq!(got, polled, "Poll_SDU = {poll_sdu}");
        assert_eq!(ue.stats().polls_sent, polled.len() as u64);
    }
}

/// Timer_Poll_Prohibit = 50 ms (§9.5 b): the SDUs above, Poll_SDU = 1, all
/// sent at 0 ms. PDU 2 polls and starts the timer; the polls PDUs 5 and 7
/// trigger are held back, and only one poll goes when it expires (§9.7.1):
/// at 50 ms nothing new is to be sent, so PDU 7, the last one sent, is
/// retransmitted to carry it.
#[test]
fn polls_wait_for_timer_poll_prohibit_and_go_as_one() {
    let mut ue = entity(Config {
        timer_poll_prohibit: Some(ms(50)),
        ..Config::default()
    });
    for id in 0..3 {
        ue.push_sdu(ms(0), id, 100);
    }
    let pdus = ue.poll_tti(ms(0), 12);
    let got: Vec<usize> = (0..pdus.len()).filter(|&i| data(&pdus[i]).poll).collect();
    assert_eq!(got, vec![2]);
    assert_eq!(ue.poll_timeout(), Some(ms(50)), "the held poll's wake-up");
    assert!(!ue.wants_transmit());
    assert!(ue.poll_tti(ms(40), 12).is_empty(), "still prohibited");
    ue.handle_timeout(ms(50));
    let out = ue.poll_tti(ms(50), 12);
    assert_eq!(out.len(), 1);
    assert_eq!((data(&out[0]).sn, data(&out[0]).poll), (Sn::new(7), true));
    assert_eq!(ue.stats().polls_sent, 2);
    // Timer_Poll restarted with that poll; the next prohibit ends at 100 ms.
    assert_eq!(ue.poll_timeout(), Some(ms(250)));
}

/// The RNC's SDU buffer sized at the bearer's pipe capacity, rate × round trip (Sågfors,
/// Ludwig, Meyer, Peisa, IEEE VTC 2003; RFC 3819 (its section on buffering): about one bandwidth-delay product):
/// 384 kbit/s × 0.45 s, the wcdma-profile study's round trip of a 1500-octet segment and its
/// ACK, is 21 600 octets. Fourteen 1500-octet SDUs (21 000) fit; the fifteenth would make
/// 22 500 and is refused (tail drop). One TTI of 12 PDUs places 12 × 40 = 480 octets of the
/// first SDU in PDUs: 21 000 - 480 + 1500 = 22 020 still does not fit. After a second TTI
/// (960 octets sent, none acknowledged) 21 000 - 960 + 1500 = 21 540 does: octets in sent
/// PDUs are in the pipe, not in the queue the bound applies to.
#[test]
fn sdu_buffer_at_the_pipe_capacity_drops_the_tail_and_not_the_sent() {
    let pipe = 384_000 * 45 / 100 / 8;
    assert_eq!(pipe, 21_600);
    let mut rnc = entity(Config {
        tx_buffer_bytes: Some(pipe),
        ..Config::default()
    });
    for id in 0..14 {
        assert!(rnc.push_sdu(ms(0), id, 1500), "SDU {id} fits");
    }
    assert!(!rnc.push_sdu(ms(0), 14, 1500), "the 15th SDU is refused");
    assert!(events(&mut rnc).contains(&Event::SduRefused { id: 14, len: 1500 }));
    assert_eq!(rnc.unsent_bytes(), 21_000);

    assert_eq!(rnc.poll_tti(ms(0), 12).len(), 12);
    assert_eq!(rnc.unsent_bytes(), 21_000 - 480);
    assert!(
        !rnc.push_sdu(ms(10), 15, 1500),
        "22 020 octets would be queued"
    );
    assert_eq!(rnc.poll_tti(ms(10), 12).len(), 12);
    assert!(rnc.push_sdu(ms(20), 16, 1500), "21 540 octets fit");
    assert_eq!(rnc.unsent_bytes(), 21_540);
    assert_eq!(
        rnc.buffered_bytes(),
        15 * 1500,
        "held: queued and sent, unacknowledged"
    );
    assert_eq!(rnc.stats().sdus_refused, 2);
}
