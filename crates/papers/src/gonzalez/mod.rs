//! González, Guzmán & Paquette, polyhedral saddle points by mirror descent:
//! the saddle, simplex-SCO and query-release families, Algorithms 1–4 with
//! their baselines, the calibration errata, and the entries' privacy audits.

pub(crate) mod audit;
pub(crate) mod cost;
pub(crate) mod errata;
pub(crate) mod families;
pub(crate) mod options;
pub(crate) mod saddle;
pub(crate) mod sco;
