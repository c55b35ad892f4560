//! Instances built from the caller's records: the neighbouring pairs of the
//! privacy audit (`runner audit`), where a canary record and its replacement
//! must be placed by hand. The population is the records' own empirical
//! distribution (an audit measures the release, not the risk), so every
//! metric is still exact.
//!
//! - [`RecordGame`]: `f(x, y; z) = x^T A(z) y` with `A(z)` the record's
//!   `d_x x d_y` payoff matrix, `|A(z)_ij| <= L0`;
//! - [`RecordSco`]: `f(x; z) = <g(z), x>` with `||g(z)||_inf <= L0`;
//! - [`RecordQueries`]: records are points of a finite domain, queries are
//!   given vectors in `[-1, 1]^|Z|` closed under negation.
//!
//! `L0` is the data universe's bound, declared by the caller and checked on
//! every record (the privacy of every algorithm rests on it, digest
//! pitfall 1), never read off the sample.

use dpcore::saddle::{QueryRelease, SaddleProblem, SimplexConstants, SimplexPoint, SimplexSco};

fn check_bound(l0: f64) -> Result<(), String> {
    if l0.is_finite() && l0 > 0.0 {
        Ok(())
    } else {
        Err(format!("the bound L0 = {l0} must be finite and > 0"))
    }
}

/// Checks that every record has `len` entries of absolute value `<= l0`.
fn check_records(records: &[Vec<f64>], len: usize, l0: f64) -> Result<(), String> {
    if records.is_empty() {
        return Err("need at least one record".into());
    }
    for (i, r) in records.iter().enumerate() {
        if r.len() != len {
            return Err(format!("record {i} has {} entries, not {len}", r.len()));
        }
        // NaN fails the check too.
        if let Some(v) = r.iter().find(|v| v.is_nan() || v.abs() > l0) {
            return Err(format!(
                "record {i} has the entry {v} outside [-{l0}, {l0}]"
            ));
        }
    }
    Ok(())
}

/// The column means of equal-length records.
fn mean_of(records: &[Vec<f64>]) -> Vec<f64> {
    let mut mean = vec![0.0; records[0].len()];
    for r in records {
        mean.iter_mut().zip(r).for_each(|(m, v)| *m += v);
    }
    let n = records.len() as f64;
    mean.iter_mut().for_each(|m| *m /= n);
    mean
}

/// A bilinear game whose records are payoff matrices (module docs).
#[derive(Debug, Clone)]
pub struct RecordGame {
    dx: usize,
    dy: usize,
    l0: f64,
    /// Row-major `d_x x d_y` matrices, one per record.
    records: Vec<Vec<f64>>,
    /// Their mean, the population payoff `A_bar`.
    mean: Vec<f64>,
}

impl RecordGame {
    /// The game on `Delta_{d_x} x Delta_{d_y}` with the records' payoff
    /// matrices (row-major, `d_x d_y` entries each, `|A_ij| <= l0`).
    pub fn from_records(
        dx: usize,
        dy: usize,
        l0: f64,
        records: Vec<Vec<f64>>,
    ) -> Result<Self, String> {
        if dx == 0 || dy == 0 {
            return Err(format!("dimensions {dx} x {dy} must be positive"));
        }
        check_bound(l0)?;
        check_records(&records, dx * dy, l0)?;
        let mean = mean_of(&records);
        Ok(Self {
            dx,
            dy,
            l0,
            records,
            mean,
        })
    }

    /// The records, as given.
    pub fn records(&self) -> &[Vec<f64>] {
        &self.records
    }

    /// Adds `weight A x`-style products: `gx += weight a y`, `gy += weight a^T x`.
    fn add_products(
        &self,
        a: &[f64],
        x: SimplexPoint<'_>,
        y: SimplexPoint<'_>,
        weight: f64,
        gx: &mut [f64],
        gy: &mut [f64],
    ) {
        for (i, g) in gx.iter_mut().enumerate() {
            let row = &a[i * self.dy..(i + 1) * self.dy];
            *g += weight * y.dot(row);
        }
        x.for_each(|i, p| {
            let row = &a[i * self.dy..(i + 1) * self.dy];
            gy.iter_mut()
                .zip(row)
                .for_each(|(g, v)| *g += weight * p * v);
        });
    }
}

impl SaddleProblem for RecordGame {
    fn dims(&self) -> (usize, usize) {
        (self.dx, self.dy)
    }
    fn num_records(&self) -> usize {
        self.records.len()
    }
    fn constants(&self) -> SimplexConstants {
        // Bilinear: the gradient (A y, A^T x) moves by at most max|A| per
        // unit of l1 distance, and is affine.
        SimplexConstants {
            l0: self.l0,
            l1: self.l0,
            l2: 0.0,
            affine_gradient: true,
        }
    }
    fn accumulate_record_gradient(
        &self,
        i: usize,
        x: SimplexPoint<'_>,
        y: SimplexPoint<'_>,
        weight: f64,
        gx: &mut [f64],
        gy: &mut [f64],
    ) {
        self.add_products(&self.records[i], x, y, weight, gx, gy);
    }
    fn population_gradient(
        &self,
        x: SimplexPoint<'_>,
        y: SimplexPoint<'_>,
        gx: &mut [f64],
        gy: &mut [f64],
    ) {
        gx.fill(0.0);
        gy.fill(0.0);
        self.add_products(&self.mean, x, y, 1.0, gx, gy);
    }
    fn duality_gap(&self, x: &[f64], y: &[f64]) -> f64 {
        let (mut atx, mut ay) = (vec![0.0; self.dy], vec![0.0; self.dx]);
        self.add_products(
            &self.mean,
            SimplexPoint::Dense(x),
            SimplexPoint::Dense(y),
            1.0,
            &mut ay,
            &mut atx,
        );
        let max = atx.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let min = ay.iter().copied().fold(f64::INFINITY, f64::min);
        max - min
    }
}

/// A linear loss on the simplex whose records are gradients (module docs).
#[derive(Debug, Clone)]
pub struct RecordSco {
    l0: f64,
    records: Vec<Vec<f64>>,
    mean: Vec<f64>,
    min_mean: f64,
}

impl RecordSco {
    /// `f(x; z) = <g(z), x>` on `Delta_d` with the records' gradients
    /// (`d` entries each, `|g_j| <= l0`).
    pub fn from_records(d: usize, l0: f64, records: Vec<Vec<f64>>) -> Result<Self, String> {
        if d == 0 {
            return Err("the dimension must be positive".into());
        }
        check_bound(l0)?;
        check_records(&records, d, l0)?;
        let mean = mean_of(&records);
        let min_mean = mean.iter().copied().fold(f64::INFINITY, f64::min);
        Ok(Self {
            l0,
            records,
            mean,
            min_mean,
        })
    }

    /// The records, as given.
    pub fn records(&self) -> &[Vec<f64>] {
        &self.records
    }
}

impl SimplexSco for RecordSco {
    fn dim(&self) -> usize {
        self.mean.len()
    }
    fn num_records(&self) -> usize {
        self.records.len()
    }
    fn constants(&self) -> SimplexConstants {
        // Linear: constant gradient, no curvature.
        SimplexConstants {
            l0: self.l0,
            l1: 0.0,
            l2: 0.0,
            affine_gradient: true,
        }
    }
    fn accumulate_record_gradient(
        &self,
        i: usize,
        _w: SimplexPoint<'_>,
        weight: f64,
        g: &mut [f64],
    ) {
        g.iter_mut()
            .zip(&self.records[i])
            .for_each(|(o, v)| *o += weight * v);
    }
    fn excess_risk(&self, w: &[f64]) -> f64 {
        let value: f64 = w.iter().zip(&self.mean).map(|(a, b)| a * b).sum();
        value - self.min_mean
    }
}

/// Linear queries over a finite domain with records at given points
/// (module docs).
#[derive(Debug, Clone)]
pub struct RecordQueries {
    domain: usize,
    /// Query vectors, `|Z|` entries each in `[-1, 1]`.
    queries: Vec<Vec<f64>>,
    points: Vec<usize>,
    empirical: Vec<f64>,
}

impl RecordQueries {
    /// Records at the domain points `points` (each `< domain`) and the
    /// queries `queries` (each a vector over the domain with entries in
    /// `[-1, 1]`; the class must contain the negation of each query, as
    /// Alg. 5's proof needs, digest §3.5).
    pub fn from_records(
        domain: usize,
        queries: Vec<Vec<f64>>,
        points: Vec<usize>,
    ) -> Result<Self, String> {
        if domain == 0 || queries.is_empty() || points.is_empty() {
            return Err("need a non-empty domain, query class and data set".into());
        }
        check_records(&queries, domain, 1.0)?;
        for (j, q) in queries.iter().enumerate() {
            let negated: Vec<f64> = q.iter().map(|v| -v).collect();
            if !queries.contains(&negated) {
                return Err(format!("the negation of query {j} is not in the class"));
            }
        }
        if let Some(p) = points.iter().find(|&&p| p >= domain) {
            return Err(format!(
                "record at {p} outside the domain of {domain} points"
            ));
        }
        let mut histogram = vec![0.0; domain];
        for &p in &points {
            histogram[p] += 1.0 / points.len() as f64;
        }
        let empirical = queries
            .iter()
            .map(|q| q.iter().zip(&histogram).map(|(a, b)| a * b).sum())
            .collect();
        Ok(Self {
            domain,
            queries,
            points,
            empirical,
        })
    }

    /// The records' domain points, as given.
    pub fn points(&self) -> &[usize] {
        &self.points
    }
}

impl QueryRelease for RecordQueries {
    fn domain_size(&self) -> usize {
        self.domain
    }
    fn num_queries(&self) -> usize {
        self.queries.len()
    }
    fn num_records(&self) -> usize {
        self.points.len()
    }
    fn query_vector(&self, j: usize, out: &mut [f64]) {
        out.copy_from_slice(&self.queries[j]);
    }
    fn answers(&self, histogram: &[f64], out: &mut [f64]) {
        for (o, q) in out.iter_mut().zip(&self.queries) {
            *o = q.iter().zip(histogram).map(|(a, b)| a * b).sum();
        }
    }
    fn empirical_answers(&self, out: &mut [f64]) {
        out.copy_from_slice(&self.empirical);
    }
    fn population_answers(&self) -> &[f64] {
        &self.empirical
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_game_gradients_and_gap() {
        // Two 2 x 1 payoff records: A_bar = (0, 1)^T, so x should sit on e1.
        let g = RecordGame::from_records(2, 1, 1.0, vec![vec![-1.0, 1.0], vec![1.0, 1.0]]).unwrap();
        assert_eq!(g.dims(), (2, 1));
        let (mut gx, mut gy) = (vec![0.0; 2], vec![0.0; 1]);
        let x = [0.25, 0.75];
        let (xp, yp) = (SimplexPoint::Dense(&x), SimplexPoint::Dense(&[1.0]));
        g.batch_gradient(0..2, xp, yp, &mut gx, &mut gy);
        assert_eq!(gx, vec![0.0, 1.0]);
        assert_eq!(gy, vec![0.75]);
        g.population_gradient(xp, yp, &mut gx, &mut gy);
        assert_eq!((gx[0], gx[1], gy[0]), (0.0, 1.0, 0.75));
        // Gap = max_w <A_bar^T x, w> - min_v <A_bar y, v> = 0.75 - 0.
        assert_eq!(g.duality_gap(&x, &[1.0]), 0.75);
        assert_eq!(g.duality_gap(&[1.0, 0.0], &[1.0]), 0.0);
        // A sparse point gives the dense result.
        let sparse = SimplexPoint::Sparse {
            indices: &[1],
            weights: &[1.0],
        };
        g.batch_gradient(0..1, sparse, yp, &mut gx, &mut gy);
        assert_eq!((gx[0], gx[1], gy[0]), (-1.0, 1.0, 1.0));
        assert_eq!(g.constants().l0, 1.0);
        assert!(RecordGame::from_records(2, 1, 1.0, vec![vec![2.0, 0.0]]).is_err());
        assert!(RecordGame::from_records(2, 1, 1.0, vec![vec![0.0]]).is_err());
        assert!(RecordGame::from_records(2, 1, 1.0, vec![]).is_err());
        assert!(RecordGame::from_records(2, 1, 1.0, vec![vec![f64::NAN, 0.0]]).is_err());
    }

    #[test]
    fn record_sco_gradient_and_excess() {
        let s = RecordSco::from_records(2, 1.0, vec![vec![-1.0, 1.0], vec![0.0, 0.0]]).unwrap();
        let mut g = vec![0.0; 2];
        s.batch_gradient(0..2, SimplexPoint::Dense(&[0.5, 0.5]), &mut g);
        assert_eq!(g, vec![-0.5, 0.5]);
        // min over the simplex of <(-0.5, 0.5), w> is -0.5 at e1.
        assert_eq!(s.excess_risk(&[1.0, 0.0]), 0.0);
        assert_eq!(s.excess_risk(&[0.0, 1.0]), 1.0);
        assert_eq!(s.constants().l1, 0.0);
        assert!(RecordSco::from_records(2, 1.0, vec![vec![1.5, 0.0]]).is_err());
    }

    #[test]
    fn record_queries_answers_and_negation() {
        let q = vec![vec![1.0, -1.0], vec![-1.0, 1.0]];
        let r = RecordQueries::from_records(2, q.clone(), vec![0, 0, 1, 0]).unwrap();
        let mut a = vec![0.0; 2];
        r.empirical_answers(&mut a);
        assert_eq!(a, vec![0.5, -0.5]);
        assert_eq!(r.population_answers(), &[0.5, -0.5]);
        r.answers(&[0.5, 0.5], &mut a);
        assert_eq!(a, vec![0.0, 0.0]);
        assert_eq!(r.max_error(&[1.0, 0.0]), 0.5);
        let mut v = vec![0.0; 2];
        r.query_vector(1, &mut v);
        assert_eq!(v, q[1]);
        // A class not closed under negation, a point outside the domain.
        assert!(RecordQueries::from_records(2, vec![vec![1.0, -1.0]], vec![0]).is_err());
        assert!(RecordQueries::from_records(2, q, vec![2]).is_err());
    }
}
