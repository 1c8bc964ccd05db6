//! Pulling the team's rows into a replica, table by table in the team's order and page by page,
//! remembering the position after each page. The replica trusts nothing it pulls: a row it
//! cannot accept (a broken rule, a row it cannot read, a reference to a row it set aside) is
//! set aside with its reason and the pull goes on.

use assay_core::store::sync::{SyncReview, SyncRevision, SyncSignoff};
use assay_core::store::sync_runs::{SyncResponse, SyncRun, SyncRunItem};
use assay_core::store::sync_threads::{SyncComment, SyncRound};
use assay_core::Project;
use postgres::{Client, Row};

use crate::{Result, SyncError};

/// Rows per page.
const PAGE: i64 = 2000;

fn last_seq(project: &Project, table: &str) -> Result<i64> {
    Ok(project
        .sync_get(&format!("pulled.{table}"))?
        .and_then(|v| v.parse().ok())
        .unwrap_or(0))
}

/// A row's outcome: applied, known already, or set aside. Only a failing replica file (SQLite,
/// the disk) fails the pull; anything about the row itself sets the row aside.
fn take(
    project: &mut Project,
    table: &str,
    uid: &str,
    seq: i64,
    outcome: Result<bool>,
) -> Result<bool> {
    match outcome {
        Ok(applied) => Ok(applied),
        Err(SyncError::Core(e @ (assay_core::Error::Sqlite(_) | assay_core::Error::Io { .. }))) => {
            Err(e.into())
        }
        Err(e @ (SyncError::Core(_) | SyncError::Invalid(_))) => {
            project.set_aside_pulled(table, uid, seq, &e.to_string())?;
            Ok(false)
        }
        Err(e) => Err(e),
    }
}

fn text(r: &Row, i: usize) -> Result<String> {
    r.try_get(i)
        .map_err(|e| SyncError::Invalid(format!("column {i}: {e}")))
}

/// Pulls everything after what this replica has seen.
pub(crate) fn pull(db: &mut Client, project: &mut Project) -> Result<usize> {
    // The team's people with the roles the team gave them: the only source of roles here.
    let members: Vec<(String, assay_core::Role)> = db
        .query("SELECT name, role FROM members", &[])?
        .iter()
        .filter_map(|r| Some((r.get(0), assay_core::Role::parse(r.get(1))?)))
        .collect();
    project.set_team_roles(&members)?;
    let mut applied = 0;
    applied += pull_table(
        db,
        project,
        "revisions",
        "SELECT r.seq, r.uid, r.dataset, r.ext_id, r.base_uid, r.author, r.role, r.created_at,
                r.op, r.tags, r.status, r.note, r.content::text
         FROM revisions r WHERE r.seq > $1 ORDER BY r.seq LIMIT $2",
        |_, p, r, seq| {
            let rev = SyncRevision {
                uid: text(r, 1)?,
                dataset: text(r, 2)?,
                ext_id: text(r, 3)?,
                base_uid: r.get(4),
                author: r.get(5),
                author_role: r.get(6),
                created_at: text(r, 7)?,
                op: r.get(8),
                tags: r.get(9),
                status: text(r, 10)?,
                note: r.get(11),
                content: text(r, 12)?,
            };
            Ok(p.apply_pulled_revision(&rev, seq)?)
        },
    )?;
    applied += pull_table(
        db,
        project,
        "review_decisions",
        "SELECT seq, uid, revision_uid, made_uid, decision, comment, author, created_at
         FROM review_decisions WHERE seq > $1 ORDER BY seq LIMIT $2",
        |_, p, r, seq| {
            let d = SyncReview {
                uid: r.get(1),
                revision_uid: r.get(2),
                made_uid: r.get(3),
                decision: r.get(4),
                comment: r.get(5),
                author: r.get(6),
                created_at: r.get(7),
            };
            Ok(p.apply_pulled_review(&d, seq)?)
        },
    )?;
    applied += pull_table(
        db,
        project,
        "signoffs",
        "SELECT seq, uid, revision_uid, signed, note, author, created_at
         FROM signoffs WHERE seq > $1 ORDER BY seq LIMIT $2",
        |_, p, r, seq| {
            let g = SyncSignoff {
                uid: r.get(1),
                revision_uid: r.get(2),
                signed: r.get(3),
                note: r.get(4),
                author: r.get(5),
                created_at: r.get(6),
            };
            Ok(p.apply_pulled_signoff(&g, seq)?)
        },
    )?;
    applied += pull_table(
        db,
        project,
        "comments",
        "SELECT seq, uid, revision_uid, body, mentions, author, created_at
         FROM comments WHERE seq > $1 ORDER BY seq LIMIT $2",
        |_, p, r, seq| {
            let c = SyncComment {
                uid: r.get(1),
                revision_uid: r.get(2),
                body: r.get(3),
                mentions: r.get(4),
                author: r.get(5),
                created_at: r.get(6),
            };
            Ok(p.apply_pulled_comment(&c, seq)?)
        },
    )?;
    applied += pull_table(
        db,
        project,
        "rounds",
        "SELECT seq, uid, name, purpose, overlap, created_by, created_at, assignments::text
         FROM rounds WHERE seq > $1 ORDER BY seq LIMIT $2",
        |_, p, r, seq| {
            let assignments: Vec<(String, String)> = serde_json::from_str(r.get(7))
                .map_err(|e| SyncError::Invalid(format!("a round's assignments: {e}")))?;
            let round = SyncRound {
                uid: r.get(1),
                name: r.get(2),
                purpose: r.get(3),
                overlap: r.get(4),
                created_by: r.get(5),
                created_at: r.get(6),
                assignments,
            };
            Ok(p.apply_pulled_round(&round, seq)?)
        },
    )?;
    applied += pull_table(
        db,
        project,
        "runs",
        "SELECT r.seq, r.snapshot, r.origin, r.model, m.config::text, r.dataset, r.version,
                r.variant, r.run_index, r.template, r.scorer, r.source, r.status, r.created_at,
                r.finished_at, r.author
         FROM runs r LEFT JOIN models m ON m.name = r.model
                                       AND m.author IS NOT DISTINCT FROM r.author
         WHERE r.seq > $1 ORDER BY r.seq LIMIT $2",
        |db, p, r, seq| {
            let run = read_run(db, r)?;
            Ok(p.apply_pulled_run(&run, seq)?)
        },
    )?;
    Ok(applied)
}

/// A run snapshot with its results and the responses its publisher wrote for them (another
/// member's response under the same key is not this run's).
fn read_run(db: &mut Client, r: &Row) -> Result<SyncRun> {
    let snapshot: String = r.get(1);
    let author: Option<String> = r.get(15);
    let config: Option<String> = r.get(4);
    let items = db
        .query(
            "SELECT ext_id, revision_uid, cache_key, outcome, from_cache, score, parsed,
                    evidence, error, scorer FROM run_items WHERE snapshot = $1",
            &[&snapshot],
        )?
        .iter()
        .map(|i| SyncRunItem {
            ext_id: i.get(0),
            revision_uid: i.get(1),
            cache_key: i.get(2),
            outcome: i.get(3),
            from_cache: i.get(4),
            score: i.get(5),
            parsed: i.get(6),
            evidence: i.get(7),
            error: i.get(8),
            scorer: i.get(9),
        })
        .collect::<Vec<_>>();
    let keys: Vec<String> = items.iter().filter_map(|i| i.cache_key.clone()).collect();
    let responses = db
        .query(
            "SELECT cache_key, text, prompt_tokens, completion_tokens, created_at, prompt
             FROM responses WHERE cache_key = ANY($1) AND author IS NOT DISTINCT FROM $2",
            &[&keys, &author],
        )?
        .iter()
        .map(|x| SyncResponse {
            cache_key: x.get(0),
            text: x.get(1),
            prompt_tokens: x.get(2),
            completion_tokens: x.get(3),
            created_at: x.get(4),
            prompt: x.get(5),
        })
        .collect();
    Ok(SyncRun {
        origin: r.get(2),
        model: r.get(3),
        model_config: config.ok_or_else(|| {
            SyncError::Invalid("its publisher's model configuration is missing".into())
        })?,
        dataset: r.get(5),
        version: r.get(6),
        variant: r.get(7),
        run_index: i64::from(r.get::<_, i32>(8)),
        template: r.get(9),
        scorer: r.get(10),
        source: r.get(11),
        status: r.get(12),
        created_at: r.get(13),
        finished_at: r.get(14),
        author,
        items,
        responses,
    })
}

/// Pulls one table's rows after the replica's position, a page at a time (`sql` selects `seq`
/// and the row's uid first; `$1` is the position, `$2` the page size), applies or sets aside
/// each, and saves the position after each page.
fn pull_table(
    db: &mut Client,
    project: &mut Project,
    table: &str,
    sql: &str,
    mut apply: impl FnMut(&mut Client, &mut Project, &Row, i64) -> Result<bool>,
) -> Result<usize> {
    let mut applied = 0;
    loop {
        let from = last_seq(project, table)?;
        let rows = db.query(sql, &[&from, &PAGE])?;
        let Some(last) = rows.last().map(|r| r.get::<_, i64>(0)) else {
            break;
        };
        for r in &rows {
            let seq: i64 = r.get(0);
            let uid = text(r, 1).unwrap_or_default();
            let outcome = apply(db, project, r, seq);
            if take(project, table, &uid, seq, outcome)? {
                applied += 1;
            }
        }
        project.sync_set(&format!("pulled.{table}"), &last.to_string())?;
        if (rows.len() as i64) < PAGE {
            break;
        }
    }
    Ok(applied)
}
