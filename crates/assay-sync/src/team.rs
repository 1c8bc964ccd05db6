//! Publishing a project, joining it, and syncing a replica.

use assay_core::store::images::StoredImage;
use assay_core::store::sync::{SyncItem, SyncReview, SyncRevision, SyncSignoff};
use assay_core::store::sync_runs::{SyncResponse, SyncRun, SyncRunItem};
use assay_core::store::sync_threads::{SyncComment, SyncRound};
use assay_core::Project;
use postgres::{Client, NoTls};

use crate::{redact, Result, SyncError};

/// The team schema, in order; `assay_meta.schema` says how many a database has.
const SCHEMA: [&str; 3] = [
    include_str!("../../../migrations/postgres/0001_team.sql"),
    include_str!("../../../migrations/postgres/0002_runs.sql"),
    include_str!("../../../migrations/postgres/0003_comments_rounds.sql"),
];
/// Rows per pull or push batch: one transaction on each side per batch.
const BATCH: i64 = 2000;

/// Connects with the URL's password, or else `ASSAY_TEAM_PASSWORD`, or else libpq's
/// `PGPASSWORD`: the project file keeps the URL without it.
pub(crate) fn connect(url: &str) -> Result<Client> {
    connect_with(url, None)
}

/// Connects with `password` when the URL has none (the app keeps a typed password in memory).
/// `sslmode=require|verify-ca|verify-full` (with `sslrootcert=FILE`, or `ASSAY_TEAM_CA`) connects
/// over TLS and always verifies the server's chain and host name, i.e. verify-full.
pub(crate) fn connect_with(url: &str, password: Option<&str>) -> Result<Client> {
    let (plain, tls) = crate::tls::split(url)?;
    let mut config: postgres::Config = plain
        .parse()
        .map_err(|e| SyncError::Invalid(format!("{}: {e}", redact(url))))?;
    if let (None, Some(pw)) = (config.get_password(), password) {
        config.password(pw);
    }
    if config.get_password().is_none() {
        if let Some(pw) = ["ASSAY_TEAM_PASSWORD", "PGPASSWORD"]
            .iter()
            .find_map(|k| std::env::var(k).ok())
        {
            config.password(pw);
        }
    }
    let connected = match tls {
        Some(tls) => {
            config.ssl_mode(postgres::config::SslMode::Require);
            config.connect(tls)
        }
        None => config.connect(NoTls),
    };
    connected.map_err(|e| crate::tls::classify(e, url))
}

/// Connects and tells whether the session is encrypted (the app's "test connection").
pub fn check_connection(url: &str, password: Option<&str>) -> Result<bool> {
    let mut db = connect_with(url, password)?;
    Ok(db
        .query_one(
            "SELECT coalesce((SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()), false)",
            &[],
        )?
        .get(0))
}

/// What a sync did.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct SyncReport {
    pub pushed: usize,
    /// Local rows the team refused (kept here, listed by `Project::refused_rows`).
    pub refused: usize,
    pub pulled: usize,
    pub conflicts: usize,
}

fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

fn quote_literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// Adds a person to the team: a login role of their own (a member of assay_member) and the
/// member row that maps it to their name and Assay role. Run by the database's owner.
pub fn add_member(
    admin_url: &str,
    name: &str,
    role: assay_core::Role,
    password: &str,
) -> Result<()> {
    let mut db = connect(admin_url)?;
    let exists = db
        .query_opt("SELECT 1 FROM pg_roles WHERE rolname = $1", &[&name])?
        .is_some();
    let verb = if exists { "ALTER" } else { "CREATE" };
    db.batch_execute(&format!(
        "{verb} ROLE {} LOGIN PASSWORD {}",
        quote_ident(name),
        quote_literal(password)
    ))?;
    db.batch_execute(&format!("GRANT assay_member TO {}", quote_ident(name)))?;
    db.execute(
        "INSERT INTO members (name, role, db_role) VALUES ($1, $2, $1)
         ON CONFLICT (name) DO UPDATE SET role = excluded.role",
        &[&name, &role.as_str()],
    )?;
    Ok(())
}

/// Publishes a project to an empty database: Assay's schema and policies, the project's people
/// as members (without logins until `add_member` gives them one), datasets, items, images and
/// every row of history. The project then syncs with `url` (stored without its password).
pub fn init(admin_url: &str, project: &mut Project) -> Result<SyncReport> {
    let mut db = connect(admin_url)?;
    let empty = db
        .query_one(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'",
            &[],
        )?
        .get::<_, i64>(0)
        == 0;
    if !empty {
        return Err(SyncError::Invalid(
            "the database is not empty: publish to a new database".into(),
        ));
    }
    let mut tx = db.transaction()?;
    for step in SCHEMA {
        tx.batch_execute(step)?;
    }
    for u in project.users()? {
        tx.execute(
            "INSERT INTO members (name, role, db_role) VALUES ($1, $2, $1)",
            &[&u.name, &u.role.as_str()],
        )?;
    }
    let items = project.sync_items()?;
    let mut seen = std::collections::HashSet::new();
    for it in &items {
        if seen.insert(it.dataset.clone()) {
            tx.execute(
                "INSERT INTO datasets (name, layout) VALUES ($1, $2)",
                &[&it.dataset, &it.layout],
            )?;
        }
    }
    let ins_item = tx.prepare("INSERT INTO items (dataset, ext_id, seq) VALUES ($1, $2, $3)")?;
    let ins_orig = tx.prepare(
        "INSERT INTO revisions (uid, dataset, ext_id, created_at, tags, status, note, content)
         VALUES ($1, $2, $3, '', 0, 'todo', 'imported', $4)",
    )?;
    for it in &items {
        tx.execute(&ins_item, &[&it.dataset, &it.ext_id, &it.seq])?;
        tx.execute(
            &ins_orig,
            &[&it.original_uid, &it.dataset, &it.ext_id, &it.original],
        )?;
    }
    for hash in project.image_hashes()? {
        let (bytes, format) = project.image_bytes(&hash)?;
        let (w, h) = image_size(&bytes);
        tx.execute(
            "INSERT INTO images (hash, width, height, format, bytes) VALUES ($1, $2, $3, $4, $5)",
            &[&hash, &w, &h, &format, &bytes],
        )?;
    }
    let mut report = SyncReport::default();
    // The owner writes every person's history once; from now on each pushes their own.
    let published = (|| -> Result<()> {
        loop {
            let batch = push_with(&mut tx, project)?;
            if batch.is_empty() {
                break;
            }
            report.pushed += batch.done.len();
            // Marked as it goes so the next batch moves on (the owner is refused nothing).
            project.mark_pushed(&batch.done)?;
            project.mark_refused(&batch.refused)?;
        }
        for (origin, finished_at, seq) in push_runs(&mut tx, project)? {
            project.mark_run_pushed(&origin, &finished_at, seq)?;
            report.pushed += 1;
        }
        Ok(())
    })()
    .and_then(|()| Ok(tx.commit()?));
    if let Err(e) = published {
        // Nothing of it exists in the team: the replica's rows are all pending again.
        project.reset_sync_marks()?;
        return Err(e);
    }
    project.mark_all_pushed()?;
    project.sync_set("team", &redact(admin_url))?;
    report.pulled += pull(&mut db, project)?;
    Ok(report)
}

fn image_size(bytes: &[u8]) -> (i32, i32) {
    image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .ok()
        .and_then(|r| r.into_dimensions().ok())
        .map(|(w, h)| (w as i32, h as i32))
        .unwrap_or((0, 0))
}

/// Makes a new local replica at `path` from the team database: datasets, items, images, then
/// every row of history in the team's order.
pub fn join(url: &str, path: &std::path::Path) -> Result<(Project, SyncReport)> {
    join_with(url, None, path)
}

pub fn join_with(
    url: &str,
    password: Option<&str>,
    path: &std::path::Path,
) -> Result<(Project, SyncReport)> {
    let mut db = connect_with(url, password)?;
    let mut project = Project::create(path)?;
    let rows = db.query(
        "SELECT i.dataset, d.layout, i.ext_id, i.seq, r.uid, r.content
         FROM items i JOIN datasets d ON d.name = i.dataset
         JOIN revisions r ON r.dataset = i.dataset AND r.ext_id = i.ext_id AND r.author IS NULL
                          AND r.base_uid IS NULL
         ORDER BY d.name, i.seq",
        &[],
    )?;
    let items: Vec<SyncItem> = rows
        .iter()
        .map(|r| SyncItem {
            dataset: r.get(0),
            layout: r.get(1),
            ext_id: r.get(2),
            seq: r.get(3),
            original_uid: r.get(4),
            original: r.get(5),
        })
        .collect();
    project.insert_replica_items(&items)?;
    // Images come on first view (`fetch_image`), or all at once with `fetch_images`.
    project.sync_set("team", &redact(url))?;
    let pulled = pull(&mut db, &mut project)?;
    Ok((
        project,
        SyncReport {
            pulled,
            ..Default::default()
        },
    ))
}

fn static_format(f: &str) -> &'static str {
    match f {
        "png" => "png",
        "jpeg" | "jpg" => "jpeg",
        "webp" => "webp",
        "gif" => "gif",
        _ => "png",
    }
}

/// Pushes what is new here, then pulls what is new there. Safe to kill and run again.
pub fn sync(url: &str, project: &mut Project) -> Result<SyncReport> {
    sync_with(url, None, project)
}

pub fn sync_with(url: &str, password: Option<&str>, project: &mut Project) -> Result<SyncReport> {
    let mut db = connect_with(url, password)?;
    let conflicts_before = project.sync_status()?.conflicts;
    let mut report = SyncReport::default();
    loop {
        let mut tx = db.transaction()?;
        let batch = push_with(&mut tx, project)?;
        tx.commit()?;
        if batch.is_empty() {
            break;
        }
        report.pushed += batch.done.len();
        report.refused += batch.refused.len();
        project.mark_pushed(&batch.done)?;
        project.mark_refused(&batch.refused)?;
    }
    let mut tx = db.transaction()?;
    let runs = push_runs(&mut tx, project)?;
    tx.commit()?;
    for (origin, finished_at, seq) in &runs {
        project.mark_run_pushed(origin, finished_at, *seq)?;
    }
    report.pushed += runs.len();
    report.pulled = pull(&mut db, project)?;
    report.conflicts = (project.sync_status()?.conflicts - conflicts_before).max(0) as usize;
    project.sync_set("last_sync", &assay_core::store::now())?;
    Ok(report)
}

/// Pushes one batch of pending rows in the caller's transaction; returns (uid, seq) for the
/// caller to mark once the transaction has committed. A row already there (a push killed after
/// the team's commit and before the marks) is found by uid, so repeating a push doubles nothing.
/// What one push batch did: rows now in the team (uid, seq) and rows it refused (uid, why).
#[derive(Default)]
struct Pushed {
    done: Vec<(String, i64)>,
    refused: Vec<(String, String)>,
}

impl Pushed {
    fn is_empty(&self) -> bool {
        self.done.is_empty() && self.refused.is_empty()
    }
    fn add(&mut self, uid: &str, outcome: std::result::Result<i64, String>) {
        match outcome {
            Ok(seq) => self.done.push((uid.to_string(), seq)),
            Err(why) => self.refused.push((uid.to_string(), why)),
        }
    }
}

fn push_with(tx: &mut postgres::Transaction<'_>, project: &mut Project) -> Result<Pushed> {
    let revs = project.pending_revisions(BATCH)?;
    let reviews = project.pending_reviews()?;
    let signoffs = project.pending_signoffs()?;
    let comments = project.pending_comments()?;
    let rounds = project.pending_rounds()?;
    if revs.is_empty()
        && reviews.is_empty()
        && signoffs.is_empty()
        && comments.is_empty()
        && rounds.is_empty()
    {
        return Ok(Pushed::default());
    }
    // One pusher at a time, so positions (seq) are committed in order and a pull that has read
    // up to N has seen everything below N.
    tx.execute("SELECT pg_advisory_xact_lock(7412)", &[])?;
    let mut done = Pushed::default();
    let ins_rev = tx.prepare(
        "INSERT INTO revisions (uid, dataset, ext_id, base_uid, author, role, created_at, op, tags,
                                status, note, content)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
         ON CONFLICT (uid) DO NOTHING RETURNING seq",
    )?;
    for r in &revs {
        let outcome = guarded(tx, |t| {
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
        done.add(&r.uid, outcome);
    }
    // Reviews and sign-offs refer to revisions: push them once their revisions are all there.
    if revs.len() < BATCH as usize {
        for d in &reviews {
            let outcome = guarded(tx, |t| push_review(t, d))?;
            done.add(&d.uid, outcome);
        }
        for g in &signoffs {
            let outcome = guarded(tx, |t| push_signoff(t, g))?;
            done.add(&g.uid, outcome);
        }
        for c in &comments {
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
        for r in &rounds {
            let assignments = serde_json::to_string(&r.assignments).unwrap_or_default();
            let outcome = guarded(tx, |t| {
                let row = t.query_opt(
                    "INSERT INTO rounds (uid, name, purpose, overlap, created_by, created_at,
                                         assignments)
                     VALUES ($1, $2, $3, $4, $5, $6, $7::text::jsonb)
                     ON CONFLICT (uid) DO NOTHING RETURNING seq",
                    &[
                        &r.uid,
                        &r.name,
                        &r.purpose,
                        &r.overlap,
                        &r.created_by,
                        &r.created_at,
                        &assignments,
                    ],
                )?;
                seq_of(t, row, "rounds", &r.uid)
            })?;
            done.add(&r.uid, outcome);
        }
    }
    Ok(done)
}

/// Pushes the snapshots of finished runs (after their revisions); returns (origin, finished_at,
/// seq) for the caller to mark once the transaction has committed.
fn push_runs(
    tx: &mut postgres::Transaction<'_>,
    project: &mut Project,
) -> Result<Vec<(String, String, i64)>> {
    let runs = project.pending_runs()?;
    if runs.is_empty() {
        return Ok(Vec::new());
    }
    tx.execute("SELECT pg_advisory_xact_lock(7412)", &[])?;
    let mut done = Vec::new();
    for run in &runs {
        let snapshot = format!("{}@{}", run.origin, run.finished_at);
        tx.execute(
            "INSERT INTO models (name, config) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
            &[&run.model, &run.model_config],
        )?;
        let row = tx.query_opt(
            "INSERT INTO runs (snapshot, origin, model, dataset, version, variant, run_index,
                               template, scorer, source, status, created_at, finished_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
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
            ],
        )?;
        if row.is_some() {
            for r in &run.responses {
                tx.execute(
                    "INSERT INTO responses (cache_key, text, prompt_tokens, completion_tokens,
                                            created_at, prompt)
                     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (cache_key) DO NOTHING",
                    &[
                        &r.cache_key,
                        &r.text,
                        &r.prompt_tokens,
                        &r.completion_tokens,
                        &r.created_at,
                        &r.prompt,
                    ],
                )?;
            }
            for it in &run.items {
                tx.execute(
                    "INSERT INTO run_items (snapshot, ext_id, revision_uid, cache_key, outcome,
                                            from_cache, score, parsed, evidence, error, scorer)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
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
                    ],
                )?;
            }
        }
        let seq = seq_of(tx, row, "runs", &snapshot)?;
        done.push((run.origin.clone(), run.finished_at.clone(), seq));
    }
    Ok(done)
}

fn push_review(
    tx: &mut postgres::Transaction<'_>,
    d: &SyncReview,
) -> std::result::Result<i64, postgres::Error> {
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

fn push_signoff(
    tx: &mut postgres::Transaction<'_>,
    g: &SyncSignoff,
) -> std::result::Result<i64, postgres::Error> {
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
/// killed before its marks) looked up by uid.
fn seq_of(
    tx: &mut postgres::Transaction<'_>,
    inserted: Option<postgres::Row>,
    table: &str,
    uid: &str,
) -> std::result::Result<i64, postgres::Error> {
    let key = if table == "runs" { "snapshot" } else { "uid" };
    Ok(match inserted {
        Some(r) => r.get(0),
        None => tx
            .query_one(
                &format!("SELECT seq FROM {table} WHERE {key} = $1"),
                &[&uid],
            )?
            .get(0),
    })
}

/// One row's insert in a savepoint: a row the team refuses (row-level security, or it rests on
/// a row that was refused) is set aside with PostgreSQL's reason instead of failing the push.
fn guarded(
    tx: &mut postgres::Transaction<'_>,
    insert: impl FnOnce(&mut postgres::Transaction<'_>) -> std::result::Result<i64, postgres::Error>,
) -> Result<std::result::Result<i64, String>> {
    let mut sp = tx.savepoint("row")?;
    match insert(&mut sp) {
        Ok(seq) => {
            sp.commit()?;
            Ok(Ok(seq))
        }
        Err(e) => {
            use postgres::error::SqlState;
            let refused = e.code().is_some_and(|c| {
                *c == SqlState::INSUFFICIENT_PRIVILEGE || *c == SqlState::FOREIGN_KEY_VIOLATION
            });
            if !refused {
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

fn last_seq(project: &Project, table: &str) -> Result<i64> {
    Ok(project
        .sync_get(&format!("pulled.{table}"))?
        .and_then(|v| v.parse().ok())
        .unwrap_or(0))
}

/// Pulls everything after what this replica has seen, table by table in the team's order,
/// remembering the position after each batch.
fn pull(db: &mut Client, project: &mut Project) -> Result<usize> {
    let mut applied = 0;
    // The team's people, with the roles the team gave them.
    for r in db.query("SELECT name, role FROM members", &[])? {
        let role = assay_core::Role::parse(r.get(1)).unwrap_or(assay_core::Role::Annotator);
        project.ensure_user(r.get(0), role)?;
    }
    loop {
        let from = last_seq(project, "revisions")?;
        let rows = db.query(
            "SELECT r.seq, r.uid, r.dataset, r.ext_id, r.base_uid, r.author, m.role, r.created_at,
                    r.op, r.tags, r.status, r.note, r.content
             FROM revisions r LEFT JOIN members m ON m.name = r.author
             WHERE r.seq > $1 ORDER BY r.seq LIMIT $2",
            &[&from, &BATCH],
        )?;
        if rows.is_empty() {
            break;
        }
        let mut last = from;
        for r in &rows {
            let seq: i64 = r.get(0);
            let rev = SyncRevision {
                uid: r.get(1),
                dataset: r.get(2),
                ext_id: r.get(3),
                base_uid: r.get(4),
                author: r.get(5),
                author_role: r.get(6),
                created_at: r.get(7),
                op: r.get(8),
                tags: r.get(9),
                status: r.get(10),
                note: r.get(11),
                content: r.get(12),
            };
            if project.apply_pulled_revision(&rev, seq)? {
                applied += 1;
            }
            last = seq;
        }
        project.sync_set("pulled.revisions", &last.to_string())?;
    }
    applied += pull_table(
        db,
        project,
        "review_decisions",
        "SELECT seq, uid, revision_uid, made_uid, decision, comment, author, created_at
         FROM review_decisions WHERE seq > $1 ORDER BY seq",
        |p, r, seq| {
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
         FROM signoffs WHERE seq > $1 ORDER BY seq",
        |p, r, seq| {
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
         FROM comments WHERE seq > $1 ORDER BY seq",
        |p, r, seq| {
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
         FROM rounds WHERE seq > $1 ORDER BY seq",
        |p, r, seq| {
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
    applied += pull_runs(db, project)?;
    Ok(applied)
}

fn pull_runs(db: &mut Client, project: &mut Project) -> Result<usize> {
    let from = last_seq(project, "runs")?;
    let mut applied = 0;
    for r in db.query(
        "SELECT r.seq, r.snapshot, r.origin, r.model, m.config, r.dataset, r.version, r.variant,
                r.run_index, r.template, r.scorer, r.source, r.status, r.created_at, r.finished_at
         FROM runs r JOIN models m ON m.name = r.model WHERE r.seq > $1 ORDER BY r.seq",
        &[&from],
    )? {
        let seq: i64 = r.get(0);
        let snapshot: String = r.get(1);
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
                 FROM responses WHERE cache_key = ANY($1)",
                &[&keys],
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
        let run = SyncRun {
            origin: r.get(2),
            model: r.get(3),
            model_config: r.get(4),
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
            items,
            responses,
        };
        if project.apply_pulled_run(&run, seq)? {
            applied += 1;
        }
        project.sync_set("pulled.runs", &seq.to_string())?;
    }
    Ok(applied)
}

/// Pulls one table's rows after the replica's position (`sql` selects `seq` first, `$1` is the
/// position), applies each, and saves the new position.
fn pull_table(
    db: &mut Client,
    project: &mut Project,
    table: &str,
    sql: &str,
    mut apply: impl FnMut(&mut Project, &postgres::Row, i64) -> Result<bool>,
) -> Result<usize> {
    let from = last_seq(project, table)?;
    let mut last = from;
    let mut applied = 0;
    for r in db.query(sql, &[&from])? {
        let seq: i64 = r.get(0);
        if apply(project, &r, seq)? {
            applied += 1;
        }
        last = seq;
    }
    project.sync_set(&format!("pulled.{table}"), &last.to_string())?;
    Ok(applied)
}

/// Syncs with the team database the project was published to or joined from.
pub fn sync_stored(project: &mut Project, password: Option<&str>) -> Result<SyncReport> {
    let url = team_url(project)?;
    sync_with(&url, password, project)
}

/// The team database this replica was published to or joined from (stored without password).
fn team_url(project: &Project) -> Result<String> {
    project.sync_get("team")?.ok_or_else(|| {
        SyncError::Invalid("this project is not part of a team (assay team init / join)".into())
    })
}

/// Copies one image from the team into the replica, checking the bytes against their hash (the
/// address they travel under). False when the team has no such image.
fn fetch_one(db: &mut Client, project: &mut Project, hash: &str) -> Result<bool> {
    let Some(r) = db.query_opt(
        "SELECT width, height, format, bytes FROM images WHERE hash = $1",
        &[&hash],
    )?
    else {
        return Ok(false);
    };
    let bytes: Vec<u8> = r.get(3);
    if assay_core::imaging::sha256_hex(&bytes) != hash {
        return Err(SyncError::Invalid(format!(
            "image {hash}: the team's bytes do not match their hash"
        )));
    }
    let format: String = r.get(2);
    project.put_image_bytes(&StoredImage {
        hash: hash.to_string(),
        width: r.get::<_, i32>(0) as u32,
        height: r.get::<_, i32>(1) as u32,
        format: static_format(&format),
        byte_len: bytes.len(),
        data: Some(bytes),
        link_path: None,
    })?;
    Ok(true)
}

/// Fetches one image by its hash from the team database into the replica (on first view).
pub fn fetch_image(project: &mut Project, hash: &str, password: Option<&str>) -> Result<bool> {
    let mut db = connect_with(&team_url(project)?, password)?;
    fetch_one(&mut db, project, hash)
}

/// Fetches every image the replica does not have yet (to work offline); returns how many.
pub fn fetch_images(project: &mut Project, password: Option<&str>) -> Result<usize> {
    let url = team_url(project)?;
    fetch_images_at(&url, password, project)
}

/// `fetch_images` from `url` (a URL that may carry its password, as given to `join`).
pub fn fetch_images_at(url: &str, password: Option<&str>, project: &mut Project) -> Result<usize> {
    let mut db = connect_with(url, password)?;
    let have: std::collections::HashSet<String> = project.image_hashes()?.into_iter().collect();
    let mut n = 0;
    for row in db.query("SELECT hash FROM images ORDER BY hash", &[])? {
        let hash: String = row.get(0);
        if !have.contains(&hash) && fetch_one(&mut db, project, &hash)? {
            n += 1;
        }
    }
    Ok(n)
}
