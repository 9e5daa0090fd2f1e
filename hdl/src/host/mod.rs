//! Host side of the core: registers and doorbells, CQE writer, the DMA read splitter, the send gather, the
//! receive scatter, the read and write realigners.
pub mod cqe;
pub mod dma_split;
pub mod gather;
pub mod read_align;
pub mod regs;
pub mod scatter;
pub mod sgl_sum;
pub mod write_align;
