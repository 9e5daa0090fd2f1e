//! Host side of the core: registers and doorbells (DMA lives with the engines that use it for now).
pub mod cqe;
pub mod regs;
