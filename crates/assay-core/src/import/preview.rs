//! What an import would make of a file before anything is written: the layout and mapping it
//! would use, the fields its records have and what reads each, and its first records drafted
//! as items (images read, every problem named). The app's Import view shows it while a person
//! sets the mapping; the import that follows runs the same mapping through the same code.

use std::collections::BTreeSet;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::mapping::Mapping;
use super::{draft, expand, layouts, open_stream, records, resolve_images, ImportOptions, Opened};
use crate::error::Result;
use crate::model::ItemContent;

/// The most records a preview drafts: enough to see a mapping work, few enough to be instant.
pub const MAX_PREVIEW_RECORDS: usize = 50;

/// A text longer than this is shortened in the preview (base64 cells, long passages).
const LONGEST_TEXT: usize = 240;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ImportPreview {
    /// The layout the import would record; `None` when it cannot be told from the fields.
    pub layout: Option<String>,
    /// The mapping the import would use: the one given, or the layout's. `None` for Assay's
    /// own layout, which needs none, and when the layout cannot be told.
    pub mapping: Option<Mapping>,
    /// Why no mapping could be chosen (the import would refuse with the same words).
    pub mapping_error: Option<String>,
    /// Every layout Assay knows, to pick from.
    pub known_layouts: Vec<String>,
    /// How many records the file holds, as the import counts them (0 when it cannot tell
    /// without reading the whole file).
    pub total: usize,
    /// The top-level fields of the previewed records, by name (records are read as JSON
    /// objects, whose keys Assay keeps sorted).
    pub fields: Vec<PreviewField>,
    pub records: Vec<PreviewRecord>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PreviewField {
    pub name: String,
    /// The first non-empty value seen, as short text.
    pub example: String,
    /// The parts of an item the mapping fills from this field (`question`, `images`, ...);
    /// empty when the field is kept as the item's metadata (or dropped, see `ignored`).
    pub read_as: Vec<String>,
    /// Named in the mapping's `ignore`: neither read nor kept.
    pub ignored: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PreviewRecord {
    /// File and line (or row), as a problem would name it.
    pub location: String,
    /// The record as read, long texts shortened; empty when the line could not be read.
    pub raw: String,
    /// The item's ID in the dataset (the record's, or its position).
    pub ext_id: Option<String>,
    /// The item the import would write; `None` when the record has problems.
    pub item: Option<ItemContent>,
    pub problems: Vec<String>,
}

impl PreviewRecord {
    /// A record that makes no item: why (when anything is wrong), and the record as read.
    fn unread(location: String, raw: String, problems: Vec<String>) -> Self {
        Self {
            location,
            raw,
            ext_id: None,
            item: None,
            problems,
        }
    }
}

/// Previews `path` as `opts` would import it, drafting its first `records` records (at most
/// [`MAX_PREVIEW_RECORDS`]). Writes nothing. A file that cannot be opened is an error; a
/// layout that cannot be told is not (the fields are still shown, to map by hand).
pub fn preview_import(path: &Path, opts: &ImportOptions, records: usize) -> Result<ImportPreview> {
    let wanted = records.clamp(1, MAX_PREVIEW_RECORDS);
    // The file is opened and counted once; only its first records are read, and the import's
    // own code runs on them.
    let (stream, data_dir) = open_stream(path)?;
    let total = stream.total;
    let head: Vec<_> = stream.records.take(wanted).collect();
    let raw: Vec<(String, Value)> = head
        .iter()
        .filter_map(|r| {
            r.as_ref()
                .ok()
                .map(|r| (r.location.clone(), r.value.clone()))
        })
        .collect();
    let head = records::Stream {
        records: Box::new(head.into_iter()),
        total,
    };
    let (layout, mapping, mapping_error, drafted) =
        match Opened::from_stream(path, head, &data_dir, opts) {
            Ok(opened) => {
                let layout = opened.layout.clone();
                let mapping = opened.mapping.clone();
                (Some(layout), mapping, None, opened.preview(wanted))
            }
            Err(e) => (None, None, Some(e.to_string()), Vec::new()),
        };
    let records = if drafted.is_empty() && mapping_error.is_some() {
        // Nothing drafted: the records as read, so a mapping can be made from them.
        raw.iter()
            .map(|(location, v)| PreviewRecord::unread(location.clone(), shown(v), Vec::new()))
            .collect()
    } else {
        drafted
    };
    // The fields an item is made of: an `explode` list's entries merged over their record, as
    // the import merges them.
    let made_of: Vec<(String, Value)> = match mapping.as_ref() {
        Some(m) if m.explode.is_some() || m.keep_if.is_some() => raw
            .iter()
            .flat_map(|(loc, v)| {
                expand(Some(m), records::Record::new(loc.clone(), v.clone()))
                    .map(|rows| rows.into_iter().map(|r| (r.location, r.value)).collect())
                    .unwrap_or_else(|_| vec![(loc.clone(), v.clone())])
            })
            .collect(),
        _ => raw,
    };
    Ok(ImportPreview {
        fields: fields_of(&made_of, mapping.as_ref()),
        layout,
        mapping,
        mapping_error,
        known_layouts: layouts::NAMES.iter().map(|s| s.to_string()).collect(),
        total,
        records,
    })
}

impl Opened {
    /// The first `wanted` records drafted as the import drafts them, images read.
    fn preview(mut self, wanted: usize) -> Vec<PreviewRecord> {
        let mut out: Vec<PreviewRecord> = std::mem::take(&mut self.problems)
            .into_iter()
            .map(|p| PreviewRecord::unread(p.location, String::new(), vec![p.message]))
            .collect();
        let mapped = self
            .mapping
            .as_ref()
            .map(Mapping::mapped_keys)
            .unwrap_or_default();
        let mut unmapped = BTreeSet::new();
        let mut seen = super::seen_ids::SeenIds::new("");
        let mut position = 0usize;
        while out.len() < wanted {
            let Some(next) = self.records.next() else {
                break;
            };
            let rec = match next {
                Ok(rec) => rec,
                Err(p) => {
                    out.push(PreviewRecord::unread(
                        p.location,
                        String::new(),
                        vec![p.message],
                    ));
                    continue;
                }
            };
            let raw = shown(&rec.value);
            let rows = match expand(self.mapping.as_ref(), rec) {
                Ok(rows) => rows,
                Err(p) => {
                    out.push(PreviewRecord::unread(p.location, raw, vec![p.message]));
                    continue;
                }
            };
            for row in rows.into_iter().take(wanted - out.len()) {
                let records::Record {
                    location,
                    value,
                    blobs,
                } = row;
                let drafted = draft(self.mapping.as_ref(), &value, &mapped, &mut unmapped)
                    .and_then(|d| {
                        let ext_id = d.ext_id.clone().unwrap_or_else(|| position.to_string());
                        if let Some(first) = seen.first_location_or_insert(&ext_id, &location) {
                            return Err(vec![format!(
                                "duplicate id {ext_id:?} (first at {first})"
                            )]);
                        }
                        resolve_images(d, &mut self.loader, &blobs).map(|item| (ext_id, item))
                    });
                position += 1;
                out.push(match drafted {
                    Ok((ext_id, item)) => PreviewRecord {
                        location,
                        raw: raw.clone(),
                        ext_id: Some(ext_id),
                        item: Some(item),
                        problems: Vec::new(),
                    },
                    Err(problems) => PreviewRecord::unread(location, raw.clone(), problems),
                });
            }
            // The preview keeps no image bytes.
            self.loader.take_new();
        }
        // Lines that could not be read before the first good one come first: at most as many
        // as were asked for.
        out.truncate(wanted);
        out
    }
}

/// Each top-level field of `records` once, with an example and what the mapping reads it as.
fn fields_of(records: &[(String, Value)], mapping: Option<&Mapping>) -> Vec<PreviewField> {
    let mut out: Vec<PreviewField> = Vec::new();
    let read = mapping.map(Mapping::fields).unwrap_or_default();
    for (_, v) in records {
        let Value::Object(m) = v else { continue };
        for (name, val) in m {
            let empty = val.is_null() || val.as_str().is_some_and(|s| s.trim().is_empty());
            match out.iter_mut().find(|f| &f.name == name) {
                Some(f) if f.example.is_empty() && !empty => f.example = short(val),
                Some(_) => {}
                None => out.push(PreviewField {
                    name: name.clone(),
                    example: if empty { String::new() } else { short(val) },
                    read_as: read
                        .iter()
                        .filter(|(_, path)| reads_field(path, name))
                        .map(|(part, _)| part.to_string())
                        .collect(),
                    ignored: mapping.is_some_and(|m| m.ignore.contains(name)),
                }),
            }
        }
    }
    out
}

/// Whether a mapping path (`a|b`, `a+b`, `meta.x`) reads the top-level field `name`.
fn reads_field(path: &str, name: &str) -> bool {
    path.split(['|', '+'])
        .any(|alt| alt.split('.').next() == Some(name))
}

/// One value as short text: strings as they are, anything else as JSON, both shortened.
fn short(v: &Value) -> String {
    let text = match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    shorten(&text, 80)
}

/// A record as indented JSON with long strings shortened, so a base64 cell or a long passage
/// does not bury the rest.
fn shown(v: &Value) -> String {
    fn cut(v: &Value) -> Value {
        match v {
            Value::String(s) => Value::String(shorten(s, LONGEST_TEXT)),
            Value::Array(a) => Value::Array(a.iter().map(cut).collect()),
            Value::Object(m) => Value::Object(m.iter().map(|(k, x)| (k.clone(), cut(x))).collect()),
            other => other.clone(),
        }
    }
    serde_json::to_string_pretty(&cut(v)).unwrap_or_default()
}

fn shorten(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_string();
    }
    let head: String = s.chars().take(max).collect();
    format!("{head}… ({n} characters)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_is_read_by_every_path_that_names_it() {
        assert!(reads_field("question|prompt", "prompt"));
        assert!(reads_field("A+B+C", "B"));
        assert!(reads_field("metadata.target_roi_bbox", "metadata"));
        assert!(!reads_field("metadata.target_roi_bbox", "target_roi_bbox"));
        assert!(!reads_field("questions", "question"));
    }

    #[test]
    fn long_texts_are_shortened_with_their_length_and_short_ones_kept() {
        assert_eq!(shorten("abc", 3), "abc");
        let long = "あ".repeat(300);
        let cut = shorten(&long, 10);
        assert!(cut.starts_with(&"あ".repeat(10)));
        assert!(cut.ends_with("(300 characters)"), "{cut}");
        let v = serde_json::json!({"img": "x".repeat(1000), "q": "short"});
        let s = shown(&v);
        assert!(
            s.contains("(1000 characters)") && s.contains("\"short\""),
            "{s}"
        );
    }
}
