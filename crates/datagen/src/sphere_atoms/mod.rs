//! The "sphere data with an atom at 0" generator shared by the sharp (E2),
//! geometric-median (E4) and pseudo-Huber (E5) families of the
//! Lowy–Razaviyayn digest §8.
//!
//! A data set has `n` records in `R^d`: `m` of them exactly at `0` (the atom)
//! and `n - m` on the unit sphere, either in antipodal pairs `(x, -x)`
//! ([`SphereLayout::Antipodal`]) or i.i.d. uniform ([`SphereLayout::Uniform`]).
//! Each sphere record is marginally `Unif(S^(d-1))`, so the population model
//! is `D = p delta_0 + (1 - p) Unif(S^(d-1))` (digest §8 E3, last bullet).
//!
//! The shared evaluators (submodule `radial`) handle every *radial* loss
//! `f(w, x) = psi(||w - x||)` with the stable identity
//! `psi(a) - psi(b) = (a^2 - b^2) K(a, b)`, `a^2 - b^2 = ||w||^2 - 2 w.x`
//! (digest P15), and sum each antipodal pair in closed form so that the
//! first-order terms `+-2 w.x` cancel analytically, never numerically.

mod radial;

pub(crate) use radial::{NormLoss, RadialLoss};

use crate::geometry::push_unit_sphere;
use rand::Rng;

/// How the non-atom records are placed on the unit sphere.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SphereLayout {
    /// Antipodal pairs `(x, -x)`, `x ~ Unif(S^(d-1))`: the data are symmetric,
    /// so `0` is a minimizer of every radial convex loss for any atom fraction.
    #[default]
    Antipodal,
    /// I.i.d. uniform points, no pairing. `0` stays an exact minimizer of the
    /// non-smooth losses `||w - x||` (E2/E4) only when the atom count `m`
    /// is at least the sphere count `n - m` (then `||sum_i x_i|| <= n - m <= m`
    /// and `0` lies in the subdifferential); [`SphereAtomsParams::validate`]
    /// enforces this. Smooth losses (E5) reject this layout.
    Uniform,
}

/// Parameters of one sphere-with-atom data set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SphereAtomsParams {
    /// Number of records `n >= 1`.
    pub n: usize,
    /// Dimension `d >= 1`.
    pub d: usize,
    /// Target fraction `p` in `[0, 1]` of records at `0` (digest default 0.75).
    pub p: f64,
    /// Placement of the sphere records.
    pub layout: SphereLayout,
}

impl SphereAtomsParams {
    /// The digest defaults: `p = 0.75`, antipodal pairs (§8 E2).
    pub fn new(n: usize, d: usize) -> Self {
        Self {
            n,
            d,
            p: 0.75,
            layout: SphereLayout::Antipodal,
        }
    }

    /// Atom count `m`: `round(p n)`, plus one when the antipodal layout
    /// leaves an odd remainder (the leftover record goes to `0`).
    pub fn atom_count(&self) -> usize {
        let m = ((self.p * self.n as f64).round() as usize).min(self.n);
        match self.layout {
            SphereLayout::Antipodal if (self.n - m) % 2 == 1 => m + 1,
            _ => m,
        }
    }

    /// Checks `n >= 1`, `d >= 1`, `p` in `[0, 1]`, and for the uniform layout
    /// `m >= n - m` (the exactness condition of `w* = 0`, see [`SphereLayout`]).
    /// [`SphereAtoms::generate`] panics on exactly these conditions.
    pub fn validate(&self) -> Result<(), String> {
        if self.n == 0 {
            return Err("n must be >= 1".into());
        }
        if self.d == 0 {
            return Err("d must be >= 1".into());
        }
        if !(0.0..=1.0).contains(&self.p) {
            return Err(format!("p must lie in [0, 1], got {}", self.p));
        }
        let m = self.atom_count();
        if self.layout == SphereLayout::Uniform && 2 * m < self.n {
            return Err(format!(
                "uniform layout needs at least as many atoms as sphere points \
                 (p >= 1/2) for w* = 0 to be exact; got {m} atoms of {}",
                self.n
            ));
        }
        Ok(())
    }
}

/// A sampled sphere-with-atom data set. Records `0..m` are the atom `0`
/// (stored implicitly); records `m..n` are stored row-major, and in the
/// antipodal layout record `m + 2k + 1` is exactly `-(record m + 2k)`.
#[derive(Debug, Clone)]
pub struct SphereAtoms {
    params: SphereAtomsParams,
    atoms: usize,
    /// Sphere records, row-major `(n - m) x d`.
    sphere: Vec<f64>,
    zero_row: Vec<f64>,
}

impl SphereAtoms {
    /// Samples the sphere records with [`crate::geometry::sample_unit_sphere`].
    ///
    /// # Panics
    /// If `params.validate()` fails.
    pub fn generate<R: Rng + ?Sized>(params: SphereAtomsParams, rng: &mut R) -> Self {
        if let Err(e) = params.validate() {
            panic!("invalid SphereAtomsParams: {e}");
        }
        let (n, d, m) = (params.n, params.d, params.atom_count());
        let mut sphere = Vec::with_capacity((n - m) * d);
        match params.layout {
            SphereLayout::Antipodal => {
                for _ in 0..(n - m) / 2 {
                    let start = sphere.len();
                    push_unit_sphere(&mut sphere, d, rng);
                    sphere.extend_from_within(start..start + d);
                    sphere[start + d..].iter_mut().for_each(|v| *v = -*v);
                }
            }
            SphereLayout::Uniform => {
                for _ in 0..n - m {
                    push_unit_sphere(&mut sphere, d, rng);
                }
            }
        }
        Self {
            params,
            atoms: m,
            sphere,
            zero_row: vec![0.0; d],
        }
    }

    /// The parameters this data set was generated from.
    pub fn params(&self) -> &SphereAtomsParams {
        &self.params
    }

    /// Number of records `n`.
    pub fn n(&self) -> usize {
        self.params.n
    }

    /// Dimension `d`.
    pub fn d(&self) -> usize {
        self.params.d
    }

    /// Number `m` of records at `0`.
    pub fn atom_count(&self) -> usize {
        self.atoms
    }

    /// Number `n - m` of records on the unit sphere.
    pub fn sphere_count(&self) -> usize {
        self.params.n - self.atoms
    }

    /// Record `i` (`0` for `i < m`).
    ///
    /// # Panics
    /// If `i >= n`.
    pub fn record(&self, i: usize) -> &[f64] {
        assert!(i < self.params.n, "record index {i} out of range");
        if i < self.atoms {
            return &self.zero_row;
        }
        let (d, j) = (self.params.d, i - self.atoms);
        &self.sphere[j * d..(j + 1) * d]
    }

    /// The sphere records, row-major `(n - m) x d`.
    pub fn sphere_data(&self) -> &[f64] {
        &self.sphere
    }

    /// The origin `0` of `R^d`: the atom, and the exact minimizer `w* = 0` of
    /// every family built on this generator.
    pub(crate) fn origin(&self) -> &[f64] {
        &self.zero_row
    }

    /// The regularized minimizer `w*_lambda = 0` of the families built on this
    /// generator, for every `lambda >= 0` (`None` for negative or non-finite
    /// `lambda`).
    pub(crate) fn zero_regularized_minimizer(&self, lambda: f64) -> Option<Vec<f64>> {
        (lambda.is_finite() && lambda >= 0.0).then(|| self.zero_row.clone())
    }
}
