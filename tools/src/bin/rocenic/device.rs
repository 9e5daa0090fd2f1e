//! `--device`: the NIC a tool looks at. `sim` is a co-simulated NIC of the tool's own (64-bit unless
//! `sim:512`); `vfio:DDDD:BB:DD.F` a board bound to vfio-pci, opened through the driver's VFIO layer.
//! Both are reached through the verbs [`Context`] only, so a tool reads a board as it reads the simulator.
use rocenic_driver::Context;
use rocenic_proto::Width;
use std::fmt;
use std::str::FromStr;

/// Bytes of host memory the VFIO backend maps for a tool that only looks (it needs none; the backend
/// maps at least one 2 MiB page).
#[cfg(feature = "vfio")]
const INSPECT_DMA_BYTES: usize = 2 << 20;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceSpec {
    /// A co-simulated NIC of this width.
    Sim(Width),
    /// A PCI address as `lspci -D` prints it.
    Vfio(String),
}

impl FromStr for DeviceSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.split_once(':') {
            None if s == "sim" => Ok(DeviceSpec::Sim(Width::W64)),
            Some(("sim", w)) if Width::parse(w).is_some() => {
                Ok(DeviceSpec::Sim(Width::parse(w).unwrap()))
            }
            Some(("vfio", addr)) if !addr.is_empty() => Ok(DeviceSpec::Vfio(addr.to_string())),
            _ => Err(format!(
                "{s} is not a device: want sim, sim:64, sim:512 or vfio:DDDD:BB:DD.F"
            )),
        }
    }
}

impl fmt::Display for DeviceSpec {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            DeviceSpec::Sim(Width::W64) => write!(f, "sim"),
            DeviceSpec::Sim(w) => write!(f, "sim:{}", w.bits()),
            DeviceSpec::Vfio(a) => write!(f, "vfio:{a}"),
        }
    }
}

/// The `--device` help line every tool that takes one shows.
pub const DEVICE_HELP: &str =
    "The NIC: sim (a co-simulated 64-bit NIC of the tool's own), sim:512, or \
    vfio:DDDD:BB:DD.F (a board bound to vfio-pci; nothing on it is reset or changed)";

impl DeviceSpec {
    /// Opens the device to look at it. A simulated NIC is the tool's own: it is opened as a driver opens
    /// it (tables cleared, engines on) and given the tools' default address (`--ip`/`--mac` of the
    /// attaching tools). A board may be in use: it is opened with [`Context::inspect`], which changes
    /// nothing.
    /// A simulated NIC's fabric lives as long as the context's backend.
    pub fn open_to_inspect(&self) -> Result<Context, String> {
        match self {
            DeviceSpec::Sim(width) => open_sim(*width),
            DeviceSpec::Vfio(addr) => open_vfio(addr),
        }
    }
}

#[cfg(feature = "sim")]
fn open_sim(width: Width) -> Result<Context, String> {
    use crate::attach::{DEFAULT_IP, DEFAULT_MAC};
    use rocenic_driver::backend::sim::SimBackend;
    use rocenic_sim::{Fabric, FabricConfig};
    use std::sync::{Arc, Mutex};
    let cfg = FabricConfig {
        width,
        ..FabricConfig::default()
    };
    let fabric = Arc::new(Mutex::new(Fabric::new(cfg).map_err(|e| e.to_string())?));
    let ctx =
        Context::open(Arc::new(SimBackend::new(fabric.clone(), 0))).map_err(|e| e.to_string())?;
    ctx.set_port(DEFAULT_MAC, DEFAULT_IP);
    Ok(ctx)
}

#[cfg(not(feature = "sim"))]
fn open_sim(_width: Width) -> Result<Context, String> {
    Err("--device sim: this rocenic was built without the simulator (feature sim)".into())
}

#[cfg(feature = "vfio")]
fn open_vfio(addr: &str) -> Result<Context, String> {
    use rocenic_driver::backend::vfio::VfioBackend;
    let backend = VfioBackend::open(addr, INSPECT_DMA_BYTES).map_err(|e| e.to_string())?;
    Context::inspect(std::sync::Arc::new(backend)).map_err(|e| e.to_string())
}

#[cfg(not(feature = "vfio"))]
fn open_vfio(_addr: &str) -> Result<Context, String> {
    Err("--device vfio: this rocenic was built without the VFIO backend (feature vfio)".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_specs_parse_and_print_back() {
        for (s, d) in [
            ("sim", DeviceSpec::Sim(Width::W64)),
            ("sim:512", DeviceSpec::Sim(Width::W512)),
            ("vfio:0000:3b:00.0", DeviceSpec::Vfio("0000:3b:00.0".into())),
        ] {
            assert_eq!(s.parse::<DeviceSpec>(), Ok(d.clone()));
            assert_eq!(d.to_string(), s);
        }
        assert_eq!(
            "sim:64".parse::<DeviceSpec>(),
            Ok(DeviceSpec::Sim(Width::W64))
        );
        for bad in ["", "sim:128", "vfio:", "mlx5_0", "vfio"] {
            let e = bad.parse::<DeviceSpec>().unwrap_err();
            assert!(
                e.contains("want sim, sim:64, sim:512 or vfio:"),
                "{bad}: {e}"
            );
        }
    }
}
