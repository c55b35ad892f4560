//! Small `dpcore::Objective` families with exact perturbed minimizers, for
//! the objective-perturbation tests (the datagen families are written
//! elsewhere): the linear loss on the ball (digest E1, "LinBall") and least
//! squares on the ball (digest E2-LS).

#![allow(dead_code, unused_imports, clippy::needless_range_loop)]

mod least_squares;
mod linear;

pub use least_squares::LeastSquaresBall;
pub use linear::LinearBall;

pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

pub fn norm(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}

pub fn project(w: &mut [f64], radius: f64) {
    let nrm = norm(w);
    if nrm > radius {
        w.iter_mut().for_each(|v| *v *= radius / nrm);
    }
}
