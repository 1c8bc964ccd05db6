//! Lenient conversions from the shapes published datasets use to Assay's types.

use serde_json::Value;

use crate::model::{BBox, LabeledBox};

/// Looks up a dotted path ("metadata.target_roi_bbox"); `a|b` tries alternatives in order.
pub fn get_path<'v>(v: &'v Value, path: &str) -> Option<&'v Value> {
    for alt in path.split('|') {
        let mut cur = v;
        let mut ok = true;
        for seg in alt.split('.') {
            match cur {
                Value::Object(m) => match m.get(seg) {
                    Some(next) => cur = next,
                    None => {
                        ok = false;
                        break;
                    }
                },
                Value::Array(a) => match seg.parse::<usize>().ok().and_then(|i| a.get(i)) {
                    Some(next) => cur = next,
                    None => {
                        ok = false;
                        break;
                    }
                },
                _ => {
                    ok = false;
                    break;
                }
            }
        }
        if ok && !cur.is_null() {
            return Some(cur);
        }
    }
    None
}

pub fn as_text(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        other => Some(other.to_string()),
    }
}

/// A list of strings from a JSON list, a JSON-encoded list in a string, or objects with a text
/// field (`text`, `criterion`, `content`, `description`).
pub fn as_text_list(v: &Value) -> Vec<String> {
    match v {
        Value::Array(a) => a
            .iter()
            .filter_map(|x| match x {
                Value::Object(m) => ["text", "criterion", "content", "description", "item"]
                    .iter()
                    .find_map(|k| m.get(*k).and_then(as_text))
                    .or_else(|| Some(x.to_string())),
                other => as_text(other),
            })
            .collect(),
        Value::String(s) if s.trim_start().starts_with('[') => {
            match serde_json::from_str::<Value>(s) {
                Ok(parsed @ Value::Array(_)) => as_text_list(&parsed),
                _ => python_list(s).unwrap_or_else(|| vec![s.clone()]),
            }
        }
        Value::Null => Vec::new(),
        other => as_text(other).into_iter().collect(),
    }
}

/// The strings of a Python list literal (`ast.literal_eval` input: JMMMU's `options`,
/// `"['a', "b's"]"`) or of a NumPy array repr (pandas CSV cells: `['a' 'b'\n 'c']`, no
/// commas). Escapes `\\`, `\'`, `\"` and `\n` are decoded. None when it is neither.
pub fn python_list(s: &str) -> Option<Vec<String>> {
    let t = s.trim();
    let inner = t.strip_prefix('[')?.strip_suffix(']')?;
    let mut out = Vec::new();
    let mut chars = inner.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace() || *c == ',') {
            chars.next();
        }
        let Some(q) = chars.next() else { break };
        if q != '\'' && q != '"' {
            return None;
        }
        let mut cur = String::new();
        loop {
            match chars.next()? {
                '\\' => match chars.next()? {
                    'n' => cur.push('\n'),
                    't' => cur.push('\t'),
                    c => cur.push(c),
                },
                c if c == q => break,
                c => cur.push(c),
            }
        }
        out.push(cur);
    }
    Some(out)
}

/// All numbers in a string such as "[12, 30.5, 200, 310]" or "(640, 480)".
fn numbers_in(s: &str) -> Vec<f64> {
    s.split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == 'e' || c == 'E'))
        .filter(|t| !t.is_empty())
        .filter_map(|t| t.parse::<f64>().ok())
        .collect()
}

fn numbers(v: &Value) -> Option<Vec<f64>> {
    match v {
        Value::Array(a) => a.iter().map(Value::as_f64).collect(),
        Value::String(s) => Some(numbers_in(s)),
        _ => None,
    }
}

/// One box as [x_min, y_min, x_max, y_max] in any of: a list, a string "[x1, y1, x2, y2]", or an
/// object with x_min/y_min/x_max/y_max or x1/y1/x2/y2 keys.
pub fn parse_box(v: &Value) -> Result<Option<BBox>, String> {
    if v.is_null() {
        return Ok(None);
    }
    let nums = if let Value::Object(m) = v {
        let keysets = [
            ["x_min", "y_min", "x_max", "y_max"],
            ["x1", "y1", "x2", "y2"],
        ];
        keysets.iter().find_map(|ks| {
            ks.iter()
                .map(|k| m.get(*k).and_then(Value::as_f64))
                .collect()
        })
    } else {
        numbers(v)
    };
    match nums {
        Some(n) if n.is_empty() => Ok(None),
        Some(n) if n.len() == 4 => {
            let b = BBox {
                x_min: n[0],
                y_min: n[1],
                x_max: n[2],
                y_max: n[3],
            };
            if b.is_valid() {
                Ok(Some(b))
            } else {
                Err(format!(
                    "box {v} is empty or inverted (expected x_min, y_min, x_max, y_max)"
                ))
            }
        }
        _ => Err(format!(
            "cannot read a box from {v} (expected [x_min, y_min, x_max, y_max])"
        )),
    }
}

/// One box or a list of boxes.
pub fn parse_boxes(v: &Value) -> Result<Vec<BBox>, String> {
    match v {
        Value::Array(a) if a.first().is_some_and(|x| x.is_array() || x.is_object()) => {
            a.iter().filter_map(|x| parse_box(x).transpose()).collect()
        }
        other => Ok(parse_box(other)?.into_iter().collect()),
    }
}

/// Person boxes: `{"person1": [..], ...}` or a list of boxes (labelled person1.. in order).
pub fn parse_labeled_boxes(v: &Value) -> Result<Vec<LabeledBox>, String> {
    match v {
        Value::Object(m) if parse_box(v).is_err() => {
            let mut out = Vec::new();
            for (k, b) in m {
                if let Some(bbox) = parse_box(b)? {
                    out.push(LabeledBox::labelled(Some(k.clone()), bbox));
                }
            }
            Ok(out)
        }
        other => Ok(parse_boxes(other)?
            .into_iter()
            .enumerate()
            .map(|(i, bbox)| LabeledBox::labelled(Some(format!("person{}", i + 1)), bbox))
            .collect()),
    }
}

/// (width, height) from "(w, h)", [w, h] or {"width": w, "height": h}.
pub fn parse_size(v: &Value) -> Option<(f64, f64)> {
    if let Value::Object(m) = v {
        let w = m.get("width").and_then(Value::as_f64)?;
        let h = m.get("height").and_then(Value::as_f64)?;
        return Some((w, h));
    }
    let n = numbers(v)?;
    (n.len() == 2 && n[0] > 0.0 && n[1] > 0.0).then(|| (n[0], n[1]))
}

/// The correct option's index from an integer (0-based unless `base` is 1), a letter ("B",
/// "(B)", full-width "Ｂ"), or the option's own text.
pub fn parse_index(v: &Value, options: &[String], base: i64) -> Result<usize, String> {
    let n = options.len();
    let check = |i: i64| -> Result<usize, String> {
        let idx = i - base;
        if idx >= 0 && (idx as usize) < n {
            Ok(idx as usize)
        } else {
            Err(format!("answer index {i} is out of range for {n} options"))
        }
    };
    match v {
        Value::Number(x) => match x.as_i64() {
            Some(i) => check(i),
            None => Err(format!("answer index {x} is not an integer")),
        },
        Value::String(s) => {
            let t = s.trim();
            if let Ok(i) = t.parse::<i64>() {
                return check(i);
            }
            if let Some(i) = options.iter().position(|o| o.trim() == t) {
                return Ok(i);
            }
            let letters: Vec<char> = t
                .chars()
                .filter(|c| !matches!(c, '(' | ')' | '（' | '）' | '.' | ' '))
                .collect();
            if letters.len() == 1 {
                let c = letters[0];
                let c = if ('Ａ'..='Ｚ').contains(&c) {
                    char::from_u32(c as u32 - 'Ａ' as u32 + 'A' as u32).unwrap_or(c)
                } else {
                    c.to_ascii_uppercase()
                };
                if c.is_ascii_uppercase() {
                    let idx = (c as u8 - b'A') as usize;
                    if idx < n {
                        return Ok(idx);
                    }
                }
            }
            Err(format!(
                "answer {t:?} is neither an index, a letter nor one of the options"
            ))
        }
        other => Err(format!("cannot read an answer index from {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn python_and_numpy_list_literals() {
        assert_eq!(
            as_text_list(&json!("['北斎漫画', '富嶽三十六景', \"It's\"]")),
            vec!["北斎漫画", "富嶽三十六景", "It's"]
        );
        assert_eq!(
            as_text_list(&json!("['crit 1' 'crit 2'\n 'crit 3']")),
            vec!["crit 1", "crit 2", "crit 3"]
        );
        assert!(as_text_list(&json!("[]")).is_empty());
        assert_eq!(as_text_list(&json!("[not a list")), vec!["[not a list"]);
    }

    #[test]
    fn boxes_from_strings_lists_and_objects() {
        let b = parse_box(&json!("[10, 20, 110, 220]")).unwrap().unwrap();
        assert_eq!((b.x_min, b.y_max), (10.0, 220.0));
        assert!(parse_box(&json!([1, 2, 3, 4])).unwrap().is_some());
        assert!(parse_box(&json!({"x1": 1, "y1": 2, "x2": 3, "y2": 4}))
            .unwrap()
            .is_some());
        assert!(parse_box(&json!("[5, 5, 1, 1]")).is_err());
        assert!(parse_box(&json!("[1, 2, 3]")).is_err());
        assert_eq!(parse_box(&json!("")).unwrap(), None);
    }

    #[test]
    fn size_from_tuple_string() {
        assert_eq!(parse_size(&json!("(640, 480)")), Some((640.0, 480.0)));
        assert_eq!(parse_size(&json!([3, 4])), Some((3.0, 4.0)));
    }

    #[test]
    fn index_from_letters_numbers_and_text() {
        let opts: Vec<String> = ["cat", "dog", "owl"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(parse_index(&json!(1), &opts, 0), Ok(1));
        assert_eq!(parse_index(&json!(1), &opts, 1), Ok(0));
        assert_eq!(parse_index(&json!("(C)"), &opts, 0), Ok(2));
        assert_eq!(parse_index(&json!("Ｂ"), &opts, 0), Ok(1));
        assert_eq!(parse_index(&json!("owl"), &opts, 0), Ok(2));
        assert!(parse_index(&json!(3), &opts, 0).is_err());
    }

    #[test]
    fn alternative_and_nested_paths() {
        let v = json!({"metadata": {"bbox": "[1,2,3,4]"}, "q": null, "query": "x"});
        assert_eq!(get_path(&v, "metadata.bbox"), Some(&json!("[1,2,3,4]")));
        assert_eq!(get_path(&v, "q|query"), Some(&json!("x")));
        assert_eq!(get_path(&v, "nope"), None);
    }

    #[test]
    fn checklist_from_objects_and_json_strings() {
        assert_eq!(
            as_text_list(&json!([{"criterion": "a"}, "b"])),
            vec!["a", "b"]
        );
        assert_eq!(as_text_list(&json!("[\"x\", \"y\"]")), vec!["x", "y"]);
    }
}
