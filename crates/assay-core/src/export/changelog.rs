use std::path::Path;

use super::each_item;
use crate::error::{Error, Result};
use crate::model::ItemContent;
use crate::store::Project;

type Field = (&'static str, fn(&ItemContent) -> String);

fn opt(s: &Option<String>) -> String {
    s.clone().unwrap_or_default()
}

const FIELDS: &[Field] = &[
    ("question", |c| c.question.clone()),
    ("answer", |c| opt(&c.answer)),
    ("options", |c| {
        c.options
            .iter()
            .map(|o| o.text.as_str())
            .collect::<Vec<_>>()
            .join(" | ")
    }),
    ("correct_option", |c| {
        c.correct_option.map(|i| i.to_string()).unwrap_or_default()
    }),
    ("checklist", |c| c.checklist.join(" | ")),
    ("explicit_question", |c| opt(&c.explicit_question)),
    ("disambiguated_question", |c| opt(&c.disambiguated_question)),
    ("category", |c| opt(&c.category)),
    ("ref_type", |c| {
        c.ref_type
            .map(|r| r.as_str().to_string())
            .unwrap_or_default()
    }),
    ("target_boxes", |c| {
        serde_json::to_string(&c.images.iter().map(|i| &i.target_boxes).collect::<Vec<_>>())
            .unwrap_or_default()
    }),
];

/// One row per changed item: op, issue tags, and each field before and after.
pub fn write_changelog(project: &Project, dataset: &str, path: &Path) -> Result<usize> {
    write_changelog_metered(project, dataset, path, &mut super::Meter::silent())
}

pub(crate) fn write_changelog_metered(
    project: &Project,
    dataset: &str,
    path: &Path,
    meter: &mut super::Meter,
) -> Result<usize> {
    let ds = project.dataset_by_name(dataset)?;
    let mut w = csv::Writer::from_path(path).map_err(|e| Error::Invalid(e.to_string()))?;
    let mut header = vec!["id".to_string(), "op".into(), "tags".into()];
    for (name, _) in FIELDS {
        header.push(format!("{name}_before"));
        header.push(format!("{name}_after"));
    }
    w.write_record(&header)
        .map_err(|e| Error::Invalid(e.to_string()))?;
    let mut n = 0;
    each_item(project, ds.id, super::Scope::All, meter, &mut |it| {
        let changed = it.content != it.original || it.op.is_some_and(|o| o.as_str() != "identical");
        if it.rev == 0 || !changed {
            return Ok(());
        }
        let mut row = vec![
            it.ext_id.clone(),
            it.op.map(|o| o.as_str().to_string()).unwrap_or_default(),
            it.tags
                .iter()
                .map(|t| t.as_str())
                .collect::<Vec<_>>()
                .join(";"),
        ];
        for (_, get) in FIELDS {
            row.push(get(&it.original));
            row.push(get(&it.content));
        }
        w.write_record(&row)
            .map_err(|e| Error::Invalid(e.to_string()))?;
        n += 1;
        Ok(())
    })?;
    w.flush().map_err(|e| Error::io(path, e))?;
    Ok(n)
}
