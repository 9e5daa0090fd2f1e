//! HostMemory: IOVA bounds, round trips at any alignment, strobed writes, and the raw pointer.
use rocenic_sim::memory::DEFAULT_BASE_IOVA;
use rocenic_sim::{HostMemory, OutOfRange, SimError};

#[test]
fn bounds_are_errors() {
    let m = HostMemory::new(4096).unwrap();
    let base = m.base_iova();
    assert_eq!(base, DEFAULT_BASE_IOVA);
    assert_eq!(m.size(), 4096);
    let mut b = [0u8; 8];
    // Below the base, IOVA 0, past the end, straddling the end, and a length that would wrap.
    for (iova, len) in [
        (base - 1, 1),
        (0, 1),
        (base + 4096, 1),
        (base + 4090, 8),
        (u64::MAX - 2, 4),
    ] {
        let err = m.read(iova, &mut b[..len]).unwrap_err();
        assert_eq!(
            err,
            OutOfRange {
                iova,
                len,
                base,
                size: 4096
            }
        );
        assert!(m.write(iova, &b[..len]).is_err());
        assert!(!m.contains(iova, len));
    }
    // The last byte and an empty access at the very end are inside.
    m.write(base + 4095, &[7]).unwrap();
    m.read(base + 4096, &mut []).unwrap();
    assert!(err_text(&m).contains("outside"));
}

fn err_text(m: &HostMemory) -> String {
    m.read(0, &mut [0]).unwrap_err().to_string()
}

#[test]
fn bad_configuration_is_an_error() {
    assert!(matches!(
        HostMemory::with_base(0, 4096),
        Err(SimError::Config(_))
    ));
    assert!(matches!(
        HostMemory::with_base(0x1000, 0),
        Err(SimError::Config(_))
    ));
    assert!(matches!(
        HostMemory::with_base(0x1234, 4096),
        Err(SimError::Config(_))
    ));
}

#[test]
fn round_trip_at_every_alignment() {
    let m = HostMemory::with_base(0x2000_0000, 1 << 16).unwrap();
    let data: Vec<u8> = (0..100u8)
        .map(|i| i.wrapping_mul(37).wrapping_add(1))
        .collect();
    for start in 0..16u64 {
        for len in [0usize, 1, 7, 8, 9, 31, 64, 100] {
            let iova = 0x2000_0000 + 0x100 * start + start;
            m.write(iova, &data[..len]).unwrap();
            let mut back = vec![0xEEu8; len];
            m.read(iova, &mut back).unwrap();
            assert_eq!(back, &data[..len], "start {start} len {len}");
        }
    }
    // Fresh memory is zero.
    let mut z = [1u8; 16];
    m.read(0x2000_0000 + 0x8000, &mut z).unwrap();
    assert_eq!(z, [0; 16]);
}

#[test]
fn strobed_write_touches_only_strobed_bytes() {
    let m = HostMemory::new(4096).unwrap();
    let base = m.base_iova();
    m.write(base, &[0xAA; 64]).unwrap();
    let data: Vec<u8> = (0..64).collect();
    m.write_strobed(base, &data, 0x8000_0000_0000_0101).unwrap();
    let mut back = [0u8; 64];
    m.read(base, &mut back).unwrap();
    for (i, b) in back.iter().enumerate() {
        let want = if [0, 8, 63].contains(&i) {
            i as u8
        } else {
            0xAA
        };
        assert_eq!(*b, want, "byte {i}");
    }
    assert!(m.write_strobed(base + 4096 - 8, &data, 1).is_err());
}

#[test]
fn raw_pointer_sees_the_same_bytes() {
    let m = HostMemory::new(8192).unwrap();
    m.write(m.base_iova() + 100, b"rocenic").unwrap();
    // SAFETY: in bounds, and nothing else accesses the memory during this test.
    let s = unsafe { std::slice::from_raw_parts(m.ptr().add(100), 7) };
    assert_eq!(s, b"rocenic");
}

#[test]
fn host_memory_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<HostMemory>();
}
