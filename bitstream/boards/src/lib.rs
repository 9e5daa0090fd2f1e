//! The Alveo boards the NIC is built for, as plain data: the package pins, I/O standards and clocks of the
//! ports `bitstream/alveo/rocenic_alveo.v` has, and [`xdc`], which turns one board into the XDC constraints
//! checked in as `bitstream/alveo/boards/<board>/board.xdc` (written by the `xdc` binary; a unit test fails
//! when a checked-in file differs, so edit the data here, not the XDC).
//!
//! Only the pins the wrapper uses are here. The PCIe and QSFP serial lanes need no package pins: the QDMA
//! and CMAC IP place their transceivers from `config.tcl` (PCIe block / GT quad, CMAC core / GT sites).
//! Sources for the pin facts: the boards' user guides (UG1289 U250, UG1314 U280, UG1469 U55C) as used by
//! the public open-nic-shell and Corundum board folders.

/// One package pin of a top-level port.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pin {
    /// Port name in `rocenic_alveo` (the `_p`/`_n` halves of a differential pair are two pins).
    pub port: &'static str,
    /// Package pin.
    pub loc: &'static str,
    /// I/O standard; `None` for transceiver reference-clock pins, which have none.
    pub iostandard: Option<&'static str>,
    /// Further pin properties, e.g. `("PULLUP", "TRUE")`.
    pub extra: &'static [(&'static str, &'static str)],
    /// What the pin is on the board, written as a comment.
    pub what: &'static str,
}

/// A clock entering on a pin; becomes `create_clock` on its port.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Clock {
    pub name: &'static str,
    pub port: &'static str,
    pub mhz: f64,
}

/// One board: part, pins and input clocks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Board {
    /// Folder name under `bitstream/alveo/boards/`.
    pub name: &'static str,
    pub title: &'static str,
    pub part: &'static str,
    pub pins: &'static [Pin],
    pub clocks: &'static [Clock],
}

const fn gt_clk(port: &'static str, loc: &'static str, what: &'static str) -> Pin {
    Pin {
        port,
        loc,
        iostandard: None,
        extra: &[],
        what,
    }
}

const fn io(
    port: &'static str,
    loc: &'static str,
    iostandard: &'static str,
    what: &'static str,
) -> Pin {
    Pin {
        port,
        loc,
        iostandard: Some(iostandard),
        extra: &[],
        what,
    }
}

const PULLUP: &[(&str, &str)] = &[("PULLUP", "TRUE")];
const PULLDOWN: &[(&str, &str)] = &[("PULLDOWN", "TRUE")];

/// 100 MHz PCIe reference clock from the edge connector.
const PCIE_REFCLK_MHZ: f64 = 100.0;

pub const AU250: Board = Board {
    name: "au250",
    title: "Alveo U250",
    part: "xcu250-figd2104-2L-e",
    pins: &[
        io("sysclk_p", "AY37", "LVDS", "300 MHz system clock 0"),
        io("sysclk_n", "AY38", "LVDS", "300 MHz system clock 0"),
        gt_clk(
            "pcie_refclk_p",
            "AM11",
            "PCIe reference clock, MGTREFCLK0 of the x16 quads",
        ),
        gt_clk("pcie_refclk_n", "AM10", "PCIe reference clock"),
        Pin {
            extra: PULLUP,
            ..io("pcie_rstn", "BD21", "LVCMOS12", "PCIe PERST#")
        },
        gt_clk(
            "qsfp0_refclk_p",
            "M11",
            "QSFP0 156.25 MHz GT reference clock",
        ),
        gt_clk(
            "qsfp0_refclk_n",
            "M10",
            "QSFP0 156.25 MHz GT reference clock",
        ),
    ],
    clocks: &[
        Clock {
            name: "sysclk",
            port: "sysclk_p",
            mhz: 300.0,
        },
        Clock {
            name: "pcie_refclk",
            port: "pcie_refclk_p",
            mhz: PCIE_REFCLK_MHZ,
        },
        Clock {
            name: "qsfp0_refclk",
            port: "qsfp0_refclk_p",
            mhz: 156.25,
        },
    ],
};

pub const AU280: Board = Board {
    name: "au280",
    title: "Alveo U280",
    part: "xcu280-fsvh2892-2L-e",
    pins: &[
        io("sysclk_p", "BJ43", "LVDS", "100 MHz system clock 0"),
        io("sysclk_n", "BJ44", "LVDS", "100 MHz system clock 0"),
        gt_clk(
            "pcie_refclk_p",
            "AR15",
            "PCIe reference clock, MGTREFCLK0 of quad 225",
        ),
        gt_clk("pcie_refclk_n", "AR14", "PCIe reference clock"),
        Pin {
            extra: PULLUP,
            ..io("pcie_rstn", "BH26", "LVCMOS18", "PCIe PERST#")
        },
        gt_clk(
            "qsfp0_refclk_p",
            "T42",
            "QSFP0 156.25 MHz GT reference clock",
        ),
        gt_clk(
            "qsfp0_refclk_n",
            "T43",
            "QSFP0 156.25 MHz GT reference clock",
        ),
        Pin {
            extra: PULLDOWN,
            ..io(
                "hbm_cattrip",
                "D32",
                "LVCMOS18",
                "HBM catastrophic-temperature flag, held low",
            )
        },
    ],
    clocks: &[
        Clock {
            name: "sysclk",
            port: "sysclk_p",
            mhz: 100.0,
        },
        Clock {
            name: "pcie_refclk",
            port: "pcie_refclk_p",
            mhz: PCIE_REFCLK_MHZ,
        },
        Clock {
            name: "qsfp0_refclk",
            port: "qsfp0_refclk_p",
            mhz: 156.25,
        },
    ],
};

pub const AU55C: Board = Board {
    name: "au55c",
    title: "Alveo U55C",
    part: "xcu55c-fsvh2892-2L-e",
    pins: &[
        io("sysclk_p", "BK43", "LVDS", "100 MHz system clock 3"),
        io("sysclk_n", "BK44", "LVDS", "100 MHz system clock 3"),
        gt_clk(
            "pcie_refclk_p",
            "AR15",
            "PCIe reference clock, MGTREFCLK0 of quad 225",
        ),
        gt_clk("pcie_refclk_n", "AR14", "PCIe reference clock"),
        Pin {
            extra: PULLUP,
            ..io("pcie_rstn", "BF41", "LVCMOS18", "PCIe PERST#")
        },
        gt_clk(
            "qsfp0_refclk_p",
            "AD42",
            "QSFP0 161.1328125 MHz GT reference clock (bank 130)",
        ),
        gt_clk(
            "qsfp0_refclk_n",
            "AD43",
            "QSFP0 161.1328125 MHz GT reference clock (bank 130)",
        ),
        Pin {
            extra: PULLDOWN,
            ..io(
                "hbm_cattrip",
                "BE45",
                "LVCMOS18",
                "HBM catastrophic-temperature flag, held low",
            )
        },
    ],
    clocks: &[
        Clock {
            name: "sysclk",
            port: "sysclk_p",
            mhz: 100.0,
        },
        Clock {
            name: "pcie_refclk",
            port: "pcie_refclk_p",
            mhz: PCIE_REFCLK_MHZ,
        },
        Clock {
            name: "qsfp0_refclk",
            port: "qsfp0_refclk_p",
            mhz: 161.1328125,
        },
    ],
};

pub const BOARDS: &[Board] = &[AU250, AU280, AU55C];

pub fn board(name: &str) -> Option<&'static Board> {
    BOARDS.iter().find(|b| b.name == name)
}

/// The board's XDC: one `set_property -dict` per pin, one `create_clock` per input clock, a false path on
/// the asynchronous PERST# input, and bitstream compression.
pub fn xdc(b: &Board) -> String {
    let mut s = format!(
        "# {} ({}): pins and input clocks of rocenic_alveo.\n\
         # GENERATED by `cargo run -p rocenic-boards --bin xdc` from bitstream/boards/src/lib.rs; do not edit.\n\
         # `cargo test -p rocenic-boards` fails while this file differs from the generator's output.\n\n",
        b.title, b.part
    );
    for p in b.pins {
        let mut props = format!("PACKAGE_PIN {}", p.loc);
        if let Some(std) = p.iostandard {
            props += &format!(" IOSTANDARD {std}");
        }
        for (k, v) in p.extra {
            props += &format!(" {k} {v}");
        }
        s += &format!(
            "set_property -dict {{{props}}} [get_ports {}] ;# {}\n",
            p.port, p.what
        );
    }
    s += "\n";
    for c in b.clocks {
        s += &format!(
            "create_clock -period {:.3} -name {} [get_ports {}] ;# {} MHz\n",
            1000.0 / c.mhz,
            c.name,
            c.port,
            c.mhz
        );
    }
    s += "\nset_false_path -from [get_ports pcie_rstn]\n";
    s += "set_property BITSTREAM.GENERAL.COMPRESS TRUE [current_design]\n";
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::path::PathBuf;

    fn checked_in(b: &Board) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../alveo/boards")
            .join(b.name)
            .join("board.xdc")
    }

    #[test]
    fn checked_in_xdc_matches_generator() {
        for b in BOARDS {
            let path = checked_in(b);
            let on_disk = std::fs::read_to_string(&path).unwrap_or_else(|e| {
                panic!(
                    "{}: {e} (run `cargo run -p rocenic-boards --bin xdc`)",
                    path.display()
                )
            });
            let want = xdc(b);
            if on_disk != want {
                let (n, (have, gen)) = on_disk
                    .lines()
                    .chain(std::iter::repeat("<end of file>"))
                    .zip(want.lines().chain(std::iter::repeat("<end of file>")))
                    .enumerate()
                    .find(|(_, (a, b))| a != b)
                    .expect("files differ, so some line does");
                panic!(
                    "{} differs from the generator at line {}:\n  file:      {have}\n  generator: {gen}\n\
                     Edit bitstream/boards/src/lib.rs and run `cargo run -p rocenic-boards --bin xdc`; \
                     do not edit the XDC.",
                    path.display(),
                    n + 1
                );
            }
        }
    }

    #[test]
    fn pins_and_ports_are_unique_and_pairs_complete() {
        for b in BOARDS {
            let locs: HashSet<_> = b.pins.iter().map(|p| p.loc).collect();
            let ports: HashSet<_> = b.pins.iter().map(|p| p.port).collect();
            assert_eq!(
                locs.len(),
                b.pins.len(),
                "{}: a package pin is used twice",
                b.name
            );
            assert_eq!(
                ports.len(),
                b.pins.len(),
                "{}: a port is constrained twice",
                b.name
            );
            for p in ports.iter().filter_map(|p| p.strip_suffix("_p")) {
                assert!(
                    ports.contains(format!("{p}_n").as_str()),
                    "{}: {p}_p without {p}_n",
                    b.name
                );
            }
            for c in b.clocks {
                assert!(
                    ports.contains(c.port),
                    "{}: clock {} on unconstrained port",
                    b.name,
                    c.name
                );
            }
            for port in ["sysclk_p", "pcie_refclk_p", "pcie_rstn", "qsfp0_refclk_p"] {
                assert!(ports.contains(port), "{}: {port} missing", b.name);
            }
        }
    }

    #[test]
    fn periods_are_printed_in_ns() {
        assert!(xdc(&AU55C)
            .contains("create_clock -period 6.206 -name qsfp0_refclk [get_ports qsfp0_refclk_p]"));
        assert!(
            xdc(&AU250).contains("create_clock -period 3.333 -name sysclk [get_ports sysclk_p]")
        );
    }
}
