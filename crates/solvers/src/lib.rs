//! Private optimization algorithms, each exposing its theorem's bound next to
//! the algorithm so the harness can overlay measured and promised risk.

pub mod baselines;
pub mod bassily;
pub mod dp_sgd;
pub mod full_batch_gd;
pub mod gonzalez;
pub mod inner;
pub mod lowy_razaviyayn;
pub mod menart;
pub mod output_perturbation;
pub mod transcript;
pub mod wang;

pub use output_perturbation::{
    CertifiedOutputPerturbation, ConceptualOutputPerturbation, Release, SensitivityChoice,
};
