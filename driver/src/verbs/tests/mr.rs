//! Memory regions: the MR table's entries and keys, access rules, and that registered memory stays
//! allocated.
use super::*;
use crate::error::Error;

#[test]
fn registration_fills_the_window_then_writes_its_entry() {
    let dev = FakeDevice::new(8);
    let ctx = Context::open(dev.clone()).unwrap();
    let pd = ctx.alloc_pd();
    let buf = ctx.alloc_dma(8192).unwrap();
    let _first = pd.reg_mr(&buf, 0, 64, AccessFlags::LOCAL_WRITE).unwrap();
    dev.clear_log();
    let access = AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_READ;
    let mr = pd.reg_mr(&buf, 4096, 1000, access).unwrap();
    assert_eq!(mr.lkey(), mr.rkey());
    assert_eq!(mr.lkey() >> 8, 1, "the key's bits 8.. name the entry");
    assert_eq!(mr.addr(), buf.iova() + 4096);
    let w = dev.writes();
    let cmd = w.iter().position(|&(o, _)| o == regs::MR_CMD).unwrap();
    assert_eq!(w[cmd], (regs::MR_CMD, regs::MR_CMD_WRITE));
    assert_eq!(cmd, w.len() - 1, "the command comes last: {w:x?}");
    assert!(
        w[..cmd]
            .iter()
            .all(|(off, _)| (regs::MR_BASE_LO..regs::MR_CMD).contains(off)
                || *off == regs::MR_LEN_HI),
        "only the MR window and MR_INDEX before it: {w:x?}"
    );
    assert_eq!(
        dev.mr(1),
        Some([
            (buf.iova() + 4096) as u32,
            ((buf.iova() + 4096) >> 32) as u32,
            1000,
            mr.lkey(),
            7,
            pd.pdn,
            0
        ])
    );
}

#[test]
fn entries_run_out_and_come_back_with_new_keys() {
    let dev = FakeDevice::new(8);
    let ctx = Context::open(dev.clone()).unwrap();
    let pd = ctx.alloc_pd();
    let buf = ctx.alloc_dma(4096).unwrap();
    // The fake's table has 2^6 entries.
    let mut mrs: Vec<MemoryRegion> = (0..64)
        .map(|i| {
            pd.reg_mr(&buf, i * 64, 64, AccessFlags::LOCAL_WRITE)
                .unwrap()
        })
        .collect();
    assert!(matches!(
        pd.reg_mr(&buf, 0, 64, AccessFlags::LOCAL_WRITE),
        Err(Error::NoFreeMr(64))
    ));
    let keys: std::collections::HashSet<u32> = mrs.iter().map(|m| m.lkey()).collect();
    assert_eq!(keys.len(), 64);
    let third = mrs.remove(2);
    let old_key = third.lkey();
    drop(third);
    assert_eq!(dev.mr(2), None, "deregistration invalidates the entry");
    assert!(dev.mr(1).is_some(), "and only that entry");
    assert_eq!(dev.get(regs::MR_INDEX), 2);
    let again = pd.reg_mr(&buf, 0, 64, AccessFlags::LOCAL_WRITE).unwrap();
    assert_eq!(again.lkey() >> 8, 2, "the freed entry is reused");
    assert_ne!(
        again.lkey(),
        old_key,
        "with a new key, so a stale one does not match"
    );
    assert_eq!(dev.mr(2).unwrap()[3], again.lkey());
}

#[test]
fn a_stale_key_is_refused_locally_too() {
    let dev = FakeDevice::new(8);
    let ctx = Context::open(dev.clone()).unwrap();
    let pd = ctx.alloc_pd();
    let buf = ctx.alloc_dma(4096).unwrap();
    let old = pd.reg_mr(&buf, 0, 64, AccessFlags::LOCAL_WRITE).unwrap();
    let old_key = old.lkey();
    drop(old);
    let new = pd.reg_mr(&buf, 0, 64, AccessFlags::LOCAL_WRITE).unwrap();
    let mrs = ctx.dev.mrs.lock().unwrap();
    assert!(mrs.get(new.lkey()).is_some());
    assert!(mrs.get(old_key).is_none(), "same entry, old variant");
    assert!(mrs.get(new.lkey() ^ 0x100).is_none(), "another entry");
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
