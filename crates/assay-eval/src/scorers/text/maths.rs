//! Replies to maths and science items: LaTeX read as the plain text it typesets (`\frac{3}{4}`
//! is `3/4`, `\sqrt{5}` is `√5`, `1.0\times10^{-10}` is `1.0×10^-10`), the minus sign `−` as
//! `-`, equations compared by their terms (`2x − y + 1 = 0` is `y = 2x + 1`), and an angle in
//! radians against a reference in degrees (`π/3` for `60°`).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::OnceLock;

use regex::Regex;

/// The text with its LaTeX written as plain text and `−` (U+2212) as `-`. `\boxed{…}` stays,
/// since it marks the final answer. Dollar signs go only around mathematics (`$y = 2x + 1$`,
/// `$12$`), never a price (`$35 and $40`).
pub fn plain(s: &str) -> Cow<'_, str> {
    // Every text any reader sees passes here (`normalize::nfkc`), most of them short and with
    // none of these bytes: one pass over the bytes decides that ('\xE2' opens "−").
    if !s
        .bytes()
        .any(|b| matches!(b, b'\\' | b'$' | b'#' | b'e' | b'E' | 0xE2))
    {
        return Cow::Borrowed(s);
    }
    let latex = s.contains('\\') || s.contains('$');
    // "3.0e8", "6.0e-7": a figure in E notation, as calculators and code print it.
    let e_notation = s.as_bytes().windows(3).any(|w| {
        w[0].is_ascii_digit()
            && (w[1] == b'e' || w[1] == b'E')
            && (w[2].is_ascii_digit() || w[2] == b'-')
    });
    // "#### 500 s": the final-answer line of GSM8K and the maths models trained on it.
    let hashes = s.contains("####");
    if !latex && !e_notation && !hashes && !s.contains('−') {
        return Cow::Borrowed(s);
    }
    let mut t = s.replace('−', "-");
    if hashes {
        static FINAL: OnceLock<Regex> = OnceLock::new();
        let fin = FINAL.get_or_init(|| Regex::new(r"(?m)^[ \t]*####[ \t]*").expect("valid"));
        // Only as the reply's last line: "#### Step 1: …" lines before it are markdown headings.
        let last_line = t.trim_end().rfind('\n').map_or(0, |i| i + 1);
        let (head, last) = t.split_at(last_line);
        t = format!(
            "{}{}",
            fin.replace_all(head, ""),
            fin.replace_all(last, "Final answer: ")
        );
    }
    if latex {
        t = without_latex(&t);
    }
    if e_notation {
        static E: OnceLock<Regex> = OnceLock::new();
        let e =
            E.get_or_init(|| Regex::new(r"\b(\d+(?:\.\d+)?)[eE]([-+]?\d{1,3})\b").expect("valid"));
        t = e.replace_all(&t, "$1×10^$2").into_owned();
    }
    Cow::Owned(t)
}

fn without_latex(s: &str) -> String {
    static FRAC: OnceLock<Regex> = OnceLock::new();
    static SQRT: OnceLock<Regex> = OnceLock::new();
    static WORDS: OnceLock<Regex> = OnceLock::new();
    static SCRIPT: OnceLock<Regex> = OnceLock::new();
    static DOLLARS: OnceLock<Regex> = OnceLock::new();
    let frac = FRAC
        .get_or_init(|| Regex::new(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}").expect("valid"));
    let sqrt = SQRT.get_or_init(|| Regex::new(r"\\sqrt\s*\{([^{}]*)\}").expect("valid"));
    let words = WORDS.get_or_init(|| {
        Regex::new(
            r"\\(?:text|mathrm|textbf|mathbf|operatorname|mbox|textrm|mathit)\s*\{([^{}]*)\}",
        )
        .expect("valid")
    });
    let script = SCRIPT.get_or_init(|| Regex::new(r"([\^_])\{([^{}]*)\}").expect("valid"));
    let dollars = DOLLARS.get_or_init(|| Regex::new(r"\$\$?([^$]*)\$\$?").expect("valid"));
    let grouped = |x: &str| {
        let x = x.trim();
        if x.chars()
            .all(|c| c.is_alphanumeric() || c == '.' || c == '√' || c == 'π')
        {
            x.to_string()
        } else {
            format!("({x})")
        }
    };
    static MIXED: OnceLock<Regex> = OnceLock::new();
    static UNIT_POWER: OnceLock<Regex> = OnceLock::new();
    // "2\frac{1}{2}": a mixed number keeps its whole part apart; "12{,}5": a decimal comma.
    let mixed = MIXED.get_or_init(|| Regex::new(r"(\d)\\([dt]?frac)\b").expect("valid"));
    // "$y = 2x + 1$", "$12$": mathematics, not a price. A price is a dollar sign before a
    // figure with no closing sign after its words ("$35 and $40" holds no mathematics).
    let s = dollars.replace_all(s, |c: &regex::Captures| {
        let inner = &c[1];
        // "$3.20、ラージラテは$3.90": Japanese or Korean words between two prices.
        let words = inner.chars().any(|c| {
            super::is_kanji(c)
                || super::is_hiragana(c)
                || super::is_katakana(c)
                || super::is_hangul(c)
        });
        let maths = inner.contains(['\\', '^', '_', '=', '{', '}', '√', '×', 'π', '°'])
            || (!inner.is_empty() && !inner.contains(char::is_whitespace) && !words);
        if maths {
            inner.to_string()
        } else {
            c[0].to_string()
        }
    });
    let mut t = mixed
        .replace_all(&s.replace("{,}", ","), "$1 \\$2")
        .into_owned();
    // Innermost first: a fraction inside a root, a root inside a fraction.
    for _ in 0..4 {
        let next = frac
            .replace_all(&t, |c: &regex::Captures| {
                format!("{}/{}", grouped(&c[1]), grouped(&c[2]))
            })
            .into_owned();
        let next = sqrt
            .replace_all(&next, |c: &regex::Captures| format!("√{}", grouped(&c[1])))
            .into_owned();
        let next = words.replace_all(&next, "$1").into_owned();
        let next = script
            .replace_all(&next, |c: &regex::Captures| {
                if c[2].trim() == "\\circ" {
                    "°".to_string()
                } else {
                    format!("{}{}", &c[1], c[2].trim())
                }
            })
            .into_owned();
        if next == t {
            break;
        }
        t = next;
    }
    const SYMBOLS: &[(&str, &str)] = &[
        ("^\\circ", "°"),
        ("\\circ", "°"),
        ("\\times", "×"),
        ("\\cdot", "·"),
        ("\\div", "÷"),
        ("\\pi", "π"),
        ("\\theta", "θ"),
        ("\\pm", "±"),
        ("\\leq", "≤"),
        ("\\geq", "≥"),
        ("\\le", "≤"),
        ("\\ge", "≥"),
        ("\\neq", "≠"),
        ("\\ne", "≠"),
        ("\\approx", "≈"),
        ("\\infty", "∞"),
        ("\\rightarrow", "→"),
        ("\\to", "→"),
        ("\\%", "%"),
        ("\\left", ""),
        ("\\right", ""),
        ("\\displaystyle", ""),
        ("\\quad", " "),
        ("\\,", " "),
        ("\\;", " "),
        ("\\!", ""),
        ("\\(", ""),
        ("\\)", ""),
        ("\\[", ""),
        ("\\]", ""),
    ];
    for (from, to) in SYMBOLS {
        if t.contains(from) {
            // A command's name ends at a letter's end: "\to" is not the start of "\top".
            let mut out = String::with_capacity(t.len());
            let mut rest = t.as_str();
            while let Some(i) = rest.find(from) {
                let after = &rest[i + from.len()..];
                let whole = !from.ends_with(|c: char| c.is_ascii_alphabetic())
                    || !after.starts_with(|c: char| c.is_ascii_alphabetic());
                out.push_str(&rest[..i]);
                out.push_str(if whole { to } else { from });
                rest = after;
            }
            out.push_str(rest);
            t = out;
        }
    }
    // "cm^2" is "cm2", as NFKC reads "cm²"; "x^2" stays a power.
    let unit_power = UNIT_POWER
        .get_or_init(|| Regex::new(r"\b(mm|cm|km|m|in|ft|yd|mi)\s*\^\s*([23])\b").expect("valid"));
    unit_power.replace_all(&t, "$1$2").into_owned()
}

/// An equation's terms moved to one side and scaled so that its first term's coefficient is
/// 1: two equations with the same terms state the same relation (`y = 2x + 1`, `2x - y + 1 =
/// 0`, `y-1=2x`). Terms are products of single-letter variables with powers.
#[derive(Debug, Clone, PartialEq)]
pub struct Equation {
    terms: BTreeMap<String, f64>,
}

impl Equation {
    /// The variables it names, in order ("xy").
    pub fn variables(&self) -> String {
        let mut v: Vec<char> = self
            .terms
            .keys()
            .flat_map(|k| k.chars().filter(char::is_ascii_alphabetic))
            .collect();
        v.sort_unstable();
        v.dedup();
        v.into_iter().collect()
    }

    pub fn same(&self, other: &Equation) -> bool {
        self.terms.len() == other.terms.len()
            && self.terms.iter().all(|(k, a)| {
                other
                    .terms
                    .get(k)
                    .is_some_and(|b| (a - b).abs() <= 1e-9 * a.abs().max(1.0))
            })
    }
}

/// Reads `s` (prepared: lower case, `-` for minus) as one equation of polynomial terms, or
/// None when it is not one (two `=`, words, brackets).
pub fn equation(s: &str) -> Option<Equation> {
    let (l, r) = s.split_once('=')?;
    // Words are no products of variables ("the answer = 5").
    let word = s
        .as_bytes()
        .windows(3)
        .any(|w| w.iter().all(u8::is_ascii_alphabetic));
    if r.contains('=') || word {
        return None;
    }
    let mut terms = BTreeMap::new();
    side(&expanded(l)?, 1.0, &mut terms)?;
    side(&expanded(r)?, -1.0, &mut terms)?;
    terms.retain(|_, c: &mut f64| c.abs() > 1e-12);
    // A variable must be named: "2 + 3 = 5" is arithmetic, not an equation to compare.
    if !terms.keys().any(|k| !k.is_empty()) {
        return None;
    }
    // Scale by the first variable term (in the terms' order), so that its coefficient is 1.
    let lead = terms.iter().find(|(k, _)| !k.is_empty()).map(|(_, c)| *c)?;
    for c in terms.values_mut() {
        *c /= lead;
    }
    Some(Equation { terms })
}

/// `s` with each bracket times a factor multiplied out ("y + 1 = 2(x - 1)" → "y + 1 = +2x-2"),
/// or None for a bracket raised to a power or that holds no terms.
fn expanded(s: &str) -> Option<String> {
    if !s.contains('(') {
        return Some(s.to_string());
    }
    // "(1/2)(x - 2)", "(1/2)x": a fraction in brackets is a factor.
    static FRACTION: OnceLock<Regex> = OnceLock::new();
    let fraction = FRACTION.get_or_init(|| Regex::new(r"\((\d+(?:\.\d+)?/\d+)\)").expect("valid"));
    let s = &*fraction.replace_all(s, "$1");
    static R: OnceLock<Regex> = OnceLock::new();
    let r = R.get_or_init(|| {
        Regex::new(r"([+-]?)\s*(\d*\.?\d*(?:/\d+)?)\s*\*?\s*\(([^()]*)\)\s*(\^|²|³)?")
            .expect("valid")
    });
    let mut fine = true;
    let out = r.replace_all(s, |c: &regex::Captures| {
        let sign = if &c[1] == "-" { -1.0 } else { 1.0 };
        let factor: Option<f64> = match c[2].split_once('/') {
            _ if c[2].is_empty() => Some(1.0),
            Some((a, b)) => a
                .parse::<f64>()
                .ok()
                .zip(b.parse::<f64>().ok().filter(|b| *b != 0.0))
                .map(|(a, b)| a / b),
            None => c[2].parse().ok(),
        };
        let mut terms = BTreeMap::new();
        match factor {
            Some(k) if c.get(4).is_none() && side(&c[3], sign * k, &mut terms).is_some() => terms
                .iter()
                .map(|(key, coef)| format!("{coef:+}{key}"))
                .collect::<String>(),
            _ => {
                fine = false;
                String::new()
            }
        }
    });
    (fine && !out.contains(['(', ')'])).then(|| out.into_owned())
}

/// The last of what `read` finds in the sentences of `p` that a reply answers with: after its
/// last correction or contrast when one follows there ("…いや、待って…したがって y + 1 = 2(x −
/// 1)", "…so it would be (2, −3). But reading the grid, P sits at (3, −3)"), the last outside
/// an aside or a hypothetical ("…꼭짓점은 (2, −1)입니다. 참고로 … (3, 0)"; "so line l is y = 2x +
/// 1. The perpendicular would be y = −0.5x"), else the last.
pub fn answered_last<T>(p: &str, read: impl Fn(&str) -> Vec<T>) -> Option<T> {
    static SENTENCE: OnceLock<Regex> = OnceLock::new();
    static ASIDE: OnceLock<Regex> = OnceLock::new();
    let sentence = SENTENCE.get_or_init(|| Regex::new(r"[。\n!?]|\.(?:\s|$)").expect("valid"));
    let aside = ASIDE.get_or_init(|| {
        Regex::new(r"^\s*(?:for reference|by the way|incidentally|note that|also|참고로|덧붙여|ちなみに|なお|また)|\bwould (?:be|have)\b")
            .expect("valid")
    });
    let from = [super::corrections::last_end(p), super::contrast_end(p)]
        .into_iter()
        .flatten()
        .filter(|&c| !read(&p[c..]).is_empty())
        .max()
        .map_or(0, |c| super::after_last(p, c, &['。', '\n', '.']));
    let mut last = None;
    let mut aside_last = None;
    for s in sentence.split(&p[from..]) {
        let Some(x) = read(s).pop() else { continue };
        if aside.is_match(s) {
            aside_last = Some(x);
        } else {
            last = Some(x);
        }
    }
    last.or(aside_last)
}

/// Adds one side's terms, times `sign`, into `terms`.
fn side(s: &str, sign: f64, terms: &mut BTreeMap<String, f64>) -> Option<()> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    if s.is_empty() {
        return None;
    }
    let mut i = 0;
    let b = s.as_bytes();
    while i < b.len() {
        let mut k = sign;
        while i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            if b[i] == b'-' {
                k = -k;
            }
            i += 1;
        }
        let start = i;
        while i < b.len() && b[i] != b'+' && b[i] != b'-' {
            i += 1;
        }
        let (coef, key) = term(&s[start..i])?;
        *terms.entry(key).or_insert(0.0) += k * coef;
    }
    Some(())
}

/// One term: a coefficient (`2`, `0.5`, `3/4`, `1/2x` as ½x) and variables with powers (`x`,
/// `x^2`, `x²`, `xy`).
fn term(t: &str) -> Option<(f64, String)> {
    if t.is_empty() {
        return None;
    }
    let digits_end = t
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_digit() || c == '.' || c == '/' || c == '*' || c == '×'))
        .map_or(t.len(), |(i, _)| i);
    let (num, vars) = t.split_at(digits_end);
    let num = num.trim_end_matches(['*', '×']);
    let coef = if num.is_empty() {
        1.0
    } else if let Some((a, b)) = num.split_once('/') {
        let (a, b): (f64, f64) = (a.parse().ok()?, b.parse().ok()?);
        if b == 0.0 {
            return None;
        }
        a / b
    } else {
        num.parse().ok()?
    };
    let mut powers: BTreeMap<char, u32> = BTreeMap::new();
    let mut chars = vars.chars().peekable();
    while let Some(c) = chars.next() {
        let v = match c {
            'a'..='z' => c,
            '*' | '×' | '·' => continue,
            _ => return None,
        };
        let mut p = 1;
        match chars.peek() {
            Some('^') => {
                chars.next();
                let d = chars.next()?.to_digit(10)?;
                p = d;
            }
            Some('²') => {
                chars.next();
                p = 2;
            }
            Some('³') => {
                chars.next();
                p = 3;
            }
            _ => {}
        }
        *powers.entry(v).or_insert(0) += p;
    }
    let key = powers
        .iter()
        .map(|(v, p)| {
            if *p == 1 {
                v.to_string()
            } else {
                format!("{v}^{p}")
            }
        })
        .collect::<String>();
    Some((coef, key))
}

/// The equations a reply states, in order: each `=` with the mathematics on either side of it
/// (single letters, figures, operators; a word of two letters or more ends it), read by
/// [`equation`]. "the line is y = 2x + 1." gives `y = 2x + 1`.
pub fn equations_in(p: &str) -> Vec<Equation> {
    let mathematical = |w: &str| {
        !w.is_empty()
            && w.chars().all(|c| {
                c.is_ascii_digit() || c.is_ascii_lowercase() || "+-*/^=.²³×·()".contains(c)
            })
            && !w
                .as_bytes()
                .windows(2)
                .any(|x| x[0].is_ascii_lowercase() && x[1].is_ascii_lowercase())
    };
    let mut out = Vec::new();
    for line in p.split(['\n', ',', ';', ':', '。', '、', '，']) {
        let words: Vec<&str> = line
            .split_whitespace()
            .map(|w| w.trim_end_matches(['.', '!', '?']))
            .collect();
        for (i, w) in words.iter().enumerate() {
            if !w.contains('=') {
                continue;
            }
            let mut from = i;
            while from > 0 && mathematical(words[from - 1]) && !words[from - 1].contains('=') {
                from -= 1;
            }
            let mut to = i + 1;
            while to < words.len() && mathematical(words[to]) && !words[to].contains('=') {
                to += 1;
            }
            if !mathematical(w) {
                continue;
            }
            if let Some(e) = equation(&words[from..to].concat()) {
                out.push(e);
            }
        }
    }
    out
}

/// A reference that is one point ("(1, -3)", "(2,5)").
pub fn point(pr: &str) -> Option<(f64, f64)> {
    match points_in(pr).as_slice() {
        [one] if pr.trim().starts_with('(') && pr.trim().ends_with(')') => Some(*one),
        _ => None,
    }
}

/// The points a text states ("(−1, −3)" after [`plain`], "( 2 , 5 )"), in order.
pub fn points_in(p: &str) -> Vec<(f64, f64)> {
    static R: OnceLock<Regex> = OnceLock::new();
    let r = R.get_or_init(|| {
        Regex::new(r"\(\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*\)").expect("valid")
    });
    r.captures_iter(p)
        .filter_map(|c| Some((c[1].parse().ok()?, c[2].parse().ok()?)))
        .collect()
}

/// A reference in degrees ("60°", "45 degrees", "45度", "45도").
pub fn degrees_reference(pr: &str) -> Option<f64> {
    static R: OnceLock<Regex> = OnceLock::new();
    let r = R.get_or_init(|| {
        Regex::new(r"^\s*(\d+(?:\.\d+)?)\s*(?:°|degrees?|deg|度|도)\s*$").expect("valid")
    });
    r.captures(pr)?[1].parse().ok()
}

/// The angles a reply states in radians as multiples of π ("π/3", "2π/3", "θ = π/6 rad"), in
/// degrees, in order.
pub fn radians_in_degrees(p: &str) -> Vec<f64> {
    radians_at(p).into_iter().map(|(_, _, d)| d).collect()
}

/// The multiple of π a reply answers with, in degrees: the first after its last conclusion mark
/// ("…반복되므로, 주기는 π/4입니다", "so its period is π — half the 2π period"), else its last;
/// none when a figure follows it outside brackets ("x/360 = 2π/12π より x = 60", "9π ≒ 28.26":
/// the figure answers; "π/3 ラジアン（円全体の 1/6）" is still π/3).
pub fn last_radians(p: &str) -> Option<f64> {
    static BRACKETS: OnceLock<Regex> = OnceLock::new();
    let brackets = BRACKETS.get_or_init(|| Regex::new(r"\([^()]*\)|（[^（）]*）").expect("valid"));
    let all = radians_at(p);
    let mark = concludes().find_iter(p).last().map(|m| m.end());
    let &(_, end, degrees) = mark
        .and_then(|m| all.iter().find(|r| r.0 >= m))
        .or(all.last())?;
    let tail = brackets.replace_all(&p[end..], "");
    let tail = radians().replace_all(&tail, "");
    (!tail.contains(|c: char| c.is_ascii_digit())).then_some(degrees)
}

fn radians() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"(?:^|[^0-9./])(\d*)\s*π\s*(?:/\s*(\d+))?").expect("valid"))
}

/// Words that conclude, and the labels of an answer ("answer", "答え", "정답").
fn concludes() -> &'static Regex {
    static CONCLUDES: OnceLock<Regex> = OnceLock::new();
    CONCLUDES.get_or_init(|| {
        Regex::new(&format!(
            r"{}|\banswer\b|答え|정답|답\s*[은:]",
            super::conclusions::alternation()
        ))
        .expect("valid")
    })
}

/// Each multiple of π in `p` with where it starts and ends, in degrees.
fn radians_at(p: &str) -> Vec<(usize, usize, f64)> {
    radians()
        .captures_iter(p)
        .filter_map(|c| {
            let k: f64 = match c.get(1).map(|m| m.as_str()) {
                Some("") | None => 1.0,
                Some(d) => d.parse().ok()?,
            };
            let n: f64 = c.get(2).map_or(Some(1.0), |m| m.as_str().parse().ok())?;
            let whole = c.get(0)?;
            (n != 0.0).then_some((whole.start(), whole.end(), 180.0 * k / n))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latex_is_read_as_the_text_it_typesets() {
        assert_eq!(plain(r"**答え：$\sqrt{5}$**"), "**答え：√5**");
        assert_eq!(plain(r"$1.0\times10^{-10}$ m"), "1.0×10^-10 m");
        assert_eq!(plain(r"\( x = \frac{3}{4} \)"), " x = 3/4 ");
        assert_eq!(plain(r"$\frac{\sqrt{3}}{2}$"), "√3/2");
        assert_eq!(plain(r"\dfrac{x+1}{2}"), "(x+1)/2");
        assert_eq!(plain(r"$45^\circ$"), "45°");
        assert_eq!(plain(r"$\boxed{12}$"), r"\boxed{12}");
        assert_eq!(plain("the slope is −6/3 = −2"), "the slope is -6/3 = -2");
        // Prices keep their signs.
        assert_eq!(plain("$35 and $40"), "$35 and $40");
        assert_eq!(
            plain("スモールは$3.20、ラージは$3.90です"),
            "スモールは$3.20、ラージは$3.90です"
        );
        assert_eq!(plain("plain text"), "plain text");
        assert_eq!(
            plain("= 500 s.\n\n#### 500 s"),
            "= 500 s.\n\nFinal answer: 500 s"
        );
        assert_eq!(
            plain("#### Step 1\n4 red.\n#### Step 2\n3 green.\n\n4 + 3 = 7 apples."),
            "Step 1\n4 red.\nStep 2\n3 green.\n\n4 + 3 = 7 apples."
        );
        assert_eq!(
            plain("f = 3.0e8 / 6.0e-7 = 5e14 Hz"),
            "f = 3.0×10^8 / 6.0×10^-7 = 5×10^14 Hz"
        );
        assert_eq!(plain("model 3e8x and 1e"), "model 3e8x and 1e");
        assert_eq!(plain(r"$2\frac{1}{2}$"), "2 1/2");
        assert_eq!(plain(r"30\text{ cm}^2"), "30 cm2");
        assert_eq!(plain(r"12{,}5\,\%"), "12,5 %");
        assert_eq!(plain(r"$x^{2}$"), "x^2");
    }

    #[test]
    fn equations_with_the_same_terms_are_the_same() {
        let e = |s: &str| equation(s).unwrap();
        assert!(e("y = 2x + 1").same(&e("2x - y + 1 = 0")));
        assert!(e("y=2x+1").same(&e("y - 1 = 2x")));
        assert!(!e("y = 2x + 1").same(&e("y = 2x - 1")));
        assert!(e("y = x^2 - 4x + 3").same(&e("y = x² - 4x + 3")));
        assert!(e("y = 1/2x + 3").same(&e("2y = x + 6")));
        assert!(equation("2 + 3 = 5").is_none());
        assert!(equation("the answer = 5").is_none());
        assert_eq!(e("2x - y + 1 = 0").variables(), "xy");
        let found =
            equations_in("slope: (7 - 3)/(3 - 1) = 2. so b = 1.\nthe line is 2x - y + 1 = 0.");
        assert!(found.iter().any(|f| f.same(&e("y = 2x + 1"))));
        assert!(equations_in("therefore the line is y = 2x + 1.")
            .last()
            .is_some_and(|f| f.same(&e("y = 2x + 1"))));
    }

    #[test]
    fn points_with_their_signs() {
        assert_eq!(point("(1, -3)"), Some((1.0, -3.0)));
        assert_eq!(point("1, -3"), None);
        assert_eq!(
            points_in(&plain("꼭짓점은 (−1, −3)입니다.")),
            vec![(-1.0, -3.0)]
        );
    }

    #[test]
    fn radians_against_degrees() {
        assert_eq!(degrees_reference("60°"), Some(60.0));
        assert_eq!(degrees_reference("45 degrees"), Some(45.0));
        assert_eq!(radians_in_degrees("θ = π/3 です"), vec![60.0]);
        assert_eq!(radians_in_degrees("2π/3 rad"), vec![120.0]);
        assert!(radians_in_degrees("4π cm²")[0] == 720.0);
    }
}
