//! The coordinate-atom absolute-deviation family of digest §6 E3 (Theorem 4.4,
//! ProxGD): non-smooth, with closed-form empirical and population optima.
//!
//! Records `z = s e_j`, `j ~ Unif[d]`, `P(s = +1 | j) = (1 + rho_j r)/2`,
//! where `rho_j = ` [`sign_pattern`]`(j)` is a fixed pseudo-random sign that is
//! part of the distribution (the same for every data set). Loss
//! `l(w, z) = L abs(<w, z> - tau) = L abs(s w_j - tau)`, `tau = M / sqrt(d)`:
//! convex, `L`-Lipschitz (`||z|| = 1`), non-smooth.
//!
//! With `A_j, B_j` the numbers of records `+e_j` and `-e_j`,
//! `F(w) = (L/n) sum_j [A_j abs(w_j - tau) + B_j abs(w_j + tau)]` separates
//! over coordinates; each term is minimized at the weighted median
//! (`tau` if `A_j > B_j`, `-tau` if `B_j > A_j`, `0` on a tie), with minimum
//! `2 tau min(A_j, B_j)`. Every `|w*_j| <= tau` gives `||w*|| <= M`, so the
//! unconstrained minimizer is the minimizer over `W = B(0, M)`. The excess of
//! each term is evaluated piecewise as a sum of non-negative terms
//! ([`weighted_pair_excess`]), so nothing cancels.
//!
//! Population (digest §6 E3): the same formula with weights
//! `(1 + rho_j r)/(2d)`, `(1 - rho_j r)/(2d)`; minimizer `w*_j = rho_j tau`
//! (`||w*|| = M`) and minimum `L (1 - r) tau`.
//!
//! Moreau envelope (unconstrained, digest §5.3, exact prox, `xi = 0`): with
//! `a = s w_j - tau` and `||z|| = 1`, `prox = w - clip(a, -L/beta, L/beta) z`,
//! the envelope gradient is `clip(beta a, -L, L) z` (norm `<= L`, so noise
//! calibrated to `L` is valid, digest P10/P21) and the envelope value is the
//! Huber function `beta a^2/2` for `|a| <= L/beta`, `L|a| - L^2/(2 beta)` else.
//!
//! Minimizer sensitivity (replace-one): replacing one record changes the
//! margins `A_j - B_j` by at most 2 in total, so either one coordinate of
//! `w*` moves by at most `2 tau` (margin `+1 -> -1`) or two coordinates move
//! by at most `tau` each; hence `||w*(S) - w*(S')|| <= 2 tau = 2M/sqrt(d)`
//! (tight). The paper gives no bound; the diameter `2M` is reported as `paper`.

mod atoms;

pub use atoms::{sign_pattern, weighted_pair_excess, AbsDeviationParams, Atom, MAX_SIGNAL};

use crate::bassily::invalid;
use atoms::{huber, FAMILY};
use dpcore::{
    FiniteSum, MinimizerSensitivity, Objective, ProblemConstants, RecordEnvelope, RunFailure,
};
use rand::{Rng, RngExt};

/// A sampled absolute-deviation data set with its per-coordinate counts.
#[derive(Debug, Clone)]
pub struct AbsDeviation {
    params: AbsDeviationParams,
    tau: f64,
    atoms: Vec<Atom>,
    /// `A_j` (records `+e_j`) and `B_j` (records `-e_j`) as `f64`.
    plus: Vec<f64>,
    minus: Vec<f64>,
    w_star: Vec<f64>,
}

impl AbsDeviation {
    /// Hints that atom `i` will be read soon (both record oracles read only it).
    fn prefetch_atom(&self, i: usize) {
        dpcore::prefetch::prefetch_slice(&self.atoms[i..=i]);
    }

    /// Samples `j ~ Unif[d]`, then `s = +1` with probability `(1 + rho_j r)/2`.
    ///
    /// # Errors
    /// `InvalidParameters` when [`AbsDeviationParams::validate`] fails.
    pub fn generate<R: Rng + ?Sized>(
        params: AbsDeviationParams,
        rng: &mut R,
    ) -> Result<Self, RunFailure> {
        params.validate()?;
        let (n, d) = (params.n, params.d);
        let mut atoms = dpcore::prefetch::huge_page_vec(n);
        let (mut plus, mut minus) = (vec![0.0; d], vec![0.0; d]);
        for _ in 0..n {
            let j = rng.random_range(0..d);
            let p_plus = 0.5 * (1.0 + sign_pattern(j) * params.r);
            let positive = rng.random::<f64>() < p_plus;
            if positive {
                plus[j] += 1.0;
            } else {
                minus[j] += 1.0;
            }
            atoms.push(Atom {
                coord: j as u32,
                positive,
            });
        }
        Ok(Self::with_atoms(params, atoms, plus, minus))
    }

    /// The instance with the caller's records (row-major `n x d`, each a
    /// signed basis vector `+e_j` or `-e_j`, the family's data universe): the
    /// neighbouring pairs of the privacy audit. The same arithmetic as
    /// [`Self::generate`] from the atoms on, so a generated instance's own
    /// records rebuild it exactly.
    ///
    /// # Errors
    /// `InvalidParameters` when [`AbsDeviationParams::validate`] fails, the
    /// data do not hold `n` records of dimension `d`, or a record is not
    /// `+-e_j`.
    pub fn from_records(params: AbsDeviationParams, data: &[f64]) -> Result<Self, RunFailure> {
        params.validate()?;
        let (n, d) = (params.n, params.d);
        if data.len() != n * d {
            return Err(invalid(
                FAMILY,
                format!(
                    "{} coordinates for n = {n} records of dimension {d}",
                    data.len()
                ),
            ));
        }
        let mut atoms = Vec::with_capacity(n);
        let (mut plus, mut minus) = (vec![0.0; d], vec![0.0; d]);
        for (i, row) in data.chunks_exact(d).enumerate() {
            let nonzero: Vec<usize> = (0..d).filter(|&j| row[j] != 0.0).collect();
            let atom = match nonzero[..] {
                [j] if row[j] == 1.0 || row[j] == -1.0 => Atom {
                    coord: j as u32,
                    positive: row[j] == 1.0,
                },
                _ => {
                    return Err(invalid(
                        FAMILY,
                        format!("record {i} is not a signed basis vector +-e_j"),
                    ))
                }
            };
            if atom.positive {
                plus[atom.coord as usize] += 1.0;
            } else {
                minus[atom.coord as usize] += 1.0;
            }
            atoms.push(atom);
        }
        Ok(Self::with_atoms(params, atoms, plus, minus))
    }

    /// The instance of `atoms` with their counts: the weighted medians.
    fn with_atoms(
        params: AbsDeviationParams,
        atoms: Vec<Atom>,
        plus: Vec<f64>,
        minus: Vec<f64>,
    ) -> Self {
        let tau = params.tau();
        let w_star = plus
            .iter()
            .zip(&minus)
            .map(|(a, b)| match a.partial_cmp(b) {
                Some(std::cmp::Ordering::Greater) => tau,
                Some(std::cmp::Ordering::Less) => -tau,
                _ => 0.0,
            })
            .collect();
        Self {
            params,
            tau,
            atoms,
            plus,
            minus,
            w_star,
        }
    }

    /// The parameters this instance was generated from.
    pub fn params(&self) -> &AbsDeviationParams {
        &self.params
    }

    /// `tau = M / sqrt(d)`.
    pub fn tau(&self) -> f64 {
        self.tau
    }

    /// Record `i`.
    pub fn atom(&self, i: usize) -> Atom {
        self.atoms[i]
    }

    /// `(A_j, B_j)`: the numbers of records `+e_j` and `-e_j`.
    pub fn counts(&self, j: usize) -> (f64, f64) {
        (self.plus[j], self.minus[j])
    }

    /// Population minimizer `w*_j = rho_j tau`.
    pub fn population_minimizer(&self) -> Vec<f64> {
        (0..self.params.d)
            .map(|j| sign_pattern(j) * self.tau)
            .collect()
    }

    /// `sum_j weight(j).0 abs(w_j - tau) + weight(j).1 abs(w_j + tau)` scaled by `scale`.
    fn pair_sum(&self, w: &[f64], scale: f64, term: impl Fn(usize, f64) -> f64) -> f64 {
        let s: f64 = w.iter().enumerate().map(|(j, &x)| term(j, x)).sum();
        scale * s
    }

    /// Population weights `((1 + rho_j r), (1 - rho_j r))`.
    fn population_weights(&self, j: usize) -> (f64, f64) {
        let rr = sign_pattern(j) * self.params.r;
        (1.0 + rr, 1.0 - rr)
    }
}

impl Objective for AbsDeviation {
    fn dim(&self) -> usize {
        self.params.d
    }

    fn num_records(&self) -> usize {
        self.params.n
    }

    /// `(L/n) sum_j [A_j abs(w_j - tau) + B_j abs(w_j + tau)]`, O(d).
    fn value(&self, w: &[f64]) -> f64 {
        let (t, scale) = (self.tau, self.params.lipschitz / self.params.n as f64);
        self.pair_sum(w, scale, |j, x| {
            self.plus[j] * (x - t).abs() + self.minus[j] * (x + t).abs()
        })
    }

    /// `(L/n) [A_j sgn(w_j - tau) + B_j sgn(w_j + tau)]` with `sgn(0) = 0`
    /// (a subgradient: `0` lies in `[-1, 1]`).
    fn gradient(&self, w: &[f64], out: &mut [f64]) {
        let (t, scale) = (self.tau, self.params.lipschitz / self.params.n as f64);
        let sgn = |v: f64| if v == 0.0 { 0.0 } else { v.signum() };
        for (j, (o, &x)) in out.iter_mut().zip(w).enumerate() {
            *o = scale * (self.plus[j] * sgn(x - t) + self.minus[j] * sgn(x + t));
        }
    }

    /// `L`, non-smooth (`inf`), no strong convexity, radius `M`.
    fn constants(&self) -> ProblemConstants {
        ProblemConstants {
            lipschitz: self.params.lipschitz,
            smoothness: f64::INFINITY,
            strong_convexity: 0.0,
            radius: self.params.radius,
        }
    }

    /// The per-coordinate weighted medians (see the module docs).
    fn minimizer(&self) -> &[f64] {
        &self.w_star
    }

    /// `(L/n) sum_j` [`weighted_pair_excess`]`(A_j, B_j, tau, w_j)`, exact.
    fn excess_risk(&self, w: &[f64]) -> f64 {
        let scale = self.params.lipschitz / self.params.n as f64;
        self.pair_sum(w, scale, |j, x| {
            weighted_pair_excess(self.plus[j], self.minus[j], self.tau, x)
        })
    }

    /// Tight `2 tau = 2M/sqrt(d)`, paper (no bound given) `2M`; see the module docs.
    fn minimizer_sensitivity(&self) -> MinimizerSensitivity {
        MinimizerSensitivity {
            tight: 2.0 * self.tau,
            paper: 2.0 * self.params.radius,
        }
    }

    fn finite_sum(&self) -> Option<&dyn FiniteSum> {
        Some(self)
    }

    /// `(L/(2d)) sum_j` [`weighted_pair_excess`]`(1 + rho_j r, 1 - rho_j r, tau, w_j)`.
    fn population_excess(&self, w: &[f64]) -> Option<f64> {
        let scale = self.params.lipschitz / (2.0 * self.params.d as f64);
        Some(self.pair_sum(w, scale, |j, x| {
            let (a, b) = self.population_weights(j);
            weighted_pair_excess(a, b, self.tau, x)
        }))
    }

    /// `(L/(2d)) sum_j [(1 + rho_j r) abs(w_j - tau) + (1 - rho_j r) abs(w_j + tau)]`.
    fn population_loss(&self, w: &[f64]) -> Option<f64> {
        let (t, scale) = (
            self.tau,
            self.params.lipschitz / (2.0 * self.params.d as f64),
        );
        Some(self.pair_sum(w, scale, |j, x| {
            let (a, b) = self.population_weights(j);
            a * (x - t).abs() + b * (x + t).abs()
        }))
    }

    fn envelope(&self) -> Option<&dyn RecordEnvelope> {
        Some(self)
    }
}

impl FiniteSum for AbsDeviation {
    /// `L sgn(s w_j - tau) s e_j` (`sgn(0) = 0`), O(1) after zeroing `out`.
    fn record_gradient(&self, i: usize, w: &[f64], out: &mut [f64]) {
        let atom = self.atoms[i];
        let (j, s) = (atom.coord as usize, atom.sign());
        let a = s * w[j] - self.tau;
        out.fill(0.0);
        if a != 0.0 {
            out[j] = self.params.lipschitz * a.signum() * s;
        }
    }

    fn prefetch_record(&self, i: usize) {
        self.prefetch_atom(i);
    }
}

impl RecordEnvelope for AbsDeviation {
    /// `clip(beta a, -L, L) s e_j` with `a = s w_j - tau` (digest §5.3).
    fn record_envelope_gradient(&self, i: usize, beta: f64, w: &[f64], out: &mut [f64]) {
        let atom = self.atoms[i];
        let (j, s) = (atom.coord as usize, atom.sign());
        let l = self.params.lipschitz;
        let a = s * w[j] - self.tau;
        out.fill(0.0);
        out[j] = (beta * a).clamp(-l, l) * s;
    }

    fn prefetch_record(&self, i: usize) {
        self.prefetch_atom(i);
    }

    /// `(1/n) sum_j [A_j huber(w_j - tau) + B_j huber(-w_j - tau)]`, O(d).
    fn envelope_value(&self, beta: f64, w: &[f64]) -> f64 {
        let (l, t) = (self.params.lipschitz, self.tau);
        let scale = 1.0 / self.params.n as f64;
        self.pair_sum(w, scale, |j, x| {
            self.plus[j] * huber(l, beta, x - t) + self.minus[j] * huber(l, beta, -x - t)
        })
    }
}

#[cfg(test)]
mod from_records_tests {
    use super::*;
    use rand::SeedableRng;

    /// A generated instance's own records rebuild it exactly; a record that
    /// is not `+-e_j` and a wrong length are refused.
    #[test]
    fn from_records_rebuilds_generate() {
        let params = AbsDeviationParams::new(9, 3, 0.5);
        let mut rng = rand_pcg::Pcg64::seed_from_u64(3);
        let g = AbsDeviation::generate(params, &mut rng).unwrap();
        let mut data = vec![0.0; 9 * 3];
        for i in 0..9 {
            let a = g.atom(i);
            data[i * 3 + a.coord as usize] = a.sign();
        }
        let r = AbsDeviation::from_records(params, &data).unwrap();
        assert_eq!(r.minimizer(), g.minimizer());
        for j in 0..3 {
            assert_eq!(r.counts(j), g.counts(j));
        }
        for i in 0..9 {
            assert_eq!(r.atom(i), g.atom(i));
        }
        let mut bad = data.clone();
        bad[0] = 0.5;
        bad[1] = 0.5;
        assert!(AbsDeviation::from_records(params, &bad).is_err());
        assert!(AbsDeviation::from_records(params, &data[..24]).is_err());
    }
}
