//! Evaluation models and prompt templates, stored as the evaluation engine gives them: a model's
//! configuration is JSON the engine owns; API keys are never part of it.

use rusqlite::{params, OptionalExtension};

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

    /// Saves a template body; an unchanged body keeps its version, a changed one is the next.
    pub fn save_template(&self, name: &str, format: &str, body: &str) -> Result<i64> {
        let version = match self.template(name, None)? {
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
