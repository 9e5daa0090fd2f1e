//! The ID register answers on both widths, through a single NIC and through the fabric.
use rocenic_proto::regs::{DATAPATH_BYTES, ID, ID_VALUE};
use rocenic_sim::{Fabric, FabricConfig, HostMemory, Nic, NicConfig, Width};
use std::sync::Arc;

#[test]
fn id_register_single_nic_both_widths() {
    for width in [Width::W64, Width::W512] {
        let mem = Arc::new(HostMemory::new(1 << 20).unwrap());
        let mut nic = Nic::new(width, mem, &NicConfig::default()).unwrap();
        nic.reset();
        assert_eq!(nic.reg_read(ID), ID_VALUE, "{width:?}");
    }
}

#[test]
fn id_register_fabric_both_widths_and_ports() {
    for width in [Width::W64, Width::W512] {
        let mut f = Fabric::new(FabricConfig {
            width,
            host_mem_bytes: 1 << 20,
            ..FabricConfig::default()
        })
        .unwrap();
        let before = f.cycles();
        for port in 0..2 {
            assert_eq!(f.reg_read(port, ID), ID_VALUE, "{width:?} port {port}");
        }
        // A register access advances the whole fabric's clock.
        assert!(f.cycles() > before);
        assert_eq!(f.width(), width);
        let _ = DATAPATH_BYTES;
    }
}
