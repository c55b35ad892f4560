//! Samplers for the additive noise of output perturbation.
//!
//! All samplers are generic over any `rand::Rng` so that callers control
//! seeding. They use ordinary floating-point sampling: the harness measures
//! utility and is not hardened against floating-point attacks on DP
//! (Mironov 2012; Lowy–Razaviyayn digest §9, "Pure-DP noise").

use rand::Rng;
use rand_distr::{Distribution, Gamma, StandardNormal};

/// Draws `r ~ Gamma(shape = dim, scale)`, density
/// `r^(dim-1) exp(-r/scale) / (Gamma(dim) scale^dim)` on `r > 0`.
///
/// This is the radius of the l2-norm "Laplace" noise of Lowy–Razaviyayn
/// Eq. (4) (digest §2.1) with `scale = Delta/eps`. Moments: mean `dim*scale`,
/// variance `dim*scale^2`. Uses `rand_distr::Gamma::new(shape, scale)`
/// (Marsaglia–Tsang, exact for every shape >= 1); note that rand_distr takes a
/// *scale* whereas statrs takes a *rate* (digest §9, "Gamma sampling").
///
/// `scale == 0` returns `0` (the degenerate, noiseless limit).
///
/// # Panics
/// If `dim == 0` or `scale` is negative or not finite.
pub fn gamma_radius<R: Rng + ?Sized>(dim: usize, scale: f64, rng: &mut R) -> f64 {
    assert!(dim >= 1, "gamma_radius: dim must be >= 1");
    assert!(
        scale.is_finite() && scale >= 0.0,
        "gamma_radius: scale must be finite and >= 0, got {scale}"
    );
    if scale == 0.0 {
        return 0.0;
    }
    let gamma = Gamma::new(dim as f64, scale).expect("shape >= 1 and scale > 0 are valid");
    gamma.sample(rng)
}

/// Draws a direction uniformly from the unit sphere `S^(dim-1)` of `R^dim`.
///
/// Method: `u = g / ||g||_2` with `g ~ N(0, I_dim)`; the standard Gaussian is
/// rotation invariant, so `u` is uniform (Muller 1959; digest §2.1). A zero
/// norm has probability zero but is redrawn rather than divided by.
///
/// # Panics
/// If `dim == 0`.
pub fn uniform_direction<R: Rng + ?Sized>(dim: usize, rng: &mut R) -> Vec<f64> {
    assert!(dim >= 1, "uniform_direction: dim must be >= 1");
    loop {
        let g: Vec<f64> = (0..dim).map(|_| StandardNormal.sample(rng)).collect();
        let norm = g.iter().map(|x| x * x).sum::<f64>().sqrt();
        if norm > 0.0 && norm.is_finite() {
            return g.into_iter().map(|x| x / norm).collect();
        }
    }
}

/// Draws `z` in `R^dim` with density proportional to `exp(-||z||_2 / scale)`.
///
/// This is the pure-DP noise of Lowy–Razaviyayn Eq. (4) with
/// `scale = Delta/eps` (Prop 2.1; digest §2.1): `z = r u` with
/// `r ~ Gamma(dim, scale)` ([`gamma_radius`]) and `u` uniform on the sphere
/// ([`uniform_direction`]). It is **not** coordinate-wise Laplace noise.
/// Moments (Lemma B.3): `E||z|| = dim*scale`, `E||z||^2 = dim(dim+1) scale^2`.
///
/// # Panics
/// If `dim == 0` or `scale` is negative or not finite.
pub fn l2_laplace<R: Rng + ?Sized>(dim: usize, scale: f64, rng: &mut R) -> Vec<f64> {
    let r = gamma_radius(dim, scale, rng);
    let mut u = uniform_direction(dim, rng);
    for x in &mut u {
        *x *= r;
    }
    u
}

/// Draws `z ~ N(0, sigma^2 I_dim)`.
///
/// This is the (eps, delta)-DP noise of Lowy–Razaviyayn Eq. (5) when
/// `sigma` comes from [`crate::calibration::zwb_gaussian_sigma`].
/// `E||z||^2 = dim * sigma^2`.
///
/// # Panics
/// If `sigma` is negative or not finite.
pub fn gaussian<R: Rng + ?Sized>(dim: usize, sigma: f64, rng: &mut R) -> Vec<f64> {
    assert!(
        sigma.is_finite() && sigma >= 0.0,
        "gaussian: sigma must be finite and >= 0, got {sigma}"
    );
    (0..dim)
        .map(|_| {
            let g: f64 = StandardNormal.sample(rng);
            sigma * g
        })
        .collect()
}

/// Draws `z` in `R^dim` with i.i.d. Laplace coordinates, density
/// `prod_i exp(-|z_i| / scale) / (2 scale)`.
///
/// This is the classical pure-DP noise for a function of **L1** sensitivity
/// `Delta_1`: with `scale = Delta_1 / eps` the release is eps-DP (Dwork,
/// McSherry, Nissim & Smith 2006; Dwork & Roth 2014, Thm 3.6). It is **not**
/// the l2-norm noise of [`l2_laplace`], whose density depends on `||z||_2`.
///
/// Method: `z_i = s_i E_i` with a fair random sign `s_i` and
/// `E_i ~ Exp(mean = scale)` (`rand_distr::Exp1`, ziggurat, exact up to
/// floating point): the Laplace law is the symmetrised exponential, since
/// `P(|z_i| > t) = exp(-t/scale)` and the sign is independent of `|z_i|`.
/// Moments: `E z_i = 0`, `E|z_i| = scale`, `Var z_i = 2 scale^2`.
///
/// `scale == 0` returns zeros (the degenerate, noiseless limit).
///
/// # Panics
/// If `scale` is negative or not finite.
pub fn laplace<R: Rng + ?Sized>(dim: usize, scale: f64, rng: &mut R) -> Vec<f64> {
    assert!(
        scale.is_finite() && scale >= 0.0,
        "laplace: scale must be finite and >= 0, got {scale}"
    );
    (0..dim)
        .map(|_| {
            let e: f64 = rand_distr::Exp1.sample(rng);
            let magnitude = scale * e;
            if rng.next_u32() & 1 == 0 {
                magnitude
            } else {
                -magnitude
            }
        })
        .collect()
}
