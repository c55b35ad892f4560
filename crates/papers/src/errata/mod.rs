//! Printed-vs-corrected privacy calibrations for every calibration erratum listed
//! in the paper digests (`shared/papers/digests/*.md`), evaluated numerically.
//!
//! Each [`Erratum`] is computed at run time from the paper's printed formula and
//! the digest's corrected formula at one documented setting (the digest's own
//! example where it gives one, otherwise `eps = 1`, `delta = 1e-5` or the
//! paper's own `delta`, and the paper's prescribed schedule). For each it
//! reports the privacy the printed calibration actually delivers next to the
//! privacy the paper claims (the target), how that privacy was accounted, and a
//! [`Verdict`] derived from the numbers. [`render_markdown`] prints the table
//! shown by `runner errata` and in docs/errata.md.
//!
//! Privacy accounting: each row uses the tightest accountant the harness has
//! for it and names it ([`Accounting`]). Exact ones, where they exist, with
//! formulas written out locally or taken from `mechanisms`:
//!
//! * exact Gaussian privacy profile, [`exact_gaussian_delta`] (Balle & Wang
//!   2018, Thm 8); the same function gives the exact (eps, delta) curve of
//!   mu-GDP (Dong, Roth & Su, Cor 2.13) with `sigma = 1`, `Delta = mu`;
//! * zCDP of a Gaussian release, `rho = Delta^2 / (2 sigma^2)`, composing by
//!   addition (Bun & Steinke 2016, Prop 1.6);
//!
//! and upper bounds otherwise:
//!
//! * the subsampled-Gaussian rows (Bassily) use the harness's RDP accountant,
//!   `mechanisms::rdp::RdpAccountant` (default orders, fractional ones
//!   included, Canonne–Kamath–Steinke conversion), under add/remove; for the
//!   paper's replace-one relation the smaller of two routes, doubled
//!   sensitivity or group privacy `(2 eps, (1 + e^eps) delta)`; BFTT-P4 also
//!   the harness's PLD accountant, `mechanisms::pld::PldAccountant`
//!   (pessimistic connect-the-dots on the grid `h = 1e-4`) with the
//!   replace-one substitution pair, and takes the tightest of the three,
//!   labelled ([`Accounting::Pld`] there);
//! * compositions of pure-DP releases (González–Guzmán–Paquette) take the
//!   smaller of the paper's composition theorem (advanced composition,
//!   Dwork & Roth 2014, Thm 3.20, or fully adaptive composition, Whitehouse
//!   et al. 2023, Thm 1) and the harness's zCDP (`eps0^2/2` per release,
//!   `mechanisms::zcdp::cks_eps`);
//! * objective perturbation has no accountant: the cited theorem's bound.
//!
//! Layout: the row types ([`Privacy`] and [`Accounting`] in `privacy`, the rest
//! in `erratum`), the shared row builder and the rows' default target
//! (`row`, `row::EPS`, `row::DELTA`: there, not here, so that each paper's
//! rows import the errata's parts and only this file imports the papers'
//! rows, without an import circle), the local privacy formulas
//! (`formulas`), number formatting (`number_format`), the Markdown table
//! (`table`); each paper's rows live in its own module (`crate::<paper>::errata`).

#[cfg(doc)]
use mechanisms::calibration::exact_gaussian_delta;

pub(crate) mod erratum;
pub(crate) mod formulas;
pub(crate) mod number_format;
pub(crate) mod privacy;
pub(crate) mod row;
mod table;

use std::sync::OnceLock;

use crate::{bassily, gonzalez, lowy_razaviyayn, menart, wang};

pub use erratum::{Calibration, Erratum, GaussianAudit, Verdict};
pub use privacy::{Accounting, Privacy};
pub use table::render_markdown;

/// Every calibration erratum of the five digests, evaluated once per process
/// (about 0.5 s, most of it BFTT-P4's PLD calibration: about 17 compositions of
/// 1250 subsampled-Gaussian steps) and cloned on later calls. The rows are a
/// pure function of the code, so the cache changes nothing but the time.
pub fn errata() -> Vec<Erratum> {
    static ROWS: OnceLock<Vec<Erratum>> = OnceLock::new();
    ROWS.get_or_init(evaluate).clone()
}

fn evaluate() -> Vec<Erratum> {
    vec![
        lowy_razaviyayn::errata::alg7(),
        lowy_razaviyayn::errata::alg6(),
        bassily::errata::nsgd(),
        bassily::errata::proxgd(),
        bassily::errata::objp_first_stage(),
        bassily::errata::objp_output_noise(),
        gonzalez::errata::alg1(),
        gonzalez::errata::alg3(),
        gonzalez::errata::alg4(),
        menart::errata::alg1(),
        menart::errata::alg3_convention(),
        menart::errata::alg3_negative_norm(),
        menart::errata::alg4(),
        menart::errata::selection(),
        wang::errata::integer_t(),
    ]
}
