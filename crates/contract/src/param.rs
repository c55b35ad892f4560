//! Parameter schemas: what an entry declares for each parameter (kind, range,
//! default, role, doc), and the resolved values of one cell.

use std::collections::BTreeMap;

/// The kind and admissible range of a parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamKind {
    /// An integer `>= min`.
    Int {
        /// Smallest admissible value.
        min: i64,
    },
    /// A finite float in `(min, max)` or `[min, max]`.
    Float {
        /// Lower end.
        min: f64,
        /// Upper end.
        max: f64,
        /// Whether `min` itself is excluded.
        min_open: bool,
    },
    /// One of a fixed set of strings.
    Choice(&'static [&'static str]),
}

/// What a parameter changes, and so which random streams its value seeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamRole {
    /// It changes the generated data: it enters the data seed and the noise
    /// seed (every family parameter).
    Data,
    /// It changes the algorithm's run: it enters the noise seed (algorithm
    /// options).
    Noise,
    /// It rescales a random draw instead of changing it: left out of the
    /// noise seed, so a run with it uses exactly the draws of the calibrated
    /// run (e.g. `noise_multiplier`; adding such an option leaves every
    /// existing seed, and so every committed result, unchanged).
    DrawScaling,
    /// An algorithm option added after results were committed: it enters
    /// the noise seed and the study's identity only where its value differs
    /// from its declared default, so every study that leaves it at the
    /// default keeps its seeds, its identity and so its committed numbers
    /// (e.g. `grid_copies` of the Wang tuners; a [`ParamRole::Noise`]
    /// option added with a default would redraw every cell of its entry).
    NoiseOffDefault,
}

/// How a size parameter shrinks its family's data set: what the plan's
/// memory refusal suggests lowering first (`runner plan`, `validate::budget`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeStep {
    /// A count or a dimension (`n`, `d`): halving it halves the data.
    Halve,
    /// A base-2 exponent of one (`log2_d`, `bits`): one less halves it.
    Decrement,
}

/// One declared parameter.
#[derive(Debug, Clone, Copy)]
pub struct ParamDef {
    /// Name as written in TOML.
    pub name: &'static str,
    /// Kind and range.
    pub kind: ParamKind,
    /// Default when omitted (as TOML text); `None` means required.
    pub default: Option<&'static str>,
    /// What the value changes, which decides the seeds it enters.
    pub role: ParamRole,
    /// One-line documentation.
    pub doc: &'static str,
    /// Whether it sizes the data set, and how a smaller value is taken.
    pub size: Option<SizeStep>,
}

impl ParamDef {
    /// A required, data-defining integer `>= min`.
    pub const fn int(name: &'static str, min: i64, doc: &'static str) -> Self {
        Self {
            name,
            kind: ParamKind::Int { min },
            default: None,
            role: ParamRole::Data,
            doc,
            size: None,
        }
    }

    /// A required, data-defining float in `[min, max]` (`(min, max]` when
    /// `min_open`).
    pub const fn float(
        name: &'static str,
        (min, max, min_open): (f64, f64, bool),
        doc: &'static str,
    ) -> Self {
        Self {
            name,
            kind: ParamKind::Float { min, max, min_open },
            default: None,
            role: ParamRole::Data,
            doc,
            size: None,
        }
    }

    /// A required, data-defining float in `(0, inf]`.
    pub const fn positive(name: &'static str, doc: &'static str) -> Self {
        Self::float(name, POSITIVE, doc)
    }

    /// A required, data-defining float in `[0, 1]`.
    pub const fn unit(name: &'static str, doc: &'static str) -> Self {
        Self::float(name, (0.0, 1.0, false), doc)
    }

    /// A required, data-defining choice among `values`.
    pub const fn choice(
        name: &'static str,
        values: &'static [&'static str],
        doc: &'static str,
    ) -> Self {
        Self {
            name,
            kind: ParamKind::Choice(values),
            default: None,
            role: ParamRole::Data,
            doc,
            size: None,
        }
    }

    /// The same parameter as a count or dimension of the data set
    /// ([`SizeStep::Halve`]).
    pub const fn size(self) -> Self {
        Self {
            size: Some(SizeStep::Halve),
            ..self
        }
    }

    /// The same parameter as a base-2 exponent of a data-set size
    /// ([`SizeStep::Decrement`]).
    pub const fn log2_size(self) -> Self {
        Self {
            size: Some(SizeStep::Decrement),
            ..self
        }
    }

    /// The same parameter with a default (TOML text, e.g. `"1.0"` or
    /// `"\"tight\""`).
    pub const fn default(self, text: &'static str) -> Self {
        Self {
            default: Some(text),
            ..self
        }
    }

    /// The same parameter with a default where one is given, required
    /// otherwise.
    pub const fn maybe_default(self, default: Option<&'static str>) -> Self {
        Self { default, ..self }
    }

    /// The same parameter as an algorithm option: it changes the noise stream
    /// (and so the noise seed), not the generated data.
    pub const fn option(self) -> Self {
        Self {
            role: ParamRole::Noise,
            ..self
        }
    }

    /// The same parameter as an option added after results were committed
    /// ([`ParamRole::NoiseOffDefault`]): it needs a default.
    pub const fn late_option(self) -> Self {
        assert!(self.default.is_some(), "a late option needs a default");
        Self {
            role: ParamRole::NoiseOffDefault,
            ..self
        }
    }

    /// The same parameter as an option that rescales a draw
    /// ([`ParamRole::DrawScaling`]).
    pub const fn draw_scaling(self) -> Self {
        Self {
            role: ParamRole::DrawScaling,
            ..self
        }
    }
}

/// The range `(0, inf]` of [`ParamDef::float`].
pub const POSITIVE: (f64, f64, bool) = (0.0, f64::INFINITY, true);

/// Resolved parameter values of one cell, by name.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A number (integers are stored exactly as f64).
    Num(f64),
    /// A string choice.
    Str(String),
}

/// All resolved values of one component.
pub type Values = BTreeMap<String, Value>;

/// Reads a numeric value (validated beforehand, so absence is a programming error).
pub fn num(values: &Values, name: &str) -> f64 {
    match values.get(name) {
        Some(Value::Num(x)) => *x,
        other => panic!("parameter {name} missing or not numeric: {other:?}"),
    }
}

/// Reads a string choice (validated beforehand).
pub fn choice<'a>(values: &'a Values, name: &str) -> &'a str {
    match values.get(name) {
        Some(Value::Str(s)) => s,
        other => panic!("parameter {name} missing or not a string: {other:?}"),
    }
}
