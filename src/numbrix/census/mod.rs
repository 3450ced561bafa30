//! Numbrix census side: the raw walk engine (Hamiltonian paths, no candidate machinery), the
//! frontier (transfer-matrix) counter, the backbite sampler and their studies.

pub mod backbite;
pub mod census_job;
pub mod cli;
pub mod frontier;
pub mod report;
pub mod sampler_job;
pub mod walk;

pub use walk::count_solutions;
