//! Precise, user-facing errors for experiment files: `file:line:column`, a message and a hint.

use std::fmt;
use std::path::Path;

use toml_edit::{Document, Item};

/// A problem with an experiment file, found before anything runs (exit code 2).
#[derive(Debug, Clone, PartialEq)]
pub struct SpecError {
    /// `file:line:column` (or just the file when no position is known).
    pub location: String,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub hint: String,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: error: {}\n  hint: {}",
            self.location, self.message, self.hint
        )
    }
}

impl std::error::Error for SpecError {}

/// Parses a spec file's `text` into `T` (serde + toml): a shape error (TOML
/// syntax, unknown key, missing key, wrong type, unknown variant) at its
/// `file:line:column`, with the hint `hint_for` gives its message.
pub fn parse_toml<T: serde::de::DeserializeOwned>(
    path: &Path,
    text: &str,
    hint_for: fn(&str) -> String,
) -> Result<T, SpecError> {
    toml::from_str::<T>(text).map_err(|e| {
        let location = match e.span() {
            Some(span) => SpecLocator::new(path, text).at_offset(span.start),
            None => path.display().to_string(),
        };
        let message = e.message().trim().to_string();
        SpecError {
            location,
            hint: hint_for(&message),
            message,
        }
    })
}

/// One step of a path into a TOML document.
#[derive(Debug, Clone, PartialEq)]
pub enum PathSeg {
    /// A table key.
    Key(String),
    /// An index into an array (or array of tables).
    Index(usize),
}

/// Builds a path (an array of [`PathSeg`]) from string keys and indices:
/// `toml_path!["studies", 0, "privacy", "eps"]`.
#[macro_export]
macro_rules! toml_path {
    ($($seg:expr),* $(,)?) => {
        [$($crate::diagnostics::IntoSeg::into_seg($seg)),*]
    };
}

/// Conversion into a [`PathSeg`].
pub trait IntoSeg {
    /// Converts.
    fn into_seg(self) -> PathSeg;
}

impl IntoSeg for &str {
    fn into_seg(self) -> PathSeg {
        PathSeg::Key(self.to_string())
    }
}

impl IntoSeg for &String {
    fn into_seg(self) -> PathSeg {
        PathSeg::Key(self.clone())
    }
}

impl IntoSeg for String {
    fn into_seg(self) -> PathSeg {
        PathSeg::Key(self)
    }
}

impl IntoSeg for usize {
    fn into_seg(self) -> PathSeg {
        PathSeg::Index(self)
    }
}

/// Maps byte offsets and key paths of a spec file to `file:line:column`.
pub struct SpecLocator<'a> {
    path: &'a Path,
    text: &'a str,
    doc: Option<Document<&'a str>>,
}

impl<'a> SpecLocator<'a> {
    /// The spec file's path (a Python entry's file is relative to its directory).
    pub fn path(&self) -> &'a Path {
        self.path
    }

    /// A locator over `text`, read from `path`.
    pub fn new(path: &'a Path, text: &'a str) -> Self {
        Self {
            path,
            text,
            doc: Document::parse(text).ok(),
        }
    }

    /// `file:line:column` of a byte offset (both 1-based).
    pub fn at_offset(&self, offset: usize) -> String {
        let offset = offset.min(self.text.len());
        let before = &self.text[..offset];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        format!("{}:{line}:{column}", self.path.display())
    }

    /// `file:line:column` of the deepest item of `path` that exists in the file.
    pub fn at_path(&self, path: &[PathSeg]) -> String {
        match self.span_of(path) {
            Some(offset) => self.at_offset(offset),
            None => self.path.display().to_string(),
        }
    }

    /// An error located at `path`.
    pub fn error(
        &self,
        path: &[PathSeg],
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> SpecError {
        SpecError {
            location: self.at_path(path),
            message: message.into(),
            hint: hint.into(),
        }
    }

    /// A resolver's error ([`crate::registry::ResolveError`]) about a key of
    /// the table written at `table`: located at the key, or at the table when
    /// the error is about the table as a whole (a required key missing).
    pub fn unresolved(&self, table: &[PathSeg], e: crate::registry::ResolveError) -> SpecError {
        let mut path = table.to_vec();
        path.extend(e.key.map(PathSeg::Key));
        self.error(&path, e.message, e.hint)
    }

    fn span_of(&self, path: &[PathSeg]) -> Option<usize> {
        let doc = self.doc.as_ref()?;
        let mut best = None;
        let mut item: &Item = doc.as_item();
        for seg in path {
            let next = match seg {
                PathSeg::Key(k) => item.get(k.as_str()).map(|child| {
                    let key_span = item
                        .as_table_like()
                        .and_then(|t| t.get_key_value(k))
                        .and_then(|(key, _)| key.span());
                    (child, key_span)
                }),
                PathSeg::Index(i) => item.get(*i).map(|child| (child, None)),
            };
            let Some((child, key_span)) = next else { break };
            // Prefer the key's position (`eps = -1` points at `eps`), else the value's.
            if let Some(start) = key_span.map(|s| s.start).or(child.span().map(|s| s.start)) {
                best = Some(start);
            }
            item = child;
        }
        best
    }
}
