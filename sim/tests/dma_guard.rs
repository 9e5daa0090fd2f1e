//! The host-memory model's DMA firewall: once the driver granted windows, a DMA outside them stops the
//! simulation. Reads may round a grant out to whole beats; writes must stay inside a writable grant.
use rocenic_proto::regs::{CONTROL, QP_CMD, QP_STATE, SQ_BASE_HI, SQ_BASE_LO, SQ_LOG_SIZE, SQ_PI};
use rocenic_sim::{HostMemory, Nic, NicConfig, Width};
use std::sync::Arc;

#[test]
fn grants_and_beat_rounding() {
    let m = HostMemory::new(1 << 20).unwrap();
    let b = m.base_iova();
    assert!(
        m.check_dma(b, 8, true, 8).is_ok(),
        "no grants: not enforced"
    );
    m.grant(b + 0x100, 100, false);
    m.grant(b + 0x1000, 64, true);
    assert!(
        m.check_dma(b + 0x100, 104, false, 8).is_ok(),
        "a read rounded out to the beat"
    );
    assert!(
        m.check_dma(b + 0x100, 112, false, 8).is_err(),
        "beyond the beat"
    );
    assert!(
        m.check_dma(b + 0x100, 8, true, 8).is_err(),
        "read-only grant"
    );
    assert!(m.check_dma(b + 0x1000, 64, true, 8).is_ok());
    assert!(
        m.check_dma(b + 0x1038, 9, true, 8).is_err(),
        "a write past the end"
    );
    // A second, smaller grant at the same address (two MRs over one buffer): revoking it keeps the first.
    m.grant(b + 0x1000, 16, true);
    m.revoke(b + 0x1000, 16, true);
    assert!(
        m.check_dma(b + 0x1000, 64, true, 8).is_ok(),
        "the other grant at that address stays"
    );
    m.revoke(b + 0x1000, 64, true);
    assert!(m.check_dma(b + 0x1000, 8, true, 8).is_err(), "revoked");
}

#[test]
#[should_panic(expected = "outside every registered window")]
fn a_wqe_fetch_outside_the_grants_stops_the_simulation() {
    let mem = Arc::new(HostMemory::new(1 << 20).unwrap());
    let base = mem.base_iova();
    // The driver granted one window; the send ring the core is pointed at is not in it.
    mem.grant(base + 0x8000, 0x1000, true);
    let mut nic = Nic::new(Width::W64, mem, &NicConfig::default()).unwrap();
    nic.reset();
    nic.reg_write(SQ_BASE_LO, base as u32);
    nic.reg_write(SQ_BASE_HI, (base >> 32) as u32);
    nic.reg_write(SQ_LOG_SIZE, 2);
    nic.reg_write(QP_STATE, 3);
    // MODIFY | INIT_SQ on the QP QPN selects (0 after reset).
    nic.reg_write(QP_CMD, 5);
    while nic.reg_read(QP_CMD) != 0 {}
    nic.reg_write(CONTROL, 1);
    nic.reg_write(SQ_PI, 1);
    for _ in 0..1000 {
        nic.tick();
    }
}
