pub mod req;
pub mod resp;
pub mod qp_table;
