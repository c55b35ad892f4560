//! Option schemas shared by the González–Guzmán–Paquette saddle algorithms
//! (the regime of Alg. 1, the corrected or printed release count, and the
//! absolute constants of the schedules).

use contract::ParamDef;

/// The `release_count` option: corrected (default) or printed privacy cap.
pub(super) const RELEASE_COUNT: ParamDef = ParamDef::choice(
    "release_count",
    &["corrected", "paper"],
    "privacy cap: \"corrected\" counts both players' releases (Alg 1: 2T(K+1); Alg 3: per-vertex constant 20); \
          \"paper\" is the printed Prop 4.1 / Prop E.1 (T(K+1); 9), whose realised eps may exceed the target",
)
.default("\"corrected\"")
.option();

/// The `regime` option of Alg. 1 (digest §3.1 table).
pub(super) const REGIME: ParamDef = ParamDef::choice(
    "regime",
    &["quadratic", "second_order", "first_order"],
    "schedule: Thm 4.1 with L2 = 0 (K = 1), Thm 4.1 second-order (K = sqrt(T/l)), Thm 4.2 first-order (K = T/l)",
)
.default("\"quadratic\"")
.option();
