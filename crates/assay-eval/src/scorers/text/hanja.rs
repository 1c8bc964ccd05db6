//! Korean readings of Hanja: which Hangul a word written in Hanja is read as ("崇禮門" → 숭례문,
//! "大韓民國" → 대한민국), so that a reply quoting a signboard in Hanja answers a reference in
//! Hangul.
//!
//! No dictionary is written here: the readings come from libhangul's Hanja table (the one
//! Korean input methods use), as the Debian package `libhangul-data` installs it
//! (`/usr/share/libhangul/hanja/hanja.txt`, lines of `hangul:hanja:meaning`), or from the file
//! `ASSAY_HANJA_FILE` names. Words are read as the table lists them; a word it does not list
//! is read a character at a time. The table is read once per process, and only when a
//! comparison needs a reading. Without it nothing is read and the scorer's evidence says so.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use super::{is_hangul, is_kanji};

/// Where the table is looked for.
pub fn table_file() -> PathBuf {
    std::env::var_os("ASSAY_HANJA_FILE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/share/libhangul/hanja/hanja.txt"))
}

type Table = HashMap<String, Vec<String>>;

fn load(path: &std::path::Path) -> Option<Table> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut table: Table = HashMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let mut fields = line.splitn(3, ':');
        let (Some(hangul), Some(hanja)) = (fields.next(), fields.next()) else {
            continue;
        };
        // One syllable per character, and nothing else (the table also lists symbols).
        if hanja.is_empty()
            || !hanja.chars().all(is_kanji)
            || !hangul.chars().all(is_hangul)
            || hangul.chars().count() != hanja.chars().count()
        {
            continue;
        }
        let entry = table.entry(hanja.to_string()).or_default();
        if !entry.iter().any(|r| r == hangul) {
            entry.push(hangul.to_string());
        }
    }
    (!table.is_empty()).then_some(table)
}

fn table() -> Option<&'static Table> {
    static T: OnceLock<Option<Table>> = OnceLock::new();
    T.get_or_init(|| load(&table_file())).as_ref()
}

/// Whether the table could be read.
pub fn available() -> bool {
    table().is_some()
}

/// The Hangul readings of a word of Hanja: the word's own entry, else each character's
/// readings in turn (at most 16 in all). Empty when a character has none or without the table.
pub fn readings(word: &str) -> Vec<String> {
    const MOST: usize = 16;
    let Some(t) = table() else {
        return Vec::new();
    };
    if let Some(r) = t.get(word) {
        return r.clone();
    }
    let mut out = vec![String::new()];
    for (i, c) in word.chars().enumerate() {
        let Some(rs) = t.get(c.encode_utf8(&mut [0; 4]) as &str) else {
            return Vec::new();
        };
        // A word's first syllable follows the initial-sound rule (두음법칙): 丽水, which the
        // table lists only a character at a time (丽 is 려), is 여수.
        let first;
        let rs = if i == 0 {
            first = rs
                .iter()
                .flat_map(|r| std::iter::once(r.clone()).chain(initial_sound_rule(r)))
                .collect::<Vec<_>>();
            &first
        } else {
            rs
        };
        out = out
            .iter()
            .flat_map(|head| rs.iter().map(move |r| format!("{head}{r}")))
            .take(MOST)
            .collect();
    }
    out
}

/// A syllable as it is said at the start of a word (두음법칙): ㄹ becomes ㅇ before ㅣ and the
/// y-vowels (려 → 여, 리 → 이) and ㄴ elsewhere (로 → 노); ㄴ becomes ㅇ before them (녀 → 여).
/// None when the rule does not change it.
fn initial_sound_rule(syllable: &str) -> Option<String> {
    const RIEUL: u32 = 5;
    const NIEUN: u32 = 2;
    const IEUNG: u32 = 11;
    // ㅑ ㅕ ㅖ ㅛ ㅠ ㅣ, as indices of the medial vowel.
    const Y_VOWELS: [u32; 6] = [2, 6, 7, 12, 17, 20];
    let mut chars = syllable.chars();
    let first = chars.next()? as u32;
    let code = first.checked_sub(0xAC00).filter(|c| *c < 11172)?;
    let (initial, medial, last) = (code / 588, (code % 588) / 28, code % 28);
    let y = Y_VOWELS.contains(&medial);
    let initial = match (initial, y) {
        (RIEUL, true) | (NIEUN, true) => IEUNG,
        (RIEUL, false) => NIEUN,
        _ => return None,
    };
    let read = char::from_u32(0xAC00 + initial * 588 + medial * 28 + last)?;
    Some(std::iter::once(read).chain(chars).collect())
}

/// The reply with each run of two or more Hanja (spaced or not: "崇 禮 門" on a vertical board)
/// read as `reference` written in Hangul, where one of the run's readings is it ("현판에는
/// '崇禮門'이라고" → "현판에는 '숭례문'이라고"); None when no run reads so, or when another run of
/// Hanja stays unread, since it may be the answer ("정식 명칭은 '崇禮門'이지만 … '興仁之門'").
pub fn written_as_reference(reference: &str, reply: &str) -> Option<String> {
    let want: String = reference.chars().filter(|c| !c.is_whitespace()).collect();
    if want.is_empty() || !want.chars().all(is_hangul) || !reply.chars().any(is_kanji) {
        return None;
    }
    let mut out = String::with_capacity(reply.len());
    // The run's Hanja, and the run as written (with the spaces between them).
    let mut run = String::new();
    let mut written = String::new();
    let (mut changed, mut other) = (false, false);
    let mut flush = |run: &mut String, written: &mut String, out: &mut String| {
        let read = readings(run).contains(&want);
        if run.chars().count() >= 2 && read {
            out.push_str(&want);
            changed = true;
        } else {
            other |= run.chars().count() >= 2;
            out.push_str(written);
        }
        run.clear();
        written.clear();
    };
    let chars: Vec<char> = reply.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if is_kanji(c) {
            run.push(c);
            written.push(c);
        } else if c == ' ' && !run.is_empty() && chars.get(i + 1).is_some_and(|&n| is_kanji(n)) {
            written.push(c);
        } else {
            flush(&mut run, &mut written, &mut out);
            out.push(c);
        }
    }
    flush(&mut run, &mut written, &mut out);
    (changed && !other).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hanja_words_read_in_hangul_when_the_table_is_installed() {
        assert!(
            available(),
            "no Hanja table at {:?}: install libhangul-data (the test command does)",
            table_file()
        );
        assert!(readings("崇禮門").iter().any(|r| r == "숭례문"));
        assert!(readings("大韓民國").iter().any(|r| r == "대한민국"));
        assert!(readings("門").iter().any(|r| r == "문"));
        assert!(readings("abc").is_empty());
        assert!(
            readings("丽水").iter().any(|r| r == "여수"),
            "丽 is 려, 여 first"
        );
        assert!(
            !readings("水丽").iter().any(|r| r == "수여"),
            "only a first syllable"
        );
        assert_eq!(initial_sound_rule("려").as_deref(), Some("여"));
        assert_eq!(initial_sound_rule("로").as_deref(), Some("노"));
        assert_eq!(initial_sound_rule("녀").as_deref(), Some("여"));
        assert_eq!(initial_sound_rule("량").as_deref(), Some("양"));
        assert_eq!(initial_sound_rule("나"), None);
        assert_eq!(initial_sound_rule("a"), None);
        assert_eq!(
            written_as_reference("숭례문", "현판에는 '崇禮門'이라고 적혀 있습니다.").as_deref(),
            Some("현판에는 '숭례문'이라고 적혀 있습니다.")
        );
        assert_eq!(
            written_as_reference("광화문", "'崇禮門'이라고 적혀 있습니다."),
            None
        );
        assert_eq!(written_as_reference("숭례문", "숭례문입니다."), None);
        assert_eq!(
            written_as_reference("숭례문", "세로로 '崇 禮 門' 세 글자").as_deref(),
            Some("세로로 '숭례문' 세 글자")
        );
        assert_eq!(
            written_as_reference("숭례문", "정식 명칭은 '崇禮門'이지만 현판에는 '興仁之門'"),
            None
        );
    }
}
