//! Opening a device, the port address, counters.
use super::*;
use crate::error::Error;

#[test]
fn open_checks_identity_version_and_width() {
    let dev = FakeDevice::new(8);
    dev.set(regs::ID, 0xDEAD_BEEF);
    assert!(matches!(
        Context::open(dev.clone()),
        Err(Error::NotRocenic(0xDEAD_BEEF))
    ));
    dev.set(regs::ID, regs::ID_VALUE);
    dev.set(regs::VERSION, 0x0002_0000);
    assert!(matches!(
        Context::open(dev.clone()),
        Err(Error::Version {
            found: 0x0002_0000,
            expected: 1
        })
    ));
    dev.set(regs::DATAPATH_BYTES, 16);
    dev.set(regs::VERSION, 0x0001_0007); // a newer minor version is compatible
    assert!(matches!(
        Context::open(dev.clone()),
        Err(Error::BadDatapath(16))
    ));
    assert!(dev.writes().is_empty(), "a failed open writes nothing");
    dev.set(regs::DATAPATH_BYTES, 64);
    let ctx = Context::open(dev.clone()).unwrap();
    assert_eq!(ctx.beat_bytes(), 64);
    assert_eq!(ctx.clock_mhz(), 322.265625);
    assert_eq!(dev.get(regs::CONTROL), regs::CONTROL_ENABLE);
    assert_eq!(
        dev.writes().last(),
        Some(&(regs::CONTROL, regs::CONTROL_ENABLE)),
        "the engines are enabled after the QP and MR table are cleared"
    );
}

#[test]
fn open_clears_a_previous_users_qp_and_memory_regions() {
    let dev = FakeDevice::new(8);
    for qpn in [0x11, 0x3F] {
        dev.set_qp(qpn, regs::QP_STATE, 3);
        dev.set_qp(qpn, regs::SQ_PI, 5);
    }
    let pd = Context::open(dev.clone()).unwrap().alloc_pd();
    let buf = pd.context().alloc_dma(4096).unwrap();
    let leaked: Vec<_> = (0..3)
        .map(|i| {
            pd.reg_mr(&buf, i * 64, 64, AccessFlags::LOCAL_WRITE)
                .unwrap()
        })
        .collect();
    std::mem::forget(leaked); // a crashed user never deregistered them
    assert!(dev.mr(2).is_some());
    Context::open(dev.clone()).unwrap();
    // Every QP of the table (2^QP_TABLE_LOG = 64 in the fake) back to RESET with cleared indices.
    for qpn in [0, 0x11, 0x3F] {
        assert_eq!(dev.get_qp(qpn, regs::QP_STATE), 0, "QP {qpn:#x}");
        assert_eq!(dev.get_qp(qpn, regs::SQ_PI), 0, "QP {qpn:#x}");
    }
    for index in 0..64 {
        assert_eq!(dev.mr(index), None, "MR entry {index}");
    }
}

#[test]
fn set_port_programs_mac_and_ipv4() {
    let dev = FakeDevice::new(8);
    let ctx = Context::open(dev.clone()).unwrap();
    ctx.set_port(
        [0x02, 0x11, 0x22, 0x33, 0x44, 0x55],
        Ipv4Addr::new(10, 1, 2, 3),
    );
    assert_eq!(dev.get(regs::MAC_HI), 0x0211);
    assert_eq!(dev.get(regs::MAC_LO), 0x2233_4455);
    assert_eq!(dev.get(regs::IPV4), 0x0A01_0203);
}

#[test]
fn port_rcv_errors_sums_the_error_counters_but_not_policy_drops() {
    let dev = FakeDevice::new(8);
    let ctx = Context::open(dev.clone()).unwrap();
    dev.set(regs::RX_ICRC_ERRORS, 2);
    dev.set(regs::RX_IP_CHECKSUM_ERRORS, 3);
    dev.set(regs::RX_DROP_LENGTH, 5);
    dev.set(regs::RX_DROP_OVERFLOW, 7);
    dev.set(regs::RX_FCS_ERRORS, 11);
    dev.set(regs::RX_DROP_LOSSY, 100);
    dev.set(regs::RX_DROP_UDP_PORT, 1000);
    let c = ctx.rdma_counters();
    let get = |n: &str| c.iter().find(|(k, _)| *k == n).unwrap().1;
    assert_eq!(get("port_rcv_errors"), 28);
    assert_eq!(get("rx_crc_errors_phy"), 11);
    assert_eq!(get("rx_icrc_errors"), 2);
}

#[test]
fn set_priorities_writes_the_map_trust_and_lossy_limit() {
    let dev = FakeDevice::new(8);
    let ctx = Context::open(dev.clone()).unwrap();
    let mut map = crate::DEFAULT_DSCP_TO_PRIO;
    map[0] = 3;
    map[63] = 1;
    ctx.set_priorities(crate::Trust::Pcp, &map, Some(600))
        .unwrap();
    assert_eq!(dev.get(regs::DSCP_PRIO_MAP_0), 0x0000_0003);
    assert_eq!(dev.get(regs::DSCP_PRIO_MAP_3), 0x3333_3333);
    assert_eq!(dev.get(regs::DSCP_PRIO_MAP_7), 0x1777_7777);
    assert_eq!(dev.get(regs::PRIO_TRUST), 0);
    assert_eq!(dev.get(regs::RX_LOSSY_WORDS), 600);
    ctx.set_priorities(crate::Trust::Dscp, &map, None).unwrap();
    assert_eq!(
        (dev.get(regs::PRIO_TRUST), dev.get(regs::RX_LOSSY_WORDS)),
        (1, 0)
    );
    map[5] = 8;
    assert!(ctx.set_priorities(crate::Trust::Dscp, &map, None).is_err());
    assert!(ctx
        .set_priorities(crate::Trust::Dscp, &crate::DEFAULT_DSCP_TO_PRIO, Some(0))
        .is_err());
}

#[test]
fn set_pfc_writes_lossless_priorities_marks_and_watchdog() {
    use crate::{PfcConfig, PfcGenerate, PfcWatchdog};
    let dev = FakeDevice::new(8);
    let ctx = Context::open(dev.clone()).unwrap();
    let gen = PfcGenerate {
        xoff_words: 1000,
        xon_words: 500,
        pause_quanta: 0x2000,
        refresh_cycles: 4000,
    };
    ctx.set_pfc(&PfcConfig {
        lossless: (1 << 3) | (1 << 5),
        generate: Some(gen.clone()),
        watchdog: Some(PfcWatchdog {
            cycles: 5000,
            recovery_cycles: 50_000,
        }),
    })
    .unwrap();
    let r = |off| dev.get(off);
    assert_eq!(r(regs::PFC_ENABLE), 0x28);
    assert_eq!(
        (r(regs::PFC_XOFF_WORDS), r(regs::PFC_XON_WORDS)),
        (1000, 500)
    );
    assert_eq!(
        (r(regs::PFC_PAUSE_QUANTA), r(regs::PFC_REFRESH_CYCLES)),
        (0x2000, 4000)
    );
    assert_eq!(
        (r(regs::PFC_WATCHDOG_CYCLES), r(regs::PFC_WATCHDOG_RECOVERY)),
        (5000, 50_000)
    );
    // The defaults turn generation and the watchdog off; lossless back to priority 3.
    ctx.set_pfc(&PfcConfig::default()).unwrap();
    assert_eq!(
        (
            r(regs::PFC_ENABLE),
            r(regs::PFC_XOFF_WORDS),
            r(regs::PFC_WATCHDOG_CYCLES)
        ),
        (0x08, 0, 0)
    );
    let before = dev.writes().len();
    for bad in [
        PfcGenerate {
            xon_words: 1000,
            ..gen.clone()
        },
        PfcGenerate {
            pause_quanta: 0,
            ..gen.clone()
        },
        PfcGenerate {
            refresh_cycles: 0,
            ..gen.clone()
        },
    ] {
        let cfg = PfcConfig {
            generate: Some(bad),
            ..PfcConfig::default()
        };
        assert!(ctx.set_pfc(&cfg).is_err(), "{cfg:?} accepted");
    }
    let cfg = PfcConfig {
        watchdog: Some(PfcWatchdog {
            cycles: 0,
            recovery_cycles: 1,
        }),
        ..PfcConfig::default()
    };
    assert!(ctx.set_pfc(&cfg).is_err());
    assert_eq!(
        dev.writes().len(),
        before,
        "a refused configuration writes nothing"
    );
}

#[test]
fn counters_cover_every_counter_register() {
    let dev = FakeDevice::new(8);
    let ctx = Context::open(dev.clone()).unwrap();
    dev.set(regs::RX_FRAMES, 5);
    dev.set(regs::CQES_WRITTEN, 9);
    dev.set(regs::RX_IP_CHECKSUM_ERRORS, 2);
    let c = ctx.counters();
    let names: Vec<&str> = c.iter().map(|(k, _)| k.as_str()).collect();
    let want: Vec<String> = regs::REGISTERS
        .iter()
        .filter(|r| r.offset >= 0x400 && r.access == regs::Access::Counter)
        .map(|r| r.name.to_lowercase())
        .chain(["flushed_wqes".to_string()])
        .collect();
    assert_eq!(names, want);
    let get = |n: &str| c.iter().find(|(k, _)| k == n).unwrap().1;
    assert_eq!(get("rx_frames"), 5);
    assert_eq!(get("cqes_written"), 9);
    assert_eq!(get("rx_ip_checksum_errors"), 2);
    assert_eq!(get("tx_frames"), 0);
    assert_eq!(get("flushed_wqes"), 0);
}

#[test]
fn buffers_are_page_aligned_device_memory() {
    let dev = FakeDevice::new(8);
    let ctx = Context::open(dev.clone()).unwrap();
    let a = ctx.alloc_dma(10).unwrap();
    let b = ctx.alloc_dma(10).unwrap();
    assert_eq!(a.iova() % BUFFER_ALIGN as u64, 0);
    assert_eq!(b.iova() % BUFFER_ALIGN as u64, 0);
    assert_ne!(a.iova(), b.iova());
    assert!(a.iova() >= crate::backend::fake::FAKE_BASE_IOVA);
}

#[test]
fn the_block_directory_is_discovered_and_checked() {
    let dev = FakeDevice::new(8);
    let ctx = Context::open(dev.clone()).unwrap();
    let kinds: Vec<_> = ctx.blocks().iter().map(|b| b.kind).collect();
    let want: Vec<_> = regs::BLOCKS.iter().map(|b| b.kind).collect();
    assert_eq!(kinds, want);
    let mr = ctx
        .blocks()
        .iter()
        .find(|b| b.kind == regs::BlockKind::MrTable)
        .unwrap();
    assert_eq!((mr.base, mr.version), (regs::MR_BASE_LO, 3));
    drop(ctx);

    // Header words by (block index, word index).
    let hdr = |i: u16, w: u16| regs::BLOCK_DIR_FIRST + i * regs::BLOCK_HEADER_BYTES + 4 * w;
    let mr_index = regs::BLOCKS
        .iter()
        .position(|b| b.kind == regs::BlockKind::MrTable)
        .unwrap() as u16;

    // A device with a smaller MR table (MR_TABLE_LOG): the driver uses only its entries.
    dev.set(regs::MR_TABLE_LOG, 2);
    let ctx = Context::open(dev.clone()).unwrap();
    let pd = ctx.alloc_pd();
    let buf = ctx.alloc_dma(4096).unwrap();
    let _a: Vec<_> = (0..4)
        .map(|i| {
            pd.reg_mr(&buf, i * 64, 64, AccessFlags::LOCAL_WRITE)
                .unwrap()
        })
        .collect();
    assert!(matches!(
        pd.reg_mr(&buf, 512, 64, AccessFlags::LOCAL_WRITE),
        Err(Error::NoFreeMr(4))
    ));
    drop((_a, pd, ctx));
    dev.set(regs::MR_TABLE_LOG, 1);
    assert!(matches!(
        Context::open(dev.clone()).err(),
        Some(Error::BlockDirectory(_))
    ));
    dev.set(regs::MR_TABLE_LOG, 6);

    // A chain that points back loops: refused.
    let bad = |f: &dyn Fn(), what: &str| {
        f();
        let e = Context::open(dev.clone()).err();
        assert!(matches!(e, Some(Error::BlockDirectory(_))), "{what}: {e:?}");
    };
    bad(&|| dev.set(hdr(2, 1), hdr(1, 0) as u32), "loop");
    dev.set(hdr(2, 1), hdr(3, 0) as u32);
    // A newer major layout of a block this driver drives.
    bad(
        &|| {
            dev.set(
                hdr(mr_index, 0),
                (regs::BlockKind::MrTable as u32) << 16 | 9,
            )
        },
        "newer MR table",
    );
    // The older one (four MR slots of registers, version 1) is not driven either.
    bad(
        &|| {
            dev.set(
                hdr(mr_index, 0),
                (regs::BlockKind::MrTable as u32) << 16 | 1,
            )
        },
        "MR slots of version 1",
    );
    dev.set(
        hdr(mr_index, 0),
        (regs::BlockKind::MrTable as u32) << 16 | 3,
    );
    // No directory at all.
    bad(&|| dev.set(regs::BLOCK_DIR, 0), "no directory");
    dev.set(regs::BLOCK_DIR, regs::BLOCK_DIR_FIRST as u32);
    // An unknown block kind is skipped, not an error.
    dev.set(hdr(1, 0), 0x00EE_0001);
    assert!(matches!(
        Context::open(dev.clone()).err(),
        Some(Error::BlockDirectory(m)) if m.contains("no Qp block")
    ));
    dev.set(hdr(1, 0), (regs::BlockKind::Qp as u32) << 16 | 1);
    Context::open(dev.clone()).unwrap();
}

#[test]
fn query_device_reports_the_tables_the_device_has() {
    let dev = FakeDevice::new(8);
    dev.set(regs::MR_TABLE_LOG, 5);
    dev.set(regs::VERSION, 0x0001_0003);
    let ctx = Context::open(dev.clone()).unwrap();
    let a = ctx.query_device();
    assert_eq!(a.fw_ver, 0x0001_0003);
    assert_eq!(
        (a.max_qp, a.max_mr),
        (64, 32),
        "2^QP_TABLE_LOG, 2^MR_TABLE_LOG"
    );
    assert_eq!((a.max_send_sge, a.max_recv_sge), (4, 4));
    assert_eq!(
        (a.max_qp_rd_atom, a.max_qp_init_rd_atom),
        (regs::ATOMIC_RESULTS as u32, regs::RD_ATOMIC_DEPTH as u32)
    );
    // What the limits say is what the verbs take: the deepest queue is created, one deeper is not.
    drop(ctx.create_cq(a.max_cqe).unwrap());
    assert!(ctx.create_cq(a.max_cqe * 2).is_err());
    let cq = ctx.create_cq(64).unwrap();
    let pd = ctx.alloc_pd();
    let caps = |wr: usize, sge: usize| QpCaps {
        max_send_wr: wr,
        max_recv_wr: 16,
        max_send_sge: sge,
        max_recv_sge: 1,
    };
    assert!(QueuePair::create(&pd, &cq, &cq, caps(a.max_qp_wr * 2, 1)).is_err());
    assert!(QueuePair::create(&pd, &cq, &cq, caps(16, a.max_send_sge + 1)).is_err());
    QueuePair::create(&pd, &cq, &cq, caps(16, a.max_send_sge)).unwrap();
}

#[test]
fn pd_numbers_are_distinct_while_alive_and_reused_after() {
    let dev = FakeDevice::new(8);
    let ctx = Context::open(dev.clone()).unwrap();
    let a = ctx.alloc_pd();
    let b = ctx.alloc_pd();
    assert_ne!(a.pdn, b.pdn);
    let (na, nb) = (a.pdn, b.pdn);
    // An MR keeps its PD alive: the number is not handed out while the MR exists.
    let buf = ctx.alloc_dma(64).unwrap();
    let mr = b.reg_mr(&buf, 0, 64, AccessFlags::LOCAL_WRITE).unwrap();
    drop(b);
    let c = ctx.alloc_pd();
    assert!(
        c.pdn != na && c.pdn != nb,
        "a live PD's number handed out again"
    );
    drop(mr);
    let d = ctx.alloc_pd();
    assert_eq!(d.pdn, nb, "the dropped PD's number is reused");
    drop(a);
    assert_eq!(ctx.alloc_pd().pdn, na);
}

#[test]
fn inspect_checks_the_device_and_leaves_it_as_it_was() {
    let dev = FakeDevice::new(8);
    dev.set(regs::ID, 0x0100_00ED);
    assert!(matches!(
        Context::inspect(dev.clone()),
        Err(Error::NotRocenic(0x0100_00ED))
    ));
    dev.set(regs::ID, regs::ID_VALUE);
    dev.set_qp(0x11, regs::QP_STATE, 3);
    dev.set(regs::MAC_LO, 0x4345_0002);
    dev.set(regs::MAC_HI, 0x0252);
    dev.set(regs::IPV4, u32::from(std::net::Ipv4Addr::new(10, 0, 0, 9)));
    let ctx = Context::inspect(dev.clone()).unwrap();
    assert!(ctx.is_inspect_only());
    assert!(dev.writes().is_empty(), "opening to inspect writes nothing");
    let p = ctx.query_port();
    assert_eq!(
        p.state,
        crate::PortState::Down,
        "the engines were never enabled"
    );
    assert_eq!(p.mac, [0x02, 0x52, 0x43, 0x45, 0x00, 0x02]);
    assert_eq!(p.ipv4_gid().to_string(), "::ffff:10.0.0.9");
    assert_eq!(ctx.node_guid(), 0x0052_43FF_FE45_0002);
    assert_eq!(ctx.qps_in_use(), vec![0x11]);
    let s = ctx.qp_statistics(0x11).unwrap();
    assert_eq!(s.state, crate::QpState::Rts);
    assert_eq!(dev.get_qp(0x11, regs::QP_STATE), 3, "the QP stays in RTS");
    assert!(matches!(ctx.alloc_dma(64), Err(Error::InspectOnly(_))));
    assert!(matches!(ctx.create_cq(2), Err(Error::InspectOnly(_))));
    // A context opened for use is not inspect-only, and its port is up.
    let used = Context::open(dev.clone()).unwrap();
    assert!(!used.is_inspect_only());
    assert_eq!(used.query_port().state, crate::PortState::Active);
}
