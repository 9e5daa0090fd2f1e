//! Tests the driver's VFIO layer against the kernel's real VFIO, with QEMU's `edu` PCI device (1234:11e8,
//! QEMU's docs/specs/edu.rst) behind an emulated IOMMU. Run inside a guest by
//! `testbench/vfio/edu-test.sh`, which boots it and binds the device to vfio-pci.
//!
//! usage: vfio-edu check PCI_ADDR [--require-huge]   open, BAR0, MSI, DMA both ways, IOMMU isolation,
//!                                                   and VfioBackend + Context::open on a non-rocenic
//!        vfio-edu open PCI_ADDR                     only open it: prints `open: ok` or the error, with
//!                                                   its kind (`error[NoIommuGroup]: ...`)
//! Every check prints `PASS name` or `FAIL name: why`; the exit status is 0 only when all pass.
use rocenic_driver::backend::vfio::{wait_event, Bar, VfioBackend, VfioPci};
use rocenic_driver::{Context, Error};
use std::sync::Arc;
use std::time::{Duration, Instant};

// edu's BAR0 registers.
const ID: u64 = 0x00;
const LIVENESS: u64 = 0x04;
const FACTORIAL: u64 = 0x08;
const STATUS: u64 = 0x20;
const IRQ_STATUS: u64 = 0x24;
const IRQ_RAISE: u64 = 0x60;
const IRQ_ACK: u64 = 0x64;
const DMA_SRC: u64 = 0x80;
const DMA_DST: u64 = 0x88;
const DMA_COUNT: u64 = 0x90;
const DMA_CMD: u64 = 0x98;
const DMA_RUN: u32 = 1;
const DMA_TO_RAM: u32 = 2;
const DMA_IRQ: u32 = 4;
const DMA_DONE_IRQ: u32 = 0x100;
/// edu's internal buffer, as the device side of its DMA: 4 KiB at 0x40000.
const EDU_BUF: u32 = 0x40000;
/// Bytes per transfer: QEMU up to 7.2 refuses (aborts on) a transfer that ends exactly at the end of
/// edu's buffer, an off-by-one in its range check, so no transfer here touches the last bytes.
const XFER: usize = 4032;
/// edu masks DMA addresses to 28 bits: every IOVA here stays below 256 MiB.
const IOVA_A: u64 = 0x10_0000;
const IOVA_HUGE: u64 = 0x20_0000;
const IOVA_FREED: u64 = 0x60_0000;

struct Report {
    failed: usize,
}

impl Report {
    fn check(&mut self, name: &str, r: std::result::Result<String, String>) {
        match r {
            Ok(detail) if detail.is_empty() => println!("PASS {name}"),
            Ok(detail) => println!("PASS {name}: {detail}"),
            Err(why) => {
                println!("FAIL {name}: {why}");
                self.failed += 1;
            }
        }
    }
}

fn kind(e: &Error) -> String {
    let dbg = format!("{e:?}");
    dbg.split(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or("")
        .to_string()
}

fn poll_until(what: &str, timeout: Duration, mut done: impl FnMut() -> bool) -> Result<(), String> {
    let t0 = Instant::now();
    while !done() {
        if t0.elapsed() > timeout {
            return Err(format!("{what}: not done after {timeout:?}"));
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    Ok(())
}

/// One edu DMA of `len` bytes between host IOVA `iova` and edu's buffer at `edu_off`, waited for.
fn dma(bar: &Bar, iova: u64, edu_off: u32, len: u32, to_ram: bool) -> Result<(), String> {
    let (src, dst) = if to_ram {
        (EDU_BUF as u64 + edu_off as u64, iova)
    } else {
        (iova, EDU_BUF as u64 + edu_off as u64)
    };
    bar.write32(DMA_SRC, src as u32);
    bar.write32(DMA_SRC + 4, 0);
    bar.write32(DMA_DST, dst as u32);
    bar.write32(DMA_DST + 4, 0);
    bar.write32(DMA_COUNT, len);
    bar.write32(DMA_COUNT + 4, 0);
    bar.write32(DMA_CMD, DMA_RUN | if to_ram { DMA_TO_RAM } else { 0 });
    poll_until("edu DMA", Duration::from_secs(10), || {
        bar.read32(DMA_CMD) & DMA_RUN == 0
    })
}

/// A locked page holding `data`, below edu's 28-bit DMA reach and away from the IOVAs used here, and its
/// physical address (from /proc/self/pagemap, which shows frame numbers to root only).
fn physical_page_with(data: &[u8]) -> Result<(u64, memmap2::MmapMut), String> {
    use std::io::{Read, Seek, SeekFrom};
    let mut pagemap = std::fs::File::open("/proc/self/pagemap").map_err(|e| e.to_string())?;
    for _ in 0..256 {
        let mut page = memmap2::MmapMut::map_anon(4096).map_err(|e| e.to_string())?;
        page[..data.len()].copy_from_slice(data);
        // SAFETY: mlock on a mapping this function owns; it only pins the page in RAM.
        if unsafe { libc::mlock(page.as_ptr().cast(), 4096) } != 0 {
            return Err(format!("mlock: {}", std::io::Error::last_os_error()));
        }
        let vpn = page.as_ptr() as u64 / 4096;
        let mut entry = [0u8; 8];
        pagemap
            .seek(SeekFrom::Start(vpn * 8))
            .and_then(|_| pagemap.read_exact(&mut entry))
            .map_err(|e| format!("pagemap: {e}"))?;
        let entry = u64::from_le_bytes(entry);
        let pfn = entry & ((1 << 55) - 1);
        if entry >> 63 == 0 || pfn == 0 {
            return Err("pagemap shows no frame numbers (not root?)".into());
        }
        let phys = pfn * 4096;
        let clear_of_iovas = !(IOVA_A..IOVA_A + (8 << 20)).contains(&phys);
        if phys < 0x0FFF_0000 && clear_of_iovas {
            return Ok((phys, page));
        }
    }
    Err("no page below 256 MiB physical found for the test".into())
}

fn pattern(seed: u8, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31) ^ seed)
        .collect()
}

fn check(addr: &str, require_huge: bool) -> usize {
    let mut rep = Report { failed: 0 };
    let pci = match VfioPci::open(addr) {
        Ok(p) => Arc::new(p),
        Err(e) => {
            println!("FAIL open: error[{}]: {e}", kind(&e));
            return 1;
        }
    };
    let (v, d) = pci.ids();
    rep.check(
        "open",
        Ok(format!(
            "{addr} {v:04x}:{d:04x}, IOMMU group {}",
            pci.iommu_group()
        )),
    );
    pci.enable_bus_master();
    let bar = match pci.bar(0) {
        Ok(b) => b,
        Err(e) => {
            rep.check("bar0", Err(e.to_string()));
            return rep.failed;
        }
    };
    rep.check(
        "bar0",
        Ok(format!(
            "{} KiB, {}",
            bar.len() / 1024,
            if bar.is_mapped() {
                "mmapped"
            } else {
                "pread/pwrite"
            }
        )),
    );

    let id = bar.read32(ID);
    rep.check(
        "edu identification register",
        if id & 0xff == 0xed {
            Ok(format!("{id:#010x}"))
        } else {
            Err(format!("read {id:#010x}, edu reads 0xRRrr00ed"))
        },
    );
    bar.write32(LIVENESS, 0x1234_5678);
    let live = bar.read32(LIVENESS);
    rep.check(
        "BAR write then read (liveness inverts)",
        if live == !0x1234_5678u32 {
            Ok(String::new())
        } else {
            Err(format!("read {live:#x}, want {:#x}", !0x1234_5678u32))
        },
    );
    bar.write32(FACTORIAL, 7);
    let fact = poll_until("factorial", Duration::from_secs(5), || {
        bar.read32(STATUS) & 1 == 0
    })
    .and_then(|_| match bar.read32(FACTORIAL) {
        5040 => Ok("7! = 5040".to_string()),
        x => Err(format!("7! read as {x}")),
    });
    rep.check("device computes (factorial)", fact);

    // Interrupts: MSI vector 0 on an eventfd.
    let fds = match pci.enable_msi(1) {
        Ok(f) => f,
        Err(e) => {
            rep.check("MSI to eventfd", Err(e.to_string()));
            return rep.failed;
        }
    };
    let irq = &fds[0];
    let quiet = wait_event(irq, Duration::ZERO).unwrap_or(99);
    bar.write32(IRQ_RAISE, 0x5a);
    let got = wait_event(irq, Duration::from_secs(5));
    let status = bar.read32(IRQ_STATUS);
    bar.write32(IRQ_ACK, status);
    rep.check(
        "MSI to eventfd",
        match got {
            Ok(n) if n > 0 && quiet == 0 && status & 0x5a == 0x5a => {
                Ok(format!("signalled, IRQ status {status:#x}"))
            }
            Ok(n) => Err(format!(
                "events before {quiet}, after raise {n}, IRQ status {status:#x}"
            )),
            Err(e) => Err(e.to_string()),
        },
    );

    // DMA both ways through 4 KiB pages at IOVA_A.
    let r = (|| -> Result<String, String> {
        let m = pci.map_dma(IOVA_A, 8192).map_err(|e| e.to_string())?;
        let p = pattern(0x11, XFER);
        use rocenic_driver::backend::DmaWindow;
        m.write(IOVA_A, &p);
        dma(&bar, IOVA_A, 0, XFER as u32, false)?;
        // The second DMA asks for the completion interrupt.
        let _ = wait_event(irq, Duration::ZERO);
        bar.write32(DMA_SRC, EDU_BUF);
        bar.write32(DMA_SRC + 4, 0);
        bar.write32(DMA_DST, (IOVA_A + 4096) as u32);
        bar.write32(DMA_DST + 4, 0);
        bar.write32(DMA_COUNT, XFER as u32);
        bar.write32(DMA_CMD, DMA_RUN | DMA_TO_RAM | DMA_IRQ);
        let n = wait_event(irq, Duration::from_secs(10)).map_err(|e| e.to_string())?;
        let st = bar.read32(IRQ_STATUS);
        bar.write32(IRQ_ACK, st);
        if n == 0 || st & DMA_DONE_IRQ == 0 {
            return Err(format!(
                "no DMA-done interrupt (events {n}, status {st:#x})"
            ));
        }
        let mut back = vec![0; XFER];
        m.read(IOVA_A + 4096, &mut back);
        if back != p {
            let at = back.iter().zip(&p).position(|(a, b)| a != b).unwrap();
            return Err(format!("host -> edu -> host differs at byte {at}"));
        }
        Ok(format!("{XFER} B host -> device -> host, DMA-done MSI"))
    })();
    rep.check("DMA round trip (4 KiB pages)", r);

    // The same through a 2 MiB huge page, at an offset inside it.
    let r = (|| -> Result<String, String> {
        let m = pci.map_dma(IOVA_HUGE, 2 << 20).map_err(|e| e.to_string())?;
        if !m.is_huge() {
            return if require_huge {
                Err("mapped with 4 KiB pages: no free huge page".into())
            } else {
                Ok("no huge pages on this system: 4 KiB pages used".into())
            };
        }
        use rocenic_driver::backend::DmaWindow;
        let p = pattern(0x77, 2048);
        let at = IOVA_HUGE + (1 << 20) + 512;
        m.write(at, &p);
        dma(&bar, at, 1024, 2048, false)?;
        dma(&bar, at + 4096, 1024, 2048, true)?;
        let mut back = vec![0; 2048];
        m.read(at + 4096, &mut back);
        if back != p {
            return Err("huge-page round trip differs".into());
        }
        Ok("2048 B at +1 MiB of a 2 MiB page".into())
    })();
    rep.check("DMA round trip (2 MiB huge page)", r);

    // Isolation: the device reaches only what is mapped. Two targets hold a known pattern but are not
    // mapped for the device: (1) the page behind an IOVA after it was unmapped (read once while mapped,
    // as the control), (2) a locked page addressed by its *physical* address, which is what the device
    // would reach with no IOMMU or a pass-through one. A blocked read must not return the pattern. Before
    // each, edu's buffer is reloaded with other bytes, so stale contents cannot pass for a blocked read.
    let r = (|| -> Result<String, String> {
        use rocenic_driver::backend::DmaWindow;
        let m = pci.map_dma(IOVA_A, 8192).map_err(|e| e.to_string())?;
        m.write(IOVA_A, &pattern(0x3c, XFER));
        // Reads `iova` through edu into IOVA_A + 4 KiB and returns what arrived.
        let read_through = |iova: u64| -> Result<Vec<u8>, String> {
            dma(&bar, IOVA_A, 0, XFER as u32, false)?;
            dma(&bar, iova, 0, XFER as u32, false)?;
            dma(&bar, IOVA_A + 4096, 0, XFER as u32, true)?;
            let mut back = vec![0; XFER];
            m.read(IOVA_A + 4096, &mut back);
            Ok(back)
        };
        let secret = pattern(0xc3, XFER);
        {
            let freed = pci.map_dma(IOVA_FREED, 4096).map_err(|e| e.to_string())?;
            freed.write(IOVA_FREED, &secret);
            if read_through(IOVA_FREED)? != secret {
                return Err("control: a read of a mapped IOVA did not return its data".into());
            }
        }
        if read_through(IOVA_FREED)? == secret {
            return Err(format!(
                "IOVA {IOVA_FREED:#x} still reaches its old page after unmapping"
            ));
        }
        let (phys, _page) = physical_page_with(&secret)?;
        if read_through(phys)? == secret {
            return Err(format!(
                "the device read an unmapped page by its physical address {phys:#x}"
            ));
        }
        Ok(format!(
            "an unmapped IOVA ({IOVA_FREED:#x}) and a page's physical address ({phys:#x}) are not reachable"
        ))
    })();
    rep.check("IOMMU blocks unmapped IOVAs", r);
    drop(fds);
    let _ = pci.disable_msi();
    drop(bar);
    drop(pci);

    // The rocenic backend on this device: everything opens, and Context::open refuses it by ID.
    let r = match VfioBackend::open(addr, 4 << 20) {
        Err(e) => Err(format!("VfioBackend::open: {e}")),
        Ok(b) => {
            use rocenic_driver::Backend;
            let desc = b.describe();
            match Context::open(Arc::new(b)) {
                Err(Error::NotRocenic(id)) if id & 0xff == 0xed => {
                    Ok(format!("{desc}; Context::open: NotRocenic({id:#010x})"))
                }
                Err(e) => Err(format!("Context::open gave {e}, want NotRocenic")),
                Ok(_) => Err("Context::open accepted edu as a rocenic".into()),
            }
        }
    };
    rep.check("VfioBackend refuses a non-rocenic device", r);
    rep.failed
}

/// `vfio-edu`'s command line.
#[derive(clap::Parser, Debug)]
#[command(
    name = "vfio-edu",
    about = "The driver's VFIO layer against QEMU's edu device: open it, or check BAR0, MSI, DMA and the IOMMU"
)]
enum Cli {
    /// BAR0 mmap, registers, MSI on an eventfd, DMA both ways, the IOMMU blocking unmapped IOVAs, and
    /// VfioBackend + Context::open refusing a device that is not a rocenic; one PASS/FAIL line per check
    Check {
        /// The edu device's PCI address (DDDD:BB:DD.F)
        addr: String,
        /// Fail unless the 2 MiB DMA round trip got a huge page
        #[arg(long)]
        require_huge: bool,
    },
    /// Open the device through VFIO and say which error, if any, the driver gives
    Open {
        /// The PCI address (DDDD:BB:DD.F)
        addr: String,
    },
}

fn main() {
    use clap::Parser;
    let status = match Cli::try_parse() {
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            code
        }
        Ok(Cli::Check { addr, require_huge }) => {
            let failed = check(&addr, require_huge);
            println!(
                "vfio-edu: {}",
                if failed == 0 {
                    "all passed".to_string()
                } else {
                    format!("{failed} failed")
                }
            );
            (failed > 0) as i32
        }
        Ok(Cli::Open { addr }) => match VfioPci::open(&addr) {
            Ok(p) => {
                println!("open: ok (IOMMU group {})", p.iommu_group());
                0
            }
            Err(e) => {
                println!("open: error[{}]: {e}", kind(&e));
                1
            }
        },
    };
    std::process::exit(status);
}
