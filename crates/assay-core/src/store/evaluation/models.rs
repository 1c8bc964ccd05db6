//! Evaluation models and prompt templates, stored as the evaluation engine gives them: a model's
//! configuration is JSON the engine owns; API keys are never part of it.

use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::store::{now, Project};

/// A stored model: its row id, name and configuration (JSON).
#[derive(Debug, Clone, PartialEq)]
pub struct ModelRow {
    pub id: i64,
    pub name: String,
    pub config: String,
}

/// A stored template version.
#[derive(Debug, Clone, PartialEq)]
pub struct TemplateRow {
    pub name: String,
    pub version: i64,
    pub format: String,
    pub body: String,
}

/// One saved version of a template, as the templates page lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TemplateVersion {
    pub name: String,
    pub version: i64,
    /// The answer format a prompt template is for, or "suggestion".
    pub format: String,
    pub body: String,
    pub created_at: String,
}

/// Prefixes of the built-in templates' names: a saved template under one would be shadowed by
/// the built-in when a run names it.
pub const BUILTIN_TEMPLATE_PREFIXES: [&str; 4] = ["crag-mm/", "vague/", "default/", "suggest/"];

/// Why `name` cannot name a saved template, if it cannot.
pub fn why_not_template_name(name: &str) -> Option<String> {
    if name.trim().is_empty() || name.trim() != name {
        return Some("a template needs a name without spaces around it".into());
    }
    if name.contains('@') {
        return Some(format!(
            "{name:?}: '@' separates a template's name from its version"
        ));
    }
    if name == "default"
        || BUILTIN_TEMPLATE_PREFIXES
            .iter()
            .any(|p| name.starts_with(p))
    {
        return Some(format!(
            "{name:?} names a built-in template; pick another name"
        ));
    }
    None
}

impl Project {
    /// Adds a model or replaces the configuration of the one with this name.
    pub fn save_model_config(&self, name: &str, config: &str) -> Result<i64> {
        self.conn.execute(
            "INSERT INTO models (name, config, created_at) VALUES (?1, ?2, ?3)
             ON CONFLICT(name) DO UPDATE SET config = excluded.config",
            params![name, config, now()],
        )?;
        Ok(self
            .conn
            .query_row("SELECT id FROM models WHERE name = ?1", [name], |r| {
                r.get(0)
            })?)
    }

    /// Adds a model only when none has this name (predictions recorded elsewhere).
    pub fn ensure_model_config(&self, name: &str, config: &str) -> Result<i64> {
        if let Some(m) = self.model_config(name)? {
            return Ok(m.id);
        }
        self.conn.execute(
            "INSERT INTO models (name, config, created_at) VALUES (?1, ?2, ?3)",
            params![name, config, now()],
        )?;
        Ok(self.conn.last_insert_rowid())
    }

    /// Removes a model that has no runs; one with runs stays (its results name it), and the
    /// refusal says so.
    pub fn remove_model_config(&self, name: &str) -> Result<()> {
        let m = self
            .model_config(name)?
            .ok_or_else(|| Error::NotFound(format!("model {name:?}")))?;
        let runs: i64 = self.conn.query_row(
            "SELECT count(*) FROM runs WHERE model_id = ?1",
            [m.id],
            |r| r.get(0),
        )?;
        if runs > 0 {
            return Err(Error::Invalid(format!(
                "model {name:?} has {runs} runs whose results name it; it cannot be removed"
            )));
        }
        self.conn
            .execute("DELETE FROM models WHERE id = ?1", [m.id])?;
        Ok(())
    }

    /// Mean prompt and completion tokens of the stored responses to this model's requests
    /// (for cost estimates); None before any response with token counts.
    pub fn mean_tokens(&self, model: &str) -> Result<Option<(f64, f64)>> {
        let row: (Option<f64>, Option<f64>) = self.conn.query_row(
            "SELECT avg(resp.prompt_tokens), avg(resp.completion_tokens)
             FROM run_items ri JOIN runs r ON r.id = ri.run_id JOIN models m ON m.id = r.model_id
             JOIN responses resp ON resp.cache_key = ri.cache_key
             WHERE m.name = ?1 AND resp.prompt_tokens IS NOT NULL",
            [model],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        Ok(match row {
            (Some(p), Some(c)) => Some((p, c)),
            _ => None,
        })
    }

    pub fn model_configs(&self) -> Result<Vec<ModelRow>> {
        let mut st = self
            .conn
            .prepare("SELECT id, name, config FROM models ORDER BY id")?;
        let rows = st.query_map([], |r| {
            Ok(ModelRow {
                id: r.get(0)?,
                name: r.get(1)?,
                config: r.get(2)?,
            })
        })?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    pub fn model_config(&self, name: &str) -> Result<Option<ModelRow>> {
        Ok(self
            .conn
            .query_row(
                "SELECT id, name, config FROM models WHERE name = ?1",
                [name],
                |r| {
                    Ok(ModelRow {
                        id: r.get(0)?,
                        name: r.get(1)?,
                        config: r.get(2)?,
                    })
                },
            )
            .optional()?)
    }

    /// A template's latest version, or a given one.
    pub fn template(&self, name: &str, version: Option<i64>) -> Result<Option<TemplateRow>> {
        let map = |r: &rusqlite::Row<'_>| {
            Ok(TemplateRow {
                name: r.get(0)?,
                version: r.get(1)?,
                format: r.get(2)?,
                body: r.get(3)?,
            })
        };
        Ok(match version {
            Some(v) => self
                .conn
                .query_row(
                    "SELECT name, version, format, body FROM prompt_templates WHERE name = ?1 AND version = ?2",
                    params![name, v],
                    map,
                )
                .optional()?,
            None => self
                .conn
                .query_row(
                    "SELECT name, version, format, body FROM prompt_templates WHERE name = ?1 ORDER BY version DESC LIMIT 1",
                    [name],
                    map,
                )
                .optional()?,
        })
    }

    /// Every saved version of every template, by name, newest first.
    pub fn template_versions(&self) -> Result<Vec<TemplateVersion>> {
        let mut st = self.conn.prepare(
            "SELECT name, version, format, body, created_at FROM prompt_templates
             ORDER BY name, version DESC",
        )?;
        let rows = st.query_map([], |r| {
            Ok(TemplateVersion {
                name: r.get(0)?,
                version: r.get(1)?,
                format: r.get(2)?,
                body: r.get(3)?,
                created_at: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// Saves a template body; an unchanged body keeps its version, a changed one is the next.
    /// A name a run could not name it by (see `why_not_template_name`), an empty body, or a
    /// format other than the name's earlier versions' is refused.
    pub fn save_template(&self, name: &str, format: &str, body: &str) -> Result<i64> {
        if let Some(why) = why_not_template_name(name) {
            return Err(Error::Invalid(why));
        }
        if body.trim().is_empty() {
            return Err(Error::Invalid(format!(
                "template {name}: the body is empty"
            )));
        }
        let latest = self.template(name, None)?;
        // Every version of a name is for one format (or for suggestions): a run naming it
        // "latest" must never get a body written for something else.
        if let Some(t) = latest.as_ref().filter(|t| t.format != format) {
            return Err(Error::Invalid(format!(
                "template {name} is for {}; save this one for {format} under another name",
                t.format
            )));
        }
        let version = match latest {
            Some(t) if t.body == body => return Ok(t.version),
            Some(t) => t.version + 1,
            None => 1,
        };
        self.conn.execute(
            "INSERT INTO prompt_templates (name, version, format, body, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![name, version, format, body, now()],
        )?;
        Ok(version)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_is_saved_only_under_a_name_a_run_can_name_and_with_a_body() {
        let dir = tempfile::tempdir().unwrap();
        let p = Project::create(dir.path().join("t.assay")).unwrap();
        for bad in [
            "",
            " terse",
            "terse@2",
            "default",
            "vague/plain",
            "crag-mm/x",
            "default/short_answer",
        ] {
            assert!(
                matches!(
                    p.save_template(bad, "short_answer", "{question}"),
                    Err(Error::Invalid(_))
                ),
                "{bad:?}"
            );
        }
        assert!(p.save_template("terse", "short_answer", "  ").is_err());
        assert_eq!(
            p.save_template("terse", "short_answer", "a {question}")
                .unwrap(),
            1
        );
        assert_eq!(
            p.save_template("terse", "short_answer", "a {question}")
                .unwrap(),
            1
        );
        assert_eq!(
            p.save_template("terse", "short_answer", "b {question}")
                .unwrap(),
            2
        );
        for other in ["multiple_choice", "suggestion"] {
            assert!(
                p.save_template("terse", other, "b {question}").is_err(),
                "{other}"
            );
        }
        assert!(p
            .save_template("suggest/screening", "suggestion", "x")
            .is_err());
        let all = p.template_versions().unwrap();
        assert_eq!(
            all.iter()
                .map(|t| (t.name.as_str(), t.version))
                .collect::<Vec<_>>(),
            [("terse", 2), ("terse", 1)]
        );
        assert_eq!(all[1].body, "a {question}");
    }
}
