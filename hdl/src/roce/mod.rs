pub mod req;
pub mod resp;
