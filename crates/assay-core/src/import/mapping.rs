//! Field mappings: which record field feeds which part of an item. Given as a small TOML or JSON
//! file, or chosen from the layouts Assay detects (see `layouts.rs`).

use std::collections::BTreeSet;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::values::{self, get_path};
use crate::error::{Error, Result};
use crate::model::{
    AnswerFormat, BBox, ChoiceOption, DistractorKind, ItemContent, LabeledBox, RefType,
};

/// Each field is a dotted path into the record (`metadata.target_roi_bbox`); `a|b` tries `a`
/// first, then `b`. Fields left out are not read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default, deny_unknown_fields)]
pub struct Mapping {
    /// Name recorded as the dataset's layout.
    pub layout: Option<String>,
    pub format: Option<AnswerFormat>,
    pub id: Option<String>,
    pub question: Option<String>,
    pub answer: Option<String>,
    pub options: Option<String>,
    /// Where the correct option is given; defaults to `answer` when options exist.
    pub answer_index: Option<String>,
    /// 0 when integer answers count from zero (CVQA), 1 when from one.
    pub index_base: i64,
    pub checklist: Option<String>,
    pub explicit_question: Option<String>,
    pub disambiguated_question: Option<String>,
    pub text_only_question: Option<String>,
    pub direct_request: Option<String>,
    pub ref_type: Option<String>,
    pub entity_name: Option<String>,
    pub entity_url: Option<String>,
    /// Other accepted names of the entity (a list or one string).
    pub entity_aliases: Option<String>,
    /// Page views of the entity (an integer).
    pub popularity: Option<String>,
    /// Number of objects in the image (an integer).
    pub crowdedness: Option<String>,
    pub category: Option<String>,
    pub source: Option<String>,
    /// A path, a list of paths, a `{bytes, path}` struct or a list of them.
    pub images: Option<String>,
    /// Target box(es) on the first image, [x_min, y_min, x_max, y_max] in pixels.
    pub target_box: Option<String>,
    /// The image size the boxes were drawn on, "(w, h)"; boxes are rescaled if the file differs.
    pub image_size: Option<String>,
    pub person_boxes: Option<String>,
    /// VAGUE's `mcq` object (`1_correct`, `2_fake_scene`, ...) and its display `ordering`.
    pub vague_mcq: Option<String>,
    pub vague_ordering: Option<String>,
    /// Image cells hold base64 data (or a list repr of it), and a cell of at most 64
    /// characters names the row (by id) whose image it reuses: VLMEvalKit's TSV.
    pub inline_images: bool,
    /// Appended to every image path (VAGUE: `image_name` + `_annot.jpg`).
    pub image_suffix: Option<String>,
    /// A list field whose elements become one item each, merged over the rest of the record
    /// (JA-VG-VQA-500's `qas`).
    pub explode: Option<String>,
    /// Keep only records whose field equals a value, `Subset=('Japanese', 'Japan')`; ids of
    /// id-less records count the kept ones from 0, as the task that filters does.
    pub keep_if: Option<String>,
    /// Fields to drop instead of keeping them in the item's metadata.
    pub ignore: Vec<String>,
}

/// Metadata key holding a referring-expression label exactly as published.
pub const REF_TYPE_LABEL: &str = "ref_type_label";

/// Where an image comes from, before it is read.
#[derive(Debug, Clone, PartialEq)]
pub enum ImageSource {
    Path(String),
    Blob(usize, Option<String>),
    /// Bytes decoded from the record itself (base64 cells).
    Inline(std::sync::Arc<Vec<u8>>),
}

#[derive(Debug, Clone)]
pub struct ImageSpec {
    pub source: ImageSource,
    pub target_boxes: Vec<BBox>,
    pub person_boxes: Vec<LabeledBox>,
    pub declared_size: Option<(f64, f64)>,
}

/// A record turned into item content; images are still to be read.
#[derive(Debug, Clone)]
pub struct Draft {
    pub ext_id: Option<String>,
    pub content: ItemContent,
    pub images: Vec<ImageSpec>,
}

impl Mapping {
    pub fn from_file(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let is_json = path.extension().is_some_and(|e| e == "json");
        let parsed = if is_json {
            serde_json::from_str(&text).map_err(|e| e.to_string())
        } else {
            toml::from_str(&text).map_err(|e| e.to_string())
        };
        parsed.map_err(|e| Error::Invalid(format!("mapping {}: {e}", path.display())))
    }

    /// A non-negative integer field (a number or a numeric string); anything else is an error.
    fn count(
        &self,
        v: &Value,
        path: &Option<String>,
        what: &str,
        errs: &mut Vec<String>,
    ) -> Option<u64> {
        let found = path.as_deref().and_then(|p| get_path(v, p))?;
        match found {
            Value::Null => None,
            Value::Number(n) if n.as_u64().is_some() => n.as_u64(),
            Value::Number(n) if n.as_f64().is_some_and(|f| f >= 0.0 && f.fract() == 0.0) => {
                n.as_f64().map(|f| f as u64)
            }
            Value::String(s) if s.trim().is_empty() => None,
            Value::String(s) if s.trim().parse::<u64>().is_ok() => s.trim().parse().ok(),
            other => {
                errs.push(format!("{what} is not a whole number: {other}"));
                None
            }
        }
    }

    /// Each part of an item the mapping reads, with the path it reads it from.
    pub fn fields(&self) -> Vec<(&'static str, &str)> {
        [
            ("id", &self.id),
            ("question", &self.question),
            ("answer", &self.answer),
            ("options", &self.options),
            ("answer_index", &self.answer_index),
            ("checklist", &self.checklist),
            ("explicit_question", &self.explicit_question),
            ("disambiguated_question", &self.disambiguated_question),
            ("text_only_question", &self.text_only_question),
            ("direct_request", &self.direct_request),
            ("ref_type", &self.ref_type),
            ("entity_name", &self.entity_name),
            ("entity_url", &self.entity_url),
            ("entity_aliases", &self.entity_aliases),
            ("popularity", &self.popularity),
            ("crowdedness", &self.crowdedness),
            ("category", &self.category),
            ("source", &self.source),
            ("images", &self.images),
            ("target_box", &self.target_box),
            ("image_size", &self.image_size),
            ("person_boxes", &self.person_boxes),
            ("vague_mcq", &self.vague_mcq),
            ("vague_ordering", &self.vague_ordering),
            ("explode", &self.explode),
            ("keep_if", &self.keep_if),
        ]
        .into_iter()
        .filter_map(|(part, path)| path.as_deref().map(|p| (part, p)))
        // `keep_if` is `field=value`: the field is what it reads.
        .map(|(part, p)| match part {
            "keep_if" => (part, p.split_once('=').map_or(p, |(f, _)| f.trim())),
            _ => (part, p),
        })
        .collect()
    }

    /// Writes the mapping where `--mapping` reads it: JSON for a `.json` path, else TOML.
    pub fn save(&self, path: &Path) -> Result<()> {
        let is_json = path.extension().is_some_and(|e| e == "json");
        let text = if is_json {
            serde_json::to_string_pretty(self).map_err(|e| Error::Invalid(e.to_string()))?
        } else {
            toml::to_string(self).map_err(|e| Error::Invalid(e.to_string()))?
        };
        std::fs::write(path, text).map_err(|e| Error::io(path, e))
    }

    /// Top-level keys some path names exactly; everything else is kept as metadata.
    pub fn mapped_keys(&self) -> BTreeSet<String> {
        let mut keys: BTreeSet<String> = self
            .fields()
            .into_iter()
            .filter(|(part, _)| !matches!(*part, "explode" | "keep_if"))
            .flat_map(|(_, p)| p.split(['|', '+']))
            .filter(|alt| !alt.contains('.'))
            .map(str::to_string)
            .collect();
        keys.extend(self.ignore.iter().cloned());
        keys.extend(self.explode.iter().cloned());
        keys
    }

    fn text(&self, v: &Value, field: &Option<String>) -> Option<String> {
        field
            .as_deref()
            .and_then(|p| get_path(v, p))
            .and_then(values::as_text)
            .filter(|s| !s.trim().is_empty())
    }

    /// The records this mapping makes of one input record: the record itself, none when
    /// `keep_if` rejects it, or one per element of the `explode` list.
    pub fn expand(&self, v: &Value) -> Result<Vec<Value>, String> {
        if let Some((field, want)) = self.keep_if.as_deref().and_then(|k| k.split_once('=')) {
            let got = get_path(v, field.trim()).and_then(values::as_text);
            if got.as_deref() != Some(want) {
                return Ok(Vec::new());
            }
        }
        let Some(list_field) = &self.explode else {
            return Ok(vec![v.clone()]);
        };
        let Some(Value::Array(elems)) = get_path(v, list_field) else {
            return Err(format!("{list_field} is not a list"));
        };
        let Value::Object(base) = v else {
            return Err("a record must be an object".into());
        };
        let mut out = Vec::with_capacity(elems.len());
        for e in elems {
            let Value::Object(fields) = e else {
                return Err(format!("an entry of {list_field} is not an object: {e}"));
            };
            let mut merged = base.clone();
            merged.remove(list_field);
            for (k, val) in fields {
                merged.insert(k.clone(), val.clone());
            }
            out.push(Value::Object(merged));
        }
        Ok(out)
    }

    /// Turns one record into a draft; every problem found is returned, not only the first.
    /// `mapped` is [`Mapping::mapped_keys`], computed once per import.
    pub fn apply(
        &self,
        v: &Value,
        mapped: &BTreeSet<String>,
        unmapped: &mut BTreeSet<String>,
    ) -> Result<Draft, Vec<String>> {
        let mut errs = Vec::new();
        let mut c = ItemContent {
            question: self.text(v, &self.question).unwrap_or_default(),
            answer: self.text(v, &self.answer),
            explicit_question: self.text(v, &self.explicit_question),
            disambiguated_question: self.text(v, &self.disambiguated_question),
            text_only_question: self.text(v, &self.text_only_question),
            direct_request: self.text(v, &self.direct_request),
            entity_name: self.text(v, &self.entity_name),
            entity_url: self.text(v, &self.entity_url),
            popularity: self.count(v, &self.popularity, "popularity", &mut errs),
            crowdedness: self
                .count(v, &self.crowdedness, "crowdedness", &mut errs)
                .map(|n| n.min(u64::from(u32::MAX)) as u32),
            category: self.text(v, &self.category),
            source: self.text(v, &self.source),
            ..Default::default()
        };
        let question_missing = self
            .question
            .as_deref()
            .is_some_and(|q| get_path(v, q).is_none());
        if question_missing && self.vague_mcq.is_none() {
            errs.push(format!(
                "no question (looked for {})",
                self.question.as_deref().unwrap_or("")
            ));
        }
        if let Some(rt) = self.text(v, &self.ref_type) {
            // The published label is kept verbatim (export writes it back); labels that name
            // none of the four types stay opaque labels rather than failing the import.
            c.ref_type = RefType::parse_label(&rt);
            c.metadata
                .insert(REF_TYPE_LABEL.into(), Value::String(rt.clone()));
        }
        if let Some(p) = &self.checklist {
            c.checklist = get_path(v, p).map(values::as_text_list).unwrap_or_default();
        }
        if let Some(p) = &self.entity_aliases {
            c.entity_aliases = get_path(v, p).map(values::as_text_list).unwrap_or_default();
        }
        if let Some(p) = &self.options {
            let opts: Vec<String> = if p.contains('+') {
                // One column per letter (VLMEvalKit's A, B, C, ...): empty cells end the list.
                p.split('+')
                    .map_while(|f| get_path(v, f).and_then(values::as_text))
                    .filter(|t| !t.trim().is_empty())
                    .collect()
            } else {
                get_path(v, p).map(values::as_text_list).unwrap_or_default()
            };
            if !opts.is_empty() {
                let idx_path = self.answer_index.as_deref().or(self.answer.as_deref());
                match idx_path.and_then(|p| get_path(v, p)) {
                    Some(iv) => match values::parse_index(iv, &opts, self.index_base) {
                        Ok(i) => c.correct_option = Some(i),
                        Err(e) => errs.push(e),
                    },
                    None => errs.push("options given but no correct answer".into()),
                }
                if self.answer_index.is_none() {
                    c.answer = None;
                }
                c.options = opts
                    .into_iter()
                    .map(|text| ChoiceOption { text, kind: None })
                    .collect();
            }
        }
        if let Some(p) = &self.vague_mcq {
            match get_path(v, p) {
                Some(mcq) => {
                    let ordering = self.vague_ordering.as_deref().and_then(|o| get_path(v, o));
                    match vague_options(mcq, ordering) {
                        Ok((opts, correct)) => {
                            c.options = opts;
                            c.correct_option = Some(correct);
                        }
                        Err(e) => errs.push(e),
                    }
                }
                None => errs.push(format!("no multiple-choice object at {p}")),
            }
        }
        let image_values: Vec<&Value> = match self.images.as_deref() {
            // `image_1+image_2+...`: every field present, in order (JMMMU).
            Some(p) if p.contains('+') => p.split('+').filter_map(|f| get_path(v, f)).collect(),
            Some(p) => get_path(v, p).into_iter().collect(),
            None => Vec::new(),
        };
        let mut images: Vec<ImageSpec> = match image_values.is_empty() {
            false if self.inline_images => {
                let mut out = Vec::new();
                for iv in image_values {
                    match inline_images(iv) {
                        Ok(srcs) => out.extend(srcs),
                        Err(e) => errs.push(e),
                    }
                }
                out.into_iter()
                    .map(|source| ImageSpec {
                        source,
                        target_boxes: Vec::new(),
                        person_boxes: Vec::new(),
                        declared_size: None,
                    })
                    .collect()
            }
            false => image_values
                .into_iter()
                .flat_map(image_sources)
                .map(|source| match (&source, &self.image_suffix) {
                    (ImageSource::Path(p), Some(suffix)) => {
                        ImageSource::Path(format!("{p}{suffix}"))
                    }
                    _ => source,
                })
                .map(|source| ImageSpec {
                    source,
                    target_boxes: Vec::new(),
                    person_boxes: Vec::new(),
                    declared_size: None,
                })
                .collect(),
            true => Vec::new(),
        };
        let boxes = match self.target_box.as_deref().and_then(|p| get_path(v, p)) {
            Some(bv) => values::parse_boxes(bv).unwrap_or_else(|e| {
                errs.push(e);
                Vec::new()
            }),
            None => Vec::new(),
        };
        let persons = match self.person_boxes.as_deref().and_then(|p| get_path(v, p)) {
            Some(bv) => values::parse_labeled_boxes(bv).unwrap_or_else(|e| {
                errs.push(e);
                Vec::new()
            }),
            None => Vec::new(),
        };
        if !boxes.is_empty() || !persons.is_empty() {
            match images.first_mut() {
                Some(first) => {
                    first.target_boxes = boxes;
                    first.person_boxes = persons;
                    first.declared_size = self
                        .image_size
                        .as_deref()
                        .and_then(|p| get_path(v, p))
                        .and_then(values::parse_size);
                }
                None => errs.push("boxes given but the item has no image".into()),
            }
        }
        c.format = self.format.unwrap_or(if !c.options.is_empty() {
            AnswerFormat::MultipleChoice
        } else if !c.checklist.is_empty() {
            AnswerFormat::Checklist
        } else if c.answer.is_some() {
            AnswerFormat::ShortAnswer
        } else if images.iter().any(|i| !i.target_boxes.is_empty()) {
            AnswerFormat::Grounding
        } else {
            AnswerFormat::FreeForm
        });
        if let Value::Object(m) = v {
            for (k, val) in m {
                if !mapped.contains(k) {
                    unmapped.insert(k.clone());
                    c.metadata.insert(k.clone(), val.clone());
                }
            }
        }
        if let Err(e) = c.validate() {
            errs.push(e);
        }
        if !errs.is_empty() {
            return Err(errs);
        }
        Ok(Draft {
            ext_id: self.text(v, &self.id),
            content: c,
            images,
        })
    }
}

/// Image references in the shapes datasets use: "a.jpg", ["a.jpg", "b.jpg"],
/// {"bytes": <blob>, "path": "a.jpg"}, [{"bytes": ..}, ..], {"path": "a.jpg"}.
pub fn image_sources(v: &Value) -> Vec<ImageSource> {
    match v {
        Value::String(s) if !s.trim().is_empty() => vec![ImageSource::Path(s.clone())],
        Value::Array(a) => a.iter().flat_map(image_sources).collect(),
        Value::Object(m) => {
            let name = m.get("path").and_then(Value::as_str).map(str::to_string);
            if let Some(idx) = m.get(super::records::BLOB_KEY).and_then(Value::as_u64) {
                return vec![ImageSource::Blob(idx as usize, None)];
            }
            match m
                .get("bytes")
                .and_then(|b| b.get(super::records::BLOB_KEY))
                .and_then(Value::as_u64)
            {
                Some(idx) => vec![ImageSource::Blob(idx as usize, name)],
                None => name.map(ImageSource::Path).into_iter().collect(),
            }
        }
        _ => Vec::new(),
    }
}

/// Base64 image cells: one value, or a Python list repr of several (VLMEvalKit multi-image).
fn inline_images(v: &Value) -> Result<Vec<ImageSource>, String> {
    use base64::Engine as _;
    let cells: Vec<String> = match v {
        Value::String(s) if s.trim_start().starts_with('[') => {
            values::python_list(s).ok_or_else(|| "image cell is a malformed list".to_string())?
        }
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a.iter().filter_map(values::as_text).collect(),
        other => return Err(format!("image cell {other} is not base64 data")),
    };
    cells
        .iter()
        .map(|c| {
            base64::engine::general_purpose::STANDARD
                .decode(c.trim())
                .map(|b| ImageSource::Inline(std::sync::Arc::new(b)))
                .map_err(|e| format!("image cell is not base64 ({e})"))
        })
        .collect()
}

/// VLMEvalKit reuses images: a cell of at most 64 characters is the id of the row whose
/// image it shares. Replaces such cells with the referenced row's data.
pub fn resolve_image_refs(
    records: &mut [super::records::Record],
    id_field: &str,
    image_field: &str,
) -> Vec<(String, String)> {
    let key = |v: &Value| values::as_text(v).unwrap_or_default();
    let is_ref = |v: &Value| match v {
        Value::Number(_) => true,
        Value::String(s) => s.trim().len() <= 64 && !s.trim().is_empty(),
        _ => false,
    };
    let mut data: std::collections::HashMap<String, Value> = Default::default();
    for r in records.iter() {
        if let (Some(id), Some(img)) = (r.value.get(id_field), r.value.get(image_field)) {
            if !is_ref(img) {
                data.insert(key(id), img.clone());
            }
        }
    }
    let mut problems = Vec::new();
    for r in records.iter_mut() {
        let Some(img) = r.value.get(image_field) else {
            continue;
        };
        if !is_ref(img) {
            continue;
        }
        let target = key(img);
        match data.get(&target) {
            Some(d) => {
                r.value[image_field] = d.clone();
            }
            None => problems.push((
                r.location.clone(),
                format!("image refers to row {target:?}, which has no image data"),
            )),
        }
    }
    problems
}

const VAGUE_KINDS: [(&str, Option<DistractorKind>); 4] = [
    ("1_correct", None),
    ("2_fake_scene", Some(DistractorKind::FakeScene)),
    ("3_surface_understanding", Some(DistractorKind::Superficial)),
    ("4_wrong_entity", Some(DistractorKind::NonExistent)),
];

/// VAGUE's options in display order with their counterfactual kinds, and the correct index.
///
/// VAGUE's code (`utils/util.py`) takes the options in the fixed order 1_correct,
/// 2_fake_scene, 3_surface_understanding, 4_wrong_entity (not the JSON key order) and gives
/// option *i* the letter `ordering[i]`; the model sees them sorted by letter, so the correct
/// letter is `ordering[0]`. Without an ordering the fixed order is shown as A-D.
fn vague_options(
    mcq: &Value,
    ordering: Option<&Value>,
) -> Result<(Vec<ChoiceOption>, usize), String> {
    let Value::Object(m) = mcq else {
        return Err(format!(
            "mcq must be an object with 1_correct .. 4_wrong_entity, got {mcq}"
        ));
    };
    let letters: Vec<usize> = match ordering {
        Some(Value::Array(a)) => {
            let l: Vec<usize> = a
                .iter()
                .map(|o| {
                    o.as_str()
                        .map(str::trim)
                        .filter(|s| s.len() == 1 && ("A"..="D").contains(s))
                        .map(|s| (s.as_bytes()[0] - b'A') as usize)
                        .ok_or_else(|| format!("mcq.ordering entry {o} is not a letter A-D"))
                })
                .collect::<Result<_, _>>()?;
            let mut sorted = l.clone();
            sorted.sort_unstable();
            if sorted != [0, 1, 2, 3] {
                return Err(format!(
                    "mcq.ordering {} is not a permutation of A, B, C, D",
                    Value::Array(a.clone())
                ));
            }
            l
        }
        Some(other) => {
            return Err(format!(
                "mcq.ordering must be a list of letters, got {other}"
            ))
        }
        None => vec![0, 1, 2, 3],
    };
    let mut slots: Vec<Option<ChoiceOption>> = vec![None, None, None, None];
    for (i, (key, kind)) in VAGUE_KINDS.iter().enumerate() {
        let text = m
            .get(*key)
            .and_then(values::as_text)
            .ok_or_else(|| format!("mcq has no {key:?} option"))?;
        slots[letters[i]] = Some(ChoiceOption { text, kind: *kind });
    }
    let opts: Vec<ChoiceOption> = slots.into_iter().flatten().collect();
    Ok((opts, letters[0]))
}
