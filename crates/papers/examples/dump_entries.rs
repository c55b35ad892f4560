//! Prints every entry's declaration (`{:?}`, function pointers elided), so a
//! refactor of the entry tables can be checked to leave them unchanged:
//! `cargo run -p papers --example dump_entries > before.txt`, refactor, run
//! again and diff.

fn main() {
    let elide = |s: String| {
        // Function pointers print as addresses, which move between builds.
        let mut out = String::new();
        let mut rest = s.as_str();
        while let Some(i) = rest.find("0x") {
            out.push_str(&rest[..i]);
            let tail = &rest[i + 2..];
            let end = tail
                .find(|c: char| !c.is_ascii_hexdigit())
                .unwrap_or(tail.len());
            out.push_str("<fn>");
            rest = &tail[end..];
        }
        out.push_str(rest);
        out
    };
    for f in papers::families() {
        println!("{}", elide(format!("{f:?}")));
    }
    for a in papers::algorithms() {
        println!("{}", elide(format!("{a:?}")));
    }
}
