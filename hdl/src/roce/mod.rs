pub mod mr_table;
pub mod qp_table;
pub mod req;
pub mod resp;
