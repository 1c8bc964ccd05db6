//! Boxes a model wrote, read from a file of its replies into box sets: one JSON line per item,
//! `{"id": ..., "<field>": "<the model's text>"}`, each reply's first box read in the model's
//! convention and mapped onto the item's first image in original pixels. What `assay boxes
//! import --format model-output` and the app's box import both read, so they agree.

use std::io::BufRead;
use std::path::Path;

use assay_core::grounding::formats::BoxSet;
use assay_core::{Error, LabeledBox, Problem, Project};

use crate::scorers::grounding::{model_box, BoxConvention};

/// How a model's replies are read.
#[derive(Debug, Clone)]
pub struct ModelOutput {
    /// The JSON field holding the model's text.
    pub field: String,
    /// The convention the numbers are written in (a property of the model).
    pub convention: BoxConvention,
    /// The size the image was sent at, when not its original size.
    pub sent_size: Option<(u32, u32)>,
}

/// `WxH` (`960x1280`) as a size.
pub fn parse_size(s: &str) -> Result<(u32, u32), Error> {
    let bad = || Error::Invalid(format!("{s:?} is not a size: write WxH, e.g. 960x1280"));
    let (w, h) = s.trim().split_once(['x', 'X']).ok_or_else(bad)?;
    let (w, h): (u32, u32) = (
        w.trim().parse().map_err(|_| bad())?,
        h.trim().parse().map_err(|_| bad())?,
    );
    if w == 0 || h == 0 {
        return Err(bad());
    }
    Ok((w, h))
}

/// The box sets `file` gives the dataset's items. Every line that cannot be read, names no
/// item with an image, or holds no box is listed with its file and line, and then nothing is
/// applied.
pub fn model_output_sets(
    p: &Project,
    dataset_id: i64,
    file: &Path,
    how: &ModelOutput,
) -> Result<Vec<BoxSet>, Error> {
    let sizes: std::collections::HashMap<String, (u32, u32)> = p
        .box_sets(dataset_id)?
        .into_iter()
        .filter(|s| s.image_index == 0)
        .filter_map(|s| Some((s.item?, (s.width, s.height))))
        .collect();
    let reader =
        std::io::BufReader::new(std::fs::File::open(file).map_err(|e| Error::io(file, e))?);
    let mut sets = Vec::new();
    let mut problems = Vec::new();
    for (i, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| Error::io(file, e))?;
        // A byte-order mark some editors write before the first line.
        let line = line.trim_start_matches('\u{feff}');
        if line.trim().is_empty() {
            continue;
        }
        let at = format!("{}:{}", file.display(), i + 1);
        match box_set(line, &sizes, how) {
            Ok(set) => sets.push(set),
            Err(why) => problems.push(Problem::new(at, why)),
        }
    }
    if !problems.is_empty() {
        return Err(Error::Import(problems));
    }
    Ok(sets)
}

/// One line's box set, or why it has none.
fn box_set(
    line: &str,
    sizes: &std::collections::HashMap<String, (u32, u32)>,
    how: &ModelOutput,
) -> Result<BoxSet, String> {
    let v: serde_json::Value = serde_json::from_str(line).map_err(|e| format!("not JSON ({e})"))?;
    let id = match &v["id"] {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Number(n) => n.to_string(),
        _ => return Err("no id".to_string()),
    };
    let response = v[&how.field]
        .as_str()
        .ok_or_else(|| format!("no text field {:?}", how.field))?;
    let &(w, h) = sizes
        .get(&id)
        .ok_or_else(|| format!("item {id:?} has no image in this dataset"))?;
    let b = model_box(
        response,
        how.convention,
        how.sent_size.unwrap_or((w, h)),
        (w, h),
    )
    .ok_or_else(|| format!("no box in {response:?}"))?;
    Ok(BoxSet {
        item: Some(id),
        width: w,
        height: h,
        targets: vec![LabeledBox::plain(b)],
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn a_size_is_two_positive_whole_numbers() {
        assert_eq!(parse_size("960x1280").unwrap(), (960, 1280));
        assert_eq!(parse_size(" 640 X 480 ").unwrap(), (640, 480));
        for bad in ["960", "0x10", "axb", "-1x5", "10x"] {
            let e = parse_size(bad).unwrap_err().to_string();
            assert!(e.contains("WxH"), "{bad}: {e}");
        }
    }
}
