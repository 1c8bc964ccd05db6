//! References written as a whole sentence ("鳥の羽の色は青色です。", "写真には2機の飛行機が写って
//! います。", "中央にあるテーブルの名称は「こたつ」です。"), as Heron-Bench and Japanese VQA sets
//! write them: the answer is the part the question asks for, so a reply stating only that part
//! ("青色です。", "2機です。") answers it. Read from the reference's first sentence, in order:
//! 1. a quoted term (「こたつ」, 『…』, "…");
//! 2. the one number it states, with its counter ("2機");
//! 3. Japanese: what follows the topic the question names ("鳥の羽の色は" + "青色") up to the
//!    copula ("です", "だと考えられます").
//!
//! A reference that is not a sentence, or whose answer part cannot be found this way, is
//! compared whole.

use super::{is_hiragana, numbers, prepare};

/// The part of a sentence reference that answers the question, when one can be read.
pub fn answer_part(question: Option<&str>, reference: &str) -> Option<String> {
    let trimmed = reference.trim();
    let japanese = trimmed
        .chars()
        .any(|c| super::is_kanji(c) || is_hiragana(c));
    let sentence = if japanese {
        trimmed.ends_with('。')
            || trimmed.ends_with("です")
            || trimmed.ends_with("ます")
            || trimmed.contains('。')
    } else {
        trimmed.split_whitespace().count() >= 5 && trimmed.ends_with('.')
    };
    if !sentence {
        return None;
    }
    let first = trimmed
        .split_inclusive(['。', '\n'])
        .next()
        .unwrap_or(trimmed)
        .trim();
    let first = if japanese {
        first
    } else {
        first.split(". ").next().unwrap_or(first)
    };
    // 1. A quoted term.
    for (open, close) in [('「', '」'), ('『', '』'), ('"', '"'), ('“', '”')] {
        if let Some(a) = first.find(open) {
            let rest = &first[a + open.len_utf8()..];
            if let Some(b) = rest.find(close) {
                let term = rest[..b].trim();
                if !term.is_empty() {
                    return Some(term.to_string());
                }
            }
        }
    }
    // 2. The one number the sentence states, with its counter (Japanese writes the counter on
    // the number; in English the noun may differ, so only a count the question asks for).
    let p = prepare(first);
    let ms = numbers::mentions(&p);
    let asks_count = question.is_some_and(|q| {
        let q = q.to_ascii_lowercase();
        q.contains("how many") || q.contains("how much") || q.contains("what number")
    });
    if let [m] = ms.as_slice() {
        if !japanese && !asks_count {
            return None;
        }
        // Cut from the prepared text (NFKC: "１００人" is "100人"), the counter's kanji or
        // katakana kept, at most four characters.
        let end = p[m.end..]
            .char_indices()
            .take(4)
            .find(|(_, c)| !(super::is_kanji(*c) || super::is_katakana(*c)))
            .map_or_else(
                || {
                    p[m.end..]
                        .char_indices()
                        .nth(4)
                        .map_or(p.len(), |(i, _)| m.end + i)
                },
                |(i, _)| m.end + i,
            );
        let part = if japanese {
            &p[m.start..end]
        } else {
            &p[m.start..m.end]
        };
        return Some(part.trim().to_string());
    }
    if !japanese {
        return None;
    }
    // 3. After the topic the question names, up to the copula.
    let q = question.map(prepare).unwrap_or_default();
    let body = first.trim_end_matches(['。', '.', ' ']);
    let mut best: Option<&str> = None;
    for (i, c) in body.char_indices() {
        if c != 'は' && c != 'が' {
            continue;
        }
        let topic = &body[..i];
        let topic_p = prepare(topic);
        let named = topic_p.chars().count() >= 2
            && (q.contains(&topic_p)
                || topic_p
                    .char_indices()
                    .any(|(j, _)| topic_p[j..].chars().count() >= 2 && q.contains(&topic_p[j..])));
        if named {
            best = Some(&body[i + c.len_utf8()..]);
        }
    }
    let part = best?;
    let copulas = [
        "だと考えられます",
        "と考えられます",
        "だと思われます",
        "と思われます",
        "でしょう",
        "のようです",
        "である",
        "でした",
        "です",
        "だ",
    ];
    let part = copulas
        .iter()
        .find_map(|c| part.strip_suffix(c))
        .unwrap_or(part)
        .trim();
    (!part.is_empty() && part.chars().count() <= 12).then(|| part.to_string())
}

#[cfg(test)]
mod tests {
    use super::answer_part;

    #[test]
    fn the_answer_part_of_a_sentence_reference() {
        assert_eq!(
            answer_part(
                Some("鳥の羽の色は何色でしょうか？"),
                "鳥の羽の色は青色です。"
            )
            .as_deref(),
            Some("青色")
        );
        assert_eq!(
            answer_part(None, "中央にあるテーブルの名称は「こたつ」です。").as_deref(),
            Some("こたつ")
        );
        assert_eq!(
            answer_part(None, "写真には2機の飛行機が写っています。").as_deref(),
            Some("2機")
        );
        assert_eq!(
            answer_part(
                None,
                "机の上には2本の鉛筆が置かれています。これらは机の左側に配置されています。"
            )
            .as_deref(),
            Some("2本")
        );
        assert_eq!(
            answer_part(None, "写真には１００人がいます。").as_deref(),
            Some("100人")
        );
        assert_eq!(answer_part(None, "There are 3 cats on the sofa."), None);
        assert_eq!(
            answer_part(
                Some("How many cats are on the sofa?"),
                "There are 3 cats on the sofa."
            )
            .as_deref(),
            Some("3")
        );
        assert_eq!(answer_part(None, "Tokyo"), None);
        assert_eq!(answer_part(None, "3匹"), None);
    }
}
