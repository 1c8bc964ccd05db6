//! Pushing a replica's new rows: one batch per transaction, each row in a savepoint so a row the
//! team refuses is set aside with PostgreSQL's reason instead of failing the push. Positions
//! and times are assigned by the server; the push lock is waited for at most `lock_timeout`.

use assay_core::store::team::ratings::SyncJudgeRating;
use assay_core::store::team::runs::SyncRun;
use assay_core::store::team::sync::{SyncReview, SyncRevision, SyncSignoff};
use assay_core::store::team::threads::{SyncBlind, SyncComment, SyncRound};
use assay_core::store::team::views::SyncSavedView;
use assay_core::Project;
use postgres::Transaction;
use serde::{Deserialize, Serialize};

use crate::Result;

/// Rows per push batch: one transaction on each side per batch.
pub const BATCH: i64 = 2000;

/// Bytes of revision content in one batch: with the JSON around it (escaped at most about
/// twice over) well within the service's bound on a request (64 MiB by default).
pub const BATCH_BYTES: usize = 16 << 20;

/// What one push batch did: rows now in the team (uid, seq) and rows it refused (uid, why).
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pushed {
    pub done: Vec<(String, i64)>,
    pub refused: Vec<(String, String)>,
}

impl Pushed {
    pub fn is_empty(&self) -> bool {
        self.done.is_empty() && self.refused.is_empty()
    }
    pub fn add(&mut self, uid: &str, outcome: std::result::Result<i64, String>) {
        match outcome {
            Ok(seq) => self.done.push((uid.to_string(), seq)),
            Err(why) => self.refused.push((uid.to_string(), why)),
        }
    }
}

/// Why one row did not go in: PostgreSQL's error, or a refusal found here.
pub(crate) enum RowError {
    Db(postgres::Error),
    Refused(String),
}

impl From<postgres::Error> for RowError {
    fn from(e: postgres::Error) -> Self {
        Self::Db(e)
    }
}

type Row = std::result::Result<i64, RowError>;

/// A replica's rows waiting to be pushed, as one batch: at most `BATCH` revisions, and the rows
/// that refer to revisions only once every pending revision is in it.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pending {
    pub revisions: Vec<SyncRevision>,
    pub reviews: Vec<SyncReview>,
    pub signoffs: Vec<SyncSignoff>,
    pub comments: Vec<SyncComment>,
    pub rounds: Vec<SyncRound>,
    pub blind: Vec<SyncBlind>,
    pub ratings: Vec<SyncJudgeRating>,
    pub views: Vec<SyncSavedView>,
}

impl Pending {
    /// The replica's next batch.
    pub fn gather(project: &mut Project) -> Result<Pending> {
        // Originals an import committed since the sync began get their rows (a no-op otherwise).
        project.write_original_uids()?;
        let (revisions, cut) = project.pending_revisions(BATCH, BATCH_BYTES)?;
        let mut pending = Pending {
            revisions,
            reviews: project.pending_reviews()?,
            signoffs: project.pending_signoffs()?,
            comments: project.pending_comments()?,
            rounds: project.pending_rounds()?,
            blind: project.pending_blind()?,
            ratings: project.pending_judge_ratings()?,
            views: project.pending_saved_views()?,
        };
        // Full by count or by bytes: one rule for what waits.
        if cut || pending.revisions_only() {
            pending.keep_revisions_only();
        }
        Ok(pending)
    }

    /// A batch of some of the pending revisions only (more wait for the next batch): the rows
    /// that refer to revisions wait too, but for the decisions these revisions record, which
    /// travel with them.
    fn keep_revisions_only(&mut self) {
        let uids: std::collections::HashSet<&str> =
            self.revisions.iter().map(|r| r.uid.as_str()).collect();
        self.reviews
            .retain(|d| d.made_uid.as_deref().is_some_and(|m| uids.contains(m)));
        self.signoffs.clear();
        self.comments.clear();
        self.rounds.clear();
        self.blind.clear();
        self.ratings.clear();
        self.views.clear();
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Rows in the batch.
    pub fn len(&self) -> usize {
        self.revisions.len()
            + self.reviews.len()
            + self.signoffs.len()
            + self.comments.len()
            + self.rounds.len()
            + self.blind.len()
            + self.ratings.len()
            + self.views.len()
    }

    /// Whether the rows that refer to revisions wait for a later batch: the batch is full of
    /// revisions, so some may still be missing.
    pub fn revisions_only(&self) -> bool {
        self.revisions.len() >= BATCH as usize
    }
}

/// Pushes one batch of pending rows in the caller's transaction; the caller marks them once the
/// transaction has committed. A row already there (a push killed after the team's commit and
/// before the marks) is found by uid and author, so repeating a push doubles nothing.
pub(crate) fn push_batch(tx: &mut Transaction<'_>, project: &mut Project) -> Result<Pushed> {
    let pending = Pending::gather(project)?;
    write_batch(tx, &pending)
}

/// Gives `pushed` the positions the team placed its rows at when their transaction committed.
/// A member's row takes a provisional position at insert and its final one at commit (in the
/// order written); a replica that kept the provisional one would place a colleague's row
/// written to the same item in the same transaction (a service's group of pushes) after its
/// own, where the team places it before. A uid found in more than one table keeps what the
/// insert returned.
pub fn placed(db: &mut impl postgres::GenericClient, pushed: &mut [Pushed]) -> Result<()> {
    let uids: Vec<&str> = pushed
        .iter()
        .flat_map(|p| p.done.iter().map(|(u, _)| u.as_str()))
        .collect();
    if uids.is_empty() {
        return Ok(());
    }
    let rows = db.query(
        "SELECT uid, seq FROM revisions WHERE uid = ANY($1)
         UNION ALL SELECT uid, seq FROM review_decisions WHERE uid = ANY($1)
         UNION ALL SELECT uid, seq FROM signoffs WHERE uid = ANY($1)
         UNION ALL SELECT uid, seq FROM comments WHERE uid = ANY($1)
         UNION ALL SELECT uid, seq FROM rounds WHERE uid = ANY($1)
         UNION ALL SELECT uid, seq FROM blind_annotations WHERE uid = ANY($1)
         UNION ALL SELECT uid, seq FROM judge_ratings WHERE uid = ANY($1)
         UNION ALL SELECT uid, seq FROM saved_views WHERE uid = ANY($1)",
        &[&uids],
    )?;
    let mut at: std::collections::HashMap<String, Option<i64>> = Default::default();
    for r in rows {
        at.entry(r.get(0))
            .and_modify(|s| *s = None)
            .or_insert(Some(r.get(1)));
    }
    for (uid, seq) in pushed.iter_mut().flat_map(|p| p.done.iter_mut()) {
        if let Some(Some(s)) = at.get(uid.as_str()) {
            *seq = *s;
        }
    }
    Ok(())
}

/// Writes one batch in the caller's transaction (as the member the transaction is for): each
/// row in a savepoint, a row the team refuses set aside with its reason.
pub fn write_batch(tx: &mut Transaction<'_>, pending: &Pending) -> Result<Pushed> {
    let Pending {
        revisions: revs,
        reviews,
        signoffs,
        comments,
        rounds,
        blind,
        ratings,
        views,
    } = pending;
    if pending.is_empty() {
        return Ok(Pushed::default());
    }
    // The items this batch writes, locked up front in the team's one order, so two members'
    // pushes that share items wait for each other rather than deadlock. Each insert's trigger
    // takes its item's lock anyway; positions are moved into commit order when this commits.
    let (ds, ext): (Vec<&str>, Vec<&str>) = revs
        .iter()
        .map(|r| (r.dataset.as_str(), r.ext_id.as_str()))
        .unzip();
    let named: Vec<&str> = reviews
        .iter()
        .map(|d| d.revision_uid.as_str())
        .chain(signoffs.iter().map(|g| g.revision_uid.as_str()))
        .chain(blind.iter().map(|b| b.revision_uid.as_str()))
        .collect();
    let whole_team = !rounds.is_empty();
    tx.execute(
        "SELECT assay_lock_items($1, $2, $3, $4)",
        &[&ds, &ext, &named, &whole_team],
    )?;
    let mut done = Pushed::default();
    let nothing_else = reviews.is_empty()
        && signoffs.is_empty()
        && comments.is_empty()
        && rounds.is_empty()
        && blind.is_empty()
        && ratings.is_empty()
        && views.is_empty();
    if nothing_else && revs.len() > 1 {
        if let Some(seqs) = insert_revisions_together(tx, revs)? {
            for (r, seq) in revs.iter().zip(seqs) {
                done.add(&r.uid, Ok(seq));
            }
            return Ok(done);
        }
    }
    let ins_rev = tx.prepare(
        "INSERT INTO revisions (uid, dataset, ext_id, base_uid, author, role, created_at, op, tags,
                                status, note, content)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::text::jsonb)
         ON CONFLICT (uid) DO NOTHING RETURNING seq",
    )?;
    let mut sent_reviews = std::collections::HashSet::new();
    for r in revs.iter() {
        // An approval is the record of a review: the team takes it only after the decision.
        let decision = reviews
            .iter()
            .find(|d| d.made_uid.as_deref() == Some(r.uid.as_str()));
        let mut decision_seq = None;
        let outcome = guarded(tx, |t| {
            if let Some(d) = decision {
                decision_seq = Some(push_review(t, d)?);
            }
            let row = t.query_opt(
                &ins_rev,
                &[
                    &r.uid,
                    &r.dataset,
                    &r.ext_id,
                    &r.base_uid,
                    &r.author,
                    &r.author_role,
                    &r.created_at,
                    &r.op,
                    &r.tags,
                    &r.status,
                    &r.note,
                    &r.content,
                ],
            )?;
            seq_of(t, row, "revisions", &r.uid)
        })?;
        if let Some(d) = decision {
            sent_reviews.insert(d.uid.clone());
            match (&outcome, decision_seq) {
                (Ok(_), Some(seq)) => done.add(&d.uid, Ok(seq)),
                (Err(why), _) => done.add(&d.uid, Err(why.clone())),
                _ => {}
            }
        }
        done.add(&r.uid, outcome);
    }
    // Reviews and sign-offs refer to revisions: push them once their revisions are all there.
    if !pending.revisions_only() {
        for d in reviews.iter().filter(|d| !sent_reviews.contains(&d.uid)) {
            let outcome = guarded(tx, |t| push_review(t, d))?;
            done.add(&d.uid, outcome);
        }
        for g in signoffs.iter() {
            let outcome = guarded(tx, |t| push_signoff(t, g))?;
            done.add(&g.uid, outcome);
        }
        for c in comments.iter() {
            let outcome =
                guarded(tx, |t| {
                    let row = t.query_opt(
                    "INSERT INTO comments (uid, revision_uid, body, mentions, author, created_at)
                     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (uid) DO NOTHING RETURNING seq",
                    &[&c.uid, &c.revision_uid, &c.body, &c.mentions, &c.author, &c.created_at],
                )?;
                    seq_of(t, row, "comments", &c.uid)
                })?;
            done.add(&c.uid, outcome);
        }
        for r in rounds.iter() {
            let assignments = serde_json::to_string(&r.assignments).unwrap_or_default();
            let outcome = guarded(tx, |t| {
                let row = t.query_opt(
                    "INSERT INTO rounds (uid, name, purpose, overlap, created_by, created_at,
                                         assignments, blind)
                     VALUES ($1, $2, $3, $4, $5, $6, $7::text::jsonb, $8)
                     ON CONFLICT (uid) DO NOTHING RETURNING seq",
                    &[
                        &r.uid,
                        &r.name,
                        &r.purpose,
                        &r.overlap,
                        &r.created_by,
                        &r.created_at,
                        &assignments,
                        &r.blind,
                    ],
                )?;
                seq_of(t, row, "rounds", &r.uid)
            })?;
            done.add(&r.uid, outcome);
        }
        for b in blind.iter() {
            let outcome = guarded(tx, |t| {
                let row = t.query_opt(
                    "INSERT INTO blind_annotations (uid, round_uid, revision_uid, author, judgement,
                                                    created_at)
                     VALUES ($1, $2, $3, $4, $5::text::jsonb, $6)
                     ON CONFLICT (uid) DO NOTHING RETURNING seq",
                    &[
                        &b.uid,
                        &b.round_uid,
                        &b.revision_uid,
                        &b.author,
                        &b.judgement,
                        &b.created_at,
                    ],
                )?;
                seq_of(t, row, "blind_annotations", &b.uid)
            })?;
            done.add(&b.uid, outcome);
        }
        for g in ratings.iter() {
            let outcome = guarded(tx, |t| {
                let row = t.query_opt(
                    "INSERT INTO judge_ratings (uid, snapshot, ext_id, revision_uid, response_key,
                                                rating, note, author, created_at, judge_score)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
                     ON CONFLICT (uid) DO NOTHING RETURNING seq",
                    &[
                        &g.uid,
                        &g.snapshot,
                        &g.ext_id,
                        &g.revision_uid,
                        &g.response_key,
                        &g.rating,
                        &g.note,
                        &g.author,
                        &g.created_at,
                        &g.judge_score,
                    ],
                )?;
                seq_of(t, row, "judge_ratings", &g.uid)
            })?;
            done.add(&g.uid, outcome);
        }
        for v in views.iter() {
            let outcome = guarded(tx, |t| {
                let datasets = serde_json::to_string(&v.datasets).unwrap_or_else(|_| "[]".into());
                let row = t.query_opt(
                    "INSERT INTO saved_views (uid, name, filter, datasets, columns, author, shared,
                                              deleted, created_at)
                     VALUES ($1, $2, $3::text::jsonb, $4::text::jsonb, $5::text::jsonb, $6, $7, $8, $9)
                     ON CONFLICT (uid) DO NOTHING RETURNING seq",
                    &[
                        &v.uid,
                        &v.name,
                        &v.filter,
                        &datasets,
                        &v.columns,
                        &v.author,
                        &v.shared,
                        &v.deleted,
                        &v.created_at,
                    ],
                )?;
                seq_of(t, row, "saved_views", &v.uid)
            })?;
            done.add(&v.uid, outcome);
        }
    }
    Ok(done)
}

/// A run snapshot the team took (origin, finished_at, seq) or refused (origin, finished_at, why).
pub type RunOutcome = (String, String, std::result::Result<i64, String>);

/// Pushes the snapshots of finished runs (after their revisions), each with its model and
/// responses under `author` (the member pushing; the owner names the project's owner).
pub(crate) fn push_runs(
    tx: &mut Transaction<'_>,
    project: &mut Project,
    author: Option<&str>,
) -> Result<Vec<RunOutcome>> {
    project.write_original_uids()?;
    let runs = project.pending_runs()?;
    write_runs(tx, &runs, author)
}

/// Writes run snapshots in the caller's transaction under `author`, each in a savepoint.
pub fn write_runs(
    tx: &mut Transaction<'_>,
    runs: &[SyncRun],
    author: Option<&str>,
) -> Result<Vec<RunOutcome>> {
    let mut done = Vec::new();
    for run in runs {
        let snapshot = format!("{}@{}", run.origin, run.finished_at);
        let outcome = guarded(tx, |tx| {
            tx.execute(
                "INSERT INTO models (name, config, author) VALUES ($1, $2::text::jsonb, $3)
                 ON CONFLICT (coalesce(author, ''), name) DO NOTHING",
                &[&run.model, &run.model_config, &author],
            )?;
            let row = tx.query_opt(
                "INSERT INTO runs (snapshot, origin, model, dataset, version, variant, run_index,
                                   template, scorer, source, status, created_at, finished_at,
                                   author, protocol)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
                 ON CONFLICT (snapshot) DO NOTHING RETURNING seq",
                &[
                    &snapshot,
                    &run.origin,
                    &run.model,
                    &run.dataset,
                    &run.version,
                    &run.variant,
                    &(run.run_index as i32),
                    &run.template,
                    &run.scorer,
                    &run.source,
                    &run.status,
                    &run.created_at,
                    &run.finished_at,
                    &author,
                    &run.protocol,
                ],
            )?;
            if row.is_some() {
                for r in &run.responses {
                    tx.execute(
                        "INSERT INTO responses (cache_key, text, prompt_tokens, completion_tokens,
                                                created_at, prompt, author)
                         VALUES ($1, $2, $3, $4, $5, $6, $7)
                         ON CONFLICT (coalesce(author, ''), cache_key) DO NOTHING",
                        &[
                            &r.cache_key,
                            &r.text,
                            &r.prompt_tokens,
                            &r.completion_tokens,
                            &r.created_at,
                            &r.prompt,
                            &author,
                        ],
                    )?;
                }
                for it in &run.items {
                    let version: Option<i32> = it.scorer_version.map(|v| v as i32);
                    tx.execute(
                        "INSERT INTO run_items (snapshot, ext_id, revision_uid, cache_key, outcome,
                                                from_cache, score, parsed, evidence, error, scorer,
                                                scorer_version)
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
                        &[
                            &snapshot,
                            &it.ext_id,
                            &it.revision_uid,
                            &it.cache_key,
                            &it.outcome,
                            &it.from_cache,
                            &it.score,
                            &it.parsed,
                            &it.evidence,
                            &it.error,
                            &it.scorer,
                            &version,
                        ],
                    )?;
                }
            }
            seq_of(tx, row, "runs", &snapshot)
        })?;
        done.push((run.origin.clone(), run.finished_at.clone(), outcome));
    }
    Ok(done)
}

/// The bytes of `author`'s stored responses that `run` names by cache key: every colleague's
/// pull of the run reads them again, so a run of a few bytes that names megabytes of earlier
/// responses costs the team those megabytes, and its quota counts them.
pub fn referenced_response_bytes(
    db: &mut impl postgres::GenericClient,
    author: &str,
    run: &SyncRun,
) -> Result<u64> {
    // Every key the run names, sent or not: a key sent again for a response the author has
    // stored already keeps the stored one (the insert does nothing), so a stub sent under it
    // must not stand in for what colleagues will read.
    let mut keys: Vec<&str> = run
        .items
        .iter()
        .filter_map(|i| i.cache_key.as_deref())
        .collect();
    keys.sort_unstable();
    keys.dedup();
    if keys.is_empty() {
        return Ok(0);
    }
    let bytes: i64 = db
        .query_one(
            "SELECT coalesce(sum(octet_length(text) + coalesce(octet_length(prompt), 0)), 0)::bigint
             FROM responses WHERE coalesce(author, '') = $1 AND cache_key = ANY($2)",
            &[&author, &keys],
        )?
        .get(0);
    Ok(u64::try_from(bytes).unwrap_or(0))
}

fn push_review(tx: &mut Transaction<'_>, d: &SyncReview) -> Row {
    let row = tx.query_opt(
        "INSERT INTO review_decisions (uid, revision_uid, made_uid, decision, comment, author,
                                       created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (uid) DO NOTHING RETURNING seq",
        &[
            &d.uid,
            &d.revision_uid,
            &d.made_uid,
            &d.decision,
            &d.comment,
            &d.author,
            &d.created_at,
        ],
    )?;
    seq_of(tx, row, "review_decisions", &d.uid)
}

fn push_signoff(tx: &mut Transaction<'_>, g: &SyncSignoff) -> Row {
    let row = tx.query_opt(
        "INSERT INTO signoffs (uid, revision_uid, signed, note, author, created_at)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (uid) DO NOTHING RETURNING seq",
        &[
            &g.uid,
            &g.revision_uid,
            &g.signed,
            &g.note,
            &g.author,
            &g.created_at,
        ],
    )?;
    seq_of(tx, row, "signoffs", &g.uid)
}

/// The position of a pushed row: returned by the insert, or (already there from a push that was
/// killed before its marks) looked up by uid, and only if this session's member wrote it: a uid
/// someone else took is not ours to claim.
fn seq_of(
    tx: &mut Transaction<'_>,
    inserted: Option<postgres::Row>,
    table: &str,
    uid: &str,
) -> Row {
    if let Some(r) = inserted {
        return Ok(r.get(0));
    }
    let (key, author) = match table {
        "runs" => ("snapshot", "author"),
        "rounds" => ("uid", "created_by"),
        _ => ("uid", "author"),
    };
    // A row another member wrote may be one this member cannot read (a blind judgement).
    let row = tx.query_opt(
        &format!(
            "SELECT seq, {author} IS NOT DISTINCT FROM assay_me() OR assay_me() IS NULL
             FROM {table} WHERE {key} = $1"
        ),
        &[&uid],
    )?;
    let row = row.ok_or_else(|| {
        RowError::Refused(format!(
            "{table} {uid}: another member already wrote a row under this id"
        ))
    })?;
    if row.get::<_, bool>(1) {
        Ok(row.get(0))
    } else {
        Err(RowError::Refused(format!(
            "{table} {uid}: another member already wrote a row under this id"
        )))
    }
}

/// A batch of revisions alone in one statement and one savepoint, in the batch's order (a row's
/// triggers see the rows before it, as one insert at a time would): the common push, three round
/// trips instead of three per row. None, with nothing written, when the team refuses any row or
/// already holds one: then each row goes in its own savepoint, which says which and why.
fn insert_revisions_together(
    tx: &mut Transaction<'_>,
    revs: &[SyncRevision],
) -> Result<Option<Vec<i64>>> {
    let col = |f: fn(&SyncRevision) -> Option<&str>| -> Vec<Option<&str>> {
        revs.iter().map(f).collect()
    };
    let uid = col(|r| Some(&r.uid));
    let dataset = col(|r| Some(&r.dataset));
    let ext_id = col(|r| Some(&r.ext_id));
    let base_uid = col(|r| r.base_uid.as_deref());
    let author = col(|r| r.author.as_deref());
    let role = col(|r| r.author_role.as_deref());
    let created_at = col(|r| Some(&r.created_at));
    let op = col(|r| r.op.as_deref());
    let tags: Vec<i64> = revs.iter().map(|r| r.tags).collect();
    let status = col(|r| Some(&r.status));
    let note = col(|r| r.note.as_deref());
    let content = col(|r| Some(&r.content));
    let mut sp = tx.savepoint("rows")?;
    let inserted = sp.query(
        "INSERT INTO revisions (uid, dataset, ext_id, base_uid, author, role, created_at, op, tags,
                                status, note, content)
         SELECT uid, dataset, ext_id, base_uid, author, role, created_at, op, tags, status, note,
                content::jsonb
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                     $7::text[], $8::text[], $9::int8[], $10::text[], $11::text[], $12::text[])
              WITH ORDINALITY AS r(uid, dataset, ext_id, base_uid, author, role, created_at, op,
                                   tags, status, note, content, n)
         ORDER BY n
         ON CONFLICT (uid) DO NOTHING RETURNING uid, seq",
        &[
            &uid,
            &dataset,
            &ext_id,
            &base_uid,
            &author,
            &role,
            &created_at,
            &op,
            &tags,
            &status,
            &note,
            &content,
        ],
    );
    let rows = match inserted {
        Ok(rows) => rows,
        Err(e) if is_refusal(&e) => return Ok(None), // dropping `sp` rolls the rows back
        Err(e) => return Err(e.into()),
    };
    let seqs: std::collections::HashMap<String, i64> =
        rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    let Some(ordered) = revs
        .iter()
        .map(|r| seqs.get(&r.uid).copied())
        .collect::<Option<Vec<i64>>>()
    else {
        // A row the team already holds: whose it is, the lone inserts tell.
        return Ok(None);
    };
    sp.commit()?;
    Ok(Some(ordered))
}

/// One row's insert in a savepoint: a row the team refuses (a policy or trigger, a check, a
/// reference to a row it refused) is set aside with PostgreSQL's reason instead of failing the
/// push. Anything else (the connection, a lock wait running out) fails the push.
pub(crate) fn guarded(
    tx: &mut Transaction<'_>,
    insert: impl FnOnce(&mut Transaction<'_>) -> Row,
) -> Result<std::result::Result<i64, String>> {
    let mut sp = tx.savepoint("row")?;
    match insert(&mut sp) {
        Ok(seq) => {
            sp.commit()?;
            Ok(Ok(seq))
        }
        Err(RowError::Refused(why)) => Ok(Err(why)),
        Err(RowError::Db(e)) => {
            if !is_refusal(&e) {
                return Err(e.into());
            }
            let why = e
                .as_db_error()
                .map(|d| d.message().to_string())
                .unwrap_or_else(|| e.to_string());
            drop(sp); // rolls the row back; the push goes on
            Ok(Err(why))
        }
    }
}

fn is_refusal(e: &postgres::Error) -> bool {
    use postgres::error::SqlState;
    e.code().is_some_and(|c| {
        [
            SqlState::INSUFFICIENT_PRIVILEGE,
            SqlState::FOREIGN_KEY_VIOLATION,
            SqlState::CHECK_VIOLATION,
            SqlState::NOT_NULL_VIOLATION,
            SqlState::UNIQUE_VIOLATION,
            SqlState::RAISE_EXCEPTION,
        ]
        .contains(c)
            // data exceptions: malformed values; program limits: a value too large to index
            || c.code().starts_with("22")
            || c.code().starts_with("54")
    })
}
