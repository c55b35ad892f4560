//! The RDP accountant: one accumulated RDP value per Rényi order.

use super::checks::{check_orders, check_sampling_rate, check_sigma, check_steps};
use super::{
    default_orders, delta_from_rdp, epsilon_from_rdp, poisson_gaussian_rdp_with, Conversion,
    FractionalSeries, Result,
};
use crate::relation::Neighbouring;

// Named only in doc links.
#[cfg(doc)]
use super::{gaussian_rdp, RdpError, MAX_ORDER};

/// A Rényi-DP accountant: one accumulated RDP value per order on a fixed list
/// of orders. Composing a mechanism adds its RDP curve, times the number of
/// steps, at every order (Mironov 2017, Prop. 1, which holds also for
/// adaptively chosen mechanisms); [`RdpAccountant::epsilon`] converts to
/// (eps, delta) by minimising over the orders.
///
/// The accountant is tied to one [`Neighbouring`] relation; everything it
/// reports holds for that relation only, with every noise multiplier
/// interpreted relative to the sensitivity under that relation (see the
/// [module documentation](crate::rdp)).
#[derive(Debug, Clone, PartialEq)]
pub struct RdpAccountant {
    orders: Vec<f64>,
    rdp: Vec<f64>,
    relation: Neighbouring,
    series: FractionalSeries,
}

impl RdpAccountant {
    /// An empty accountant (RDP 0 at every order) on [`default_orders`], with
    /// [`FractionalSeries::AbsoluteTerms`] — the `dp_accounting` 0.6.0 setup.
    pub fn new(relation: Neighbouring) -> Self {
        let orders = default_orders();
        let rdp = vec![0.0; orders.len()];
        Self {
            orders,
            rdp,
            relation,
            series: FractionalSeries::default(),
        }
    }

    /// An empty accountant on the given orders (each finite, `> 1` and at
    /// most [`MAX_ORDER`]).
    pub fn with_orders(orders: Vec<f64>, relation: Neighbouring) -> Result<Self> {
        check_orders(&orders)?;
        let rdp = vec![0.0; orders.len()];
        Ok(Self {
            orders,
            rdp,
            relation,
            series: FractionalSeries::default(),
        })
    }

    /// The neighbouring relation every result of this accountant holds for.
    pub fn relation(&self) -> Neighbouring {
        self.relation
    }

    /// The series used at fractional orders.
    pub fn fractional_series(&self) -> FractionalSeries {
        self.series
    }

    /// The Rényi orders.
    pub fn orders(&self) -> &[f64] {
        &self.orders
    }

    /// The accumulated RDP at each order (`+inf` where a step's fractional
    /// series did not converge).
    pub fn rdp(&self) -> &[f64] {
        &self.rdp
    }

    /// Composes `steps` releases of the Gaussian mechanism with noise
    /// multiplier `sigma` ([`gaussian_rdp`]); holds under the accountant's
    /// relation with `sigma` relative to the sensitivity under it.
    pub fn compose_gaussian(&mut self, sigma: f64, steps: u64) -> Result<&mut Self> {
        check_sigma(sigma)?;
        check_steps(steps)?;
        let n = steps as f64;
        for (acc, &alpha) in self.rdp.iter_mut().zip(&self.orders) {
            *acc += n * (alpha / (2.0 * sigma * sigma));
        }
        Ok(self)
    }

    /// Composes `steps` steps of the Poisson-subsampled Gaussian mechanism
    /// ([`poisson_gaussian_rdp_with`], with this accountant's fractional
    /// series). Add/remove; under replace-one only `q = 1` and `q = 0` are
    /// accepted ([`RdpError::UnsupportedRelation`] otherwise). On error the
    /// accountant is unchanged.
    pub fn compose_poisson_gaussian(
        &mut self,
        q: f64,
        sigma: f64,
        steps: u64,
    ) -> Result<&mut Self> {
        check_sampling_rate(q)?;
        check_sigma(sigma)?;
        check_steps(steps)?;
        let per_step = self
            .orders
            .iter()
            .map(|&alpha| poisson_gaussian_rdp_with(q, sigma, alpha, self.relation, self.series))
            .collect::<Result<Vec<f64>>>()?;
        let n = steps as f64;
        for (acc, r) in self.rdp.iter_mut().zip(per_step) {
            *acc += n * r;
        }
        Ok(self)
    }

    /// eps of the composition at `delta`, by [`Conversion::Tight`].
    pub fn epsilon(&self, delta: f64) -> Result<f64> {
        Ok(self.epsilon_and_order(delta, Conversion::Tight)?.0)
    }

    /// eps of the composition at `delta` and the optimal order, by `conversion`
    /// ([`epsilon_from_rdp`]).
    pub fn epsilon_and_order(&self, delta: f64, conversion: Conversion) -> Result<(f64, f64)> {
        epsilon_from_rdp(&self.orders, &self.rdp, delta, conversion)
    }

    /// delta of the composition at `eps`, by [`Conversion::Tight`].
    pub fn delta(&self, eps: f64) -> Result<f64> {
        Ok(self.delta_and_order(eps, Conversion::Tight)?.0)
    }

    /// delta of the composition at `eps` and the optimal order, by
    /// `conversion` ([`delta_from_rdp`]).
    pub fn delta_and_order(&self, eps: f64, conversion: Conversion) -> Result<(f64, f64)> {
        delta_from_rdp(&self.orders, &self.rdp, eps, conversion)
    }
}

/// eps at `delta` of `steps` steps of the Poisson-subsampled Gaussian
/// mechanism (rate `q`, noise multiplier `sigma`): a fresh
/// [`RdpAccountant::new`] (default orders, `dp_accounting`-compatible
/// fractional series) and [`Conversion::Tight`]. Neighbouring relation as in
/// [`poisson_gaussian_rdp_with`]: add/remove, or replace-one with `q = 1`.
pub fn poisson_gaussian_epsilon(
    q: f64,
    sigma: f64,
    steps: u64,
    delta: f64,
    relation: Neighbouring,
) -> Result<f64> {
    RdpAccountant::new(relation)
        .compose_poisson_gaussian(q, sigma, steps)?
        .epsilon(delta)
}
