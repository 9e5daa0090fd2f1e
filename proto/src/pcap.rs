//! Reading and writing classic pcap files (Ethernet link type) with the `pcap-file` crate.
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, TsResolution};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub type Error = pcap_file::PcapError;

/// Why a capture could not be read: the file's own problem, named with where it is.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("cannot read: {0}")]
    Io(#[from] std::io::Error),
    #[error("{0} bytes: too short for a pcap file header (24 bytes)")]
    NoHeader(usize),
    #[error("not a classic pcap file (magic {0:#010x}; pcapng is not read: save as pcap)")]
    Magic(u32),
    #[error("link type {0} is not Ethernet (1)")]
    LinkType(u32),
    #[error("record at offset {offset}: {have} bytes left for its 16-byte header")]
    TruncatedHeader { offset: usize, have: usize },
    #[error("record at offset {offset}: captured length {len} but {have} bytes left")]
    TruncatedData {
        offset: usize,
        len: usize,
        have: usize,
    },
    #[error("record at offset {offset}: captured length {len} exceeds 262144 bytes")]
    Oversized { offset: usize, len: usize },
}

/// Every frame of a capture with its timestamp (classic pcap, either byte order, micro- or nanosecond
/// timestamps, Ethernet link type).
pub fn read(path: &Path) -> Result<Vec<(Duration, Vec<u8>)>, ReadError> {
    parse(&std::fs::read(path)?)
}

/// [`read`] on the bytes of a capture. Never panics: any input is a capture or a [`ReadError`].
pub fn parse(b: &[u8]) -> Result<Vec<(Duration, Vec<u8>)>, ReadError> {
    if b.len() < 24 {
        return Err(ReadError::NoHeader(b.len()));
    }
    let magic = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let (big, nanos) = match magic {
        0xA1B2_C3D4 => (false, false),
        0xA1B2_3C4D => (false, true),
        0xD4C3_B2A1 => (true, false),
        0x4D3C_B2A1 => (true, true),
        m => return Err(ReadError::Magic(m)),
    };
    let word = |at: usize| {
        let w = [b[at], b[at + 1], b[at + 2], b[at + 3]];
        if big {
            u32::from_be_bytes(w)
        } else {
            u32::from_le_bytes(w)
        }
    };
    let link = word(20) & 0x0FFF_FFFF;
    if link != 1 {
        return Err(ReadError::LinkType(link));
    }
    let mut out = Vec::new();
    let mut at = 24;
    while at < b.len() {
        let have = b.len() - at;
        if have < 16 {
            return Err(ReadError::TruncatedHeader { offset: at, have });
        }
        let (sec, frac, len) = (word(at), word(at + 4), word(at + 8) as usize);
        if len > 262_144 {
            return Err(ReadError::Oversized { offset: at, len });
        }
        if have - 16 < len {
            return Err(ReadError::TruncatedData {
                offset: at,
                len,
                have: have - 16,
            });
        }
        // A fraction past one second is taken as it is (saturating), not refused: some writers do it.
        let sub = if nanos {
            Duration::from_nanos(frac as u64)
        } else {
            Duration::from_micros(frac as u64)
        };
        out.push((
            Duration::from_secs(sec as u64).saturating_add(sub),
            b[at + 16..at + 16 + len].to_vec(),
        ));
        at += 16 + len;
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
