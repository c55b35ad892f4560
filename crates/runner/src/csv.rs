//! CSV tables without a dataframe library: a column-typed [`Table`] written
//! byte for byte as polars 0.55's `CsvWriter` wrote it (the committed
//! summaries, baselines, verdicts and the claims ledger were produced that
//! way, and regenerating them must not churn a single byte), and a small
//! RFC 4180 reader ([`read_csv`]) for reading them back.
//!
//! The writer's format, as polars' default `CsvWriter` has it:
//! - a header line of the column names, then one line per row, every line
//!   ending in `\n`, fields separated by `,`, no byte-order mark;
//! - text quoted with `"` only when it holds a `,`, `"`, `\n` or `\r`, inner
//!   quotes doubled; the empty string written as `""` (an unquoted empty
//!   field would read back as a missing value);
//! - unsigned integers in decimal;
//! - floats by [`format_float`]: the shortest digits that read back to the
//!   same `f64`, positional for decimal exponents -5 to 15 (always with a
//!   fractional part, `20.0`), scientific outside it (`8.1e-7`, `1.5e+16`),
//!   and `NaN`, `inf`, `-inf`.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{bail, Context, Result};

/// One column's values, typed as the writer formats them.
#[derive(Debug, Clone, PartialEq)]
pub enum Column {
    /// Text, quoted where CSV needs it.
    Text(Vec<String>),
    /// Unsigned integers (grid-point indices).
    UInt(Vec<u64>),
    /// Floats, shortest round-trip form ([`format_float`]).
    Float(Vec<f64>),
}

impl Column {
    fn len(&self) -> usize {
        match self {
            Column::Text(v) => v.len(),
            Column::UInt(v) => v.len(),
            Column::Float(v) => v.len(),
        }
    }

    fn write_cell(&self, row: usize, out: &mut String) {
        match self {
            Column::Text(v) => write_text(&v[row], out),
            Column::UInt(v) => {
                let _ = write!(out, "{}", v[row]);
            }
            Column::Float(v) => out.push_str(&format_float(v[row])),
        }
    }
}

/// Named columns of equal length, in output order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Table {
    columns: Vec<(String, Column)>,
}

impl Table {
    /// An empty table (no columns).
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a column. Panics if its length differs from the columns
    /// already there: every caller builds the columns from one row list, so
    /// a mismatch is a bug, not an input error.
    pub fn push(&mut self, name: &str, column: Column) {
        if let Some((first, c)) = self.columns.first() {
            assert_eq!(
                c.len(),
                column.len(),
                "column `{name}` has {} rows, `{first}` has {}",
                column.len(),
                c.len()
            );
        }
        self.columns.push((name.to_string(), column));
    }

    /// [`Table::push`], builder style.
    pub fn with(mut self, name: &str, column: Column) -> Self {
        self.push(name, column);
        self
    }

    /// Number of rows.
    pub fn height(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }

    /// The columns `names`, in that order (cloned); an error names a missing one.
    pub fn select(&self, names: &[&str]) -> Result<Table> {
        let mut out = Table::new();
        for name in names {
            let (_, c) = self
                .columns
                .iter()
                .find(|(n, _)| n == name)
                .with_context(|| format!("the table has no column `{name}`"))?;
            out.push(name, c.clone());
        }
        Ok(out)
    }

    /// The table as CSV text (header, then one line per row).
    pub fn to_csv(&self) -> String {
        let mut out = String::new();
        for (i, (name, _)) in self.columns.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_text(name, &mut out);
        }
        out.push('\n');
        for row in 0..self.height() {
            for (i, (_, c)) in self.columns.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                c.write_cell(row, &mut out);
            }
            out.push('\n');
        }
        out
    }

    /// Writes the table as CSV at `path`, creating its directory.
    pub fn write_csv(&self, path: &Path) -> Result<()> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        std::fs::write(path, self.to_csv()).with_context(|| format!("writing {}", path.display()))
    }
}

/// Appends `s` as one CSV field: quoted (inner quotes doubled) when it holds
/// a separator, quote or line break; the empty string as `""`.
fn write_text(s: &str, out: &mut String) {
    if s.is_empty() {
        out.push_str("\"\"");
    } else if s.contains([',', '"', '\n', '\r']) {
        out.push('"');
        out.push_str(&s.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(s);
    }
}

/// Formats a float as polars' CSV writer does (through the `zmij` crate):
/// the shortest decimal digits that parse back to the same `f64`, laid out
/// positionally when the decimal exponent of the first digit is in -5..=15
/// (`0.00001`, `20.0`, `1000000000000000.0`) and as `d.ddde±x` otherwise
/// (`8.123106793861308e-7`, `1e+16`); `NaN` (of either sign), `inf`, `-inf`;
/// the sign of zero kept (`-0.0`).
pub fn format_float(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    let (digits, exp) = shortest_digits(x.abs());
    let n = digits.len() as i32;
    let mut out = String::new();
    if x.is_sign_negative() {
        out.push('-');
    }
    if (-5..=15).contains(&exp) {
        if n - 1 <= exp {
            // 1234e7 -> 12340000000.0
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', (exp - (n - 1)) as usize));
            out.push_str(".0");
        } else if exp >= 0 {
            // 1234e-2 -> 12.34
            let (int, frac) = digits.split_at(exp as usize + 1);
            let _ = write!(out, "{int}.{frac}");
        } else {
            // 1234e-6 -> 0.001234
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-exp - 1) as usize));
            out.push_str(&digits);
        }
    } else {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            let _ = write!(out, ".{rest}");
        }
        let _ = write!(out, "e{}{}", if exp >= 0 { '+' } else { '-' }, exp.abs());
    }
    out
}

/// The shortest decimal digits of `x` (finite, non-negative) that parse back
/// to it, with the decimal exponent of the first digit: `("8123", -7)` for
/// `8.123e-7`. std's `{:e}` finds them; when two candidates of that length
/// are equally close to `x` (`x` lies exactly halfway between them, as
/// 1658206780088562.25 between ...562.2 and ...562.3) std takes the upper,
/// zmij and Ryu the one with the even last digit, which is what polars wrote.
fn shortest_digits(x: f64) -> (String, i32) {
    let sci = format!("{x:e}");
    let (mantissa, exp) = sci.split_once('e').expect("`{:e}` has an exponent");
    let exp: i32 = exp.parse().expect("`{:e}` has an integer exponent");
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let d: u128 = digits.parse().expect("at most 17 digits");
    if d.is_multiple_of(2) {
        return (digits, exp);
    }
    // The midpoint below or above `d` has one more digit, a final 5, at
    // decimal exponent `q`.
    let q = exp - digits.len() as i32;
    for (alt, mid) in [(d - 1, d * 10 - 5), (d + 1, d * 10 + 5)] {
        let alt = alt.to_string();
        if alt.len() == digits.len()
            && is_exactly(x, mid, q)
            && format!("{alt}e{}", q + 1).parse::<f64>() == Ok(x)
        {
            return (alt, exp);
        }
    }
    (digits, exp)
}

/// Whether `x == p * 10^q` exactly, for an odd `p` (`x` finite).
fn is_exactly(x: f64, p: u128, q: i32) -> bool {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    let (mut m, mut e) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), biased - 1075)
    };
    if m == 0 {
        return false;
    }
    // x = m 2^e with m odd; p 10^q = (p 5^q) 2^q with p 5^q odd (or p odd
    // over 5^-q): the powers of two must agree, then the odd parts.
    e += m.trailing_zeros() as i32;
    m >>= m.trailing_zeros();
    if e != q {
        return false;
    }
    let five = 5u128.checked_pow(q.unsigned_abs());
    if q >= 0 {
        five.and_then(|f| p.checked_mul(f)) == Some(u128::from(m))
    } else {
        five.and_then(|f| u128::from(m).checked_mul(f)) == Some(p)
    }
}

/// A CSV file read back: its header and rows of fields, `None` for an
/// unquoted empty field (a missing value, as polars reads it), `Some` for
/// anything else, a quoted empty field included.
#[derive(Debug, Clone, PartialEq)]
pub struct CsvRows {
    /// Column names, from the first line.
    pub header: Vec<String>,
    /// Fields per row; a row shorter than the header is padded with `None`.
    pub rows: Vec<Vec<Option<String>>>,
}

impl CsvRows {
    /// Index of column `name`, if the file has it.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    /// Index of column `name`, or an error naming it.
    pub fn column(&self, name: &str) -> Result<usize> {
        self.index(name)
            .with_context(|| format!("no column `{name}`"))
    }

    /// Field `col` of row `row` (`None` when missing).
    pub fn get(&self, row: usize, col: usize) -> Option<&str> {
        self.rows[row].get(col).and_then(|f| f.as_deref())
    }

    /// Field `col` of row `row` as a float: NaN when missing or not a number
    /// (what the polars code made of a null or an unparsable value).
    pub fn float(&self, row: usize, col: usize) -> f64 {
        self.get(row, col)
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(f64::NAN)
    }
}

/// Parses CSV text: `,`-separated, `"`-quoted with doubled inner quotes,
/// records ending in `\n` or `\r\n` (line breaks inside quotes are kept),
/// blank lines skipped, a leading byte-order mark ignored. The first record
/// is the header. A row with more fields than the header is an error.
pub fn parse_csv(text: &str) -> Result<CsvRows> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut records: Vec<Vec<Option<String>>> = Vec::new();
    let mut record: Vec<Option<String>> = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut line = 1usize;
    let mut chars = text.chars().peekable();
    // End of a field: quoted ones are always values, unquoted empty ones missing.
    let finish = |field: &mut String, quoted: &mut bool, record: &mut Vec<Option<String>>| {
        let f = std::mem::take(field);
        record.push(if f.is_empty() && !*quoted {
            None
        } else {
            Some(f)
        });
        *quoted = false;
    };
    while let Some(c) = chars.next() {
        match c {
            '"' if field.is_empty() && !quoted => {
                quoted = true;
                loop {
                    match chars.next() {
                        Some('"') if chars.peek() == Some(&'"') => {
                            chars.next();
                            field.push('"');
                        }
                        Some('"') => break,
                        Some(ch) => {
                            if ch == '\n' {
                                line += 1;
                            }
                            field.push(ch);
                        }
                        None => bail!("line {line}: a quoted field is not closed"),
                    }
                }
                if !matches!(chars.peek(), None | Some(',' | '\n' | '\r')) {
                    bail!("line {line}: text after a closing quote");
                }
            }
            ',' => finish(&mut field, &mut quoted, &mut record),
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' => {
                line += 1;
                if record.is_empty() && field.is_empty() && !quoted {
                    continue; // blank line
                }
                finish(&mut field, &mut quoted, &mut record);
                records.push(std::mem::take(&mut record));
            }
            c => field.push(c),
        }
    }
    if !record.is_empty() || !field.is_empty() || quoted {
        finish(&mut field, &mut quoted, &mut record);
        records.push(record);
    }
    let mut records = records.into_iter();
    let header: Vec<String> = records
        .next()
        .context("no header line")?
        .into_iter()
        .map(Option::unwrap_or_default)
        .collect();
    let mut rows = Vec::new();
    for (i, mut r) in records.enumerate() {
        if r.len() > header.len() {
            bail!(
                "row {i} has {} fields, the header {}",
                r.len(),
                header.len()
            );
        }
        r.resize(header.len(), None);
        rows.push(r);
    }
    Ok(CsvRows { header, rows })
}

/// Reads and parses the CSV file at `path` ([`parse_csv`]).
pub fn read_csv(path: &Path) -> Result<CsvRows> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    parse_csv(&text).with_context(|| format!("parsing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_are_written_as_polars_wrote_them() {
        // Every case below occurs in the committed results/*.csv,
        // experiments/baselines/*.csv or results/claims.csv, or is a layout
        // boundary of the format.
        let cases: &[(f64, &str)] = &[
            (20.0, "20.0"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (-2.0, "-2.0"),
            (1000000.0, "1000000.0"),
            (0.0007050669437831679, "0.0007050669437831679"),
            (0.00005118195280072112, "0.00005118195280072112"),
            (8.123106793861308e-7, "8.123106793861308e-7"),
            (7.200000000000002e-11, "7.200000000000002e-11"),
            (-0.9338571228759771, "-0.9338571228759771"),
            (1e-5, "0.00001"),
            (1e-6, "1e-6"),
            (1.5e-6, "1.5e-6"),
            (123456.789, "123456.789"),
            (1e15, "1000000000000000.0"),
            (1.5e15, "1500000000000000.0"),
            (1e16, "1e+16"),
            (1.2345e16, "1.2345e+16"),
            (-1.5e100, "-1.5e+100"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
            (544431068535091.6, "544431068535091.6"),
            // Exactly halfway between two 17-digit candidates (doubles are
            // 0.25 apart here, so these sums are exact): the even one.
            (1658206780088562.0 + 0.25, "1658206780088562.2"),
            (1658206780088562.0 + 0.75, "1658206780088562.8"),
            (f64::NAN, "NaN"),
            (-f64::NAN, "NaN"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
        ];
        for (x, want) in cases {
            assert_eq!(format_float(*x), *want, "{x:e}");
        }
    }

    #[test]
    fn floats_match_zmij_which_polars_used() {
        // Random bit patterns cover every exponent; random short decimals
        // cover the values a summary really holds. A simple xorshift keeps the
        // test deterministic without another dependency.
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let mut zmij = zmij::Buffer::new();
        let mut ties = 0;
        for i in 0..600_000 {
            let x = match i % 3 {
                0 => f64::from_bits(next()),
                1 => {
                    let digits = (next() % 1_000_000) as f64;
                    let exp = (next() % 41) as i32 - 20;
                    digits * 10f64.powi(exp)
                }
                _ => {
                    // 53-bit integers scaled by small powers of two have
                    // short exact expansions: the halfway ties live here.
                    let m = (next() >> 11) as f64;
                    m * 2f64.powi((next() % 25) as i32 - 12)
                }
            };
            let std_digits = format!("{x:e}");
            if x.is_finite()
                && std_digits
                    .trim_start_matches('-')
                    .replace('.', "")
                    .split('e')
                    .next()
                    != Some(shortest_digits(x.abs()).0.as_str())
            {
                ties += 1;
            }
            assert_eq!(format_float(x), zmij.format(x), "{:#x}", x.to_bits());
        }
        // The tie rule was exercised, not just the common path.
        assert!(ties > 100, "{ties} ties");
    }

    #[test]
    fn text_is_quoted_only_where_csv_needs_it() {
        let t = Table::new().with(
            "a",
            Column::Text(
                [
                    "plain",
                    "",
                    "x, y",
                    "say \"hi\"",
                    "two\nlines",
                    "cr\r",
                    "–, ±",
                ]
                .map(String::from)
                .to_vec(),
            ),
        );
        assert_eq!(
            t.to_csv(),
            "a\nplain\n\"\"\n\"x, y\"\n\"say \"\"hi\"\"\"\n\"two\nlines\"\n\"cr\r\"\n\"–, ±\"\n"
        );
    }

    #[test]
    fn tables_write_header_and_typed_columns() {
        let t = Table::new()
            .with("study", Column::Text(vec!["s1".into(), "s2".into()]))
            .with("point", Column::UInt(vec![0, 12]))
            .with("mean", Column::Float(vec![20.0, f64::NAN]));
        assert_eq!(t.to_csv(), "study,point,mean\ns1,0,20.0\ns2,12,NaN\n");
        assert_eq!(
            t.select(&["mean", "study"]).unwrap().to_csv(),
            "mean,study\n20.0,s1\nNaN,s2\n"
        );
        assert!(t.select(&["nope"]).is_err());
        // No rows: the header alone, as polars wrote an empty frame.
        let empty = Table::new().with("a", Column::Text(vec![]));
        assert_eq!(empty.to_csv(), "a\n");
    }

    #[test]
    #[should_panic(expected = "rows")]
    fn columns_of_unequal_length_are_a_bug() {
        let _ = Table::new()
            .with("a", Column::UInt(vec![1]))
            .with("b", Column::UInt(vec![]));
    }

    #[test]
    fn written_tables_read_back() {
        let text = vec![
            "plain".to_string(),
            String::new(),
            "x, \"y\"\nz".to_string(),
        ];
        let t = Table::new()
            .with("t", Column::Text(text.clone()))
            .with("f", Column::Float(vec![0.1, f64::NAN, -1e-7]));
        let back = parse_csv(&t.to_csv()).unwrap();
        assert_eq!(back.header, ["t", "f"]);
        assert_eq!(back.rows.len(), 3);
        for (i, s) in text.iter().enumerate() {
            assert_eq!(back.get(i, 0), Some(s.as_str()));
        }
        assert_eq!(back.float(0, 1), 0.1);
        assert!(back.float(1, 1).is_nan());
        assert_eq!(back.float(2, 1), -1e-7);
    }

    #[test]
    fn reader_tells_missing_from_empty_and_handles_crlf() {
        let back = parse_csv("a,b,c\r\n,\"\",x\r\n\r\n1,2\n").unwrap();
        assert_eq!(back.index("c"), Some(2));
        assert_eq!(back.index("d"), None);
        assert_eq!(back.rows[0], [None, Some(String::new()), Some("x".into())]);
        // A short row is padded with missing values.
        assert_eq!(back.rows[1], [Some("1".into()), Some("2".into()), None]);
        assert!(back.float(1, 2).is_nan());
        assert!(parse_csv("a\n1,2\n").is_err());
        assert!(parse_csv("a\n\"open\n").is_err());
        assert!(parse_csv("a\n\"x\"y\n").is_err());
        assert!(parse_csv("").is_err());
    }
}
