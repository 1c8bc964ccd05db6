//! Suggestions and their fate. A suggestion run asks one model for one kind of draft; each
//! answer is stored as it arrives against the item revision it was made for (so a run resumes
//! and a later revision shows it stale). Accepting writes a revision (or, for the stage kinds,
//! a stage decision) that names the suggestion and the person; rejecting records why. Nothing
//! here applies a suggestion without a person.

use std::collections::BTreeMap;

use rusqlite::{params, OptionalExtension, TransactionBehavior};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::{ItemStatus, RefinementOp};
use crate::store::filtering::stages::DecidedBy;
use crate::store::items::{Author, Edit};
use crate::store::review::rounds::{median, seconds, MAX_GAP_SECONDS};
use crate::store::write_path::{filtering, revision, revision::Made};
use crate::store::{now, Project};
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
    /// Outputs stored (failed requests left out).
    pub suggested: u64,
    /// Outputs that did not parse and nobody has decided on.
    pub unparsed: u64,
    /// Items whose latest request for this kind and model failed.
    pub errors: u64,
    pub accepted: u64,
    pub edited: u64,
    pub rejected: u64,
    /// Parsed, not yet decided. `accepted + edited + rejected + pending + unparsed` is
    /// `suggested`.
    pub pending: u64,
    /// Mean characters changed before an edited acceptance (of parsed drafts).
    pub mean_edit_distance: Option<f64>,
    /// Median seconds per item where a person decided on one of these suggestions.
    pub median_seconds: Option<f64>,
}

/// Time per item with and without suggestions, from the same per-person gaps as the team view.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SuggestionReport {
    pub rows: Vec<SuggestionStats>,
    /// Median seconds per item visit with a decision on a suggestion, and without one.
    pub median_seconds_with: Option<f64>,
    pub median_seconds_without: Option<f64>,
    pub visits_with: u64,
    pub visits_without: u64,
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
    // Two runs over the same items (the CLI and the app) answer once per revision: the later
    // answer is dropped, not stored twice.
    let n = conn
        .prepare_cached(
            "INSERT INTO suggestions (run_id, item_id, item_rev, kind, model, template, outcome,
                 value, raw, problem, cache_key, from_cache, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
             ON CONFLICT DO NOTHING",
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
    // 0: another run already answered this revision.
    Ok(if n == 0 { 0 } else { conn.last_insert_rowid() })
}

/// A suggestion's (kind, model): the key time and acceptance are reported under.
type KindModel = (String, String);

/// Whether a note claims to come from a suggestion: only accepting one may write such a note.
pub(crate) fn claims_a_suggestion(note: &str) -> bool {
    let n = note.trim_start().to_lowercase();
    n.starts_with("accepted suggestion #") || n.starts_with("edited suggestion #")
}

/// A suggestion has one fate: a second decision on it is refused.
fn refuse_decided(tx: &rusqlite::Connection, id: i64) -> Result<()> {
    let decided = tx
        .query_row(
            "SELECT 1 FROM suggestion_reviews WHERE suggestion_id = ?1",
            [id],
            |_| Ok(()),
        )
        .optional()?
        .is_some();
    if decided {
        return Err(Error::Invalid(format!(
            "suggestion {id} was already accepted or rejected"
        )));
    }
    Ok(())
}

/// A person in a blind round over the item neither sees nor decides its suggestions.
fn refuse_blind(tx: &rusqlite::Connection, item_id: i64, author: &Author) -> Result<()> {
    match crate::store::review::blind::blind_hold(tx, item_id, author.user_id)? {
        Some(round) => Err(Error::Forbidden(format!(
            "item {item_id} is in your blind round {round:?}: its suggestions wait until an \
             auditor has adjudicated it"
        ))),
        None => Ok(()),
    }
}

/// What a draft of `kind` rests on: the part it changes and what the model was shown (the
/// question, the reference, the images; the options and VAGUE's direct request where its prompt
/// shows them). A change to any of them makes it stale; an edit elsewhere leaves it current.
fn basis(kind: SuggestionKind, c: &crate::model::ItemContent, op: Option<RefinementOp>) -> String {
    let images: Vec<&str> = c.images.iter().map(|i| i.hash.as_str()).collect();
    let mut b = format!(
        "{}\u{0}{}\u{0}{}\u{0}{}",
        SuggestionValue::current_text(kind, c, op),
        c.question,
        c.reference_text().unwrap_or_default(),
        images.join("\u{1}")
    );
    if matches!(
        kind,
        SuggestionKind::Operation | SuggestionKind::Distractors
    ) {
        for o in &c.options {
            b.push('\u{1}');
            b.push_str(&o.text);
        }
    }
    if matches!(
        kind,
        SuggestionKind::IndirectUtterance | SuggestionKind::Distractors
    ) {
        b.push('\u{0}');
        b.push_str(&SuggestionValue::current_text(
            SuggestionKind::DirectRequest,
            c,
            op,
        ));
    }
    b
}

const SELECT: &str = "SELECT s.id, s.run_id, s.item_id, s.kind, s.model, s.template, s.item_rev,
        s.outcome, s.value, s.raw, s.problem, s.created_at, i.rev,
        f.decision, u.name, f.rev, f.stage_decision_id, f.edit_distance, f.reason, f.created_at,
        (SELECT revision_json(r.content) FROM revisions r WHERE r.item_id = i.id AND r.rev = i.rev), i.op,
        (SELECT revision_json(r.content) FROM revisions r WHERE r.item_id = i.id AND r.rev = s.item_rev),
        (SELECT r.op FROM revisions r WHERE r.item_id = i.id AND r.rev = s.item_rev)
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
    let content = crate::store::items::parse_content(&content).unwrap_or_default();
    let op: Option<String> = r.get(21)?;
    let op = op.as_deref().and_then(RefinementOp::parse);
    let decision: Option<String> = r.get(13)?;
    let current_text = SuggestionValue::current_text(kind, &content, op);
    // Stale when what this kind changes is no longer what the model saw: another field's edit
    // leaves a draft current.
    let stale = item_rev < current_rev && {
        let then: Option<String> = r.get(22)?;
        let then_op: Option<String> = r.get(23)?;
        let then = then
            .and_then(|c| crate::store::items::parse_content(&c).ok())
            .unwrap_or_default();
        let then_op = then_op.as_deref().and_then(RefinementOp::parse);
        kind.decides_stage() || basis(kind, &then, then_op) != basis(kind, &content, op)
    };
    Ok(Suggestion {
        id: r.get(0)?,
        run_id: r.get(1)?,
        item_id: r.get(2)?,
        kind,
        model: r.get(4)?,
        template: r.get(5)?,
        item_rev,
        stale,
        outcome: r.get(7)?,
        current_text,
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
    /// a revision on `base_rev` (a conflict if the item moved on) under every rule of an edit,
    /// linked to the suggestion, or for the stage kinds a stage decision at `stage_id`. A stage
    /// decision keeps the model's figures: the person chooses keep or drop, and overruling the
    /// model needs `reason`. A draft that would change nothing is refused.
    pub fn accept_suggestion(
        &mut self,
        id: i64,
        base_rev: i64,
        value: &SuggestionValue,
        stage_id: Option<i64>,
        reason: Option<&str>,
        author: &Author,
    ) -> Result<Accepted> {
        value.validate().map_err(Error::Invalid)?;
        let reason = reason.map(str::trim).filter(|r| !r.is_empty());
        let (item_id, kind, model, template, stored, outcome) = self.undecided(id)?;
        let kind = SuggestionKind::parse(&kind)
            .ok_or_else(|| Error::Invalid(format!("unknown suggestion kind {kind:?}")))?;
        if value.kind() != kind {
            return Err(Error::Invalid(format!(
                "suggestion {id} is a {kind} suggestion, not {}",
                value.kind()
            )));
        }
        if outcome == "error" {
            return Err(Error::Invalid(format!(
                "suggestion {id} is a failed request; there is nothing to accept"
            )));
        }
        // An unparsed output has no value of its own: whatever the person enters is an edit
        // of the raw text. Measured outside the transaction, on bounded text.
        let suggested: Option<SuggestionValue> = stored.and_then(|s| serde_json::from_str(&s).ok());
        let clip = |t: String| t.chars().take(4000).collect::<String>();
        let distance = match &suggested {
            Some(s) => edit_distance(&clip(s.text()), &clip(value.text())),
            None => value.text().chars().count(),
        };
        let decision = if suggested.as_ref() == Some(value) {
            "accepted"
        } else {
            "edited"
        };
        let provenance =
            format!("{decision} suggestion #{id} ({kind}, model {model}, template {template})");
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        refuse_decided(&tx, id)?;
        // The sign-off lock and the blind hold are the write path's, met by the revision or the
        // stage decision below.
        let (rev, stage_decision_id) = match value.stage_decision() {
            Some((keep, own)) => {
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
                // The model's figures stay as the model gave them; the person's part is keep
                // or drop, with their reason when it is not the model's.
                let text = match suggested.as_ref().and_then(SuggestionValue::stage_decision) {
                    Some((model_keep, model_reason)) if model_keep == keep => match reason {
                        Some(r) => format!("{model_reason}; {r}"),
                        None => model_reason,
                    },
                    Some((_, model_reason)) => {
                        let r = reason.ok_or_else(|| {
                            Error::Invalid(format!(
                                "{} overrules the model's decision: say why",
                                if keep { "keeping" } else { "dropping" }
                            ))
                        })?;
                        format!("{r} (the model said: {model_reason})")
                    }
                    None => reason
                        .map(String::from)
                        .ok_or_else(|| {
                            Error::Invalid(format!(
                                "the model's output did not parse: say why you {} it",
                                if keep { "keep" } else { "drop" }
                            ))
                        })
                        .map(|r| format!("{r} ({own})"))?,
                };
                let text = format!("{text} [{provenance}]");
                let d = filtering::decision(
                    &tx,
                    item_id,
                    stage,
                    keep,
                    Some(&text),
                    DecidedBy::Person(author),
                )?;
                (None, Some(d))
            }
            None => {
                let (op, tags, status): (Option<String>, i64, String) = tx.query_row(
                    "SELECT op, tags, status FROM items WHERE id = ?1",
                    [item_id],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )?;
                let before_op = op.as_deref().and_then(RefinementOp::parse);
                let mut op = before_op;
                let before = crate::store::items::current_content(&tx, item_id)?;
                let mut content = before.clone();
                value.apply(&mut content, &mut op).map_err(Error::Invalid)?;
                if content == before && op == before_op {
                    return Err(Error::Invalid(format!(
                        "suggestion {id} changes nothing: the item already holds it"
                    )));
                }
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
                    note: Some(match reason {
                        Some(r) => format!("{provenance}: {r}"),
                        None => provenance,
                    }),
                };
                (
                    Some(revision::edit(
                        &tx,
                        item_id,
                        &edit,
                        author,
                        Made::FromSuggestion,
                    )?),
                    None,
                )
            }
        };
        let value_json = serde_json::to_string(value).map_err(|e| Error::Invalid(e.to_string()))?;
        tx.execute(
            "INSERT INTO suggestion_reviews (suggestion_id, decision, author_id, rev,
                 stage_decision_id, value, edit_distance, reason, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                id,
                decision,
                author.user_id,
                rev,
                stage_decision_id,
                value_json,
                distance as i64,
                reason,
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

    /// (item, kind, model, template, value, outcome) of a suggestion.
    #[allow(clippy::type_complexity)]
    fn undecided(&self, id: i64) -> Result<(i64, String, String, String, Option<String>, String)> {
        self.conn
            .query_row(
                "SELECT item_id, kind, model, template, value, outcome FROM suggestions
                 WHERE id = ?1",
                [id],
                |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                    ))
                },
            )
            .optional()?
            .ok_or_else(|| Error::NotFound(format!("suggestion {id}")))
    }

    /// Rejects a suggestion; the reason is required and kept.
    pub fn reject_suggestion(&mut self, id: i64, reason: &str, author: &Author) -> Result<()> {
        if reason.trim().is_empty() {
            return Err(Error::Invalid(
                "rejecting a suggestion needs a reason".into(),
            ));
        }
        let (item_id, ..) = self.undecided(id)?;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        refuse_decided(&tx, id)?;
        refuse_blind(&tx, item_id, author)?;
        tx.execute(
            "INSERT INTO suggestion_reviews (suggestion_id, decision, author_id, reason, created_at)
             VALUES (?1, 'rejected', ?2, ?3, ?4)",
            params![id, author.user_id, reason.trim(), now()],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// An item's suggestions as `user_id` may see them: none while the item is in that person's
    /// blind round, where a model's draft would anchor both judgements.
    pub fn item_suggestions_for(&self, item_id: i64, user_id: i64) -> Result<Vec<Suggestion>> {
        if crate::store::review::blind::blind_hold(&self.conn, item_id, user_id)?.is_some() {
            return Ok(Vec::new());
        }
        self.item_suggestions(item_id)
    }

    /// Per kind and model: suggested, accepted as is, accepted after edits (mean edit distance),
    /// rejected, pending, unparsed; and time per item with suggestions against people's other
    /// work.
    pub fn suggestion_report(&self) -> Result<SuggestionReport> {
        // A request that failed and was asked again leaves an error row before its answer: only
        // an item's latest failure with no answer after it counts as an error.
        let mut st = self.conn.prepare(
            "SELECT s.kind, s.model,
                    sum(s.outcome <> 'error'),
                    sum(s.outcome = 'unparsed' AND f.id IS NULL),
                    sum(s.outcome = 'error' AND NOT EXISTS (SELECT 1 FROM suggestions t
                        WHERE t.item_id = s.item_id AND t.kind = s.kind AND t.model = s.model
                          AND t.template = s.template AND t.id > s.id)),
                    sum(f.decision = 'accepted'), sum(f.decision = 'edited'),
                    sum(f.decision = 'rejected'),
                    sum(s.outcome = 'parsed' AND f.id IS NULL),
                    avg(CASE WHEN f.decision = 'edited' AND s.outcome = 'parsed'
                             THEN f.edit_distance END)
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

        let visits = self.item_visits()?;
        let mut with_by: BTreeMap<(String, String), Vec<f64>> = BTreeMap::new();
        let (mut with, mut without) = (Vec::new(), Vec::new());
        for (secs, key) in visits {
            match key {
                Some(k) => {
                    with.push(secs);
                    with_by.entry(k).or_default().push(secs);
                }
                None => without.push(secs),
            }
        }
        for row in &mut rows {
            row.median_seconds = with_by
                .remove(&(row.kind.clone(), row.model.clone()))
                .and_then(median);
        }
        Ok(SuggestionReport {
            rows,
            visits_with: with.len() as u64,
            visits_without: without.len() as u64,
            median_seconds_with: median(with),
            median_seconds_without: median(without),
        })
    }

    /// Time per item from people's own actions (their revisions, sign-offs and decisions on
    /// suggestions; a review's record and a bulk action's revisions are not time on an item):
    /// a person's consecutive actions on one item are one visit, which took from their previous
    /// visit's last action to its own last one (breaks left out). A visit with a decision on a
    /// suggestion is keyed by that suggestion's (kind, model).
    fn item_visits(&self) -> Result<Vec<(f64, Option<KindModel>)>> {
        let mut acts = self.conn.prepare(
            "SELECT r.author_id, r.item_id, r.created_at, x.kind, x.model FROM revisions r
               LEFT JOIN (SELECT s.item_id, f.rev, s.kind, s.model FROM suggestion_reviews f
                          JOIN suggestions s ON s.id = f.suggestion_id WHERE f.rev IS NOT NULL) x
                 ON x.item_id = r.item_id AND x.rev = r.rev
               WHERE r.author_id IS NOT NULL AND r.rev > 0
                 AND NOT EXISTS (SELECT 1 FROM review_decisions d
                                 WHERE d.item_id = r.item_id AND d.made_rev = r.rev)
                 AND NOT EXISTS (SELECT 1 FROM bulk_action_items b
                                 WHERE b.item_id = r.item_id AND b.rev_after = r.rev)
             UNION ALL
             SELECT f.author_id, s.item_id, f.created_at, s.kind, s.model
               FROM suggestion_reviews f JOIN suggestions s ON s.id = f.suggestion_id
               WHERE f.rev IS NULL
             UNION ALL
             SELECT g.author_id, g.item_id, g.created_at, NULL, NULL FROM signoffs g",
        )?;
        type Act = (f64, i64, Option<KindModel>);
        let mut per_person: BTreeMap<i64, Vec<Act>> = BTreeMap::new();
        let all = acts.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, Option<String>>(3)?,
                r.get::<_, Option<String>>(4)?,
            ))
        })?;
        for a in all {
            let (who, item, ts, kind, model) = a?;
            if let Some(t) = seconds(&ts) {
                per_person
                    .entry(who)
                    .or_default()
                    .push((t, item, kind.zip(model)));
            }
        }
        let mut out = Vec::new();
        for acts in per_person.values_mut() {
            acts.sort_by(|a, b| a.0.total_cmp(&b.0));
            // Visits: (item, last action's time, suggestion key).
            let mut visits: Vec<(i64, f64, Option<KindModel>)> = Vec::new();
            for (t, item, key) in acts.drain(..) {
                match visits.last_mut() {
                    Some(v) if v.0 == item => {
                        v.1 = t;
                        if v.2.is_none() {
                            v.2 = key;
                        }
                    }
                    _ => visits.push((item, t, key)),
                }
            }
            for w in visits.windows(2) {
                let gap = w[1].1 - w[0].1;
                if gap <= MAX_GAP_SECONDS {
                    out.push((gap, w[1].2.clone()));
                }
            }
        }
        Ok(out)
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
        responses: &[(String, crate::store::StoredResponse, String)],
    ) -> Result<Vec<i64>> {
        let tx = self.conn.transaction()?;
        for (key, r, record) in responses {
            crate::store::evaluation::runs::insert_response(&tx, key, r, Some(record), false)?;
        }
        let mut ids = Vec::with_capacity(batch.len());
        for s in batch {
            ids.push(insert_suggestion(&tx, s)?);
        }
        tx.commit()?;
        Ok(ids)
    }
}
