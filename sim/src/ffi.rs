//! The only place that talks to the C++ shim (`csrc/shim.cpp`). [`Model`] owns one Verilated core and
//! exposes a safe `tick`; the structs mirror the shim's `RnIn` / `RnOut` field for field.
use rocenic_proto::Width;
use std::ffi::{c_char, c_void, CString};
use std::path::Path;

/// Inputs of the core for one cycle. Buses are 16 little-endian 32-bit lanes (lane 0 = bits 31:0) for
/// any width; `rx_tdata` is only read when `rx_tvalid`, `dma_rd_resp_data` only when `dma_rd_resp_valid`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct NicIn {
    pub rx_tdata: [u32; 16],
    pub dma_rd_resp_data: [u32; 16],
    pub rx_tkeep: u64,
    pub reg_wr_data: u32,
    /// Fast-forward: this cycle's clock edge stands for `1 + warp` cycles (see [`NicOut::quiet`]).
    pub warp: u32,
    pub reg_wr_addr: u16,
    pub reg_rd_addr: u16,
    pub reset: u8,
    pub rx_tlast: u8,
    pub rx_tvalid: u8,
    pub tx_tready: u8,
    pub reg_wr_valid: u8,
    pub reg_rd_valid: u8,
    pub dma_rd_req_ready: u8,
    pub dma_rd_resp_valid: u8,
    pub dma_rd_resp_tag: u8,
    pub dma_rd_resp_last: u8,
    pub dma_wr_ready: u8,
    /// With `rx_tlast`: the frame is marked bad (a bad FCS, as a MAC flags it).
    pub rx_tuser: u8,
    /// Compute [`NicOut::quiet`] this cycle (it costs a comparison per register; off, it reads 0).
    pub probe: u8,
}

/// Outputs of the core, sampled with the clock low after the inputs settled (so they decide which
/// handshakes complete at the coming edge). Bus fields are only refreshed while their valid is high.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NicOut {
    pub tx_tdata: [u32; 16],
    pub dma_wr_data: [u32; 16],
    pub tx_tkeep: u64,
    pub dma_rd_req_addr: u64,
    pub dma_wr_addr: u64,
    pub dma_wr_strb: u64,
    pub reg_rd_data: u32,
    /// Cycles the core's timers can run before one expires, as of the last cycle (all ones: none
    /// armed).
    pub wake: u32,
    pub dma_rd_req_beats: u16,
    pub rx_tready: u8,
    pub tx_tlast: u8,
    pub tx_tvalid: u8,
    pub reg_wr_ready: u8,
    pub reg_rd_ready: u8,
    pub reg_rd_data_valid: u8,
    pub dma_rd_req_valid: u8,
    pub dma_rd_req_tag: u8,
    pub dma_rd_resp_ready: u8,
    pub dma_wr_valid: u8,
    pub irq: u8,
    /// The coming clock edge changes no state of the core but its timers (the change probe; with
    /// [`NicIn::probe`] only).
    pub quiet: u8,
}

extern "C" {
    fn rn_sizeof_in() -> usize;
    fn rn_sizeof_out() -> usize;
    fn rn64_new(vcd_path: *const c_char) -> *mut c_void;
    fn rn64_free(m: *mut c_void);
    fn rn64_tick(m: *mut c_void, inp: *const NicIn, out: *mut NicOut);
    fn rn64_trace_flush(m: *mut c_void);
    fn rn64_set_exact(m: *mut c_void, exact: i32);
    fn rn64_has_idle_shortcut() -> i32;
    fn rn512_new(vcd_path: *const c_char) -> *mut c_void;
    fn rn512_free(m: *mut c_void);
    fn rn512_tick(m: *mut c_void, inp: *const NicIn, out: *mut NicOut);
    fn rn512_trace_flush(m: *mut c_void);
    fn rn512_set_exact(m: *mut c_void, exact: i32);
    fn rn512_has_idle_shortcut() -> i32;
}

/// The per-width entry points, chosen once so `tick` is a plain indirect call.
struct Api {
    free: unsafe extern "C" fn(*mut c_void),
    tick: unsafe extern "C" fn(*mut c_void, *const NicIn, *mut NicOut),
    trace_flush: unsafe extern "C" fn(*mut c_void),
    set_exact: unsafe extern "C" fn(*mut c_void, i32),
    has_idle_shortcut: unsafe extern "C" fn() -> i32,
}

/// One Verilated NIC core. Not `Sync`: the C++ model is driven from one thread at a time.
pub struct Model {
    handle: *mut c_void,
    api: Api,
}

// SAFETY: the C++ model has no thread affinity (each `Model` owns its own VerilatedContext and no thread
// pool threads are started for a single-threaded model); moving it to another thread is sound as long as
// only one thread uses it at a time, which `&mut self` on every call guarantees.
unsafe impl Send for Model {}

impl Model {
    /// Build a core of `width`; with `vcd`, every half cycle is dumped to that file. `None` if the VCD file
    /// cannot be opened.
    pub fn new(width: Width, vcd: Option<&Path>) -> Option<Model> {
        // SAFETY: pure functions of the shim returning constants.
        let (sin, sout) = unsafe { (rn_sizeof_in(), rn_sizeof_out()) };
        assert_eq!(sin, std::mem::size_of::<NicIn>(), "RnIn layout mismatch");
        assert_eq!(sout, std::mem::size_of::<NicOut>(), "RnOut layout mismatch");
        let path =
            vcd.map(|p| CString::new(p.to_string_lossy().as_bytes()).expect("NUL in VCD path"));
        let cpath = path.as_ref().map_or(std::ptr::null(), |c| c.as_ptr());
        let (new, api): (unsafe extern "C" fn(*const c_char) -> *mut c_void, Api) = match width {
            Width::W64 => (
                rn64_new,
                Api {
                    free: rn64_free,
                    tick: rn64_tick,
                    trace_flush: rn64_trace_flush,
                    set_exact: rn64_set_exact,
                    has_idle_shortcut: rn64_has_idle_shortcut,
                },
            ),
            Width::W512 => (
                rn512_new,
                Api {
                    free: rn512_free,
                    tick: rn512_tick,
                    trace_flush: rn512_trace_flush,
                    set_exact: rn512_set_exact,
                    has_idle_shortcut: rn512_has_idle_shortcut,
                },
            ),
        };
        // SAFETY: `cpath` is null or a NUL-terminated string that outlives the call (`path` is alive);
        // the shim copies what it needs.
        let handle = unsafe { new(cpath) };
        (!handle.is_null()).then_some(Model { handle, api })
    }

    /// One clock cycle: apply `inp` with the clock low, settle, sample into `out`, raise the clock.
    #[inline]
    pub fn tick(&mut self, inp: &NicIn, out: &mut NicOut) {
        // SAFETY: `handle` is a live model of the kind `api` was chosen for (set together in `new`, freed
        // only in Drop); `inp`/`out` are valid, properly laid out (checked in `new`) and not aliased.
        unsafe { (self.api.tick)(self.handle, inp, out) }
    }

    /// Flush the VCD file, if any.
    pub fn trace_flush(&mut self) {
        // SAFETY: as in `tick`; a no-op when the model has no VCD.
        unsafe { (self.api.trace_flush)(self.handle) }
    }
}

impl Model {
    /// Evaluate every clock-low half cycle, even when the inputs did not change (the shim otherwise skips
    /// that evaluation; see `rn_tick` in csrc/shim.cpp). For checking the shortcut.
    pub fn set_exact(&mut self, exact: bool) {
        // SAFETY: as in `tick`.
        unsafe { (self.api.set_exact)(self.handle, exact as i32) }
    }

    /// Whether this Verilator build supports the idle-cycle shortcut.
    pub fn has_idle_shortcut(&self) -> bool {
        // SAFETY: a pure function of the shim returning a constant.
        unsafe { (self.api.has_idle_shortcut)() != 0 }
    }
}

impl Drop for Model {
    fn drop(&mut self) {
        // SAFETY: `handle` came from the matching `*_new`, is non-null, and is never used after this.
        unsafe { (self.api.free)(self.handle) }
    }
}
