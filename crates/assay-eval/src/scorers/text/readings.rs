//! Japanese readings: which kana a kanji word is read as ("猫" → ねこ, "林檎" → りんご), so that a
//! reply in kana answers a reference in kanji and the reverse.
//!
//! No dictionary is written here: the readings come from IPAdic (NAIST), the dictionary MeCab
//! ships, as the Debian package `mecab-ipadic` installs it (`/usr/share/mecab/dic/ipadic/*.csv`,
//! EUC-JP), or from the folder `ASSAY_READINGS_DIR` names. Only nouns are read (the Noun*.csv
//! files: common and proper nouns, places, names), once per process and only when a comparison
//! needs a reading. Without the dictionary nothing is read and the scorer's evidence says so.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use super::{fold_kana, is_kanji};

/// Where the dictionary is looked for.
pub fn dictionary_dir() -> PathBuf {
    std::env::var_os("ASSAY_READINGS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/share/mecab/dic/ipadic"))
}

type Table = HashMap<String, Vec<String>>;

fn load(dir: &std::path::Path) -> Option<Table> {
    let mut table: Table = HashMap::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("Noun") && n.ends_with(".csv"))
        })
        .collect();
    files.sort();
    for path in files {
        let bytes = std::fs::read(&path).ok()?;
        let (text, _, _) = encoding_rs::EUC_JP.decode(&bytes);
        for line in text.lines() {
            // surface,left,right,cost,pos1..pos6,base,reading,pronunciation
            let fields: Vec<&str> = line.split(',').collect();
            let (Some(surface), Some(reading)) = (fields.first(), fields.get(11)) else {
                continue;
            };
            if !surface.chars().any(is_kanji) || *reading == "*" {
                continue;
            }
            let reading = fold_kana(reading);
            let entry = table.entry((*surface).to_string()).or_default();
            if !entry.contains(&reading) {
                entry.push(reading);
            }
        }
    }
    (!table.is_empty()).then_some(table)
}

fn table() -> Option<&'static Table> {
    static T: OnceLock<Option<Table>> = OnceLock::new();
    T.get_or_init(|| load(&dictionary_dir())).as_ref()
}

/// Whether the dictionary could be read.
pub fn available() -> bool {
    table().is_some()
}

/// The readings of a kanji word, in hiragana (empty when unknown or without the dictionary).
pub fn of(surface: &str) -> &'static [String] {
    table()
        .and_then(|t| t.get(surface))
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// The readings of a word of kanji and kana ("また明日" → またあした, またあす): each run of
/// kanji read by the dictionary, the kana kept. Empty when a run has no reading, or the word
/// has no kana (a word of kanji alone is [`of`]'s).
pub fn of_mixed(word: &str) -> Vec<String> {
    const MOST: usize = 16;
    let mut runs: Vec<(bool, String)> = Vec::new();
    for c in word.chars() {
        let k = is_kanji(c);
        match runs.last_mut() {
            Some((kind, run)) if *kind == k => run.push(c),
            _ => runs.push((k, c.to_string())),
        }
    }
    if runs.len() < 2 || !runs.iter().any(|(k, _)| *k) {
        return Vec::new();
    }
    let mut out = vec![String::new()];
    for (kanji, run) in runs {
        let readings: Vec<String> = if kanji {
            of(&run).to_vec()
        } else {
            vec![fold_kana(&run)]
        };
        if readings.is_empty() {
            return Vec::new();
        }
        out = out
            .iter()
            .flat_map(|head| readings.iter().map(move |r| format!("{head}{r}")))
            .take(MOST)
            .collect();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kanji_words_read_as_kana_when_the_dictionary_is_installed() {
        assert!(
            available(),
            "no IPAdic at {:?}: install mecab-ipadic (the test command does)",
            dictionary_dir()
        );
        assert!(of("猫").iter().any(|r| r == "ねこ"));
        assert!(of("林檎").iter().any(|r| r == "りんご"));
        assert!(of("東京").iter().any(|r| r == "とうきょう"));
        assert!(of("ねこ").is_empty());
        assert!(of_mixed("また明日").iter().any(|r| r == "またあした"));
        assert!(of_mixed("明日").is_empty());
    }
}
