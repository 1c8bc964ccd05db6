//! Suggestions and their fate. A suggestion run asks one model for one kind of draft; each
//! answer is stored as it arrives against the item revision it was made for (so a run resumes
//! and a later revision shows it stale). Accepting writes a revision (or, for the stage kinds,
//! a stage decision) that names the suggestion and the person; rejecting records why. Nothing
//! here applies a suggestion without a person.

use std::collections::BTreeMap;

use rusqlite::{params, OptionalExtension, TransactionBehavior};
use serde::{Deserialize, Serialize};

use super::items::{apply_edit, Author, Edit};
use super::rounds::{median, seconds, MAX_GAP_SECONDS};
use super::{now, Project};
use crate::error::{Error, Result};
use crate::model::{ItemStatus, RefinementOp};
use crate::suggestion::{edit_distance, SuggestionKind, SuggestionValue};

/// One model answer for one item, as the engine hands it to the store.
#[derive(Debug, Clone, PartialEq)]
pub struct NewSuggestion {
    pub run_id: i64,
    pub item_id: i64,
    pub item_rev: i64,
    pub kind: SuggestionKind,
    pub model: String,
    pub template: String,
    /// Parsed value; None when the output did not parse or the request failed.
    pub value: Option<SuggestionValue>,
    pub raw: Option<String>,
    /// Why it did not parse, or the request's error.
    pub problem: Option<String>,
    pub error: bool,
    pub cache_key: Option<String>,
    pub from_cache: bool,
}

/// What a person did with a suggestion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SuggestionFate {
    /// "accepted", "edited" or "rejected".
    pub decision: String,
    pub by: String,
    pub rev: Option<i64>,
    pub stage_decision_id: Option<i64>,
    pub edit_distance: Option<i64>,
    pub reason: Option<String>,
    pub created_at: String,
}

/// A stored suggestion with what it would change and what became of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Suggestion {
    pub id: i64,
    pub run_id: i64,
    pub item_id: i64,
    pub kind: SuggestionKind,
    pub model: String,
    pub template: String,
    /// The revision it was made for; older than the item's current one means stale.
    pub item_rev: i64,
    pub stale: bool,
    /// "parsed", "unparsed" or "error".
    pub outcome: String,
    pub value: Option<SuggestionValue>,
    pub raw: Option<String>,
    pub problem: Option<String>,
    /// The item's current value in the place this kind changes, and the suggestion's, as text.
    pub current_text: String,
    pub suggested_text: String,
    pub fate: Option<SuggestionFate>,
    pub created_at: String,
}

/// Acceptance per kind and model: how a team decides whether a model helps.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SuggestionStats {
    pub kind: String,
    pub model: String,
    pub suggested: u64,
    pub unparsed: u64,
    pub errors: u64,
    pub accepted: u64,
    pub edited: u64,
    pub rejected: u64,
    /// Parsed, not yet decided.
    pub pending: u64,
    /// Mean characters changed before an edited acceptance.
    pub mean_edit_distance: Option<f64>,
    /// Median seconds per decision on these suggestions (the gap since the person's previous
    /// action, breaks left out).
    pub median_seconds: Option<f64>,
}

/// Time per item with and without suggestions, from the same per-person gaps as the team view.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SuggestionReport {
    pub rows: Vec<SuggestionStats>,
    pub median_seconds_with: Option<f64>,
    pub median_seconds_without: Option<f64>,
    pub decisions_with: u64,
    pub actions_without: u64,
}

/// What accepting wrote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Accepted {
    pub decision: String,
    pub rev: Option<i64>,
    pub stage_decision_id: Option<i64>,
    pub edit_distance: i64,
}

fn insert_suggestion(conn: &rusqlite::Connection, s: &NewSuggestion) -> Result<i64> {
    let outcome = if s.error {
        "error"
    } else if s.value.is_some() {
        "parsed"
    } else {
        "unparsed"
    };
    let value = s
        .value
        .as_ref()
        .map(serde_json::to_string)
        .transpose()
        .map_err(|e| Error::Invalid(e.to_string()))?;
    conn.prepare_cached(
        "INSERT INTO suggestions (run_id, item_id, item_rev, kind, model, template, outcome,
                 value, raw, problem, cache_key, from_cache, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
    )?
    .execute(params![
        s.run_id,
        s.item_id,
        s.item_rev,
        s.kind.as_str(),
        s.model,
        s.template,
        outcome,
        value,
        s.raw,
        s.problem,
        s.cache_key,
        s.from_cache,
        now()
    ])?;
    Ok(conn.last_insert_rowid())
}

const SELECT: &str = "SELECT s.id, s.run_id, s.item_id, s.kind, s.model, s.template, s.item_rev,
        s.outcome, s.value, s.raw, s.problem, s.created_at, i.rev,
        f.decision, u.name, f.rev, f.stage_decision_id, f.edit_distance, f.reason, f.created_at,
        (SELECT r.content FROM revisions r WHERE r.item_id = i.id AND r.rev = i.rev), i.op
     FROM suggestions s JOIN items i ON i.id = s.item_id
     LEFT JOIN suggestion_reviews f ON f.suggestion_id = s.id
     LEFT JOIN users u ON u.id = f.author_id";

fn row_to_suggestion(r: &rusqlite::Row<'_>) -> rusqlite::Result<Suggestion> {
    let kind_s: String = r.get(3)?;
    let kind = SuggestionKind::parse(&kind_s).unwrap_or(SuggestionKind::Checklist);
    let value: Option<String> = r.get(8)?;
    let value: Option<SuggestionValue> = value.and_then(|v| serde_json::from_str(&v).ok());
    let item_rev: i64 = r.get(6)?;
    let current_rev: i64 = r.get(12)?;
    let content: String = r.get(20)?;
    let content = super::items::parse_content(&content).unwrap_or_default();
    let op: Option<String> = r.get(21)?;
    let op = op.as_deref().and_then(RefinementOp::parse);
    let decision: Option<String> = r.get(13)?;
    Ok(Suggestion {
        id: r.get(0)?,
        run_id: r.get(1)?,
        item_id: r.get(2)?,
        kind,
        model: r.get(4)?,
        template: r.get(5)?,
        item_rev,
        stale: item_rev < current_rev,
        outcome: r.get(7)?,
        current_text: SuggestionValue::current_text(kind, &content, op),
        suggested_text: value.as_ref().map(|v| v.text()).unwrap_or_default(),
        value,
        raw: r.get(9)?,
        problem: r.get(10)?,
        fate: match decision {
            Some(decision) => Some(SuggestionFate {
                decision,
                by: r.get::<_, Option<String>>(14)?.unwrap_or_default(),
                rev: r.get(15)?,
                stage_decision_id: r.get(16)?,
                edit_distance: r.get(17)?,
                reason: r.get(18)?,
                created_at: r.get(19)?,
            }),
            None => None,
        },
        created_at: r.get(11)?,
    })
}

impl Project {
    pub fn start_suggestion_run(
        &self,
        kind: SuggestionKind,
        model: &str,
        template: &str,
        requested: usize,
    ) -> Result<i64> {
        self.conn.execute(
            "INSERT INTO suggestion_runs (kind, model, template, requested, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![kind.as_str(), model, template, requested as i64, now()],
        )?;
        Ok(self.conn.last_insert_rowid())
    }

    /// "complete", "cancelled" or "incomplete".
    pub fn finish_suggestion_run(&self, run_id: i64, status: &str) -> Result<()> {
        self.conn.execute(
            "UPDATE suggestion_runs SET status = ?2, finished_at = ?3 WHERE id = ?1",
            params![run_id, status, now()],
        )?;
        Ok(())
    }

    /// Of `items`, those whose current revision has no answer yet from this model and template
    /// for this kind (a failed request is asked again): what a run, or a resumed one, asks.
    pub fn suggestion_todo(
        &self,
        kind: SuggestionKind,
        model: &str,
        template: &str,
        items: &[i64],
    ) -> Result<Vec<i64>> {
        let mut st = self.conn.prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM suggestions s JOIN items i ON i.id = s.item_id
                 WHERE s.item_id = ?1 AND s.item_rev = i.rev AND s.kind = ?2 AND s.model = ?3
                   AND s.template = ?4 AND s.outcome <> 'error')",
        )?;
        let mut out = Vec::new();
        for &id in items {
            let done: bool =
                st.query_row(params![id, kind.as_str(), model, template], |r| r.get(0))?;
            if !done {
                out.push(id);
            }
        }
        Ok(out)
    }

    pub fn write_suggestion(&self, s: &NewSuggestion) -> Result<i64> {
        insert_suggestion(&self.conn, s)
    }

    /// An item's suggestions, newest first.
    pub fn item_suggestions(&self, item_id: i64) -> Result<Vec<Suggestion>> {
        let mut st = self
            .conn
            .prepare_cached(&format!("{SELECT} WHERE s.item_id = ?1 ORDER BY s.id DESC"))?;
        let rows = st.query_map([item_id], row_to_suggestion)?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    pub fn suggestion(&self, id: i64) -> Result<Suggestion> {
        self.conn
            .query_row(
                &format!("{SELECT} WHERE s.id = ?1"),
                [id],
                row_to_suggestion,
            )
            .optional()?
            .ok_or_else(|| Error::NotFound(format!("suggestion {id}")))
    }

    /// A run's suggestions in item order.
    pub fn run_suggestions(&self, run_id: i64) -> Result<Vec<Suggestion>> {
        let mut st = self.conn.prepare(&format!(
            "{SELECT} WHERE s.run_id = ?1 ORDER BY s.item_id, s.id"
        ))?;
        let rows = st.query_map([run_id], row_to_suggestion)?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// Accepts a suggestion, as the model gave it or as the person edited it (`value`). Writes
    /// a revision on `base_rev` (a conflict if the item moved on) whose note names the
    /// suggestion, or for the stage kinds a stage decision at `stage_id` naming it. A stale
    /// suggestion is accepted only onto the current revision the person saw (`base_rev`).
    pub fn accept_suggestion(
        &mut self,
        id: i64,
        base_rev: i64,
        value: &SuggestionValue,
        stage_id: Option<i64>,
        author: &Author,
    ) -> Result<Accepted> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let (item_id, kind, model, template, stored, outcome, decided): (
            i64,
            String,
            String,
            String,
            Option<String>,
            String,
            bool,
        ) = tx
            .query_row(
                "SELECT s.item_id, s.kind, s.model, s.template, s.value, s.outcome,
                        EXISTS (SELECT 1 FROM suggestion_reviews f WHERE f.suggestion_id = s.id)
                 FROM suggestions s WHERE s.id = ?1",
                [id],
                |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                        r.get(6)?,
                    ))
                },
            )
            .optional()?
            .ok_or_else(|| Error::NotFound(format!("suggestion {id}")))?;
        if decided {
            return Err(Error::Invalid(format!(
                "suggestion {id} was already accepted or rejected"
            )));
        }
        if outcome == "error" {
            return Err(Error::Invalid(format!(
                "suggestion {id} is a failed request; there is nothing to accept"
            )));
        }
        let kind = SuggestionKind::parse(&kind)
            .ok_or_else(|| Error::Invalid(format!("unknown suggestion kind {kind:?}")))?;
        if value.kind() != kind {
            return Err(Error::Invalid(format!(
                "suggestion {id} is a {kind} suggestion, not {}",
                value.kind()
            )));
        }
        value.validate().map_err(Error::Invalid)?;
        // An unparsed output has no value of its own: whatever the person enters is an edit
        // of the raw text.
        let suggested: Option<SuggestionValue> = stored.and_then(|s| serde_json::from_str(&s).ok());
        let distance = match &suggested {
            Some(s) => edit_distance(&s.text(), &value.text()),
            None => value.text().chars().count(),
        };
        let decision = if suggested.as_ref() == Some(value) {
            "accepted"
        } else {
            "edited"
        };
        let provenance =
            format!("{decision} suggestion #{id} ({kind}, model {model}, template {template})");
        let (rev, stage_decision_id) = match value.stage_decision() {
            Some((keep, reason)) => {
                let stage = stage_id.ok_or_else(|| {
                    Error::Invalid(format!(
                        "a {kind} suggestion is a keep/drop decision: name the stage it decides"
                    ))
                })?;
                let current: i64 =
                    tx.query_row("SELECT rev FROM items WHERE id = ?1", [item_id], |r| {
                        r.get(0)
                    })?;
                if current != base_rev {
                    return Err(Error::Conflict {
                        item_id,
                        base_rev,
                        current_rev: current,
                        by: "another person".into(),
                    });
                }
                let reason = format!("{reason} [{provenance}]");
                let d = super::stages::record_suggested_decision(
                    &tx,
                    item_id,
                    stage,
                    keep,
                    &reason,
                    author.user_id,
                )?;
                (None, Some(d))
            }
            None => {
                let (op, tags, status): (Option<String>, i64, String) = tx.query_row(
                    "SELECT op, tags, status FROM items WHERE id = ?1",
                    [item_id],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )?;
                let mut op = op.as_deref().and_then(RefinementOp::parse);
                let mut content = super::items::current_content(&tx, item_id)?;
                value.apply(&mut content, &mut op).map_err(Error::Invalid)?;
                let status = ItemStatus::parse(&status).unwrap_or_default();
                let edit = Edit {
                    base_rev: Some(base_rev),
                    content,
                    op,
                    tags: crate::model::IssueTag::from_bits(tags),
                    // An accepted draft is new work: it goes back to review like any edit.
                    status: if status == ItemStatus::Approved {
                        ItemStatus::Edited
                    } else {
                        status
                    },
                    note: Some(provenance),
                };
                let before: i64 =
                    tx.query_row("SELECT rev FROM items WHERE id = ?1", [item_id], |r| {
                        r.get(0)
                    })?;
                let rev = apply_edit(&tx, item_id, &edit, author)?;
                if rev == before {
                    return Err(Error::Invalid(format!(
                        "suggestion {id} changes nothing: the item already holds it"
                    )));
                }
                (Some(rev), None)
            }
        };
        let value_json = serde_json::to_string(value).map_err(|e| Error::Invalid(e.to_string()))?;
        tx.execute(
            "INSERT INTO suggestion_reviews (suggestion_id, decision, author_id, rev,
                 stage_decision_id, value, edit_distance, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                id,
                decision,
                author.user_id,
                rev,
                stage_decision_id,
                value_json,
                distance as i64,
                now()
            ],
        )?;
        tx.commit()?;
        Ok(Accepted {
            decision: decision.into(),
            rev,
            stage_decision_id,
            edit_distance: distance as i64,
        })
    }

    /// Rejects a suggestion; the reason is required and kept.
    pub fn reject_suggestion(&mut self, id: i64, reason: &str, author: &Author) -> Result<()> {
        if reason.trim().is_empty() {
            return Err(Error::Invalid(
                "rejecting a suggestion needs a reason".into(),
            ));
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let decided: Option<bool> = tx
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM suggestion_reviews f WHERE f.suggestion_id = s.id)
                 FROM suggestions s WHERE s.id = ?1",
                [id],
                |r| r.get(0),
            )
            .optional()?;
        match decided {
            None => return Err(Error::NotFound(format!("suggestion {id}"))),
            Some(true) => {
                return Err(Error::Invalid(format!(
                    "suggestion {id} was already accepted or rejected"
                )))
            }
            Some(false) => {}
        }
        tx.execute(
            "INSERT INTO suggestion_reviews (suggestion_id, decision, author_id, reason, created_at)
             VALUES (?1, 'rejected', ?2, ?3, ?4)",
            params![id, author.user_id, reason.trim(), now()],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Per kind and model: suggested, accepted as is, accepted after edits (mean edit distance),
    /// rejected, pending; and time per decision with suggestions against people's other work.
    pub fn suggestion_report(&self) -> Result<SuggestionReport> {
        let mut st = self.conn.prepare(
            "SELECT s.kind, s.model, count(*),
                    sum(s.outcome = 'unparsed'), sum(s.outcome = 'error'),
                    sum(f.decision = 'accepted'), sum(f.decision = 'edited'),
                    sum(f.decision = 'rejected'),
                    sum(s.outcome = 'parsed' AND f.id IS NULL),
                    avg(CASE WHEN f.decision = 'edited' THEN f.edit_distance END)
             FROM suggestions s LEFT JOIN suggestion_reviews f ON f.suggestion_id = s.id
             GROUP BY s.kind, s.model ORDER BY s.kind, s.model",
        )?;
        let mut rows: Vec<SuggestionStats> = st
            .query_map([], |r| {
                let n = |i: usize| -> rusqlite::Result<u64> {
                    Ok(r.get::<_, Option<i64>>(i)?.unwrap_or(0) as u64)
                };
                Ok(SuggestionStats {
                    kind: r.get(0)?,
                    model: r.get(1)?,
                    suggested: n(2)?,
                    unparsed: n(3)?,
                    errors: n(4)?,
                    accepted: n(5)?,
                    edited: n(6)?,
                    rejected: n(7)?,
                    pending: n(8)?,
                    mean_edit_distance: r.get(9)?,
                    median_seconds: None,
                })
            })?
            .collect::<std::result::Result<_, _>>()?;

        // Every action a person took, in time order per person; an action on a suggestion
        // carries its (kind, model). The gap since the person's previous action is the time
        // it took, unless the gap is a break.
        let mut acts = self.conn.prepare(
            "SELECT r.author_id, r.created_at, x.kind, x.model FROM revisions r
               LEFT JOIN (SELECT s.item_id, f.rev, s.kind, s.model FROM suggestion_reviews f
                          JOIN suggestions s ON s.id = f.suggestion_id WHERE f.rev IS NOT NULL) x
                 ON x.item_id = r.item_id AND x.rev = r.rev
               WHERE r.author_id IS NOT NULL AND r.rev > 0
             UNION ALL
             SELECT f.author_id, f.created_at, s.kind, s.model FROM suggestion_reviews f
               JOIN suggestions s ON s.id = f.suggestion_id WHERE f.rev IS NULL
             UNION ALL
             SELECT d.author_id, d.created_at, NULL, NULL FROM stage_decisions d
               WHERE d.author_id IS NOT NULL AND NOT EXISTS
                   (SELECT 1 FROM suggestion_reviews f WHERE f.stage_decision_id = d.id)",
        )?;
        type Act = (f64, Option<(String, String)>);
        let mut per_person: BTreeMap<i64, Vec<Act>> = BTreeMap::new();
        let all = acts.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<String>>(2)?,
                r.get::<_, Option<String>>(3)?,
            ))
        })?;
        for a in all {
            let (who, ts, kind, model) = a?;
            if let Some(t) = seconds(&ts) {
                per_person
                    .entry(who)
                    .or_default()
                    .push((t, kind.zip(model)));
            }
        }
        let mut with_by: BTreeMap<(String, String), Vec<f64>> = BTreeMap::new();
        let (mut with, mut without) = (Vec::new(), Vec::new());
        for acts in per_person.values_mut() {
            acts.sort_by(|a, b| a.0.total_cmp(&b.0));
            for w in acts.windows(2) {
                let gap = w[1].0 - w[0].0;
                if gap > MAX_GAP_SECONDS {
                    continue;
                }
                match &w[1].1 {
                    Some(key) => {
                        with.push(gap);
                        with_by.entry(key.clone()).or_default().push(gap);
                    }
                    None => without.push(gap),
                }
            }
        }
        for row in &mut rows {
            row.median_seconds = with_by
                .remove(&(row.kind.clone(), row.model.clone()))
                .and_then(median);
        }
        Ok(SuggestionReport {
            rows,
            decisions_with: with.len() as u64,
            actions_without: without.len() as u64,
            median_seconds_with: median(with),
            median_seconds_without: median(without),
        })
    }
}

impl Project {
    /// Each named model's mean score on the item's current revision (original wording, every
    /// stored run): what difficulty calibration reads instead of asking again.
    pub fn model_scores_on_item(
        &self,
        item_id: i64,
        models: &[String],
    ) -> Result<Vec<crate::suggestion::ModelScore>> {
        let mut st = self.conn.prepare_cached(
            "SELECT avg(ri.score), count(*) FROM run_items ri
               JOIN runs r ON r.id = ri.run_id JOIN models m ON m.id = r.model_id
               JOIN items i ON i.id = ri.item_id
             WHERE ri.item_id = ?1 AND m.name = ?2 AND ri.item_rev = i.rev
               AND r.variant = 'original' AND ri.score IS NOT NULL",
        )?;
        let mut out = Vec::new();
        for m in models {
            let (mean, n): (Option<f64>, i64) =
                st.query_row(params![item_id, m], |r| Ok((r.get(0)?, r.get(1)?)))?;
            if let Some(score) = mean {
                out.push(crate::suggestion::ModelScore {
                    model: m.clone(),
                    score,
                    runs: n as u32,
                });
            }
        }
        Ok(out)
    }

    /// Stores a batch of answers in one transaction, with the responses paid for to make them
    /// (cache key, response, request record), so a killed run keeps both or neither.
    pub fn write_suggestions(
        &mut self,
        batch: &[NewSuggestion],
        responses: &[(String, super::StoredResponse, String)],
    ) -> Result<Vec<i64>> {
        let tx = self.conn.transaction()?;
        for (key, r, record) in responses {
            super::runs::insert_response(&tx, key, r, Some(record), false)?;
        }
        let mut ids = Vec::with_capacity(batch.len());
        for s in batch {
            ids.push(insert_suggestion(&tx, s)?);
        }
        tx.commit()?;
        Ok(ids)
    }
}
