//! `extends` (a farther window of a nearer study's instance): the target
//! exists, in this file or in one beside it (`file.toml:name`), runs the
//! same algorithm on the same family, and following `extends` from any
//! study ends.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::diagnostics::{SpecError, SpecLocator};
use crate::spec::{ExperimentSpec, ExtendsTarget};
use crate::toml_path;

use super::join;

/// What the check reads of an extended study.
struct Target {
    family: String,
    algorithm: String,
    /// Its own `extends`, resolved to (file, study).
    extends: Option<(PathBuf, String)>,
}

/// The studies `extends` can name: this file's, and those of the files
/// beside it, each read once.
struct Files<'a> {
    home: &'a Path,
    spec: &'a ExperimentSpec,
    others: BTreeMap<PathBuf, Result<ExperimentSpec, String>>,
}

impl Files<'_> {
    /// The study `name` of the file at `file`: `Ok(None)` when the file has
    /// none, `Err` when the file cannot be read.
    fn study(&mut self, file: &Path, name: &str) -> Result<Option<Target>, String> {
        let spec = if file == self.home {
            self.spec
        } else {
            let loaded = self.others.entry(file.to_path_buf()).or_insert_with(|| {
                crate::spec::load(file)
                    .map(|l| l.spec)
                    .map_err(|e| e.to_string())
            });
            match loaded {
                Ok(spec) => &*spec,
                Err(e) => return Err(e.clone()),
            }
        };
        Ok(spec
            .studies
            .iter()
            .find(|t| t.name == name)
            .map(|t| Target {
                family: t.problem.name.clone(),
                algorithm: t.algorithm.name.clone(),
                extends: t.extends.as_deref().map(|x| {
                    let x = ExtendsTarget::parse(x);
                    (x.spec_path(file), x.study.to_string())
                }),
            }))
    }

    /// `file:study` for a study of another file, `study` for one of this.
    fn label(&self, file: &Path, study: &str) -> String {
        if file == self.home {
            study.to_string()
        } else {
            format!("{}:{study}", file.display())
        }
    }
}

/// Each `extends` names another study, of this file or of a file beside
/// it, on the same family and algorithm (a farther window of the same
/// instance; its other parameters may differ, e.g. the repetitions or a
/// fixed `d`), and following `extends` from any study ends (no chain
/// returns to a study).
pub(super) fn check_extends(
    loc: &SpecLocator<'_>,
    home: &Path,
    spec: &ExperimentSpec,
) -> Result<(), SpecError> {
    let mut files = Files {
        home,
        spec,
        others: BTreeMap::new(),
    };
    for (i, s) in spec.studies.iter().enumerate() {
        let Some(extends) = &s.extends else { continue };
        let path = join(&toml_path!["studies", i], &toml_path!["extends"]);
        let target = ExtendsTarget::parse(extends);
        let file = target.spec_path(home);
        let found = files.study(&file, target.study).map_err(|e| {
            loc.error(
                &path,
                format!(
                    "study `{}` extends `{extends}`, whose file {} cannot be read: {e}",
                    s.name,
                    file.display()
                ),
                "name a study of this file, or `file.toml:study` for one of a file beside it",
            )
        })?;
        let t = match found {
            Some(t) if !(file == home && target.study == s.name) => t,
            _ => {
                let which = match target.file {
                    None => "no other study of this file".to_string(),
                    Some(f) => format!("no study of {f}"),
                };
                return Err(loc.error(
                    &path,
                    format!("study `{}` extends `{extends}`, which is {which}", s.name),
                    "name the study whose windows this one continues (`file.toml:study` for one of a file beside this one)",
                ));
            }
        };
        if t.family != s.problem.name || t.algorithm != s.algorithm.name {
            return Err(loc.error(
                &path,
                format!(
                    "study `{}` ({} on {}) extends `{extends}` ({} on {}): a farther window must run the same algorithm on the same family",
                    s.name, s.algorithm.name, s.problem.name, t.algorithm, t.family
                ),
                "extend a study of the same family and algorithm",
            ));
        }
        // A chain of farther windows (the ledger follows it) must end.
        let mut seen = vec![(home.to_path_buf(), s.name.clone())];
        let mut next = Some((file, target.study.to_string()));
        while let Some(at) = next {
            if seen.contains(&at) {
                let chain: Vec<String> = seen.iter().map(|(f, n)| files.label(f, n)).collect();
                return Err(loc.error(
                    &path,
                    format!(
                        "study `{}` extends a chain that returns to `{}` ({})",
                        s.name,
                        files.label(&at.0, &at.1),
                        chain.join(" -> ")
                    ),
                    "each farther window extends a nearer one; the nearest extends none",
                ));
            }
            // A link that cannot be read ends the chain here; that study's
            // own file reports it when validated.
            next = files
                .study(&at.0, &at.1)
                .ok()
                .flatten()
                .and_then(|t| t.extends);
            seen.push(at);
        }
    }
    Ok(())
}
