//! Finding a PCI device and its VFIO group through sysfs, before any ioctl: every way this can go wrong
//! (no such device, bound to another driver, no IOMMU group, no group file, no permission, a group shared
//! with a device still owned by a host driver) becomes an [`Error`] that says what to do.
//!
//! The roots (`/sys`, `/dev`) are parameters so the tests run the same code over a fake tree.
use crate::error::{Error, Result};
use std::fmt;
use std::fs::OpenOptions;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

/// A PCI function address, `DDDD:BB:DD.F` (the domain may be left out: `BB:DD.F` means domain 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PciAddress {
    pub domain: u16,
    pub bus: u8,
    pub device: u8,
    pub function: u8,
}

impl std::str::FromStr for PciAddress {
    type Err = Error;
    fn from_str(s: &str) -> Result<PciAddress> {
        let bad = || Error::BadPciAddress(s.to_string());
        let parts: Vec<&str> = s.split(':').collect();
        let (domain, bus, devfn) = match parts.as_slice() {
            [d, b, df] => (*d, *b, *df),
            [b, df] => ("0", *b, *df),
            _ => return Err(bad()),
        };
        let (dev, func) = devfn.split_once('.').ok_or_else(bad)?;
        let hex = |t: &str, max: u32| {
            u32::from_str_radix(t, 16)
                .ok()
                .filter(|v| *v <= max && !t.is_empty())
        };
        Ok(PciAddress {
            domain: hex(domain, 0xffff).ok_or_else(bad)? as u16,
            bus: hex(bus, 0xff).ok_or_else(bad)? as u8,
            device: hex(dev, 0x1f).ok_or_else(bad)? as u8,
            function: hex(func, 7).ok_or_else(bad)? as u8,
        })
    }
}

impl fmt::Display for PciAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:04x}:{:02x}:{:02x}.{:x}",
            self.domain, self.bus, self.device, self.function
        )
    }
}

/// Where sysfs and devtmpfs are: `/sys` and `/dev` on a real system, a temporary tree in tests.
#[derive(Clone, Debug)]
pub struct Roots {
    pub sys: PathBuf,
    pub dev: PathBuf,
}

impl Roots {
    pub fn system() -> Roots {
        Roots {
            sys: "/sys".into(),
            dev: "/dev".into(),
        }
    }
}

/// What the checks found: the device's sysfs directory, its IDs and its IOMMU group.
#[derive(Clone, Debug)]
pub struct Probe {
    pub addr: PciAddress,
    pub sysfs: PathBuf,
    pub vendor: u16,
    pub device: u16,
    pub group: u32,
}

fn read_id(path: &Path) -> Option<u16> {
    let s = std::fs::read_to_string(path).ok()?;
    u16::from_str_radix(s.trim().trim_start_matches("0x"), 16).ok()
}

fn link_name(path: &Path) -> Option<String> {
    let target = std::fs::read_link(path).ok()?;
    Some(target.file_name()?.to_string_lossy().into_owned())
}

/// Checks, in the order a user would fix them, that `addr` can be opened through VFIO.
pub fn probe(roots: &Roots, addr: PciAddress) -> Result<Probe> {
    let sysfs = roots.sys.join("bus/pci/devices").join(addr.to_string());
    if !sysfs.exists() {
        return Err(Error::NoPciDevice(addr.to_string()));
    }
    let vendor = read_id(&sysfs.join("vendor")).unwrap_or(0);
    let device = read_id(&sysfs.join("device")).unwrap_or(0);
    // Without an IOMMU group vfio-pci cannot bind at all, so that is the first thing to fix.
    let group = link_name(&sysfs.join("iommu_group"))
        .and_then(|g| g.parse::<u32>().ok())
        .ok_or_else(|| Error::NoIommuGroup(addr.to_string()))?;
    let driver = link_name(&sysfs.join("driver"));
    if driver.as_deref() != Some("vfio-pci") {
        return Err(Error::NotBoundToVfio {
            addr: addr.to_string(),
            driver: driver.unwrap_or_else(|| "no driver".into()),
            vendor,
            device,
        });
    }
    // Every device in the group must be released by its host driver, or VFIO refuses the group.
    let members = roots
        .sys
        .join("kernel/iommu_groups")
        .join(group.to_string())
        .join("devices");
    if let Ok(entries) = std::fs::read_dir(&members) {
        for e in entries.flatten() {
            let other = e.file_name().to_string_lossy().into_owned();
            match link_name(&e.path().join("driver")) {
                None => {}
                Some(d) if d == "vfio-pci" || d == "pcieport" => {}
                Some(d) => {
                    return Err(Error::GroupNotViable {
                        group,
                        other,
                        driver: d,
                    })
                }
            }
        }
    }
    for file in [
        roots.dev.join("vfio/vfio"),
        roots.dev.join("vfio").join(group.to_string()),
    ] {
        check_openable(&file)?;
    }
    Ok(Probe {
        addr,
        sysfs,
        vendor,
        device,
        group,
    })
}

/// Opens `path` read-write once, so "missing" and "not allowed" are told apart before the ioctls.
fn check_openable(path: &Path) -> Result<()> {
    match OpenOptions::new().read(true).write(true).open(path) {
        Ok(_) => Ok(()),
        Err(e) => Err(open_error(path, e.kind())),
    }
}

pub(crate) fn open_error(path: &Path, kind: ErrorKind) -> Error {
    let path = path.display().to_string();
    match kind {
        ErrorKind::NotFound => Error::VfioFileMissing(path),
        ErrorKind::PermissionDenied => Error::VfioPermission(path),
        // EBUSY: another process (or container) holds the group.
        _ => Error::VfioOpen {
            path,
            reason: format!("{kind}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// A fake /sys and /dev: device 0000:00:06.0 (1234:11e8) with the given driver and group.
    fn tree(name: &str, driver: Option<&str>, group: Option<u32>, dev_files: bool) -> Roots {
        let base =
            std::env::temp_dir().join(format!("rocenic-sysfs-{}-{}", name, std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let sys = base.join("sys");
        let dev = base.join("dev");
        let d = sys.join("devices/pci0000:00/0000:00:06.0");
        std::fs::create_dir_all(&d).unwrap();
        std::fs::create_dir_all(sys.join("bus/pci/devices")).unwrap();
        symlink(&d, sys.join("bus/pci/devices/0000:00:06.0")).unwrap();
        std::fs::write(d.join("vendor"), "0x1234\n").unwrap();
        std::fs::write(d.join("device"), "0x11e8\n").unwrap();
        if let Some(drv) = driver {
            let dd = sys.join("bus/pci/drivers").join(drv);
            std::fs::create_dir_all(&dd).unwrap();
            symlink(&dd, d.join("driver")).unwrap();
        }
        if let Some(g) = group {
            let gd = sys.join("kernel/iommu_groups").join(g.to_string());
            std::fs::create_dir_all(gd.join("devices")).unwrap();
            symlink(&gd, d.join("iommu_group")).unwrap();
            symlink(&d, gd.join("devices/0000:00:06.0")).unwrap();
            if dev_files {
                std::fs::create_dir_all(dev.join("vfio")).unwrap();
                std::fs::write(dev.join("vfio/vfio"), "").unwrap();
                std::fs::write(dev.join("vfio").join(g.to_string()), "").unwrap();
            }
        }
        Roots { sys, dev }
    }

    fn edu() -> PciAddress {
        "0000:00:06.0".parse().unwrap()
    }

    #[test]
    fn addresses_parse_and_print() {
        let a: PciAddress = "00:1f.7".parse().unwrap();
        assert_eq!(a.to_string(), "0000:00:1f.7");
        assert_eq!("0001:3b:00.1".parse::<PciAddress>().unwrap().domain, 1);
        for bad in [
            "",
            "00:20.0",
            "00:1f.8",
            "0000:00:06",
            "x:00:06.0",
            "0:0:0:0.0",
            "00:.0",
        ] {
            assert!(
                matches!(bad.parse::<PciAddress>(), Err(Error::BadPciAddress(_))),
                "{bad:?} accepted"
            );
        }
    }

    #[test]
    fn a_ready_device_probes() {
        let r = tree("ok", Some("vfio-pci"), Some(5), true);
        let p = probe(&r, edu()).unwrap();
        assert_eq!((p.vendor, p.device, p.group), (0x1234, 0x11e8, 5));
    }

    #[test]
    fn each_missing_piece_has_its_own_error() {
        let r = tree("none", Some("vfio-pci"), Some(5), true);
        let e = probe(&r, "0000:00:07.0".parse().unwrap()).unwrap_err();
        assert!(
            matches!(e, Error::NoPciDevice(ref a) if a == "0000:00:07.0"),
            "{e}"
        );

        let r = tree("unbound", None, Some(5), true);
        let e = probe(&r, edu()).unwrap_err();
        assert!(matches!(e, Error::NotBoundToVfio { ref driver, .. } if driver == "no driver"));
        assert!(
            e.to_string().contains("1234 11e8"),
            "hint names the IDs: {e}"
        );

        let r = tree("e1000", Some("e1000e"), Some(5), true);
        let e = probe(&r, edu()).unwrap_err();
        assert!(matches!(e, Error::NotBoundToVfio { ref driver, .. } if driver == "e1000e"));

        let r = tree("nogroup", None, None, false);
        let e = probe(&r, edu()).unwrap_err();
        assert!(matches!(e, Error::NoIommuGroup(_)), "{e}");
        assert!(e.to_string().contains("intel_iommu=on"));

        let r = tree("nofile", Some("vfio-pci"), Some(5), false);
        let e = probe(&r, edu()).unwrap_err();
        assert!(
            matches!(e, Error::VfioFileMissing(ref p) if p.ends_with("vfio/vfio")),
            "{e}"
        );
    }

    #[test]
    fn a_group_shared_with_a_host_driver_is_refused() {
        let r = tree("shared", Some("vfio-pci"), Some(9), true);
        let other = r.sys.join("devices/pci0000:00/0000:00:06.1");
        std::fs::create_dir_all(&other).unwrap();
        let drv = r.sys.join("bus/pci/drivers/snd_hda_intel");
        std::fs::create_dir_all(&drv).unwrap();
        symlink(&drv, other.join("driver")).unwrap();
        symlink(
            &other,
            r.sys.join("kernel/iommu_groups/9/devices/0000:00:06.1"),
        )
        .unwrap();
        let e = probe(&r, edu()).unwrap_err();
        assert!(
            matches!(e, Error::GroupNotViable { group: 9, ref other, ref driver }
                if other == "0000:00:06.1" && driver == "snd_hda_intel"),
            "{e}"
        );
    }

    #[test]
    fn open_errors_are_told_apart() {
        let p = Path::new("/dev/vfio/5");
        assert!(matches!(
            open_error(p, ErrorKind::NotFound),
            Error::VfioFileMissing(_)
        ));
        let e = open_error(p, ErrorKind::PermissionDenied);
        assert!(matches!(e, Error::VfioPermission(_)));
        assert!(e.to_string().contains("root"), "{e}");
    }
}
