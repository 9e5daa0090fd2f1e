//! Memory regions: the MR table's slots, keys, access rules, and that registered memory stays allocated.
use super::*;
use crate::error::Error;

#[test]
fn registration_programs_its_slot_and_writes_len_last() {
    let dev = FakeDevice::new(8);
    let ctx = Context::open(dev.clone()).unwrap();
    let pd = ctx.alloc_pd();
    let buf = ctx.alloc_dma(8192).unwrap();
    let _first = pd.reg_mr(&buf, 0, 64, AccessFlags::LOCAL_WRITE).unwrap();
    dev.clear_log();
    let access = AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_READ;
    let mr = pd.reg_mr(&buf, 4096, 1000, access).unwrap();
    let r = |off| regs::mr_reg(off, 1);
    assert_eq!(mr.lkey(), mr.rkey());
    assert_eq!(mr.lkey() & 0xFF, 1, "the key's low byte names the slot");
    assert_eq!(mr.addr(), buf.iova() + 4096);
    let w = dev.writes();
    assert_eq!(
        w.first(),
        Some(&(r(regs::MR0_LEN), 0)),
        "invalid while it changes"
    );
    assert_eq!(
        w.last(),
        Some(&(r(regs::MR0_LEN), 1000)),
        "valid only once complete"
    );
    assert_eq!(
        dev.get64(r(regs::MR0_BASE_LO), r(regs::MR0_BASE_HI)),
        buf.iova() + 4096
    );
    assert_eq!(dev.get(r(regs::MR0_KEY)), mr.lkey());
    assert_eq!(dev.get(r(regs::MR0_ACCESS)), 7);
    assert_eq!(dev.get(r(regs::MR0_PD)), pd.pdn);
    assert!(
        w.iter()
            .all(|(off, _)| (r(0x200)..r(0x220)).contains(off) || *off == r(0)),
        "only slot 1's registers are written: {w:x?}"
    );
}

#[test]
fn slots_run_out_and_come_back_with_new_keys() {
    let dev = FakeDevice::new(8);
    let ctx = Context::open(dev.clone()).unwrap();
    let pd = ctx.alloc_pd();
    let buf = ctx.alloc_dma(4096).unwrap();
    let mut mrs: Vec<MemoryRegion> = (0..regs::MR_SLOTS)
        .map(|i| {
            pd.reg_mr(&buf, i * 64, 64, AccessFlags::LOCAL_WRITE)
                .unwrap()
        })
        .collect();
    assert!(matches!(
        pd.reg_mr(&buf, 0, 64, AccessFlags::LOCAL_WRITE),
        Err(Error::NoMrSlot(4))
    ));
    let keys: std::collections::HashSet<u32> = mrs.iter().map(|m| m.lkey()).collect();
    assert_eq!(keys.len(), regs::MR_SLOTS);
    let third = mrs.remove(2);
    let old_key = third.lkey();
    drop(third);
    assert_eq!(
        dev.get(regs::mr_reg(regs::MR0_LEN, 2)),
        0,
        "deregistration invalidates the slot"
    );
    assert_eq!(
        dev.get(regs::mr_reg(regs::MR0_LEN, 1)),
        64,
        "and only that slot"
    );
    let again = pd.reg_mr(&buf, 0, 64, AccessFlags::LOCAL_WRITE).unwrap();
    assert_eq!(again.lkey() & 0xFF, 2, "the freed slot is reused");
    assert_ne!(
        again.lkey(),
        old_key,
        "with a new key, so a stale one does not match"
    );
}

#[test]
fn bad_registrations_are_refused() {
    let dev = FakeDevice::new(8);
    let ctx = Context::open(dev.clone()).unwrap();
    let pd = ctx.alloc_pd();
    let buf = ctx.alloc_dma(4096).unwrap();
    dev.clear_log();
    assert!(matches!(
        pd.reg_mr(&buf, 4000, 200, AccessFlags::LOCAL_WRITE),
        Err(Error::OutOfRegion { .. })
    ));
    assert!(matches!(
        pd.reg_mr(&buf, 0, 64, AccessFlags::REMOTE_WRITE),
        Err(Error::InvalidAccess(2))
    ));
    assert!(matches!(
        pd.reg_mr(
            &buf,
            0,
            64,
            AccessFlags::REMOTE_ATOMIC | AccessFlags::REMOTE_READ
        ),
        Err(Error::InvalidAccess(12))
    ));
    assert!(matches!(
        pd.reg_mr(&buf, 0, 0, AccessFlags::LOCAL_WRITE),
        Err(Error::Unsupported(_))
    ));
    assert_eq!(dev.writes(), vec![], "nothing registered");
    // Remote read alone needs no local write.
    pd.reg_mr(&buf, 0, 64, AccessFlags::REMOTE_READ).unwrap();
}

#[test]
fn a_registered_region_keeps_its_memory_and_pd_alive() {
    let dev = FakeDevice::new(8);
    let ctx = Context::open(dev.clone()).unwrap();
    let pd = ctx.alloc_pd();
    let buf = ctx.alloc_dma(4096).unwrap();
    let mr = pd.reg_mr(&buf, 0, 4096, AccessFlags::LOCAL_WRITE).unwrap();
    let weak_pd = Arc::downgrade(&pd);
    drop(pd);
    drop(buf);
    assert!(weak_pd.upgrade().is_some(), "the MR holds its PD");
    // The buffer's memory is still allocated: a new buffer does not land on it.
    let other = ctx.alloc_dma(4096).unwrap();
    assert!(other.iova() >= mr.addr() + 4096 || other.iova() + 4096 <= mr.addr());
    drop(mr);
    assert!(weak_pd.upgrade().is_none());
}
