pub mod resp;
