//! The prescribed regularization `lambda` of the merely convex classes
//! (Props 2.7 and 2.8, digest §3.8).

use super::{finite, l_r, n_and_s, positive, Form, Setting};
use dpcore::{ProblemConstants, RunFailure};

/// Prop 2.7 (`G`, regularized, conceptual and Thm C.1):
/// `lambda = L / (R sqrt(1 + n/s))`; the general (non-ERM) form is
/// `L / (R sqrt(1 + 1/s))`.
pub fn lambda_prop_2_7(c: &ProblemConstants, at: &Setting, form: Form) -> Result<f64, RunFailure> {
    let ((l, r), (_, s)) = (l_r(c)?, n_and_s(at)?);
    let n = form.effective_records(at.n);
    finite("lambda (Prop 2.7)", l / (r * (1.0 + n / s).sqrt()))
}

/// Prop 2.8 (`J`, regularized, conceptual and Thm C.2):
/// `lambda = (beta L^2 / R^2)^{1/3} rho^{2/3}`; the general form uses `s`
/// in place of `rho`.
pub fn lambda_prop_2_8(c: &ProblemConstants, at: &Setting, form: Form) -> Result<f64, RunFailure> {
    let ((l, r), (_, s)) = (l_r(c)?, n_and_s(at)?);
    let beta = positive("beta", c.smoothness)?;
    let rho = s / form.effective_records(at.n);
    finite(
        "lambda (Prop 2.8)",
        (beta * l * l / (r * r)).cbrt() * rho.powf(2.0 / 3.0),
    )
}
