//! The fabric around real Verilated cores: frames through the link into the pcap, stats, determinism,
//! errors, and the idle-cycle shortcut giving the same outputs as full evaluation.
use rocenic_proto::regs;
use rocenic_sim::{Fabric, FabricConfig, FaultPlan, HostMemory, Nic, NicConfig, SimError, Width};
use std::path::PathBuf;
use std::sync::Arc;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rocenic-sim-fabric-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn small(width: Width) -> FabricConfig {
    FabricConfig {
        width,
        host_mem_bytes: 1 << 20,
        link_latency_cycles: 20,
        ..FabricConfig::default()
    }
}

fn count_pcap(path: &PathBuf) -> Vec<Vec<u8>> {
    let mut r = pcap_file::pcap::PcapReader::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut v = Vec::new();
    while let Some(p) = r.next_packet() {
        v.push(p.unwrap().data.into_owned());
    }
    v
}

/// A run with injected frames and random faults; returns the pcap bytes.
fn faulty_run(width: Width, seed: u64, name: &str) -> Vec<u8> {
    let path = tmp(name);
    let mut f = Fabric::new(FabricConfig {
        pcap: Some(path.clone()),
        faults: FaultPlan::none().random(0.5, 0.25),
        seed,
        ..small(width)
    })
    .unwrap();
    for n in 0..20u8 {
        f.inject_frame((n % 2) as usize, vec![n; 20 + n as usize * 5]);
        f.run(37);
    }
    f.run(200);
    f.flush_pcap().unwrap();
    assert_eq!(f.link_stats().frames, [10, 10]);
    std::fs::read(path).unwrap()
}

#[test]
fn injected_frames_are_padded_and_captured() {
    for width in [Width::W64, Width::W512] {
        let path = tmp(&format!("inject{}.pcap", width.bits()));
        let mut f = Fabric::new(FabricConfig {
            pcap: Some(path.clone()),
            ..small(width)
        })
        .unwrap();
        f.inject_frame(0, vec![0xAB; 14]);
        f.inject_frame(1, vec![0xCD; 200]);
        f.run(100);
        f.flush_pcap().unwrap();
        let s = f.link_stats();
        assert_eq!(
            (s.frames, s.bytes, s.corrupted, s.dropped),
            ([1, 1], [60, 200], 0, 0)
        );
        let cap = count_pcap(&path);
        assert_eq!(cap.len(), 2);
        assert_eq!(cap[0][..14], [0xAB; 14]);
        assert_eq!(cap[0][14..], [0; 46]);
        assert_eq!(cap[1], vec![0xCD; 200]);
        // Both cores took their frame off the receive port.
        for port in 0..2 {
            assert_eq!(f.nic_mut(port).rx_pending(), 0);
        }
    }
}

#[test]
fn same_seed_same_pcap_bytes() {
    let a = faulty_run(Width::W64, 5, "seed5a.pcap");
    let b = faulty_run(Width::W64, 5, "seed5b.pcap");
    let c = faulty_run(Width::W64, 6, "seed6.pcap");
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn setup_errors_are_reported() {
    let bad = PathBuf::from("/nonexistent-dir/x.pcap");
    let e = Fabric::new(FabricConfig {
        pcap: Some(bad),
        ..small(Width::W64)
    })
    .err()
    .unwrap();
    assert!(matches!(e, SimError::Pcap(..)), "{e}");
    let e = Fabric::new(FabricConfig {
        host_mem_bytes: 0,
        ..small(Width::W64)
    })
    .err()
    .unwrap();
    assert!(matches!(e, SimError::Config(..)), "{e}");
}

#[test]
fn vcd_files_are_written_per_port() {
    let path = tmp("wave.vcd");
    let mut f = Fabric::new(FabricConfig {
        vcd: Some(path.clone()),
        ..small(Width::W64)
    })
    .unwrap();
    f.run(10);
    f.flush_pcap().unwrap();
    drop(f);
    for port in 0..2 {
        let p = rocenic_sim::fabric::vcd_path(&path, port);
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(
            text.contains("$enddefinitions") && text.contains("rx_tready"),
            "{}",
            p.display()
        );
    }
}

/// The stimulus's seeded generator (the project's one).
struct Gen(rand_xoshiro::SplitMix64);
impl Gen {
    fn new(seed: u64) -> Gen {
        Gen(rand_core::SeedableRng::seed_from_u64(seed))
    }
    fn next(&mut self) -> u64 {
        rand_core::RngCore::next_u64(&mut self.0)
    }
}

/// A frame to `mac`/`ip` on UDP port 4791 with random payload (its ICRC is wrong, so the core counts it as
/// an ICRC error), or random bytes.
fn stimulus_frame(rng: &mut Gen) -> Vec<u8> {
    let len = 60 + (rng.next() % 300) as usize;
    let mut f: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
    if rng.next().is_multiple_of(2) {
        f[0..6].copy_from_slice(&[2, 0, 0, 0, 0, 1]);
        f[12..14].copy_from_slice(&[0x08, 0x00]);
        f[14] = 0x45;
        f[16..18].copy_from_slice(&((len - 14) as u16).to_be_bytes());
        f[23] = 17;
        f[30..34].copy_from_slice(&[10, 0, 0, 1]);
        f[36..38].copy_from_slice(&4791u16.to_be_bytes());
    }
    f
}

/// The shim's two shortcuts (the clock-low eval skipped on idle cycles, the clock-high eval without the
/// input pass) against a NIC evaluated in full, output by output every cycle. With the input pass also
/// skipped at the clock-low eval (a mutant of sim/csrc/shim.cpp) it fails at cycle 116.
#[test]
fn shortcuts_match_full_evaluation() {
    for width in [Width::W64, Width::W512] {
        let mut nics: Vec<Nic> = (0..2)
            .map(|_| {
                let mem = Arc::new(HostMemory::new(1 << 20).unwrap());
                Nic::new(
                    width,
                    mem,
                    &NicConfig {
                        dma_read_latency_cycles: 5,
                        ..NicConfig::default()
                    },
                )
                .unwrap()
            })
            .collect();
        if !nics[0].has_idle_shortcut() {
            eprintln!("this Verilator has no idle-cycle shortcut: nothing to compare");
            return;
        }
        nics[1].set_exact(true);
        let mut rng = Gen::new(99);
        let mut script: Vec<(u64, Option<Vec<u8>>)> = Vec::new();
        for _ in 0..30 {
            let gap = rng.next() % 200;
            script.push((gap, Some(stimulus_frame(&mut rng))));
        }
        for nic in nics.iter_mut() {
            nic.reset();
            nic.reg_write(regs::MAC_LO, 0x0000_0001);
            nic.reg_write(regs::MAC_HI, 0x0200);
            nic.reg_write(regs::IPV4, 0x0A00_0001);
            nic.reg_write(regs::CONTROL, regs::CONTROL_ENABLE);
        }
        for (gap, frame) in &script {
            for _ in 0..*gap {
                for nic in nics.iter_mut() {
                    nic.tick();
                }
                assert_eq!(
                    nics[0].outputs(),
                    nics[1].outputs(),
                    "{width:?} cycle {}",
                    nics[0].cycles()
                );
            }
            for nic in nics.iter_mut() {
                nic.push_rx_frame(frame.clone().unwrap());
            }
        }
        for _ in 0..2000 {
            for nic in nics.iter_mut() {
                nic.tick();
            }
            assert_eq!(
                nics[0].outputs(),
                nics[1].outputs(),
                "{width:?} cycle {}",
                nics[0].cycles()
            );
        }
        let counters: Vec<Vec<u32>> = nics
            .iter_mut()
            .map(|n| {
                (0..16)
                    .map(|i| n.reg_read(regs::RX_FRAMES + 4 * i))
                    .collect()
            })
            .collect();
        eprintln!("{width:?} counters from RX_FRAMES: {:?}", counters[0]);
        assert_eq!(counters[0], counters[1]);
        assert_eq!(nics[0].rx_pending(), 0);
    }
}
