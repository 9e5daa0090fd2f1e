//! Reading and writing classic pcap files (Ethernet link type) with the `pcap-file` crate.
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapReader, PcapWriter};
use pcap_file::{DataLink, TsResolution};
use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
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

/// A `Write` handle on a buffered file that can be flushed while `PcapWriter` owns a clone of it
/// (pcap-file 2 gives no mutable access to its writer).
#[derive(Clone)]
struct SharedFile(Arc<Mutex<BufWriter<File>>>);

impl Write for SharedFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.lock().unwrap().flush()
    }
}

/// A pcap writer with nanosecond timestamps (a 156.25 MHz cycle is 6.4 ns: microseconds would merge
/// neighbouring frames) that can be flushed while it is in use.
pub struct Writer {
    writer: PcapWriter<SharedFile>,
    file: SharedFile,
}

impl Writer {
    pub fn create(path: &Path) -> Result<Writer, Error> {
        let file = File::create(path).map_err(pcap_file::PcapError::IoError)?;
        let file = SharedFile(Arc::new(Mutex::new(BufWriter::new(file))));
        let header = PcapHeader {
            datalink: DataLink::ETHERNET,
            ts_resolution: TsResolution::NanoSecond,
            ..Default::default()
        };
        Ok(Writer {
            writer: PcapWriter::with_header(file.clone(), header)?,
            file,
        })
    }
    pub fn write(&mut self, time: Duration, frame: &[u8]) -> Result<(), Error> {
        self.writer
            .write_packet(&PcapPacket::new(time, frame.len() as u32, frame))?;
        Ok(())
    }
    /// Pushes everything written so far to the file.
    pub fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
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
            w.flush().unwrap();
            assert_eq!(
                read(&path).unwrap().len(),
                2,
                "flushed while the writer is open"
            );
        }
        let frames = read(&path).unwrap();
        std::fs::remove_file(&path).ok();
        assert_eq!(frames.len(), 2);
        assert_eq!(frames[0], (Duration::from_nanos(1_234), vec![1, 2, 3]));
        assert_eq!(frames[1].1, vec![4; 60]);
    }
}
