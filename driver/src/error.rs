//! One error type for the driver. Every variant says what was wrong and, where it helps, what is allowed.
use rocenic_proto::host::QpState;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("no rocenic device: ID register reads {0:#010x}, expected 0x524F4345")]
    NotRocenic(u32),
    #[error("register map version {found:#x} is not supported (driver speaks major {expected})")]
    Version { found: u32, expected: u32 },
    #[error("DATAPATH_BYTES reads {0}, expected 8 or 64")]
    BadDatapath(u32),
    #[error("out of device-visible memory: {0} bytes requested")]
    OutOfDmaMemory(usize),
    #[error("access outside DMA region: offset {offset} + {len} > {size}")]
    OutOfRegion {
        offset: usize,
        len: usize,
        size: usize,
    },
    #[error("all {0} entries of the device's MR table are in use")]
    NoFreeMr(usize),
    #[error("access flags {0:#x}: remote write and remote atomic access need local write too")]
    InvalidAccess(u32),
    #[error("all QPNs of the device's {0}-QP table are in use")]
    NoFreeQp(u32),
    #[error("depth {0} is not a power of two between 2 and 32768")]
    BadDepth(usize),
    #[error("illegal QP transition {from:?} -> {to:?}")]
    BadTransition { from: QpState, to: QpState },
    #[error("QP is in {0:?}; the operation needs {1}")]
    WrongState(QpState, &'static str),
    #[error("path MTU {0} is not one of 256, 512, 1024, 2048, 4096")]
    BadMtu(u32),
    #[error("bad QP attribute: {0}")]
    BadAttr(&'static str),
    #[error("address {addr:#x} is not aligned to {align} bytes")]
    Unaligned { addr: u64, align: usize },
    #[error("lkey {lkey:#x} does not cover [{addr:#x}, +{len}) with the needed access in this PD")]
    LocalProtection { lkey: u32, addr: u64, len: u32 },
    #[error("{given} gather entries, the QP takes at most {max} (its max_send_sge)")]
    TooManySges { given: usize, max: usize },
    #[error("{0} queue is full")]
    QueueFull(&'static str),
    #[error("{0} is not supported by this hardware generation")]
    Unsupported(&'static str),
    #[error("this device was opened to inspect only (Context::inspect): {0} cannot be made")]
    InspectOnly(&'static str),
    #[error("register-block directory: {0}")]
    BlockDirectory(String),
    #[error("simulation: {0}")]
    Sim(String),
    #[error(
        "'{0}' is not a PCI address: want DDDD:BB:DD.F or BB:DD.F in hex (as lspci -D prints)"
    )]
    BadPciAddress(String),
    #[error("no PCI device {0}: /sys/bus/pci/devices/{0} does not exist (check lspci -D)")]
    NoPciDevice(String),
    #[error(
        "PCI device {addr} ({vendor:04x}:{device:04x}) is bound to {driver}, not vfio-pci: \
         unbind it and run `modprobe vfio-pci; echo {vendor:04x} {device:04x} > /sys/bus/pci/drivers/vfio-pci/new_id`"
    )]
    NotBoundToVfio {
        addr: String,
        driver: String,
        vendor: u16,
        device: u16,
    },
    #[error(
        "PCI device {0} has no IOMMU group: the IOMMU is off or missing \
         (boot with intel_iommu=on or amd_iommu=on and enable VT-d/AMD-Vi in the firmware)"
    )]
    NoIommuGroup(String),
    #[error(
        "IOMMU group {group} is not usable: its member {other} is still bound to {driver}; \
         bind every device of the group to vfio-pci (or unbind it)"
    )]
    GroupNotViable {
        group: u32,
        other: String,
        driver: String,
    },
    #[error("{0} does not exist: is the vfio-pci module loaded (modprobe vfio-pci)?")]
    VfioFileMissing(String),
    #[error("no permission to open {0}: run as root, or give your user the group file (chown) and a memlock limit (ulimit -l)")]
    VfioPermission(String),
    #[error("cannot open {path}: {reason} (is the group in use by another process?)")]
    VfioOpen { path: String, reason: String },
    #[error("VFIO {what}: {reason}")]
    Vfio { what: &'static str, reason: String },
    #[error("cannot map {len:#x} bytes at IOVA {iova:#x} for DMA: {reason}")]
    DmaMap { iova: u64, len: u64, reason: String },
}

pub type Result<T> = std::result::Result<T, Error>;
