//! A memory region deregistered while posted work still uses it: the QPs whose unconsumed work requests
//! name it stop first (ERR, their work requests flushed), and no DMA reaches the memory once it is revoked
//! (the simulated host fails any that does).
use crate::common::big_write_at;
use rocenic_driver::{QpState, WcStatus};
use rocenic_sim::Width;

#[test]
fn deregistering_a_region_in_use_stops_its_qps_first() {
    for width in [Width::W64, Width::W512] {
        let (p, w) = big_write_at(width, 8 << 20, 20_000, 1 << 20);
        w.post(&p);
        // Mid-message: the WRITE's source is being read.
        p.fabric.lock().unwrap().run(3000);
        let crate::common::BigWrite { src_mr, dst_mr, .. } = w;
        drop(src_mr);
        let wc = p
            .wait_for(&p.a.send_cq, 100_000)
            .expect("the WRITE completes");
        assert_eq!(wc.status, WcStatus::WrFlushErr, "{width:?}: {wc:?}");
        assert_eq!(p.a.qp.query(), QpState::Err, "{width:?}");
        // Nothing touches the revoked source while the fabric runs on, nor B's target once it goes too.
        p.fabric.lock().unwrap().run(50_000);
        drop(dst_mr);
        p.fabric.lock().unwrap().run(10_000);
    }
}
