//! [`LossPmf`]: a privacy-loss distribution on the grid `h Z` (plus a mass at
//! `+inf`), its pessimistic construction from a pair with monotone loss
//! ("connect the dots"), composition, and the conversions `delta(eps)` and
//! `eps(delta)`.

use super::fft::convolve;
use super::gauss_legendre::{GL_NODES, GL_WEIGHTS};
use super::pairs::MonotonePair;
use super::{PldError, Result, MAX_BINS, TAIL_MASS};

/// A discrete privacy-loss distribution for one ordered pair `(P, Q)`: the
/// `P`-mass `mass[i]` sits at loss `(offset + i) h`, and `infinity` at loss
/// `+inf` (outputs `Q` cannot produce, or truncated tails). Its privacy
/// profile is
///
/// `delta(eps) = infinity + sum_i mass[i] (1 - e^{eps - l_i})_+`,
///
/// which, for the distributions built here, is never below the exact
/// profile of the pair it stands for (see the [module
/// documentation](crate::pld)).
#[derive(Debug, Clone, PartialEq)]
pub struct LossPmf {
    h: f64,
    offset: i64,
    mass: Vec<f64>,
    infinity: f64,
}

impl LossPmf {
    /// The distribution of no release: loss 0 with probability 1.
    pub(crate) fn identity(h: f64) -> Self {
        Self {
            h,
            offset: 0,
            mass: vec![1.0],
            infinity: 0.0,
        }
    }

    /// The distribution with `mass[i]` at loss `(offset + i) h` and
    /// `infinity` at `+inf`, as given (no truncation).
    pub(crate) fn from_parts(h: f64, offset: i64, mass: Vec<f64>, infinity: f64) -> Self {
        Self {
            h,
            offset,
            mass,
            infinity,
        }
    }

    /// Grid width `h`.
    pub fn grid(&self) -> f64 {
        self.h
    }

    /// The losses `l_i` and masses of the finite part.
    pub fn points(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        self.mass
            .iter()
            .enumerate()
            .map(|(i, &m)| ((self.offset + i as i64) as f64 * self.h, m))
    }

    /// Number of grid points of the finite part.
    pub fn len(&self) -> usize {
        self.mass.len()
    }

    /// Whether the finite part is empty (never, for a built distribution).
    pub fn is_empty(&self) -> bool {
        self.mass.is_empty()
    }

    /// The connect-the-dots discretisation of `pair` on the grid `h Z`
    /// (Doroshenko et al. 2022): each bit of `P`-mass at a loss `L` between
    /// grid points `l_j <= L <= l_j + h` is split between them with weights
    /// `(e^{h-u} - 1)/(e^h - 1)` (down) and `(1 - e^{-u})/(1 - e^{-h})` (up),
    /// `u = L - l_j`, which keeps both its `P`-mass and its `Q`-mass
    /// `e^{-L}`. The pair is then a post-processing (merging) of the
    /// discrete one, so the discrete profile dominates the exact one at every
    /// `eps` and equals it at every grid point; the masses are integrated
    /// cell by cell with 5-point Gauss–Legendre quadrature in `y`.
    pub(crate) fn connect_the_dots(pair: &dyn MonotonePair, h: f64) -> Result<Self> {
        let (y_lo, y_hi) = pair.support();
        let (above_top, below_bottom) = pair.tails();
        let atoms = pair.atoms();
        let (l_top, l_bottom) = (pair.loss(y_lo), pair.loss(y_hi));
        let l_max = atoms.iter().map(|a| a.0).fold(l_top, f64::max);
        let l_min = atoms.iter().map(|a| a.0).fold(l_bottom, f64::min);
        if !(l_max.is_finite() && l_min.is_finite()) {
            return Err(PldError::NonFiniteLoss);
        }
        let j0 = (l_min / h).floor() as i64;
        let j1 = (l_max / h).floor() as i64 + 1;
        let bins = (j1 - j0 + 1) as usize;
        if bins > MAX_BINS {
            return Err(PldError::GridTooFine { bins });
        }
        let mut mass = vec![0.0; bins];
        let grid = |j: i64| j as f64 * h;
        let down_weight = |u: f64| (h - u).exp_m1() / h.exp_m1();
        let split = |mass: &mut Vec<f64>, loss: f64, m: f64| {
            let j = ((loss / h).floor() as i64).clamp(j0, j1 - 1);
            let u = (loss - grid(j)).clamp(0.0, h);
            let down = down_weight(u);
            mass[(j - j0) as usize] += m * down;
            mass[(j - j0 + 1) as usize] += m * (1.0 - down);
        };
        // The continuous part, cell by cell: cell j holds the losses in
        // [l_j, l_j + h], i.e. the outputs y in [L^{-1}(l_j + h), L^{-1}(l_j)].
        let boundary = |j: i64| pair.inverse_loss(grid(j)).clamp(y_lo, y_hi);
        let piece = 0.25 * pair.scale();
        let mut right = boundary(j0);
        for j in j0..j1 {
            let left = boundary(j + 1);
            if left < right {
                let pieces = ((right - left) / piece).ceil().max(1.0);
                let width = (right - left) / pieces;
                let (mut down, mut up) = (0.0, 0.0);
                for k in 0..pieces as usize {
                    let mid = left + (k as f64 + 0.5) * width;
                    for (x, w) in GL_NODES.iter().zip(GL_WEIGHTS) {
                        let y = mid + 0.5 * width * x;
                        let m = 0.5 * width * w * pair.density(y);
                        let u = (pair.loss(y) - grid(j)).clamp(0.0, h);
                        let d = down_weight(u);
                        down += m * d;
                        up += m * (1.0 - d);
                    }
                }
                mass[(j - j0) as usize] += down;
                mass[(j - j0 + 1) as usize] += up;
            }
            right = left;
        }
        for (loss, m) in atoms {
            split(&mut mass, loss, m);
        }
        // Outputs beyond the support: the low-loss tail rounds up to the first
        // grid point at or above the lowest loss integrated; the high-loss
        // tail goes to +inf.
        let first_above = ((l_bottom / h).ceil() as i64).clamp(j0, j1);
        mass[(first_above - j0) as usize] += below_bottom;
        Ok(Self {
            h,
            offset: j0,
            mass,
            infinity: above_top,
        }
        .truncated(TAIL_MASS))
    }

    /// Drops the tails of the finite part whose mass is at most `tail` each,
    /// pessimistically: the upper tail to `+inf`, the lower tail onto the
    /// lowest grid point kept (a higher loss). `tail = 0` trims zeros only.
    fn truncated(mut self, tail: f64) -> Self {
        let mut top = self.mass.len();
        let mut removed = 0.0;
        while top > 1 && removed + self.mass[top - 1] <= tail {
            removed += self.mass[top - 1];
            top -= 1;
        }
        self.mass.truncate(top);
        self.infinity += removed;
        let mut bottom = 0;
        let mut moved = 0.0;
        while bottom + 1 < self.mass.len() && moved + self.mass[bottom] <= tail {
            moved += self.mass[bottom];
            bottom += 1;
        }
        self.mass.drain(..bottom);
        self.mass[0] += moved;
        self.offset += bottom as i64;
        self
    }

    /// The distribution of the sum of the losses of `self` and `other`
    /// (independent releases, each ordered the same way), by convolution,
    /// then [`TAIL_MASS`] truncated from each tail (pessimistically).
    ///
    /// # Panics
    /// If the grids differ.
    pub fn compose(&self, other: &Self) -> Self {
        assert_eq!(self.h, other.h, "composing PLDs on different grids");
        let mass = convolve(&self.mass, &other.mass);
        let infinity = self.infinity + other.infinity - self.infinity * other.infinity;
        Self {
            h: self.h,
            offset: self.offset + other.offset,
            mass,
            infinity: infinity.min(1.0),
        }
        .truncated(TAIL_MASS)
    }

    /// `self` composed with itself `k` times (`k = 0`: the identity), by
    /// repeated squaring: about `2 log2 k` convolutions.
    pub fn self_compose(&self, k: u64) -> Self {
        let mut result = Self::identity(self.h);
        let mut base = self.clone();
        let mut k = k;
        while k > 0 {
            if k & 1 == 1 {
                result = result.compose(&base);
            }
            k >>= 1;
            if k > 0 {
                base = base.compose(&base);
            }
        }
        result
    }

    /// `delta(eps) = infinity + sum_{l_i > eps} mass[i] (1 - e^{eps - l_i})`
    /// (a sum of non-negative terms), at most 1.
    pub fn delta(&self, eps: f64) -> f64 {
        let mut delta = self.infinity;
        for (i, &m) in self.mass.iter().enumerate().rev() {
            let l = (self.offset + i as i64) as f64 * self.h;
            if l <= eps {
                break;
            }
            delta += m * -(eps - l).exp_m1();
        }
        delta.min(1.0)
    }

    /// The smallest `eps >= 0` with `delta(eps) <= delta` (`+inf` if the mass
    /// at `+inf` alone exceeds `delta`). Between grid points the profile is
    /// `A - e^eps B`, so the root is solved in closed form there after a scan
    /// from the top that carries, at grid point `l_i`,
    /// `D_i = sum_{k > i} m_k (1 - e^{-(k-i)h})` (so `delta(l_i) = infinity + D_i`)
    /// and `E_i = sum_{k > i} m_k e^{-(k-i)h}` by recurrences of non-negative
    /// terms only.
    pub fn epsilon(&self, delta: f64) -> f64 {
        if self.infinity >= delta {
            return f64::INFINITY;
        }
        if self.delta(0.0) <= delta {
            return 0.0;
        }
        let h = self.h;
        let (shrink, gain) = ((-h).exp(), -(-h).exp_m1());
        let (mut above, mut d, mut e) = (0.0, 0.0, 0.0);
        for i in (0..self.mass.len()).rev() {
            // Here above = sum_{k > i} m_k, d = D_i, e = E_i.
            let excess = self.infinity + d - delta;
            if excess > 0.0 {
                let l = (self.offset + i as i64) as f64 * h;
                return (l + (excess / e).ln_1p()).max(0.0);
            }
            let m = self.mass[i];
            above += m;
            d = gain * above + shrink * d;
            e = shrink * (e + m);
        }
        // delta(0) > delta >= delta(l_0): the root lies below the first grid
        // point, where the same formula holds with i = -1.
        let l = (self.offset - 1) as f64 * h;
        (l + ((self.infinity + d - delta) / e).ln_1p()).max(0.0)
    }
}
