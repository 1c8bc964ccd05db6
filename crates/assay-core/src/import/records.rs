//! Reading data files into records: one JSON value per item, located by file and line (or row).
//! Binary cells (Parquet image bytes) are moved aside and replaced by `{"$blob": n}`.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::error::{Error, Problem, Result};

pub const BLOB_KEY: &str = "$blob";

#[derive(Debug, Clone)]
pub struct Record {
    pub location: String,
    pub value: Value,
}

#[derive(Debug, Default)]
pub struct Records {
    pub records: Vec<Record>,
    pub blobs: Vec<Arc<Vec<u8>>>,
    pub problems: Vec<Problem>,
}

impl Records {
    /// Adds another file's records, renumbering its blob references after this one's.
    pub fn append(&mut self, mut other: Records) {
        let offset = self.blobs.len() as u64;
        for r in &mut other.records {
            shift_blobs(&mut r.value, offset);
        }
        self.records.append(&mut other.records);
        self.blobs.append(&mut other.blobs);
        self.problems.append(&mut other.problems);
    }
}

fn shift_blobs(v: &mut Value, offset: u64) {
    match v {
        Value::Object(m) => {
            if let Some(Value::Number(n)) = m.get(BLOB_KEY) {
                if let Some(i) = n.as_u64() {
                    m.insert(BLOB_KEY.into(), Value::from(i + offset));
                    return;
                }
            }
            m.values_mut().for_each(|x| shift_blobs(x, offset));
        }
        Value::Array(a) => a.iter_mut().for_each(|x| shift_blobs(x, offset)),
        _ => {}
    }
}

pub fn read(path: &Path) -> Result<Records> {
    let name = path.display().to_string();
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    match ext.as_str() {
        "jsonl" | "ndjson" => read_jsonl(path, &name),
        "json" => read_json(path, &name),
        "csv" => read_csv(path, &name, b','),
        "tsv" => read_csv(path, &name, b'\t'),
        "parquet" => read_parquet(path, &name),
        other => Err(Error::Invalid(format!(
            "{name}: unsupported file type {other:?} (use .jsonl, .json, .csv, .tsv, .parquet or an image folder)"
        ))),
    }
}

fn read_text(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    String::from_utf8(bytes)
        .map_err(|e| Error::Invalid(format!("{}: not UTF-8 text ({e})", path.display())))
}

fn read_jsonl(path: &Path, name: &str) -> Result<Records> {
    let mut out = Records::default();
    for r in JsonlLines::open(path, name)? {
        match r {
            Ok(rec) => out.records.push(rec),
            Err(p) => out.problems.push(p),
        }
    }
    Ok(out)
}

/// A JSONL file read a line at a time, so that an import holds one line of it, never the whole
/// file. A line that is not UTF-8 or not a JSON object is a problem at that line.
pub struct JsonlLines {
    reader: BufReader<File>,
    name: String,
    line: usize,
    buf: Vec<u8>,
    done: bool,
}

impl JsonlLines {
    pub fn open(path: &Path, name: &str) -> Result<Self> {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        Ok(Self {
            reader: BufReader::with_capacity(1 << 20, file),
            name: name.to_string(),
            line: 0,
            buf: Vec::new(),
            done: false,
        })
    }
}

impl Iterator for JsonlLines {
    type Item = std::result::Result<Record, Problem>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            self.buf.clear();
            match self.reader.read_until(b'\n', &mut self.buf) {
                Ok(0) => self.done = true,
                Ok(_) => {
                    self.line += 1;
                    let location = format!("{}:{}", self.name, self.line);
                    let text = match std::str::from_utf8(&self.buf) {
                        Ok(t) => t,
                        Err(e) => {
                            return Some(Err(Problem::new(
                                location,
                                format!("not UTF-8 text ({e})"),
                            )))
                        }
                    };
                    let text = text.trim_start_matches('\u{feff}').trim();
                    if !text.is_empty() {
                        return Some(parse_line(text, location));
                    }
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(Problem::new(&self.name, format!("reading: {e}"))));
                }
            }
        }
        None
    }
}

fn parse_line(line: &str, location: String) -> std::result::Result<Record, Problem> {
    match serde_json::from_str::<Value>(line) {
        Ok(v @ Value::Object(_)) => Ok(Record { location, value: v }),
        Ok(_) => Err(Problem::new(
            location,
            "expected a JSON object on this line",
        )),
        Err(e) => Err(Problem::new(location, format!("malformed JSON: {e}"))),
    }
}

/// The lines in a file (a progress total), counted without holding the file.
fn count_lines(path: &Path) -> usize {
    let Ok(mut f) = File::open(path) else {
        return 0;
    };
    let mut buf = vec![0u8; 1 << 20];
    let mut n = 0;
    while let Ok(k) = f.read(&mut buf) {
        if k == 0 {
            break;
        }
        n += buf[..k].iter().filter(|b| **b == b'\n').count();
    }
    n
}

/// Records in file order, each a record or a problem at its location.
pub type RecordIter = Box<dyn Iterator<Item = std::result::Result<Record, Problem>> + Send>;

/// A data file's records in order, each a record or a problem at its location. JSONL is read as
/// it is consumed; the other formats (a JSON array, CSV, Parquet: their readers need the whole
/// file) are read at once.
pub struct Stream {
    pub records: RecordIter,
    pub blobs: Vec<Arc<Vec<u8>>>,
    /// About how many records there are, for progress.
    pub total: usize,
}

impl Stream {
    pub fn open(path: &Path) -> Result<Self> {
        let name = path.display().to_string();
        let is_jsonl = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("jsonl") || e.eq_ignore_ascii_case("ndjson"));
        if is_jsonl {
            return Ok(Self {
                records: Box::new(JsonlLines::open(path, &name)?),
                blobs: Vec::new(),
                total: count_lines(path),
            });
        }
        Ok(Self::whole(read(path)?))
    }

    /// Records already read, problems first (where they were reported before streaming).
    pub fn whole(r: Records) -> Self {
        Self {
            total: r.records.len(),
            records: Box::new(
                r.problems
                    .into_iter()
                    .map(Err)
                    .chain(r.records.into_iter().map(Ok)),
            ),
            blobs: r.blobs,
        }
    }
}

fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// A JSON array of objects (or `{"data": [...]}`); each element's line is found from its
/// position in the text.
fn read_json(path: &Path, name: &str) -> Result<Records> {
    let text = read_text(path)?;
    let mut out = Records::default();
    let raw: Vec<&serde_json::value::RawValue> = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(_) => {
            #[derive(serde::Deserialize)]
            struct Wrapped<'a> {
                #[serde(alias = "items", alias = "rows", borrow)]
                data: Vec<&'a serde_json::value::RawValue>,
            }
            match serde_json::from_str::<Wrapped>(&text) {
                Ok(w) => w.data,
                Err(e) => {
                    out.problems.push(Problem::new(
                        format!("{name}:{}", e.line()),
                        format!("malformed JSON (expected an array of objects): {e}"),
                    ));
                    return Ok(out);
                }
            }
        }
    };
    let base = text.as_ptr() as usize;
    let mut line = 1;
    let mut last = 0;
    for r in raw {
        let offset = r.get().as_ptr() as usize - base;
        line += line_of(&text[last..offset], offset - last) - 1;
        last = offset;
        let location = format!("{name}:{line}");
        match serde_json::from_str::<Value>(r.get()) {
            Ok(v @ Value::Object(_)) => out.records.push(Record { location, value: v }),
            Ok(_) => out
                .problems
                .push(Problem::new(location, "expected a JSON object")),
            Err(e) => out.problems.push(Problem::new(location, e.to_string())),
        }
    }
    Ok(out)
}

/// CSV cells that hold JSON lists or objects (a common way to flatten options) are parsed.
fn read_csv(path: &Path, name: &str, delimiter: u8) -> Result<Records> {
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(false)
        .from_path(path)
        .map_err(|e| Error::Invalid(format!("{name}: {e}")))?;
    let headers = rdr
        .headers()
        .map_err(|e| Error::Invalid(format!("{name}:1: {e}")))?
        .clone();
    let mut out = Records::default();
    for rec in rdr.records() {
        match rec {
            Ok(r) => {
                let line = r.position().map_or(0, |p| p.line());
                let mut m = Map::new();
                for (h, cell) in headers.iter().zip(r.iter()) {
                    let t = cell.trim();
                    let v = if (t.starts_with('[') && t.ends_with(']'))
                        || (t.starts_with('{') && t.ends_with('}'))
                    {
                        serde_json::from_str(t).unwrap_or_else(|_| Value::String(cell.into()))
                    } else if cell.is_empty() {
                        Value::Null
                    } else {
                        Value::String(cell.into())
                    };
                    m.insert(h.to_string(), v);
                }
                out.records.push(Record {
                    location: format!("{name}:{line}"),
                    value: Value::Object(m),
                });
            }
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line());
                out.problems
                    .push(Problem::new(format!("{name}:{line}"), e.to_string()));
            }
        }
    }
    Ok(out)
}

fn read_parquet(path: &Path, name: &str) -> Result<Records> {
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .and_then(|b| b.with_batch_size(1024).build())
        .map_err(|e| Error::Invalid(format!("{name}: not a readable Parquet file: {e}")))?;
    let mut out = Records::default();
    let mut row = 0usize;
    for batch in reader {
        let batch = batch.map_err(|e| Error::Invalid(format!("{name}: row {row}: {e}")))?;
        let schema = batch.schema();
        for r in 0..batch.num_rows() {
            row += 1;
            let mut m = Map::new();
            for (field, col) in schema.fields().iter().zip(batch.columns()) {
                m.insert(
                    field.name().clone(),
                    arrow_json::cell(col.as_ref(), r, &mut out.blobs),
                );
            }
            out.records.push(Record {
                location: format!("{name}:row {row}"),
                value: Value::Object(m),
            });
        }
    }
    Ok(out)
}

/// Arrow cells to JSON values.
mod arrow_json {
    use std::sync::Arc;

    use arrow_array::cast::AsArray;
    use arrow_array::types::*;
    use arrow_array::Array;
    use arrow_schema::DataType;
    use serde_json::{json, Map, Value};

    use super::BLOB_KEY;

    fn blob(bytes: &[u8], blobs: &mut Vec<Arc<Vec<u8>>>) -> Value {
        blobs.push(Arc::new(bytes.to_vec()));
        json!({ BLOB_KEY: blobs.len() - 1 })
    }

    pub fn cell(a: &dyn Array, i: usize, blobs: &mut Vec<Arc<Vec<u8>>>) -> Value {
        if a.is_null(i) {
            return Value::Null;
        }
        match a.data_type() {
            DataType::Utf8 => a.as_string::<i32>().value(i).into(),
            DataType::LargeUtf8 => a.as_string::<i64>().value(i).into(),
            DataType::Utf8View => a.as_string_view().value(i).into(),
            DataType::Binary => blob(a.as_binary::<i32>().value(i), blobs),
            DataType::LargeBinary => blob(a.as_binary::<i64>().value(i), blobs),
            DataType::BinaryView => blob(a.as_binary_view().value(i), blobs),
            DataType::Boolean => a.as_boolean().value(i).into(),
            DataType::Int8 => a.as_primitive::<Int8Type>().value(i).into(),
            DataType::Int16 => a.as_primitive::<Int16Type>().value(i).into(),
            DataType::Int32 => a.as_primitive::<Int32Type>().value(i).into(),
            DataType::Int64 => a.as_primitive::<Int64Type>().value(i).into(),
            DataType::UInt8 => a.as_primitive::<UInt8Type>().value(i).into(),
            DataType::UInt16 => a.as_primitive::<UInt16Type>().value(i).into(),
            DataType::UInt32 => a.as_primitive::<UInt32Type>().value(i).into(),
            DataType::UInt64 => a.as_primitive::<UInt64Type>().value(i).into(),
            DataType::Float32 => (a.as_primitive::<Float32Type>().value(i) as f64).into(),
            DataType::Float64 => a.as_primitive::<Float64Type>().value(i).into(),
            DataType::List(_) => {
                let v = a.as_list::<i32>().value(i);
                Value::Array((0..v.len()).map(|j| cell(v.as_ref(), j, blobs)).collect())
            }
            DataType::LargeList(_) => {
                let v = a.as_list::<i64>().value(i);
                Value::Array((0..v.len()).map(|j| cell(v.as_ref(), j, blobs)).collect())
            }
            DataType::FixedSizeList(_, _) => {
                let v = a.as_fixed_size_list().value(i);
                Value::Array((0..v.len()).map(|j| cell(v.as_ref(), j, blobs)).collect())
            }
            DataType::Struct(fields) => {
                let s = a.as_struct();
                let mut m = Map::new();
                for (f, c) in fields.iter().zip(s.columns()) {
                    m.insert(f.name().clone(), cell(c.as_ref(), i, blobs));
                }
                Value::Object(m)
            }
            other => Value::String(format!("<unsupported Parquet type {other}>")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_array_elements_know_their_lines() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("d.json");
        std::fs::write(&p, "[\n  {\"a\": 1},\n\n  {\"a\": 2},\n  3\n]\n").unwrap();
        let r = read(&p).unwrap();
        assert_eq!(r.records.len(), 2);
        assert!(
            r.records[0].location.ends_with(":2"),
            "{}",
            r.records[0].location
        );
        assert!(
            r.records[1].location.ends_with(":4"),
            "{}",
            r.records[1].location
        );
        assert!(r.problems[0].location.ends_with(":5"), "{:?}", r.problems);
    }

    #[test]
    fn jsonl_bad_line_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("d.jsonl");
        std::fs::write(&p, "{\"a\": 1}\n{\"a\": \n{\"a\": 3}\n").unwrap();
        let r = read(&p).unwrap();
        assert_eq!(r.records.len(), 2);
        assert_eq!(r.problems.len(), 1);
        assert!(r.problems[0]
            .to_string()
            .contains("d.jsonl:2: malformed JSON"));
    }

    #[test]
    fn csv_lists_are_parsed_and_lines_counted() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("d.csv");
        std::fs::write(
            &p,
            "id,question,options\n1,q?,\"[\"\"a\"\",\"\"b\"\"]\"\n2,\"multi\nline\",\n",
        )
        .unwrap();
        let r = read(&p).unwrap();
        assert_eq!(r.records[0].value["options"], serde_json::json!(["a", "b"]));
        assert!(r.records[1].location.ends_with(":3"));
        assert_eq!(r.records[1].value["options"], Value::Null);
    }
}
