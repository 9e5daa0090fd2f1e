// C ABI over the two Verilated NIC cores (prefixes Vnic64 and Vnic512). Rust (sim/src/ffi.rs) mirrors the
// two structs below; rn_sizeof_in/out let it check that the layouts agree.
//
// Buses are passed as little-endian arrays of 32-bit lanes (lane 0 = bits 31:0), 16 lanes for any width.
// Wide buses are copied only when their valid is high: a clock cycle is two evals plus a few hundred bytes of
// copying at most, so the copies would otherwise be a visible share of the cost.
#include <cstdint>
#include <cstddef>
#include <cstring>
#include <memory>
#include <type_traits>
#include <utility>
#include "verilated.h"
#include "verilated_vcd_c.h"
#include <cstdlib>
#include "Vnic64.h"
#include "Vnic64___024root.h"
#include "Vnic512.h"
#include "Vnic512___024root.h"

// Set around the clock-high eval: the input-combinational pass Verilator runs on every eval is skipped
// there (sim/build.rs, gate_input_comb, patches the trigger to read this).
thread_local bool rn_ico_skip = false;

extern "C" {

typedef struct {
    uint32_t rx_tdata[16];
    uint32_t dma_rd_resp_data[16];
    uint64_t rx_tkeep;
    uint32_t reg_wr_data;
    uint32_t warp;
    uint16_t reg_wr_addr;
    uint16_t reg_rd_addr;
    uint8_t reset;
    uint8_t rx_tlast;
    uint8_t rx_tvalid;
    uint8_t tx_tready;
    uint8_t reg_wr_valid;
    uint8_t reg_rd_valid;
    uint8_t dma_rd_req_ready;
    uint8_t dma_rd_resp_valid;
    uint8_t dma_rd_resp_tag;
    uint8_t dma_rd_resp_last;
    uint8_t dma_wr_ready;
    uint8_t rx_tuser;
    uint8_t probe;
} RnIn;

typedef struct {
    uint32_t tx_tdata[16];
    uint32_t dma_wr_data[16];
    uint64_t tx_tkeep;
    uint64_t dma_rd_req_addr;
    uint64_t dma_wr_addr;
    uint64_t dma_wr_strb;
    uint32_t reg_rd_data;
    uint32_t wake;
    uint16_t dma_rd_req_beats;
    uint8_t rx_tready;
    uint8_t tx_tlast;
    uint8_t tx_tvalid;
    uint8_t reg_wr_ready;
    uint8_t reg_rd_ready;
    uint8_t reg_rd_data_valid;
    uint8_t dma_rd_req_valid;
    uint8_t dma_rd_req_tag;
    uint8_t dma_rd_resp_ready;
    uint8_t dma_wr_valid;
    uint8_t irq;
    uint8_t quiet;
} RnOut;

size_t rn_sizeof_in(void) { return sizeof(RnIn); }
size_t rn_sizeof_out(void) { return sizeof(RnOut); }

}  // extern "C"

// Bus copies for the two representations Verilator uses: QData up to 64 bits, VlWide above.
static inline void put_bus(QData& d, const uint32_t* s) { d = (QData)s[0] | ((QData)s[1] << 32); }
template <std::size_t N>
static inline void put_bus(VlWide<N>& d, const uint32_t* s) {
    for (std::size_t i = 0; i < N; i++) d[i] = s[i];
}
static inline void get_bus(const QData& d, uint32_t* s) {
    s[0] = (uint32_t)d;
    s[1] = (uint32_t)(d >> 32);
}
template <std::size_t N>
static inline void get_bus(const VlWide<N>& d, uint32_t* s) {
    for (std::size_t i = 0; i < N; i++) s[i] = d[i];
}

// The idle-cycle shortcut (see rn_tick) needs Verilator's record of the clock's previous value, an internal
// of the generated root class (`__Vtrigrprev__TOP__clock` in Verilator 5.006). Where a Verilator version
// names it differently the shortcut is simply not compiled in.
template <class R, class = void>
struct HasTrigPrev : std::false_type {};
template <class R>
struct HasTrigPrev<R, std::void_t<decltype(std::declval<R&>().__Vtrigrprev__TOP__clock)>>
    : std::true_type {};

// One model, its own context (so two cores keep separate time and trace state), and an optional VCD.
template <class M>
struct RnModel {
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<M> m;
    std::unique_ptr<VerilatedVcdC> vcd;
    uint64_t half_cycles = 0;
    RnIn last_in;         // inputs of the last evaluation
    bool have_last = false;
    bool exact = false;   // every half cycle evaluated in full (for tests of the shortcuts)
    // Half cycles of the first and the last dump: ROCENIC_VCD_FROM / ROCENIC_VCD_TO (cycles) give a window
    // of a long run.
    uint64_t vcd_from = 0, vcd_to = UINT64_MAX;
};

template <class M>
static RnModel<M>* rn_new(const char* vcd_path) {
    auto* r = new RnModel<M>();
    r->ctx.reset(new VerilatedContext);
    if (vcd_path) r->ctx->traceEverOn(true);
    r->m.reset(new M{r->ctx.get(), "nic"});
    if (vcd_path) {
        r->vcd.reset(new VerilatedVcdC);
        r->m->trace(r->vcd.get(), 99);
        if (const char* v = std::getenv("ROCENIC_VCD_FROM")) r->vcd_from = 2 * std::strtoull(v, nullptr, 10);
        if (const char* v = std::getenv("ROCENIC_VCD_TO")) r->vcd_to = 2 * std::strtoull(v, nullptr, 10);
        r->vcd->open(vcd_path);
        if (!r->vcd->isOpen()) {
            r->m->final();
            delete r;
            return nullptr;
        }
    }
    r->m->clock = 0;
    r->m->eval();
    return r;
}

template <class M>
static void rn_free(RnModel<M>* r) {
    if (!r) return;
    r->m->final();
    if (r->vcd) r->vcd->close();
    delete r;
}

template <class M>
static void rn_set_inputs(M* m, const RnIn* in) {
    m->reset = in->reset;
    m->rx_tvalid = in->rx_tvalid;
    if (in->rx_tvalid) {
        put_bus(m->rx_tdata, in->rx_tdata);
        m->rx_tkeep = in->rx_tkeep;
        m->rx_tlast = in->rx_tlast;
        m->rx_tuser = in->rx_tuser;
    }
    m->tx_tready = in->tx_tready;
    m->reg_wr_valid = in->reg_wr_valid;
    m->reg_wr_addr = in->reg_wr_addr;
    m->reg_wr_data = in->reg_wr_data;
    m->reg_rd_valid = in->reg_rd_valid;
    m->reg_rd_addr = in->reg_rd_addr;
    m->dma_rd_req_ready = in->dma_rd_req_ready;
    m->dma_rd_resp_valid = in->dma_rd_resp_valid;
    if (in->dma_rd_resp_valid) {
        put_bus(m->dma_rd_resp_data, in->dma_rd_resp_data);
        m->dma_rd_resp_tag = in->dma_rd_resp_tag;
        m->dma_rd_resp_last = in->dma_rd_resp_last;
    }
    m->dma_wr_ready = in->dma_wr_ready;
    m->warp = in->warp;
    m->rn_probe = in->probe;
}

template <class M>
static void rn_get_outputs(const M* m, RnOut* out) {
    out->rx_tready = m->rx_tready;
    out->tx_tvalid = m->tx_tvalid;
    if (m->tx_tvalid) {
        get_bus(m->tx_tdata, out->tx_tdata);
        out->tx_tkeep = m->tx_tkeep;
        out->tx_tlast = m->tx_tlast;
    }
    out->reg_wr_ready = m->reg_wr_ready;
    out->reg_rd_ready = m->reg_rd_ready;
    out->reg_rd_data_valid = m->reg_rd_data_valid;
    out->reg_rd_data = m->reg_rd_data;
    out->dma_rd_req_valid = m->dma_rd_req_valid;
    if (m->dma_rd_req_valid) {
        out->dma_rd_req_addr = m->dma_rd_req_addr;
        out->dma_rd_req_beats = m->dma_rd_req_beats;
        out->dma_rd_req_tag = m->dma_rd_req_tag;
    }
    out->dma_rd_resp_ready = m->dma_rd_resp_ready;
    out->dma_wr_valid = m->dma_wr_valid;
    if (m->dma_wr_valid) {
        get_bus(m->dma_wr_data, out->dma_wr_data);
        out->dma_wr_addr = m->dma_wr_addr;
        out->dma_wr_strb = m->dma_wr_strb;
    }
    out->irq = m->irq;
    out->wake = m->wake;
    // The change probe sim/build.rs adds (rocenic_split::change_probe): no state but the timers changes
    // at the coming edge. Meaningful only with `probe` set.
    out->quiet = !m->rn_changed;
}

// One clock cycle: drive the inputs with the clock low and settle, sample the outputs there (they decide
// which handshakes complete at this edge), then raise the clock.
//
// Shortcut: if the inputs equal those of the previous cycle, the model is already settled on them (the
// design is posedge-only, so the falling edge changes nothing) and the outputs from the last eval are the
// ones the clock-low eval would give. Then only Verilator's edge detector needs to see the clock low, which
// we tell it directly. Verilator 5.006 re-runs all input-driven combinational logic on every eval, so this
// makes idle cycles ~1.5x faster. Not taken while tracing, so the VCD shows every half cycle.
template <class M>
static void rn_tick(RnModel<M>* r, const RnIn* in, RnOut* out) {
    M* m = r->m.get();
    using Root = std::remove_pointer_t<decltype(m->rootp)>;
    bool skip_low = false;
    if constexpr (HasTrigPrev<Root>::value) {
        skip_low = r->have_last && !r->exact && !r->vcd && std::memcmp(in, &r->last_in, sizeof(RnIn)) == 0;
        if (skip_low) {
            m->clock = 0;
            m->rootp->__Vtrigrprev__TOP__clock = 0;
        }
    }
    if (!skip_low) {
        rn_set_inputs(m, in);
        m->clock = 0;
        m->eval();
        std::memcpy(&r->last_in, in, sizeof(RnIn));
        r->have_last = true;
    }
    rn_get_outputs(m, out);
    bool dump = r->vcd && r->half_cycles >= r->vcd_from && r->half_cycles <= r->vcd_to;
    if (dump) r->vcd->dump(r->half_cycles);
    m->clock = 1;
    // Only the clock changed since the model last settled: its input logic need not run again. Exact mode
    // evaluates everything, so the fabric test that compares the two checks this as well.
    rn_ico_skip = !r->exact;
    m->eval();
    rn_ico_skip = false;
    if (dump) r->vcd->dump(r->half_cycles + 1);
    // A fast-forward edge stands for 1 + warp cycles: the dump's time keeps to the core's.
    r->half_cycles += 2 + 2 * (uint64_t)in->warp;
}

#define RN_MODEL_API(P, M)                                                                        \
    extern "C" void* P##_new(const char* vcd_path) { return rn_new<M>(vcd_path); }                \
    extern "C" void P##_free(void* r) { rn_free(static_cast<RnModel<M>*>(r)); }                   \
    extern "C" void P##_tick(void* r, const RnIn* in, RnOut* out) {                               \
        rn_tick(static_cast<RnModel<M>*>(r), in, out);                                            \
    }                                                                                             \
    extern "C" void P##_trace_flush(void* r) {                                                    \
        auto* m = static_cast<RnModel<M>*>(r);                                                    \
        if (m->vcd) m->vcd->flush();                                                              \
    }                                                                                             \
    extern "C" void P##_set_exact(void* r, int exact) {                                           \
        static_cast<RnModel<M>*>(r)->exact = exact != 0;                                          \
    }                                                                                             \
    extern "C" int P##_has_idle_shortcut(void) {                                                  \
        return HasTrigPrev<std::remove_pointer_t<decltype(std::declval<M&>().rootp)>>::value;     \
    }

RN_MODEL_API(rn64, Vnic64)
RN_MODEL_API(rn512, Vnic512)
