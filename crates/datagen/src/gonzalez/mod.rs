//! Problem families of González, Guzmán & Paquette (2024), DP stochastic
//! saddle points over simplices (digest §6.3,
//! `../shared/papers/digests/gonzalez-guzman-paquette-dp-saddle.md`).
//!
//! - [`game::SimplexGame`]: bilinear games G1 (dense i.i.d. and planted pure
//!   saddle, stored or generated lazily up to `d = 2^16`, low rank with a
//!   planted cross up to `d = 2^20`, separable sanity game)
//!   and their smooth non-bilinear variants G2 (quadratic, log-cosh, Huber
//!   separable terms), implementing [`dpcore::saddle::SaddleProblem`] with
//!   the exact population gap (max over vertices or water-filling);
//! - [`sco`]: the DP-SCO instances G4 ([`dpcore::saddle::SimplexSco`]);
//! - [`queries`]: the synthetic-data instance G5
//!   ([`dpcore::saddle::QueryRelease`]);
//! - [`records`]: instances from explicit records, for the privacy audit's
//!   neighbouring pairs;
//! - [`matrix`], [`lazy`], [`instances`], [`noise`], [`separable`],
//!   [`counter`]: the building blocks.
//!
//! Every constant is derived from the family's definition (digest §6.3), and
//! `||grad f(., z)||_inf <= L0` holds at every point of the simplices for
//! every record, which the privacy of the algorithms needs (pitfall 1).

pub mod counter;
pub mod game;
pub mod instances;
pub mod lazy;
mod low_rank;
pub mod matrix;
pub mod noise;
pub mod queries;
pub mod records;
pub mod sco;
pub mod separable;
