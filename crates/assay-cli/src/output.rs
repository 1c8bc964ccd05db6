//! Printing for humans or scripts.

use serde::Serialize;

pub fn json<T: Serialize>(v: &T) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string_pretty(v)?);
    Ok(())
}

/// Shortens text for one table cell, on character boundaries (CJK-safe).
pub fn clip(s: &str, max: usize) -> String {
    let one_line: String = s.chars().map(|c| if c == '\n' { ' ' } else { c }).collect();
    if one_line.chars().count() <= max {
        one_line
    } else {
        let mut t: String = one_line.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// A progress bar for a long job with a running message (hidden under `--json`, whose output
/// is the result alone).
pub fn job_bar(json: bool, len: u64) -> anyhow::Result<indicatif::ProgressBar> {
    let bar = if json {
        indicatif::ProgressBar::hidden()
    } else {
        indicatif::ProgressBar::new(len)
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template("[{bar:40}] {pos}/{len} eta {eta} | {msg}")?
            .progress_chars("=> "),
    );
    Ok(bar)
}
