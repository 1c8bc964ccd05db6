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
    /// `wrapped`: the array is a value of the file's object, whose rest is read after it.
    InArray {
        first: bool,
        wrapped: bool,
    },
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

    /// Skips whitespace; the next byte, not consumed.
    fn skip_space(&mut self) -> std::io::Result<Option<u8>> {
        loop {
            match self.peek()? {
                Some(b' ' | b'\t' | b'\r' | b'\n') => self.bump(),
                other => return Ok(other),
            }
        }
    }

    /// Skips a UTF-8 byte-order mark at the start of the file.
    fn skip_bom(&mut self) -> std::io::Result<()> {
        if self.reader.fill_buf()?.starts_with(b"\xEF\xBB\xBF") {
            self.reader.consume(3);
        }
        Ok(())
    }

    /// Reads one JSON value (unchecked beyond its brackets and quotes) into `out` when given.
    fn take_value(&mut self, mut out: Option<&mut Vec<u8>>) -> std::io::Result<Taken> {
        let mut open: Vec<u8> = Vec::new();
        let mut in_string = false;
        let mut escaped = false;
        let mut size = 0usize;
        loop {
            let buf = self.reader.fill_buf()?;
            if buf.is_empty() {
                return Ok(Taken::EndOfFile);
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
                let closing = b == b'}' || b == b']';
                if open.is_empty() && (closing || matches!(b, b',' | b' ' | b'\t' | b'\r' | b'\n'))
                {
                    // A scalar ends before the bracket, comma or space after it.
                    end = Some(i);
                    break;
                } else if b == b'"' {
                    in_string = true;
                } else if b == b'{' {
                    open.push(b'}');
                } else if b == b'[' {
                    open.push(b']');
                } else if closing && (open.pop() != Some(b) || open.is_empty()) {
                    // The bracket that closes the value ends it; one that does not match ends
                    // it too, after it: the parse names the mistake.
                    end = Some(i + 1);
                    break;
                }
            }
            let take = end.unwrap_or(buf.len());
            self.line += buf[..take].iter().filter(|b| **b == b'\n').count();
            size += take;
            if let Some(out) = out.as_deref_mut() {
                out.extend_from_slice(&buf[..take]);
            }
            self.reader.consume(take);
            if end.is_some() {
                return Ok(Taken::Value);
            }
            if size > MAX_ELEMENT {
                return Ok(Taken::TooLarge);
            }
        }
    }
}

enum Taken {
    Value,
    EndOfFile,
    TooLarge,
}

/// The largest element read: past it, a bracket left open is the likelier reason, and the
/// rest of the file would otherwise be held as one element.
const MAX_ELEMENT: usize = 256 << 20;

const TOO_LARGE: &str = "malformed JSON: an element over 256 MB (a bracket left open?)";

/// A parse error's message without serde's position (which counts within the element).
fn parse_problem(start_line: usize, e: &serde_json::Error) -> (usize, String) {
    let text = e.to_string();
    let message = match text.rsplit_once(" at line ") {
        Some((message, _)) => message.to_string(),
        None => text,
    };
    let line = start_line + e.line().max(1) - 1;
    (
        line,
        format!("malformed JSON: {message} (column {})", e.column()),
    )
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

    /// Reads a wrapping object's key and the ':' after it.
    fn key(&mut self) -> std::io::Result<std::result::Result<String, String>> {
        if self.input.skip_space()? != Some(b'"') {
            return Ok(Err("malformed JSON: expected a key in quotes".into()));
        }
        let mut key = Vec::new();
        if !matches!(self.input.take_value(Some(&mut key))?, Taken::Value) {
            return Ok(Err("malformed JSON: the file ends inside a key".into()));
        }
        let Ok(key) = serde_json::from_slice::<String>(&key) else {
            return Ok(Err("malformed JSON: a key that is not a JSON string".into()));
        };
        if self.input.skip_space()? != Some(b':') {
            return Ok(Err("malformed JSON: expected ':' after a key".into()));
        }
        self.input.bump();
        self.input.skip_space()?;
        Ok(Ok(key))
    }

    /// Reads and checks a value of the wrapping object that is not the array (a version, a
    /// description): it must be JSON, though nothing keeps it.
    fn other_value(&mut self) -> std::io::Result<std::result::Result<(), (usize, String)>> {
        let line = self.input.line;
        let mut value = Vec::new();
        match self.input.take_value(Some(&mut value))? {
            Taken::Value => {}
            Taken::EndOfFile => {
                return Ok(Err((
                    line,
                    "malformed JSON: the file ends inside the object".into(),
                )))
            }
            Taken::TooLarge => return Ok(Err((line, TOO_LARGE.into()))),
        }
        Ok(serde_json::from_slice::<serde::de::IgnoredAny>(&value)
            .map(|_| ())
            .map_err(|e| parse_problem(line, &e)))
    }

    /// Finds the array: the file's value, or under a wrapper key of the file's object.
    fn start(&mut self) -> std::io::Result<std::result::Result<(), (usize, String)>> {
        const NOT_AN_ARRAY: &str = "malformed JSON (expected an array of objects, or an object \
                                    holding one under \"data\", \"items\" or \"rows\")";
        self.input.skip_bom()?;
        match self.input.skip_space()? {
            Some(b'[') => {
                self.input.bump();
                self.state = State::InArray {
                    first: true,
                    wrapped: false,
                };
                return Ok(Ok(()));
            }
            Some(b'{') => self.input.bump(),
            _ => return Ok(Err((self.input.line, NOT_AN_ARRAY.into()))),
        }
        loop {
            let key = match self.key()? {
                Ok(key) => key,
                Err(message) => return Ok(Err((self.input.line, message))),
            };
            if WRAPPER_KEYS.contains(&key.as_str()) {
                if self.input.peek()? != Some(b'[') {
                    return Ok(Err((
                        self.input.line,
                        format!("malformed JSON: {key:?} holds no array of objects"),
                    )));
                }
                self.input.bump();
                self.state = State::InArray {
                    first: true,
                    wrapped: true,
                };
                return Ok(Ok(()));
            }
            if let Err(problem) = self.other_value()? {
                return Ok(Err(problem));
            }
            match self.input.skip_space()? {
                Some(b',') => self.input.bump(),
                _ => return Ok(Err((self.input.line, NOT_AN_ARRAY.into()))),
            }
        }
    }

    /// After the array: nothing but the rest of its wrapping object, if it has one.
    fn finish(&mut self, wrapped: bool) -> std::io::Result<Option<<Self as Iterator>::Item>> {
        if !wrapped {
            return Ok(match self.input.skip_space()? {
                None => {
                    self.state = State::Done;
                    None
                }
                Some(_) => self.problem("malformed JSON: more after the array's closing ]"),
            });
        }
        loop {
            match self.input.skip_space()? {
                Some(b'}') => {
                    self.input.bump();
                    return Ok(match self.input.skip_space()? {
                        None => {
                            self.state = State::Done;
                            None
                        }
                        Some(_) => {
                            self.problem("malformed JSON: more after the object's closing }")
                        }
                    });
                }
                Some(b',') => self.input.bump(),
                None => return Ok(self.problem("malformed JSON: the file ends inside the object")),
                Some(_) => {
                    return Ok(self.problem("malformed JSON: expected ',' or '}' after the array"))
                }
            }
            let key = match self.key()? {
                Ok(key) => key,
                Err(message) => return Ok(self.problem(message)),
            };
            if WRAPPER_KEYS.contains(&key.as_str()) {
                return Ok(self.problem(format!(
                    "malformed JSON: a second array of items ({key:?}): give only one of \"data\", \"items\" and \"rows\""
                )));
            }
            if let Err((line, message)) = self.other_value()? {
                self.state = State::Done;
                return Ok(Some(Err(Problem::new(
                    format!("{}:{line}", self.name),
                    message,
                ))));
            }
        }
    }

    fn next_element(&mut self) -> std::io::Result<Option<<Self as Iterator>::Item>> {
        if self.state == State::Start {
            if let Err((line, message)) = self.start()? {
                self.state = State::Done;
                return Ok(Some(Err(Problem::new(
                    format!("{}:{line}", self.name),
                    message,
                ))));
            }
        }
        let State::InArray { first, wrapped } = self.state else {
            return Ok(None);
        };
        match self.input.skip_space()? {
            Some(b']') => {
                self.input.bump();
                return self.finish(wrapped);
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
        self.state = State::InArray {
            first: false,
            wrapped,
        };
        let line = self.input.line;
        self.element.clear();
        let buf = self.parse.then_some(&mut self.element);
        match self.input.take_value(buf)? {
            Taken::Value => {}
            Taken::EndOfFile => {
                return Ok(self.problem("malformed JSON: the file ends inside an element"))
            }
            Taken::TooLarge => {
                self.state = State::Done;
                return Ok(Some(Err(Problem::new(
                    format!("{}:{line}", self.name),
                    TOO_LARGE,
                ))));
            }
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
            Err(e) => {
                let (line, message) = parse_problem(line, &e);
                Err(Problem::new(format!("{}:{line}", self.name), message))
            }
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
        // The count is of the elements cut out: every good one, and at most every one named.
        let count = JsonArrayElements::count(&p);
        let good = out.iter().filter(|r| r.is_ok()).count();
        assert!(good <= count && count <= out.len(), "{count} of {out:?}");
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
    fn anything_after_the_array_is_a_problem_not_lost() {
        let a = "{\"id\": \"a\"}";
        for (text, problem) in [
            (
                format!("[{a}]\n[{a}]"),
                "d.json:2: malformed JSON: more after the array",
            ),
            (format!("[{a}] garbage"), "more after the array"),
            (format!("[{a}]]"), "more after the array"),
            (format!("{{\"data\": [{a}], garbage"), "expected a key"),
            (
                format!("{{\"data\": [{a}], \"items\": [{a}]}}"),
                "second array of items",
            ),
            (format!("{{\"data\": [{a}]}} {{}}"), "more after the object"),
            (format!("{{\"data\": [{a}], \"n\": tru}}"), "malformed JSON"),
            (format!("{{\"x\": tru, \"data\": [{a}]}}"), "malformed JSON"),
            (format!("{{\"x\": , \"data\": [{a}]}}"), "malformed JSON"),
            (
                format!("{{\"n\": 5}}, \"data\": [{a}]}}"),
                "expected an array of objects",
            ),
            (
                format!("{{\"data\": 3, \"rows\": [{a}]}}"),
                "\"data\" holds no array",
            ),
            (format!("[{a},{}{a}]", '\u{feff}'), "malformed JSON"),
        ] {
            let out = read(&text);
            let problems: Vec<_> = out.iter().filter_map(|r| r.as_ref().err()).collect();
            assert!(
                problems.iter().any(|p| p.contains(problem)),
                "{text:?}: {out:?}"
            );
        }
        let ok = read(&format!(
            "{{\"version\": [1, {{\"a\": \"]\"}}], \"data\": [{a}], \"note\": \"x\"}}\n"
        ));
        assert!(ok.iter().all(Result::is_ok) && ok.len() == 1, "{ok:?}");
    }

    #[test]
    fn a_scalar_before_a_closing_bracket_is_one_problem() {
        let out = read("[{\"id\": \"a\"},3]");
        assert_eq!(out.len(), 2, "{out:?}");
        assert!(out[1]
            .as_ref()
            .unwrap_err()
            .contains("d.json:1: expected a JSON object"));
        let out = read("[null]");
        assert_eq!(out.len(), 1, "{out:?}");
        assert!(out[0]
            .as_ref()
            .unwrap_err()
            .contains("expected a JSON object"));
    }

    #[test]
    fn a_bad_line_inside_a_long_element_is_named_by_its_own_line() {
        let out = read("[\n  {\n    \"id\": \"a\",\n    \"question\" \"no colon\"\n  }\n]");
        let e = out[0].as_ref().unwrap_err();
        assert!(
            e.contains("d.json:4: malformed JSON: expected `:` (column"),
            "{e}"
        );
        assert!(!e.contains("at line"), "{e}");
    }

    #[test]
    fn elements_larger_than_the_read_buffer_keep_their_quotes_and_escapes() {
        // Each element is ~1.5 MB of text full of escaped quotes and brackets, so the 1 MB
        // buffer ends inside strings, escapes and brackets.
        let filler = "\\\" ]} [{ \\\\ ".repeat(110_000);
        let elements: Vec<String> = (0..3)
            .map(|i| format!("{{\"id\": \"e{i}\", \"text\": \"{filler}\", \"n\": [[{i}]]}}"))
            .collect();
        let out = read(&format!("[{}]", elements.join(",\n")));
        assert_eq!(
            out.len(),
            3,
            "{:?}",
            out.iter().map(|r| r.is_ok()).collect::<Vec<_>>()
        );
        for (i, r) in out.iter().enumerate() {
            let (line, value) = r.as_ref().unwrap();
            assert_eq!(*line, i + 1);
            assert_eq!(value["n"][0][0], i);
            assert_eq!(
                value["text"].as_str().unwrap().len(),
                "\" ]} [{ \\ ".len() * 110_000
            );
        }
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
        for text in ["", "42", "{\"other\": [1]}"] {
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
