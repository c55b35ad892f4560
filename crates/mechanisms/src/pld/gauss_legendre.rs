//! The 5-point Gauss–Legendre rule on `[-1, 1]` (exact for polynomials of
//! degree 9), which both discretisations integrate output masses with.

/// Nodes.
pub(super) const GL_NODES: [f64; 5] = [
    -0.906_179_845_938_664,
    -0.538_469_310_105_683,
    0.0,
    0.538_469_310_105_683,
    0.906_179_845_938_664,
];

/// Weights.
pub(super) const GL_WEIGHTS: [f64; 5] = [
    0.236_926_885_056_189_1,
    0.478_628_670_499_366_5,
    0.568_888_888_888_888_9,
    0.478_628_670_499_366_5,
    0.236_926_885_056_189_1,
];
