//! Host side of the core: registers and doorbells, CQE writer, the DMA read splitter, the write realigner.
pub mod cqe;
pub mod dma_split;
pub mod regs;
pub mod write_align;
