//! Reading and writing classic pcap files (Ethernet link type) with the `pcap-file` crate.
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapReader, PcapWriter};
use pcap_file::{DataLink, TsResolution};
use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::Path;
use std::time::Duration;

pub type Error = pcap_file::PcapError;

/// Every frame of a capture with its timestamp.
pub fn read(path: &Path) -> Result<Vec<(Duration, Vec<u8>)>, Error> {
    let mut r = PcapReader::new(BufReader::new(
        File::open(path).map_err(pcap_file::PcapError::IoError)?,
    ))?;
    let mut out = Vec::new();
    while let Some(p) = r.next_packet() {
        let p = p?;
        out.push((p.timestamp, p.data.into_owned()));
    }
    Ok(out)
}

/// A pcap writer with nanosecond timestamps.
pub struct Writer(PcapWriter<BufWriter<File>>);

impl Writer {
    pub fn create(path: &Path) -> Result<Writer, Error> {
        let header = PcapHeader {
            datalink: DataLink::ETHERNET,
            ts_resolution: TsResolution::NanoSecond,
            ..Default::default()
        };
        Ok(Writer(PcapWriter::with_header(
            BufWriter::new(File::create(path).map_err(pcap_file::PcapError::IoError)?),
            header,
        )?))
    }
    pub fn write(&mut self, time: Duration, frame: &[u8]) -> Result<(), Error> {
        self.0
            .write_packet(&PcapPacket::new(time, frame.len() as u32, frame))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let path =
            std::env::temp_dir().join(format!("rocenic-proto-pcap-{}.pcap", std::process::id()));
        {
            let mut w = Writer::create(&path).unwrap();
            w.write(Duration::from_nanos(1_234), &[1, 2, 3]).unwrap();
            w.write(Duration::from_nanos(5_678), &[4; 60]).unwrap();
        }
        let frames = read(&path).unwrap();
        std::fs::remove_file(&path).ok();
        assert_eq!(frames.len(), 2);
        assert_eq!(frames[0], (Duration::from_nanos(1_234), vec![1, 2, 3]));
        assert_eq!(frames[1].1, vec![4; 60]);
    }
}
