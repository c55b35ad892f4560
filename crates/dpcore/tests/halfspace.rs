//! Tests of the halfspace vocabulary (Wang–Zhu–Wang digest §1, P9).

use dpcore::halfspace::{zero_one_error, HalfspaceProblem, LabelledSample};

#[test]
fn ties_count_as_errors() {
    let x = [1.0, 0.0, 0.0, 1.0, -1.0, 1.0];
    let y = [1.0, -1.0, 1.0];
    // w = e_1: margins 1, 0 (tie), -1.
    assert_eq!(zero_one_error(&x, &y, &[1.0, 0.0]), 2.0 / 3.0);
    // The zero vector is wrong everywhere (the paper's strict < would say 0).
    assert_eq!(zero_one_error(&x, &y, &[0.0, 0.0]), 1.0);
    // w = -e_2: margins 0 (tie), 1, -1.
    assert_eq!(zero_one_error(&x, &y, &[0.0, -1.0]), 2.0 / 3.0);
}

#[test]
fn labelled_sample_normalises_rows_and_validates() {
    let s = LabelledSample::normalized(2, vec![3.0, 4.0, 0.0, -2.0], vec![1.0, -1.0]).unwrap();
    assert_eq!(s.features(), &[0.6, 0.8, 0.0, -1.0]);
    assert_eq!((s.dim(), s.num_records(), s.outlier_count()), (2, 2, 0));
    assert_eq!(s.true_margin(), None);
    assert!(s.population_error(&[1.0, 0.0]).is_none());
    // w = e_1: margins 0.6 and 0 (a tie).
    assert_eq!(s.zero_one_error(&[1.0, 0.0]), 0.5);
    assert!(LabelledSample::normalized(2, vec![0.0, 0.0], vec![1.0]).is_err());
    assert!(LabelledSample::normalized(2, vec![1.0, 0.0], vec![0.5]).is_err());
    assert!(LabelledSample::normalized(2, vec![1.0, 0.0, 1.0], vec![1.0]).is_err());
    assert!(LabelledSample::normalized(2, vec![f64::NAN, 0.0], vec![1.0]).is_err());
}
