//! Typed options: an entry declares its options once, as a struct whose
//! fields are the options ([`options!`](crate::options)) and whose choices are enums
//! ([`choices!`](crate::choices)); the schema the spec validator checks ([`Options::PARAMS`])
//! and the typed value a run reads ([`Options::read`]) come from that one
//! declaration, so a renamed option or a new choice is a compile error or a
//! missing match arm, never a silent default.
//!
//! Modelled on ripgrep's flags (`crates/core/flags/defs.rs`), where a flag is
//! converted to its typed value once, beside its declaration.

use dpcore::RunFailure;

use crate::{Value, Values};

/// A type an option's resolved [`Value`] converts to.
pub trait FromValue: Sized {
    /// The typed value, `None` when `value` is of another kind.
    fn from_value(value: &Value) -> Option<Self>;
}

impl FromValue for f64 {
    fn from_value(value: &Value) -> Option<Self> {
        match value {
            Value::Num(x) => Some(*x),
            Value::Str(_) => None,
        }
    }
}

impl FromValue for u64 {
    fn from_value(value: &Value) -> Option<Self> {
        // Integer parameters are validated integral and >= their minimum;
        // 2^53 bounds the integers an f64 holds exactly.
        match value {
            Value::Num(x) if x.fract() == 0.0 && (0.0..=9.007_199_254_740_992e15).contains(x) => {
                Some(*x as u64)
            }
            _ => None,
        }
    }
}

impl FromValue for usize {
    fn from_value(value: &Value) -> Option<Self> {
        u64::from_value(value).and_then(|x| usize::try_from(x).ok())
    }
}

/// A closed set of named variants, as written in TOML ([`choices!`](crate::choices)).
pub trait Choice: Copy + 'static {
    /// The names, in declaration order (the [`crate::ParamKind::Choice`] list).
    const NAMES: &'static [&'static str];
    /// The variant named `name`.
    fn from_name(name: &str) -> Option<Self>;
    /// The variant's name.
    fn name(self) -> &'static str;
}

/// Reads value `name` of `values` as a `T`: an invalid-parameter failure when
/// it is absent or of another kind (the spec validator rules both out, so one
/// here is an entry whose declaration and reading disagree).
pub fn read<T: FromValue>(values: &Values, name: &str) -> Result<T, RunFailure> {
    values.get(name).and_then(T::from_value).ok_or_else(|| {
        RunFailure::InvalidParameters(format!(
            "parameter `{name}` is missing or of another kind: {:?}",
            values.get(name)
        ))
    })
}

/// A struct of typed options declared with [`options!`](crate::options).
pub trait Options: Sized {
    /// The declared options, in field order: the schema of
    /// [`crate::AlgorithmDef::options`].
    const PARAMS: &'static [crate::ParamDef];
    /// The typed options of resolved `values`.
    fn read(values: &Values) -> Result<Self, RunFailure>;
}

/// Whether two strings are equal, in a const context (the compile-time check
/// of [`options!`](crate::options) that a field and its declared parameter share a name).
pub const fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Declares a closed set of choices as an enum with its TOML names:
///
/// ```
/// contract::choices! {
///     /// Which calibration.
///     pub enum Calibration { Corrected = "corrected", Paper = "paper" }
/// }
/// assert_eq!(<Calibration as contract::Choice>::NAMES, &["corrected", "paper"]);
/// ```
///
/// The enum is `Copy + Eq + Debug`; its [`Choice::NAMES`] is what a
/// [`crate::ParamDef::choice`] lists, and it reads as a [`FromValue`].
#[macro_export]
macro_rules! choices {
    ($(#[$meta:meta])* $vis:vis enum $name:ident {
        $($(#[$vmeta:meta])* $variant:ident = $text:literal),+ $(,)?
    }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        $vis enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            /// The names as written in TOML, in declaration order.
            pub const NAMES: &'static [&'static str] = &[$($text),+];
        }

        impl $crate::Choice for $name {
            const NAMES: &'static [&'static str] = &[$($text),+];
            fn from_name(name: &str) -> Option<Self> {
                $(if name == $text {
                    return Some(Self::$variant);
                })+
                None
            }
            fn name(self) -> &'static str {
                match self {
                    $(Self::$variant => $text),+
                }
            }
        }

        impl $crate::FromValue for $name {
            fn from_value(value: &$crate::Value) -> Option<Self> {
                match value {
                    $crate::Value::Str(s) => <Self as $crate::Choice>::from_name(s),
                    $crate::Value::Num(_) => None,
                }
            }
        }
    };
}

/// Declares an entry's options once, as a struct of typed fields each with
/// its [`crate::ParamDef`]:
///
/// ```
/// use contract::{ParamDef, Options};
/// contract::options! {
///     /// Options of an example entry.
///     pub struct ExampleOptions {
///         /// Steps.
///         pub steps: u64 = ParamDef::int("steps", 1, "number of steps").default("10").option(),
///     }
/// }
/// assert_eq!(ExampleOptions::PARAMS[0].name, "steps");
/// ```
///
/// It implements [`Options`]: `PARAMS` lists the declarations in field order
/// (what the entry's `with_options` takes) and `read` builds the struct from
/// resolved values. A declaration whose name differs from its field's fails
/// to compile.
#[macro_export]
macro_rules! options {
    ($(#[$meta:meta])* $vis:vis struct $name:ident {
        $($(#[$fmeta:meta])* $fvis:vis $field:ident : $ty:ty = $def:expr),* $(,)?
    }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq)]
        $vis struct $name {
            $($(#[$fmeta])* $fvis $field: $ty),*
        }

        impl $crate::Options for $name {
            const PARAMS: &'static [$crate::ParamDef] = &[$($def),*];
            fn read(values: &$crate::Values) -> Result<Self, $crate::RunFailure> {
                Ok(Self {
                    $($field: $crate::read::<$ty>(values, stringify!($field))?),*
                })
            }
        }

        const _: () = {
            let params = <$name as $crate::Options>::PARAMS;
            let fields: &[&str] = &[$(stringify!($field)),*];
            let mut i = 0;
            while i < fields.len() {
                assert!(
                    $crate::same_name(params[i].name, fields[i]),
                    concat!("an option of ", stringify!($name), " is declared under another name than its field")
                );
                i += 1;
            }
        };
    };
}
