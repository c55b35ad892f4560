//! Rows of norm up to `b` (Wang–Zhu–Wang Appendix L, Theorems L.1 and L.2):
//! a planted instance of G or G2 drawn on the unit sphere at the normalised
//! margin `gamma/b`, every feature multiplied by `b`.
//!
//! The scaled instance has rows of norm `<= b`, the same labels and outliers,
//! and inlier margin exactly `gamma` (the anchor pair scales with the rest).
//! Multiplying by `b > 0` keeps the sign of every `<w, x>`, so the 0-1 errors
//! (empirical and population) of any `w` are those of the unit instance: the
//! population sampler is the unit instance's.

use super::generator::PlantedHalfspace;
use dpcore::halfspace::{HalfspaceProblem, PopulationError};

/// A planted instance with its features scaled by the public bound `b`.
#[derive(Debug, Clone)]
pub struct ScaledHalfspace {
    unit: PlantedHalfspace,
    bound: f64,
    x: Vec<f64>,
}

impl ScaledHalfspace {
    /// Scales `unit` (rows of norm `<= 1`, margin `gamma*`) by `b`: rows of
    /// norm `<= b`, margin `b gamma*`.
    ///
    /// # Errors
    /// `b` not finite and positive.
    pub fn new(unit: PlantedHalfspace, b: f64) -> Result<Self, String> {
        if !(b.is_finite() && b > 0.0) {
            return Err(format!(
                "the row-norm bound b must be finite and > 0, got {b}"
            ));
        }
        let x = unit.features().iter().map(|v| v * b).collect();
        Ok(Self { unit, bound: b, x })
    }

    /// The unit-norm instance it scales.
    pub fn unit(&self) -> &PlantedHalfspace {
        &self.unit
    }
}

impl HalfspaceProblem for ScaledHalfspace {
    fn dim(&self) -> usize {
        self.unit.dim()
    }
    fn num_records(&self) -> usize {
        self.unit.num_records()
    }
    fn features(&self) -> &[f64] {
        &self.x
    }
    fn data_bound(&self) -> f64 {
        self.bound
    }
    fn labels(&self) -> &[f64] {
        self.unit.labels()
    }
    fn true_margin(&self) -> Option<f64> {
        self.unit.true_margin().map(|g| g * self.bound)
    }
    fn outlier_count(&self) -> usize {
        self.unit.outlier_count()
    }
    fn inlier_rows(&self) -> Option<Vec<usize>> {
        self.unit.inlier_rows()
    }
    fn population_error(&self, w: &[f64]) -> Option<PopulationError> {
        self.unit.population_error(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numerics::norm2;
    use crate::wang::HalfspaceParams;
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    fn unit(margin: f64) -> PlantedHalfspace {
        let params = HalfspaceParams::isotropic(200, 12, margin, 5);
        PlantedHalfspace::generate(params, &mut Pcg64::seed_from_u64(7)).unwrap()
    }

    #[test]
    fn rows_margin_and_errors_scale_with_b() {
        let u = unit(0.1);
        let s = ScaledHalfspace::new(u.clone(), 4.0).unwrap();
        assert_eq!(s.data_bound(), 4.0);
        assert_eq!(s.true_margin(), Some(0.4));
        let d = s.dim();
        let max_norm = s.features().chunks(d).map(norm2).fold(0.0_f64, f64::max);
        assert!(
            max_norm <= 4.0 && max_norm > 3.9,
            "largest row norm {max_norm}"
        );
        // The planted direction attains the scaled margin on the inliers.
        let w = u.w_star();
        let inliers = s.inlier_rows().unwrap();
        let min_margin = inliers
            .iter()
            .map(|&i| s.labels()[i] * crate::numerics::dot(&s.features()[i * d..(i + 1) * d], w))
            .fold(f64::INFINITY, f64::min);
        assert!(
            (min_margin - 0.4).abs() < 1e-12,
            "inlier margin {min_margin}"
        );
        // Scaling keeps every sign: the errors of any w are the unit ones.
        let probe: Vec<f64> = (0..d).map(|j| (j as f64 - 5.5) / 7.0).collect();
        assert_eq!(s.zero_one_error(&probe), u.zero_one_error(&probe));
        assert_eq!(
            s.population_error(&probe).unwrap().error,
            u.population_error(&probe).unwrap().error
        );
        assert_eq!(s.outlier_count(), 5);
    }

    #[test]
    fn a_bound_that_is_not_positive_is_refused() {
        for b in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(ScaledHalfspace::new(unit(0.1), b).is_err(), "b = {b}");
        }
    }
}
