pub mod nic;
