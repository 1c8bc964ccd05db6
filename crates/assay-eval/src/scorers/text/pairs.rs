//! Two figures that answer together: a score ("2-1", "2対1", "5대 3", "3 to 1") in its order,
//! and a size ("4.2 m × 3.6 m", "3.6 by 4.2 metres") in either order. A reference written as a
//! pair is answered by the reply's first pair of the same kind no denial governs.

use std::sync::OnceLock;

use regex::Regex;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// Order matters: home before away, as the reference writes it.
    Score,
    /// Order does not: a room of 4.2 by 3.6 metres is one of 3.6 by 4.2.
    Size,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pair {
    pub kind: Kind,
    pub a: f64,
    pub b: f64,
    pub start: usize,
    pub end: usize,
}

impl Pair {
    /// Whether `other` states the same pair.
    pub fn same(&self, other: &Pair) -> bool {
        let eq = |x: f64, y: f64| (x - y).abs() < 1e-9;
        (eq(self.a, other.a) && eq(self.b, other.b))
            || (self.kind == Kind::Size && eq(self.a, other.b) && eq(self.b, other.a))
    }
}

const NUMBER: &str = r"(\d+(?:\.\d+)?)";
const LENGTH: &str =
    r"\s*(?:mm|cm|m|km|in|ft|metres|meters|metre|meter|センチ|メートル|めーとる|미터|센티)?";

fn score_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(
            r"(?:^|[^\d.:/\-])(\d{1,3})\s*(?:-|–|—|:|対|대|to|vs\.?|v)\s*(\d{1,3})(?:$|[^\d.:/\-]|\.(?:$|\D))",
        )
        .expect("valid")
    })
}

fn size_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(&format!(
            r"{NUMBER}{LENGTH}\s*(?:×|x|\*|by)\s*{NUMBER}{LENGTH}"
        ))
        .expect("valid")
    })
}

/// "3-4 players", "3-4人", "2~3명": a range of a count, not a score.
fn counts_after(rest: &str) -> bool {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"^\s*(?:[a-z]+s\b|(?:人|名|個|匹|頭|台|本|枚|羽|冊|回|명|개|마리|권|번|회))")
            .expect("valid")
    })
    .is_match(rest)
}

fn pairs_of(p: &str, kind: Kind) -> Vec<Pair> {
    let re = match kind {
        Kind::Score => score_re(),
        Kind::Size => size_re(),
    };
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(c) = re.captures_at(p, at) {
        let (Some(a), Some(b)) = (c.get(1), c.get(2)) else {
            break;
        };
        let (Ok(mut x), Ok(mut y)) = (a.as_str().parse::<f64>(), b.as_str().parse::<f64>()) else {
            break;
        };
        at = b.end();
        if kind == Kind::Score && counts_after(&p[b.end()..]) {
            continue;
        }
        if kind == Kind::Size {
            // "4200 × 3600 mm" is "4.2 m × 3.6 m": each side in metres, a side without its own
            // unit taking the other's.
            let unit = |end: usize| {
                super::units::unit_at(&p[end..])
                    .filter(|(u, _)| u.dimension == super::units::Dimension::Length)
                    .map(|(u, _)| u.factor)
            };
            let (ua, ub) = (unit(a.end()), unit(b.end()));
            x *= ua.or(ub).unwrap_or(1.0);
            y *= ub.or(ua).unwrap_or(1.0);
        }
        out.push(Pair {
            kind,
            a: x,
            b: y,
            start: a.start(),
            end: b.end(),
        });
    }
    out
}

/// A reference that is one pair and nothing else ("2-1", "5:3", "4.2 m × 3.6 m").
pub fn pair_reference(p: &str) -> Option<Pair> {
    let t = p.trim();
    for kind in [Kind::Size, Kind::Score] {
        if let [one] = pairs_of(t, kind).as_slice() {
            let rest = format!("{}{}", &t[..one.start], &t[one.end..]);
            let rest = rest.trim();
            let unit_only = rest.is_empty()
                || (kind == Kind::Size
                    && super::units::unit_at(rest).is_some_and(|(_, n)| n == rest.len()));
            if unit_only {
                return Some(*one);
            }
        }
    }
    None
}

/// The pairs of `kind` a prepared reply states, in order.
pub fn pairs(p: &str, kind: Kind) -> Vec<Pair> {
    pairs_of(p, kind)
}

#[cfg(test)]
mod tests {
    use super::super::prepare;
    use super::*;

    fn reference(s: &str) -> Option<Pair> {
        pair_reference(&prepare(s))
    }

    #[test]
    fn scores_keep_their_order_and_sizes_do_not() {
        let r = reference("2-1").unwrap();
        assert_eq!(r.kind, Kind::Score);
        let found = |s: &str| pairs(&prepare(s), r.kind);
        assert!(found("ホームの鹿島が2対1で勝利しました。")[0].same(&r));
        assert!(found("5대 3으로 이겼다")[0].same(&pair_reference("5-3").unwrap()));
        assert!(found("they won 2 to 1")[0].same(&r));
        assert!(found("The final score was 2-1.")[0].same(&r));
        assert!(found("It was 2-1.5 on aggregate").is_empty());
        assert!(!found("they lost 1-2")[0].same(&r));
        let size = reference("4.2 m × 3.6 m").unwrap();
        assert_eq!(size.kind, Kind::Size);
        assert!(pairs(&prepare("The room measures 3.6 by 4.2 metres."), Kind::Size)[0].same(&size));
        assert!(!pairs(&prepare("3.6 x 4.0 m"), Kind::Size)[0].same(&size));
        assert!(pairs(&prepare("It is labelled 4200 × 3600 mm."), Kind::Size)[0].same(&size));
        // A range of a count is no score.
        assert!(found("3-4 players are celebrating").is_empty());
        assert!(found("3-4人が写っています").is_empty());
    }

    #[test]
    fn dates_times_and_plain_figures_are_no_pairs() {
        assert!(reference("2024-05-01").is_none());
        assert!(reference("3").is_none());
        assert!(reference("Baker Street").is_none());
        assert!(pairs(&prepare("2024-05-01"), Kind::Score).is_empty());
    }
}
