//! `rocenic devinfo`: the device and its port as `ibv_devinfo` prints them (its fields, names and layout),
//! with `-v` for the limits, the port's speed and the GID table.
use crate::device::{DeviceSpec, DEVICE_HELP};
use clap::Parser;
use rocenic_driver::verbs::{mtu_enum, node_guid};
use rocenic_driver::Context;

/// The name the tools give the one device a `--device` opens, as ibverbs names devices (`hca_id`).
pub const DEVICE_NAME: &str = "rocenic0";

#[derive(Parser, Debug)]
#[command(
    name = "rocenic devinfo",
    about = "The device's attributes and its port, as ibv_devinfo prints them",
    long_about = "The device's attributes and its port, as ibv_devinfo prints them (same fields, names \
        and layout). Opens the device to look at it only: on a board, QPs and registrations another \
        program left stay as they are."
)]
pub struct Args {
    #[arg(long, default_value = "sim", help = DEVICE_HELP)]
    pub device: DeviceSpec,
    /// Print all the attributes: the device's limits, the port's speed and its GID table
    #[arg(short, long)]
    pub verbose: bool,
    /// Only list the device's name, as `ibv_devinfo -l`
    #[arg(short, long)]
    pub list: bool,
    /// Only this port (the NIC has one: 1)
    #[arg(short = 'i', long = "ib-port", value_parser = clap::value_parser!(u8).range(1..=1))]
    pub ib_port: Option<u8>,
}

pub fn run(a: Args) -> Result<(), String> {
    if a.list {
        println!("1 HCA found:\n\t{DEVICE_NAME}");
        return Ok(());
    }
    let ctx = a.device.open_to_inspect()?;
    print!("{}", report(&ctx, a.verbose));
    Ok(())
}

/// A GUID as ibverbs prints it: four groups of four hex digits.
fn guid(g: u64) -> String {
    let h = format!("{g:016x}");
    format!("{}:{}:{}:{}", &h[0..4], &h[4..8], &h[8..12], &h[12..16])
}

/// The whole report, `ibv_devinfo` (or with `verbose`, `ibv_devinfo -v`) for this device.
pub fn report(ctx: &Context, verbose: bool) -> String {
    let d = ctx.query_device();
    let p = ctx.query_port();
    let mut s = format!("hca_id:\t{DEVICE_NAME}\n");
    let mut line = |indent: usize, k: &str, v: String| {
        // ibverbs aligns values at tab stops: a key and its colon, then tabs to the value column (the
        // port's line is the one key with a single tab).
        let key = format!("{k}:");
        let tabs = match indent {
            1 => 4 - (key.len() / 8).min(3),
            2 => 1,
            _ => 3 - (key.len() / 8).min(2),
        };
        s += &format!("{}{key}{}{v}\n", "\t".repeat(indent), "\t".repeat(tabs));
    };
    line(1, "transport", "InfiniBand (0)".into());
    line(
        1,
        "fw_ver",
        format!("{}.{}", d.fw_ver >> 16, d.fw_ver & 0xFFFF),
    );
    let node = guid(node_guid(p.mac));
    line(1, "node_guid", node.clone());
    line(1, "sys_image_guid", node);
    line(1, "hw_ver", format!("{}-bit datapath", d.width.bits()));
    line(1, "backend", ctx.describe());
    line(1, "phys_port_cnt", "1".into());
    if verbose {
        line(1, "max_mr_size", format!("{:#x}", d.max_mr_size));
        line(
            1,
            "page_size_cap",
            format!("{:#x}", rocenic_driver::verbs::BUFFER_ALIGN),
        );
        line(1, "max_qp", d.max_qp.to_string());
        line(1, "max_qp_wr", d.max_qp_wr.to_string());
        line(1, "max_sge", d.max_send_sge.to_string());
        line(1, "max_sge_rd", d.max_recv_sge.to_string());
        line(1, "max_cqe", d.max_cqe.to_string());
        line(1, "max_mr", d.max_mr.to_string());
        line(1, "max_pd", d.max_pd.to_string());
        line(1, "max_qp_rd_atom", d.max_qp_rd_atom.to_string());
        line(1, "max_qp_init_rd_atom", d.max_qp_init_rd_atom.to_string());
        line(
            1,
            "atomic_cap",
            if d.atomic_cap_hca {
                "ATOMIC_HCA (1)"
            } else {
                "ATOMIC_NONE (0)"
            }
            .into(),
        );
        let blocks: Vec<String> = ctx
            .blocks()
            .iter()
            .map(|b| format!("{:?} v{} ({})", b.kind, b.version, b.param))
            .collect();
        line(1, "register_blocks", blocks.join(", "));
    }
    line(2, "port", "1".into());
    line(
        3,
        "state",
        format!("{} ({})", p.state.name(), p.state as u32),
    );
    line(
        3,
        "max_mtu",
        format!("{} ({})", p.max_mtu, mtu_enum(p.max_mtu)),
    );
    line(
        3,
        "active_mtu",
        format!("{} ({})", p.active_mtu, mtu_enum(p.active_mtu)),
    );
    line(3, "sm_lid", "0".into());
    line(3, "port_lid", "0".into());
    line(3, "port_lmc", "0x00".into());
    line(3, "link_layer", p.link_layer.into());
    if verbose {
        line(3, "max_msg_sz", format!("{:#x}", d.max_msg_sz));
        let width = match p.active_width {
            1 => "1X",
            2 => "4X",
            _ => "?",
        };
        line(3, "active_width", format!("{width} ({})", p.active_width));
        let lane = p.rate_gbps / if p.active_width == 2 { 4.0 } else { 1.0 };
        line(
            3,
            "active_speed",
            format!("{lane:.1} Gbps ({})", p.active_speed),
        );
        line(
            3,
            "phys_state",
            if p.state == rocenic_driver::PortState::Active {
                "LINK_UP (5)"
            } else {
                "DISABLED (3)"
            }
            .into(),
        );
        let mac: Vec<String> = p.mac.iter().map(|b| format!("{b:02x}")).collect();
        line(3, "mac", mac.join(":"));
        line(3, "udp_dport", p.udp_port.to_string());
        if !p.vlans.is_empty() {
            let v: Vec<String> = p.vlans.iter().map(u16::to_string).collect();
            line(3, "vlans", v.join(", "));
        }
        for g in &p.gids {
            line(
                3,
                &format!("GID[{:>3}]", g.index),
                format!("{}, RoCE v2", g.gid),
            );
        }
        // The port's IPv4 address is the GID every IPv4 path uses; it has no table index.
        if !p.ipv4.is_unspecified() {
            line(3, "GID[IPv4]", format!("{}, RoCE v2", p.ipv4_gid()));
        }
    }
    s + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use rocenic_driver::backend::fake::FakeDevice;
    use rocenic_proto::regs;

    #[test]
    fn the_report_has_ibv_devinfo_fields_from_the_device() {
        let dev = FakeDevice::new(64);
        let ctx = Context::open(dev.clone()).unwrap();
        ctx.set_port([0x02, 0x52, 0x4F, 0x43, 0x45, 0x02], [10, 0, 0, 2].into());
        ctx.set_gid(1, "2001:db8::2".parse().unwrap()).unwrap();
        let r = report(&ctx, true);
        for want in [
            "hca_id:\trocenic0\n\ttransport:\t\t\tInfiniBand (0)\n",
            "\tfw_ver:\t\t\t\t1.0\n",
            "\tnode_guid:\t\t\t0052:4fff:fe43:4502\n",
            "\tmax_qp:\t\t\t\t64\n",
            "\t\tport:\t1\n",
            "\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n",
            "\t\t\tactive_mtu:\t\t4096 (5)\n",
            "\t\t\tlink_layer:\t\tEthernet\n",
            "\t\t\tactive_width:\t\t4X (2)\n",
            "\t\t\tactive_speed:\t\t25.0 Gbps (32)\n",
            "\t\t\tGID[  1]:\t\t2001:db8::2, RoCE v2\n",
            "\t\t\tGID[IPv4]:\t\t::ffff:10.0.0.2, RoCE v2\n",
        ] {
            assert!(r.contains(want), "{want:?} not in\n{r}");
        }
        assert!(!r.contains("GID[  0]"), "an empty table entry is left out");
        // Without -v: the short report only.
        let short = report(&ctx, false);
        assert!(!short.contains("max_qp") && short.contains("link_layer"));
        // A device whose engines are off is reported down.
        dev.set(regs::CONTROL, 0);
        assert!(report(&ctx, false).contains("PORT_DOWN (1)"));
    }
}
