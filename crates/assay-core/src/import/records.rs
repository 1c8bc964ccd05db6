//! Reading data files into records: one JSON value per item, located by file and line (or row).
//! Binary cells (Parquet image bytes) are moved aside and replaced by `{"$blob": n}`.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::error::{Error, Problem, Result};

pub const BLOB_KEY: &str = "$blob";

/// One record of a data file. A binary cell (Parquet image bytes) is moved into `blobs` and
/// its place in `value` holds `{"$blob": n}`, its index there: each record carries its own, so
/// a record's bytes go when the record does.
#[derive(Debug, Clone)]
pub struct Record {
    pub location: String,
    pub value: Value,
    pub blobs: Vec<Arc<Vec<u8>>>,
}

impl Record {
    pub fn new(location: String, value: Value) -> Self {
        Self {
            location,
            value,
            blobs: Vec::new(),
        }
    }
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
        Ok(v @ Value::Object(_)) => Ok(Record::new(location, v)),
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

/// A data file's records in order, each a record or a problem at its location, read as they
/// are consumed: whatever the file's size, an import holds a record (a Parquet batch) of it.
pub struct Stream {
    pub records: RecordIter,
    /// About how many records there are, for progress.
    pub total: usize,
}

impl Stream {
    pub fn open(path: &Path) -> Result<Self> {
        let name = path.display().to_string();
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        Ok(match ext.as_str() {
            "jsonl" | "ndjson" => Self {
                records: Box::new(JsonlLines::open(path, &name)?),
                total: count_lines(path),
            },
            "json" => Self {
                records: Box::new(super::json_array::JsonArrayElements::open(path, &name)?),
                total: super::json_array::JsonArrayElements::count(path),
            },
            "csv" => csv_rows(path, &name, b',')?,
            "tsv" => csv_rows(path, &name, b'\t')?,
            "parquet" => {
                let rows = ParquetRows::open(path, &name)?;
                Self {
                    total: rows.total,
                    records: Box::new(rows),
                }
            }
            other => {
                return Err(Error::Invalid(format!(
                    "{name}: unsupported file type {other:?} (use .jsonl, .json, .csv, .tsv, .parquet or an image folder)"
                )))
            }
        })
    }

    /// Several files' records as one stream, each file opened when the one before is done
    /// (a file that does not open is a problem at its place).
    pub fn chain(paths: Vec<std::path::PathBuf>, total: usize) -> Self {
        let records = paths.into_iter().flat_map(|p| -> RecordIter {
            match Self::open(&p) {
                Ok(s) => s.records,
                Err(e) => Box::new(std::iter::once(Err(Problem::new(
                    p.display().to_string(),
                    e.to_string(),
                )))),
            }
        });
        Self {
            records: Box::new(records),
            total,
        }
    }
}

/// CSV (or TSV) rows as records; cells that hold JSON lists or objects (a common way to
/// flatten options) are parsed. The header row is read at once: a file without one is refused.
fn csv_rows(path: &Path, name: &str, delimiter: u8) -> Result<Stream> {
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(false)
        .from_path(path)
        .map_err(|e| Error::Invalid(format!("{name}: {e}")))?;
    let headers = rdr
        .headers()
        .map_err(|e| Error::Invalid(format!("{name}:1: {e}")))?
        .clone();
    let name = name.to_string();
    let records = rdr.into_records().map(move |rec| match rec {
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
            Ok(Record::new(format!("{name}:{line}"), Value::Object(m)))
        }
        Err(e) => {
            let line = e.position().map_or(0, |p| p.line());
            Err(Problem::new(format!("{name}:{line}"), e.to_string()))
        }
    });
    Ok(Stream {
        records: Box::new(records),
        // The header is a line; a quoted cell may span lines, so this is an upper bound.
        total: count_lines(path).saturating_sub(1),
    })
}

/// Rows of a Parquet file decoded a few at a time: a batch holds at most this many rows, so
/// that rows of large images (Hugging Face image datasets embed them) stay a few MB in memory.
const PARQUET_BATCH_ROWS: usize = 64;

pub struct ParquetRows {
    reader: parquet::arrow::arrow_reader::ParquetRecordBatchReader,
    batch: Option<arrow_array::RecordBatch>,
    next_in_batch: usize,
    row: usize,
    name: String,
    done: bool,
    pub total: usize,
}

impl ParquetRows {
    pub fn open(path: &Path, name: &str) -> Result<Self> {
        use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        let not_readable = |e: parquet::errors::ParquetError| {
            Error::Invalid(format!("{name}: not a readable Parquet file: {e}"))
        };
        let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(not_readable)?;
        let total = usize::try_from(builder.metadata().file_metadata().num_rows()).unwrap_or(0);
        let reader = builder
            .with_batch_size(PARQUET_BATCH_ROWS)
            .build()
            .map_err(not_readable)?;
        Ok(Self {
            reader,
            batch: None,
            next_in_batch: 0,
            row: 0,
            name: name.to_string(),
            done: false,
            total,
        })
    }

    /// The rows in a Parquet file, from its footer.
    pub fn count(path: &Path) -> usize {
        Self::open(path, "").map_or(0, |r| r.total)
    }
}

impl Iterator for ParquetRows {
    type Item = std::result::Result<Record, Problem>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            if let Some(batch) = self
                .batch
                .as_ref()
                .filter(|b| self.next_in_batch < b.num_rows())
            {
                let r = self.next_in_batch;
                self.next_in_batch += 1;
                self.row += 1;
                let mut rec = Record::new(format!("{}:row {}", self.name, self.row), Value::Null);
                let mut m = Map::new();
                for (field, col) in batch.schema().fields().iter().zip(batch.columns()) {
                    m.insert(
                        field.name().clone(),
                        arrow_json::cell(col.as_ref(), r, &mut rec.blobs),
                    );
                }
                rec.value = Value::Object(m);
                return Some(Ok(rec));
            }
            self.next_in_batch = 0;
            match self.reader.next() {
                Some(Ok(batch)) => self.batch = Some(batch),
                Some(Err(e)) => {
                    self.done = true;
                    return Some(Err(Problem::new(
                        format!("{}:row {}", self.name, self.row + 1),
                        e.to_string(),
                    )));
                }
                None => self.done = true,
            }
        }
        None
    }
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

    #[derive(Debug, Default)]
    struct Records {
        records: Vec<Record>,
        problems: Vec<Problem>,
    }

    fn read(path: &Path) -> Result<Records> {
        let mut out = Records::default();
        for r in Stream::open(path)?.records {
            match r {
                Ok(rec) => out.records.push(rec),
                Err(p) => out.problems.push(p),
            }
        }
        Ok(out)
    }

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
