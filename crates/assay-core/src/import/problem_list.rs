//! The problems an import finds, kept up to a limit.
//!
//! A read goes on past problems so that the report names them, but a large file that is wrong
//! throughout (a million rows whose images are elsewhere) would otherwise hold a problem per
//! row, ~130 bytes each. The first [`KEPT`] are kept whole and the rest counted; the list ends
//! with one problem that says how many more there were.

use std::ops::Deref;

use crate::error::Problem;

/// Problems kept whole. Nobody reads further than this; the count says the rest.
pub(crate) const KEPT: usize = 10_000;

#[derive(Default)]
pub(crate) struct ProblemList {
    kept: Vec<Problem>,
    more: usize,
    /// Where the problems not kept are said to be (the data file).
    file: String,
}

impl ProblemList {
    pub(crate) fn new(file: &str, first: Vec<Problem>) -> Self {
        let mut list = Self {
            file: file.to_string(),
            ..Default::default()
        };
        list.extend(first);
        list
    }

    pub(crate) fn push(&mut self, p: Problem) {
        if self.kept.len() < KEPT {
            self.kept.push(p);
        } else {
            self.more += 1;
        }
    }

    pub(crate) fn extend(&mut self, ps: impl IntoIterator<Item = Problem>) {
        for p in ps {
            self.push(p);
        }
    }

    /// The kept problems, then the count of the others if there were any.
    pub(crate) fn into_vec(mut self) -> Vec<Problem> {
        if self.more > 0 {
            let more = self.more;
            self.kept.push(Problem::new(
                self.file,
                format!("{more} more problem(s) not listed: only the first {KEPT} are"),
            ));
        }
        self.kept
    }
}

/// Read access to the kept problems (whether there are any, the first of them).
impl Deref for ProblemList {
    type Target = [Problem];

    fn deref(&self) -> &[Problem] {
        &self.kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_the_limit_problems_are_counted_and_the_count_is_the_last_problem() {
        let mut list = ProblemList::new("d.jsonl", vec![Problem::new("d.jsonl:1", "first")]);
        list.extend((2..=KEPT + 25).map(|i| Problem::new(format!("d.jsonl:{i}"), "bad")));
        assert_eq!(list.len(), KEPT);
        let all = list.into_vec();
        assert_eq!(all.len(), KEPT + 1);
        assert_eq!(all[0].message, "first");
        assert_eq!(all[KEPT - 1].location, format!("d.jsonl:{KEPT}"));
        let last = &all[KEPT];
        assert_eq!(last.location, "d.jsonl");
        assert!(
            last.message.starts_with("25 more problem(s) not listed"),
            "{}",
            last.message
        );
        let few = ProblemList::new("f", vec![Problem::new("f:1", "x")]).into_vec();
        assert_eq!(few.len(), 1, "no count when nothing was left out");
    }
}
