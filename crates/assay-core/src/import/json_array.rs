//! A JSON array of objects (or an object holding one under `data`, `items` or `rows`) read one
//! element at a time, so that an import holds one element of it, never the whole file.
//!
//! Elements are cut out by their brackets and quotes, then each is parsed alone: an element
//! that does not parse or is not an object is a problem at the line it starts on, and the read
//! goes on to the next one, so a report names every bad element rather than the first.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use serde_json::Value;

use super::records::Record;
use crate::error::{Error, Problem, Result};

/// The keys a wrapping object may hold its array under.
const WRAPPER_KEYS: [&str; 3] = ["data", "items", "rows"];

pub struct JsonArrayElements {
    input: Input,
    name: String,
    state: State,
    /// False when only counting: elements are cut out but neither kept nor parsed.
    parse: bool,
    element: Vec<u8>,
}

#[derive(PartialEq)]
enum State {
    Start,
    InArray { first: bool },
    Done,
}

/// The file's bytes with the current line number.
struct Input {
    reader: BufReader<File>,
    line: usize,
}

impl Input {
    fn peek(&mut self) -> std::io::Result<Option<u8>> {
        Ok(self.reader.fill_buf()?.first().copied())
    }

    fn bump(&mut self) {
        if let Ok([b, ..]) = self.reader.fill_buf() {
            if *b == b'\n' {
                self.line += 1;
            }
            self.reader.consume(1);
        }
    }

    /// Skips whitespace (and a byte-order mark); the next byte, not consumed.
    fn skip_space(&mut self) -> std::io::Result<Option<u8>> {
        loop {
            match self.peek()? {
                Some(b' ' | b'\t' | b'\r' | b'\n' | 0xEF | 0xBB | 0xBF) => self.bump(),
                other => return Ok(other),
            }
        }
    }

    /// Reads one JSON value (unchecked beyond its brackets and quotes) into `out` when given.
    /// Returns false if the file ended inside it.
    fn take_value(&mut self, mut out: Option<&mut Vec<u8>>) -> std::io::Result<bool> {
        let mut open: Vec<u8> = Vec::new();
        let mut in_string = false;
        let mut escaped = false;
        let mut started = false;
        loop {
            let buf = self.reader.fill_buf()?;
            if buf.is_empty() {
                return Ok(false);
            }
            let mut end = None;
            for (i, &b) in buf.iter().enumerate() {
                if in_string {
                    if escaped {
                        escaped = false;
                    } else if b == b'\\' {
                        escaped = true;
                    } else if b == b'"' {
                        in_string = false;
                        if open.is_empty() {
                            end = Some(i + 1);
                            break;
                        }
                    }
                    continue;
                }
                match b {
                    b'"' => in_string = true,
                    b'{' => open.push(b'}'),
                    b'[' => open.push(b']'),
                    // A closing bracket that does not match ends the value here: the parse
                    // names the mistake, and the next element starts after it. (The guard pops
                    // the bracket it closes, so the arm after it only goes on.)
                    b'}' | b']' if started && (open.pop() != Some(b) || open.is_empty()) => {
                        end = Some(i + 1);
                        break;
                    }
                    b'}' | b']' if started => {}
                    b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n' if open.is_empty() => {
                        end = Some(i);
                        break;
                    }
                    _ => {}
                }
                started = true;
            }
            let take = end.unwrap_or(buf.len());
            self.line += buf[..take].iter().filter(|b| **b == b'\n').count();
            if let Some(out) = out.as_deref_mut() {
                out.extend_from_slice(&buf[..take]);
            }
            self.reader.consume(take);
            if end.is_some() {
                return Ok(true);
            }
        }
    }
}

impl JsonArrayElements {
    pub fn open(path: &Path, name: &str) -> Result<Self> {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        Ok(Self {
            input: Input {
                reader: BufReader::with_capacity(1 << 20, file),
                line: 1,
            },
            name: name.to_string(),
            state: State::Start,
            parse: true,
            element: Vec::new(),
        })
    }

    /// How many elements the file's array has, read through without keeping any (a progress
    /// total).
    pub fn count(path: &Path) -> usize {
        let Ok(mut it) = Self::open(path, "") else {
            return 0;
        };
        it.parse = false;
        it.filter(Result::is_ok).count()
    }

    fn problem(&mut self, message: impl Into<String>) -> Option<<Self as Iterator>::Item> {
        self.state = State::Done;
        Some(Err(Problem::new(
            format!("{}:{}", self.name, self.input.line),
            message.into(),
        )))
    }

    /// Finds the array: the file's value, or under a wrapper key of the file's object.
    fn start(&mut self) -> std::io::Result<std::result::Result<(), String>> {
        const NOT_AN_ARRAY: &str = "malformed JSON (expected an array of objects, or an object \
                                    holding one under \"data\", \"items\" or \"rows\")";
        match self.input.skip_space()? {
            Some(b'[') => {
                self.input.bump();
                return Ok(Ok(()));
            }
            Some(b'{') => self.input.bump(),
            _ => return Ok(Err(NOT_AN_ARRAY.into())),
        }
        loop {
            if self.input.skip_space()? != Some(b'"') {
                return Ok(Err(NOT_AN_ARRAY.into()));
            }
            let mut key = Vec::new();
            self.input.take_value(Some(&mut key))?;
            let key: String = serde_json::from_slice(&key).unwrap_or_default();
            if self.input.skip_space()? != Some(b':') {
                return Ok(Err("malformed JSON: expected ':' after a key".into()));
            }
            self.input.bump();
            if self.input.skip_space()? == Some(b'[') && WRAPPER_KEYS.contains(&key.as_str()) {
                self.input.bump();
                return Ok(Ok(()));
            }
            if !self.input.take_value(None)? {
                return Ok(Err(NOT_AN_ARRAY.into()));
            }
            match self.input.skip_space()? {
                Some(b',') => self.input.bump(),
                _ => return Ok(Err(NOT_AN_ARRAY.into())),
            }
        }
    }

    fn next_element(&mut self) -> std::io::Result<Option<<Self as Iterator>::Item>> {
        if self.state == State::Start {
            if let Err(message) = self.start()? {
                return Ok(self.problem(message));
            }
            self.state = State::InArray { first: true };
        }
        let State::InArray { first } = self.state else {
            return Ok(None);
        };
        match self.input.skip_space()? {
            Some(b']') => {
                self.state = State::Done;
                return Ok(None);
            }
            None => return Ok(self.problem("malformed JSON: the file ends inside the array")),
            Some(b',') if !first => {
                self.input.bump();
                if matches!(self.input.skip_space()?, Some(b']') | None) {
                    return Ok(self.problem("malformed JSON: expected a value after ','"));
                }
            }
            Some(_) if !first => {
                return Ok(self.problem("malformed JSON: expected ',' or ']' after an element"))
            }
            Some(_) => {}
        }
        self.state = State::InArray { first: false };
        let line = self.input.line;
        self.element.clear();
        let buf = self.parse.then_some(&mut self.element);
        if !self.input.take_value(buf)? {
            return Ok(self.problem("malformed JSON: the file ends inside an element"));
        }
        let location = format!("{}:{line}", self.name);
        if !self.parse {
            return Ok(Some(Ok(Record {
                location,
                value: Value::Null,
                blobs: Vec::new(),
            })));
        }
        Ok(Some(match serde_json::from_slice::<Value>(&self.element) {
            Ok(value @ Value::Object(_)) => Ok(Record {
                location,
                value,
                blobs: Vec::new(),
            }),
            Ok(_) => Err(Problem::new(location, "expected a JSON object")),
            Err(e) => Err(Problem::new(location, format!("malformed JSON: {e}"))),
        }))
    }
}

impl Iterator for JsonArrayElements {
    type Item = std::result::Result<Record, Problem>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.state == State::Done {
            return None;
        }
        match self.next_element() {
            Ok(item) => item,
            Err(e) => self.problem(format!("reading: {e}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Problems with the array itself rather than with an element it holds.
    const STRUCTURAL: [&str; 5] = [
        "the file ends",
        "expected a value after",
        "expected ',' or",
        "expected an array",
        "expected ':'",
    ];

    fn read(text: &str) -> Vec<std::result::Result<(usize, Value), String>> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("d.json");
        std::fs::write(&p, text).unwrap();
        let out: Vec<_> = JsonArrayElements::open(&p, "d.json")
            .unwrap()
            .map(|r| match r {
                Ok(rec) => Ok((
                    rec.location.rsplit(':').next().unwrap().parse().unwrap(),
                    rec.value,
                )),
                Err(p) => Err(p.to_string()),
            })
            .collect();
        assert_eq!(
            JsonArrayElements::count(&p),
            out.iter()
                .filter(|r| !matches!(r, Err(e) if STRUCTURAL.iter().any(|s| e.contains(s))))
                .count(),
            "the count is the elements cut out"
        );
        out
    }

    #[test]
    fn elements_keep_their_lines_and_brackets_inside_strings_do_not_count() {
        let out = read(
            "\u{feff}[\n {\"q\": \"a ] } [ { \\\" quote\",\n  \"n\": [1, {\"x\": 2}]},\n\n{\"q\": \"b\"}\n]\n",
        );
        assert_eq!(out.len(), 2, "{out:?}");
        assert_eq!(out[0].as_ref().unwrap().0, 2);
        assert_eq!(out[0].as_ref().unwrap().1["q"], "a ] } [ { \" quote");
        assert_eq!(out[0].as_ref().unwrap().1["n"][1]["x"], 2);
        assert_eq!(out[1].as_ref().unwrap().0, 5);
    }

    #[test]
    fn a_bad_element_is_named_and_the_read_goes_on() {
        let out = read("[{\"a\": 1},\n{\"a\": tru},\n3,\n{\"a\": [1}, \n{\"a\": 4}]");
        assert!(out[1]
            .as_ref()
            .unwrap_err()
            .contains("d.json:2: malformed JSON"));
        assert!(out[2]
            .as_ref()
            .unwrap_err()
            .contains("d.json:3: expected a JSON object"));
        assert!(out[3]
            .as_ref()
            .unwrap_err()
            .contains("d.json:4: malformed JSON"));
        assert_eq!(out[4].as_ref().unwrap().1["a"], 4, "{out:?}");
        assert_eq!(out.len(), 5);
    }

    #[test]
    fn the_array_is_found_under_a_wrapper_key_after_other_keys() {
        let out = read(
            "{\"meta\": {\"data\": [\"not this\"], \"s\": \"]}\"}, \"version\": 2,\n \"rows\": [\n{\"a\": 1}, {\"a\": 2}], \"after\": 1}",
        );
        let values: Vec<_> = out
            .iter()
            .map(|r| r.as_ref().unwrap().1["a"].clone())
            .collect();
        assert_eq!(values, vec![Value::from(1), Value::from(2)]);
        assert_eq!(out[0].as_ref().unwrap().0, 3);
    }

    #[test]
    fn a_file_that_ends_early_or_is_no_array_is_a_problem_at_its_line() {
        let out = read("[{\"a\": 1},\n{\"a\": \"cut");
        assert!(out[0].is_ok());
        assert!(
            out[1].as_ref().unwrap_err().contains("d.json:2:"),
            "{out:?}"
        );
        assert_eq!(out.len(), 2);
        let out = read("[{\"a\": 1},\n]");
        assert!(out[1]
            .as_ref()
            .unwrap_err()
            .contains("d.json:2: malformed JSON: expected a value"));
        let out = read("[{\"a\": 1}\n{\"a\": 2}]");
        assert!(out[1].as_ref().unwrap_err().contains("expected ',' or ']'"));
        for text in ["", "42", "{\"other\": [1]}", "{\"data\": 3}"] {
            let out = read(text);
            assert_eq!(out.len(), 1, "{text:?}: {out:?}");
            assert!(
                out[0]
                    .as_ref()
                    .unwrap_err()
                    .contains("expected an array of objects"),
                "{text:?}: {out:?}"
            );
        }
        assert!(read("[]").is_empty());
        assert!(read(" { \"items\" : [ ] } ").is_empty());
    }
}
