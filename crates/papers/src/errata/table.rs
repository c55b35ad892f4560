//! The Markdown table printed by `runner errata` and shown in docs/errata.md.

use super::erratum::Erratum;

impl Erratum {
    /// This row of the Markdown table (one line, no trailing newline).
    pub fn markdown_row(&self) -> String {
        let cells = [
            self.id.to_string(),
            self.source(),
            self.calibrated.to_string(),
            self.setting.clone(),
            self.printed.to_string(),
            self.corrected.to_string(),
            self.realised.to_string(),
            self.realised_corrected.to_string(),
            self.target.to_string(),
            self.accounting.label().to_string(),
            self.verdict.label().to_string(),
        ];
        format!("| {} |", cells.map(|c| c.replace('|', "\\|")).join(" | "))
    }
}

/// The Markdown table of `rows` followed by a numbered list of their notes.
pub fn render_markdown(rows: &[Erratum]) -> String {
    let mut out = String::from(
        "| Id | Source (digest) | Calibrated | Setting | Printed | Corrected | \
         Realised privacy, printed | Realised privacy, corrected | Claimed (target) | \
         Accounting | Verdict |\n",
    );
    out.push_str(&format!("|{}\n", "---|".repeat(11)));
    for row in rows {
        out.push_str(&row.markdown_row());
        out.push('\n');
    }
    out.push_str("\nNotes:\n\n");
    for (i, row) in rows.iter().enumerate() {
        out.push_str(&format!("{}. **{}**: {}\n", i + 1, row.id, row.note));
    }
    out
}
