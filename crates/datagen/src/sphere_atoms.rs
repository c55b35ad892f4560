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
//! The shared evaluators below handle every *radial* loss
//! `f(w, x) = psi(||w - x||)` with the stable identity
//! `psi(a) - psi(b) = (a^2 - b^2) K(a, b)`, `a^2 - b^2 = ||w||^2 - 2 w.x`
//! (digest P15), and sum each antipodal pair in closed form so that the
//! first-order terms `+-2 w.x` cancel analytically, never numerically.

use crate::geometry::sample_unit_sphere;
use crate::quadrature::sphere_expectation;
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
    /// Samples the sphere records with [`sample_unit_sphere`].
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
                    let x = sample_unit_sphere(d, rng);
                    sphere.extend_from_slice(&x);
                    sphere.extend(x.iter().map(|v| -v));
                }
            }
            SphereLayout::Uniform => {
                for _ in 0..n - m {
                    sphere.extend(sample_unit_sphere(d, rng));
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
}

/// A radial loss `f(w, x) = psi(||w - x||)` with the stable pieces the
/// evaluators need (digest P15).
pub(crate) trait RadialLoss {
    /// `psi(a)`.
    fn psi(&self, a: f64) -> f64;
    /// `K(a, b) = (psi(a) - psi(b)) / (a^2 - b^2)`, continuously extended.
    fn k(&self, a: f64, b: f64) -> f64;
    /// `J(a, a2, b) = (K(a, b) - K(a2, b)) / (a2^2 - a^2)`, continuously extended.
    fn j(&self, a: f64, a2: f64, b: f64) -> f64;
    /// `psi'(a) / a` (a subgradient convention at `a = 0` for kinks).
    fn grad_factor(&self, a: f64) -> f64;
}

/// `sum_k psi(||w - x_k||) - psi(||x_k||)` over an antipodal pair `x_k = +-x`
/// with `q = ||w||^2`, `c = w.x`, `a = ||w - x||`, `a2 = ||w + x||`, `b = ||x||`:
/// `q (K(a,b) + K(a2,b)) - 8 c^2 J(a, a2, b)`, since `a2^2 - a^2 = 4c`.
pub(crate) fn pair_excess<L: RadialLoss>(loss: &L, q: f64, c: f64, a: f64, a2: f64, b: f64) -> f64 {
    if q == 0.0 {
        return 0.0;
    }
    q * (loss.k(a, b) + loss.k(a2, b)) - 8.0 * c * c * loss.j(a, a2, b)
}

/// `(||w - x||^2, ||w + x||^2, w.x, ||x||^2)` in one pass.
fn moments(w: &[f64], x: &[f64]) -> (f64, f64, f64, f64) {
    w.iter()
        .zip(x)
        .fold((0.0, 0.0, 0.0, 0.0), |(m, p, c, b), (wj, xj)| {
            (
                m + (wj - xj) * (wj - xj),
                p + (wj + xj) * (wj + xj),
                c + wj * xj,
                b + xj * xj,
            )
        })
}

impl SphereAtoms {
    /// `(1/n) sum_i psi(||w - x_i||)`, with the `m` atoms in O(d).
    pub(crate) fn radial_value<L: RadialLoss>(&self, loss: &L, w: &[f64]) -> f64 {
        let r = norm(w);
        let sphere: f64 = self
            .sphere
            .chunks_exact(self.params.d)
            .map(|x| loss.psi(dist(w, x)))
            .sum();
        (self.atoms as f64 * loss.psi(r) + sphere) / self.params.n as f64
    }

    /// `(1/n) sum_i [psi(||w - x_i||) - psi(||x_i||)]` without cancellation:
    /// atoms give `q K(||w||, 0)`, antipodal pairs [`pair_excess`], unpaired
    /// records `(q - 2 w.x) K(a, b)`.
    pub(crate) fn radial_excess<L: RadialLoss>(&self, loss: &L, w: &[f64]) -> f64 {
        let q = dot(w, w);
        if q == 0.0 {
            return 0.0;
        }
        let d = self.params.d;
        let atom = self.atoms as f64 * q * loss.k(q.sqrt(), 0.0);
        let sphere: f64 = match self.params.layout {
            SphereLayout::Antipodal => self
                .sphere
                .chunks_exact(2 * d)
                .map(|pair| {
                    let (am, ap, c, b) = moments(w, &pair[..d]);
                    pair_excess(loss, q, c, am.sqrt(), ap.sqrt(), b.sqrt())
                })
                .sum(),
            SphereLayout::Uniform => self
                .sphere
                .chunks_exact(d)
                .map(|x| {
                    let (am, _, c, b) = moments(w, x);
                    (q - 2.0 * c) * loss.k(am.sqrt(), b.sqrt())
                })
                .sum(),
        };
        (atom + sphere) / self.params.n as f64
    }

    /// Writes `(1/n) sum_i grad_factor(||w - x_i||) (w - x_i)` into `out`. At
    /// `w = 0` it writes `0`, which lies in `dF(0)` for every family built on
    /// this generator (digest §8 E2/E4/E5: `w* = 0`).
    pub(crate) fn radial_gradient<L: RadialLoss>(&self, loss: &L, w: &[f64], out: &mut [f64]) {
        let n = self.params.n as f64;
        out.fill(0.0);
        if w.iter().all(|v| *v == 0.0) {
            return;
        }
        let ga = self.atoms as f64 * loss.grad_factor(norm(w));
        for (o, wj) in out.iter_mut().zip(w) {
            *o = ga * wj;
        }
        for x in self.sphere.chunks_exact(self.params.d) {
            let g = loss.grad_factor(dist(w, x));
            for ((o, wj), xj) in out.iter_mut().zip(w).zip(x) {
                *o += g * (wj - xj);
            }
        }
        for o in out.iter_mut() {
            *o /= n;
        }
    }

    /// Writes `grad_factor(||w - x_i||) (w - x_i)` (record `i`) into `out`.
    pub(crate) fn radial_record_gradient<L: RadialLoss>(
        &self,
        loss: &L,
        i: usize,
        w: &[f64],
        out: &mut [f64],
    ) {
        let x = self.record(i);
        let g = loss.grad_factor(dist(w, x));
        for ((o, wj), xj) in out.iter_mut().zip(w).zip(x) {
            *o = g * (wj - xj);
        }
    }
}

/// Population excess of a radial loss under `D = p delta_0 + (1-p) Unif(S^(d-1))`
/// at `||w|| = r`: `p (psi(r) - psi(0)) + (1-p) E_t[h(t)]` where `h` is half the
/// antipodal pair excess ([`pair_excess`] with `q = r^2`, `c = r t`, `b = 1`) and
/// `t = u.e` is integrated by [`sphere_expectation`] (digest §8 E3 last bullet).
/// The population minimizer is `0` for every `p` in `[0, 1]`: `E u = 0` by
/// symmetry, so `0` lies in the subdifferential of the convex `F(., D)`.
pub(crate) fn radial_population_excess<L: RadialLoss>(loss: &L, p: f64, d: usize, r: f64) -> f64 {
    if r == 0.0 {
        return 0.0;
    }
    let q = r * r;
    let atom = q * loss.k(r, 0.0);
    let sphere = sphere_expectation(d, |t| {
        let s2 = (1.0 - t) * (1.0 + t);
        let a = ((r - t) * (r - t) + s2).sqrt();
        let a2 = ((r + t) * (r + t) + s2).sqrt();
        0.5 * pair_excess(loss, q, r * t, a, a2, 1.0)
    });
    p * atom + (1.0 - p) * sphere
}

/// `||w - x||`.
fn dist(w: &[f64], x: &[f64]) -> f64 {
    w.iter()
        .zip(x)
        .map(|(a, b)| (a - b) * (a - b))
        .sum::<f64>()
        .sqrt()
}

/// Euclidean inner product.
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Euclidean norm.
pub(crate) fn norm(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}
