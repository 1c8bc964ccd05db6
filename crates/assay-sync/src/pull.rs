//! Pulling the team's rows into a replica in the team's one order (every shared table draws its
//! positions from one sequence), page by page, remembering each table's position after each
//! page. The replica trusts nothing it pulls: a row it cannot accept (a broken rule, a row it
//! cannot read, a reference to a row it set aside) is set aside with its reason and the pull
//! goes on.

use assay_core::store::team::ratings::SyncJudgeRating;
use assay_core::store::team::runs::{SyncResponse, SyncRun, SyncRunItem};
use assay_core::store::team::sync::{SyncReview, SyncRevision, SyncSignoff};
use assay_core::store::team::threads::{SyncBlind, SyncComment, SyncRound};
use assay_core::store::team::views::SyncSavedView;
use assay_core::Project;
use std::sync::OnceLock;

use postgres::types::{FromSql, Type};
use postgres::{Client, GenericClient, Row};
use serde::{Deserialize, Serialize};

use crate::{Result, SyncError};

/// Rows per page and table.
const PAGE: i64 = 2000;

/// Bytes of row text per page (content, notes, comments, results): a page holds rows up to this
/// much and at least one, so no run of large rows a colleague wrote makes the service or a
/// replica hold gigabytes at once. Each table's query counts its rows' text (`row_bytes`) and
/// leaves out those past it; the revisions' query does not even fetch their content.
pub const PAGE_BYTES: i64 = 16 << 20;

/// The shared tables, and how a row of each is read (`seq` and the row's uid first; `$1` is the
/// table's position, `$2` the page size).
#[derive(Clone, Copy, PartialEq)]
enum Table {
    Revisions,
    Reviews,
    Signoffs,
    Comments,
    Rounds,
    Blind,
    Runs,
    JudgeRatings,
    SavedViews,
}

const TABLES: [Table; 9] = [
    Table::Revisions,
    Table::Reviews,
    Table::Signoffs,
    Table::Comments,
    Table::Rounds,
    Table::Blind,
    Table::Runs,
    Table::JudgeRatings,
    Table::SavedViews,
];

impl Table {
    fn name(self) -> &'static str {
        match self {
            Table::Revisions => "revisions",
            Table::Reviews => "review_decisions",
            Table::Signoffs => "signoffs",
            Table::Comments => "comments",
            Table::Rounds => "rounds",
            Table::Blind => "blind_annotations",
            Table::Runs => "runs",
            Table::JudgeRatings => "judge_ratings",
            Table::SavedViews => "saved_views",
        }
    }

    /// The column naming a row of this table (a run's is its snapshot).
    fn uid_column(self) -> &'static str {
        match self {
            Table::Runs => "snapshot",
            _ => "uid",
        }
    }

    fn sql(self) -> &'static str {
        match self {
            Table::Revisions => {
                // Content over the team's bound (`MAX_CONTENT_BYTES`) is not fetched: one row
                // of hundreds of megabytes would otherwise stop every colleague's pull.
                // The content is left out too once the page's earlier revisions hold
                // `PAGE_BYTES` ($3), counted by the size kept beside it (0011: measuring jsonb
                // means converting it), so only the content sent is read. An original's (no
                // author) is never sent: a replica has it from joining (`items_page`) and only
                // records the original's position; one it lacks is set aside whatever its
                // content.
                "SELECT w.*, CASE WHEN w.author IS NULL THEN ''
                                  WHEN w.content_bytes <= 4194304
                                   AND w.running - w.row_bytes < $3 THEN r.content::text
                             END AS content
                 FROM (SELECT i.*, sum(i.row_bytes) OVER (ORDER BY i.seq)::int8 AS running
                       FROM (SELECT s.*,
                                    (CASE WHEN s.author IS NULL OR s.content_bytes > 4194304
                                          THEN 0 ELSE s.content_bytes END
                                     + octet_length(coalesce(s.note, '')))::int8 AS row_bytes
                             FROM (SELECT r.seq, r.uid, r.dataset, r.ext_id, r.base_uid, r.author,
                                          r.role, r.created_at, r.op, r.tags, r.status, r.note,
                                          coalesce(r.content_bytes, octet_length(r.content::text))
                                              AS content_bytes
                                   FROM revisions r WHERE r.seq > $1 ORDER BY r.seq LIMIT $2) s) i) w
                 JOIN revisions r ON r.seq = w.seq ORDER BY w.seq"
            }
            Table::Reviews => {
                "SELECT seq, uid, revision_uid, made_uid, decision, comment, author, created_at
                 FROM review_decisions WHERE seq > $1 ORDER BY seq LIMIT $2"
            }
            Table::Signoffs => {
                "SELECT seq, uid, revision_uid, signed, note, author, created_at
                 FROM signoffs WHERE seq > $1 ORDER BY seq LIMIT $2"
            }
            Table::Comments => {
                "SELECT seq, uid, revision_uid, body, mentions, author, created_at
                 FROM comments WHERE seq > $1 ORDER BY seq LIMIT $2"
            }
            Table::Rounds => {
                "SELECT seq, uid, name, purpose, overlap, created_by, created_at,
                        assignments::text AS assignments, blind
                 FROM rounds WHERE seq > $1 ORDER BY seq LIMIT $2"
            }
            // A judgement is readable to the other assignees from the position it opened at
            // (row-level security hides it before), to its author from its own.
            Table::Blind => {
                "SELECT coalesce(open_seq, seq) AS seq, uid, round_uid, revision_uid, author,
                        judgement::text AS judgement, created_at, open_seq IS NOT NULL AS opened
                 FROM blind_annotations WHERE coalesce(open_seq, seq) > $1
                 ORDER BY coalesce(open_seq, seq) LIMIT $2"
            }
            Table::Runs => {
                "SELECT r.seq, r.snapshot, r.origin, r.model, m.config::text AS config, r.dataset, r.version,
                        r.variant, r.run_index, r.template, r.scorer, r.source, r.status,
                        r.created_at, r.finished_at, r.author, r.protocol
                 FROM runs r LEFT JOIN models m ON m.name = r.model
                                               AND m.author IS NOT DISTINCT FROM r.author
                 WHERE r.seq > $1 ORDER BY r.seq LIMIT $2"
            }
            Table::JudgeRatings => {
                "SELECT seq, uid, snapshot, ext_id, revision_uid, response_key, rating, note,
                        author, created_at, judge_score
                 FROM judge_ratings WHERE seq > $1 ORDER BY seq LIMIT $2"
            }
            // Row-level security leaves out others' private views.
            Table::SavedViews => {
                "SELECT seq, uid, name, filter::text AS filter, datasets::text AS datasets,
                        columns::text AS columns, author, shared,
                        deleted, created_at
                 FROM saved_views WHERE seq > $1 ORDER BY seq LIMIT $2"
            }
        }
    }

    /// The bytes of text a row of this table's query holds (its output columns as `x.`), which
    /// a page counts in SQL so that no table sends more than `PAGE_BYTES` at once (the
    /// revisions' query counts its own).
    fn bytes_sql(self) -> Option<&'static str> {
        Some(match self {
            Table::Revisions => return None,
            Table::Reviews => "octet_length(coalesce(x.comment, ''))",
            Table::Signoffs => "octet_length(coalesce(x.note, ''))",
            Table::Comments => {
                "octet_length(x.body) + octet_length(array_to_string(x.mentions, ','))"
            }
            Table::Rounds => {
                "octet_length(x.assignments) + octet_length(x.name) + octet_length(x.purpose)"
            }
            Table::Blind => "octet_length(x.judgement)",
            Table::Runs => "octet_length(coalesce(x.config, ''))",
            Table::JudgeRatings => "octet_length(coalesce(x.note, ''))",
            Table::SavedViews => {
                "octet_length(x.filter) + octet_length(x.columns) + octet_length(x.datasets)"
            }
        })
    }

    /// Whether the table holds a row after position `$n`, as the page's query would read it.
    fn newer_sql(self, n: usize) -> String {
        match self {
            Table::Blind => format!(
                "EXISTS (SELECT 1 FROM blind_annotations WHERE coalesce(open_seq, seq) > ${n})"
            ),
            t => format!("EXISTS (SELECT 1 FROM {} WHERE seq > ${n})", t.name()),
        }
    }

    /// The page's query: the table's own, and for every table but the revisions the rows past
    /// `PAGE_BYTES` ($3) of text left out in SQL (one row at least); `fetched` says how many the
    /// table's query gave before that, so a table cut short counts as a full page. Every
    /// table's rows carry their `row_bytes`. Made once per process.
    fn page_sql(self) -> &'static str {
        static SQL: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
        let all = SQL.get_or_init(|| TABLES.iter().map(|t| t.build_page_sql()).collect());
        let i = TABLES.iter().position(|t| *t == self).unwrap_or(0);
        &all[i]
    }

    fn build_page_sql(self) -> String {
        match self.bytes_sql() {
            None => self.sql().to_string(),
            Some(bytes) => format!(
                "SELECT w.* FROM (
                   SELECT y.*, sum(y.row_bytes) OVER (ORDER BY y.seq)::int8 AS running,
                          count(*) OVER () AS fetched
                   FROM (SELECT x.*, ({bytes})::int8 AS row_bytes FROM ({}) x) y) w
                 WHERE w.running - w.row_bytes < $3 ORDER BY w.seq",
                self.sql()
            ),
        }
    }

    fn named(name: &str) -> Option<Table> {
        TABLES.into_iter().find(|t| t.name() == name)
    }

    /// A row as read from the team database, in the form it travels in.
    fn read(self, db: &mut Client, r: &Row) -> Result<Pulled> {
        Ok(match self {
            Table::Revisions => Pulled::Revision(SyncRevision {
                uid: col(r, "uid")?,
                dataset: col(r, "dataset")?,
                ext_id: col(r, "ext_id")?,
                base_uid: col(r, "base_uid")?,
                author: col(r, "author")?,
                author_role: col(r, "role")?,
                created_at: col(r, "created_at")?,
                op: col(r, "op")?,
                tags: col(r, "tags")?,
                status: col(r, "status")?,
                note: col(r, "note")?,
                content: within_bound(r, "content")?,
            }),
            Table::Reviews => Pulled::Review(SyncReview {
                uid: col(r, "uid")?,
                revision_uid: col(r, "revision_uid")?,
                made_uid: col(r, "made_uid")?,
                decision: col(r, "decision")?,
                comment: col(r, "comment")?,
                author: col(r, "author")?,
                created_at: col(r, "created_at")?,
            }),
            Table::Signoffs => Pulled::Signoff(SyncSignoff {
                uid: col(r, "uid")?,
                revision_uid: col(r, "revision_uid")?,
                signed: col(r, "signed")?,
                note: col(r, "note")?,
                author: col(r, "author")?,
                created_at: col(r, "created_at")?,
            }),
            Table::Comments => Pulled::Comment(SyncComment {
                uid: col(r, "uid")?,
                revision_uid: col(r, "revision_uid")?,
                body: col(r, "body")?,
                mentions: col(r, "mentions")?,
                author: col(r, "author")?,
                created_at: col(r, "created_at")?,
            }),
            Table::Rounds => {
                let assignments: Vec<(String, String)> =
                    serde_json::from_str(&col::<String>(r, "assignments")?)
                        .map_err(|e| SyncError::Invalid(format!("a round's assignments: {e}")))?;
                Pulled::Round(SyncRound {
                    uid: col(r, "uid")?,
                    name: col(r, "name")?,
                    purpose: col(r, "purpose")?,
                    overlap: col(r, "overlap")?,
                    created_by: col(r, "created_by")?,
                    created_at: col(r, "created_at")?,
                    assignments,
                    blind: col(r, "blind")?,
                })
            }
            Table::Blind => Pulled::Blind(SyncBlind {
                uid: col(r, "uid")?,
                round_uid: col(r, "round_uid")?,
                revision_uid: col(r, "revision_uid")?,
                author: col(r, "author")?,
                judgement: col(r, "judgement")?,
                created_at: col(r, "created_at")?,
                opened: col(r, "opened")?,
            }),
            Table::Runs => Pulled::Run(Box::new(read_run(db, r)?)),
            Table::JudgeRatings => Pulled::JudgeRating(SyncJudgeRating {
                uid: col(r, "uid")?,
                snapshot: col(r, "snapshot")?,
                ext_id: col(r, "ext_id")?,
                revision_uid: col(r, "revision_uid")?,
                response_key: col(r, "response_key")?,
                rating: col(r, "rating")?,
                note: col(r, "note")?,
                author: col(r, "author")?,
                created_at: col(r, "created_at")?,
                judge_score: col(r, "judge_score")?,
            }),
            Table::SavedViews => Pulled::SavedView(SyncSavedView {
                uid: col(r, "uid")?,
                name: col(r, "name")?,
                filter: col(r, "filter")?,
                datasets: serde_json::from_str(&col::<String>(r, "datasets")?)
                    .map_err(|e| SyncError::Invalid(format!("view datasets: {e}")))?,
                columns: col(r, "columns")?,
                author: col(r, "author")?,
                shared: col(r, "shared")?,
                deleted: col(r, "deleted")?,
                created_at: col(r, "created_at")?,
            }),
        })
    }
}

/// A row of the team in the form it travels in (from the team database, or from the team
/// service as JSON), applied to a replica by the write path like a row made there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "row", rename_all = "snake_case")]
pub enum Pulled {
    Revision(SyncRevision),
    Review(SyncReview),
    Signoff(SyncSignoff),
    Comment(SyncComment),
    Round(SyncRound),
    Blind(SyncBlind),
    Run(Box<SyncRun>),
    JudgeRating(SyncJudgeRating),
    SavedView(SyncSavedView),
}

impl Pulled {
    /// Applies the row at `seq` through the replica's write path: Ok(false) when it was known.
    pub fn apply(&self, p: &mut Project, seq: i64) -> Result<bool> {
        Ok(match self {
            Pulled::Revision(x) => p.apply_pulled_revision(x, seq)?,
            Pulled::Review(x) => p.apply_pulled_review(x, seq)?,
            Pulled::Signoff(x) => p.apply_pulled_signoff(x, seq)?,
            Pulled::Comment(x) => p.apply_pulled_comment(x, seq)?,
            Pulled::Round(x) => p.apply_pulled_round(x, seq)?,
            Pulled::Blind(x) => p.apply_pulled_blind(x, seq)?,
            Pulled::Run(x) => p.apply_pulled_run(x, seq)?,
            Pulled::JudgeRating(x) => p.apply_pulled_judge_rating(x, seq)?,
            Pulled::SavedView(x) => p.apply_pulled_saved_view(x, seq)?,
        })
    }
}

/// One row of a page: its position, table and uid, and the row, or why it could not be read
/// (a replica sets such a row aside with the reason).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PulledRow {
    pub seq: i64,
    pub table: String,
    pub uid: String,
    pub row: std::result::Result<Pulled, String>,
}

impl PulledRow {
    /// Whether a row of this table is readable only by some members (a blind judgement until
    /// the item opens, a view until shared): one that cannot be read cannot show whether it is.
    pub fn holds_reading(&self) -> bool {
        matches!(
            Table::named(&self.table),
            Some(Table::Blind | Table::SavedViews)
        )
    }

    /// The row with nothing of it left but its position and table: its uid and the reason it
    /// could not be read may name what the member may not see.
    pub fn withheld(&self) -> PulledRow {
        PulledRow {
            seq: self.seq,
            table: self.table.clone(),
            uid: format!("withheld-{}", self.seq),
            row: Err("the team service withheld a row it could not read".into()),
        }
    }
}

/// Where a replica is in each of the team's tables: the last position it has seen.
pub type Positions = std::collections::BTreeMap<String, i64>;

/// A replica's positions, as its pull requests the next page with.
pub fn positions(project: &Project) -> Result<Positions> {
    TABLES
        .iter()
        .map(|t| Ok((t.name().to_string(), last_seq(project, t.name())?)))
        .collect()
}

/// A column read by its name, without trusting its type or nullness (a wrong one sets the row
/// aside).
/// A text column the query left out when it was over the team's bound (its length is in
/// `<name>_bytes`): such a row is set aside unread.
fn within_bound(r: &Row, name: &str) -> Result<String> {
    match col::<Option<String>>(r, name)? {
        Some(text) => Ok(text),
        None => Err(SyncError::Invalid(over_bound(
            name,
            col::<i32>(r, &format!("{name}_bytes"))? as i64,
            assay_core::store::MAX_CONTENT_BYTES,
        ))),
    }
}

fn over_bound(what: &str, bytes: i64, bound: usize) -> String {
    format!(
        "its {what} is {bytes} bytes, over the team's bound of {} MiB",
        bound >> 20
    )
}

/// The largest result (its parsed reply, evidence and error) or response a pulled run may
/// hold: the team's bound on a response's text (0004_trust.sql), so that no row a colleague
/// writes can make a replica read hundreds of megabytes.
const MAX_RESULT_BYTES: usize = 16 << 20;

fn col<'a, T: FromSql<'a>>(r: &'a Row, name: &str) -> Result<T> {
    r.try_get(name)
        .map_err(|e| SyncError::Invalid(format!("column {name}: {e}")))
}

fn last_seq(project: &Project, table: &str) -> Result<i64> {
    Ok(project
        .sync_get(&format!("pulled.{table}"))?
        .and_then(|v| v.parse().ok())
        .unwrap_or(0))
}

/// A row's outcome: applied, known already, or set aside. Only a failing replica file (the
/// disk, a locked or corrupt database) fails the pull; anything about the row itself, a local
/// constraint it breaks included, sets the row aside.
fn take(
    project: &mut Project,
    table: &str,
    uid: &str,
    seq: i64,
    outcome: Result<bool>,
) -> Result<bool> {
    match outcome {
        Ok(applied) => Ok(applied),
        Err(e) if is_about_the_row(&e) => {
            project.set_aside_pulled(table, uid, Some(seq), &e.to_string())?;
            Ok(false)
        }
        Err(e) => Err(e),
    }
}

/// The team's people with the roles the team gave them: the only source of roles in a team.
pub fn read_members(db: &mut impl GenericClient) -> Result<Vec<(String, assay_core::Role)>> {
    Ok(db
        .query("SELECT name, role FROM members ORDER BY name", &[])?
        .iter()
        .filter_map(|r| {
            let name: String = r.try_get(0).ok()?;
            let role: String = r.try_get(1).ok()?;
            Some((name, assay_core::Role::parse(&role)?))
        })
        .collect())
}

/// Whether a failure to apply a row is about the row (a broken rule, a reference to a row not
/// there, a local constraint): the row is set aside. Anything else (the disk, a locked or
/// corrupt replica) is a failure of the replica.
pub fn is_about_the_row(e: &SyncError) -> bool {
    use assay_core::Error as Core;
    match e {
        SyncError::Invalid(_) => true,
        SyncError::Core(Core::Sqlite(rusqlite::Error::SqliteFailure(f, _))) => {
            f.code == rusqlite::ErrorCode::ConstraintViolation
        }
        SyncError::Core(Core::Sqlite(_) | Core::Io { .. }) => false,
        SyncError::Core(_) => true,
        _ => false,
    }
}

/// Pulls everything after what this replica has seen, in the team's order across tables.
pub fn pull(db: &mut Client, project: &mut Project) -> Result<usize> {
    project.set_team_roles(&read_members(db)?)?;
    let mut applied = 0;
    loop {
        let Some(page) = read_page_consistent(db, &positions(project)?)? else {
            break;
        };
        applied += apply_rows(project, &page.rows)?;
        if page.last {
            break;
        }
    }
    Ok(applied)
}

/// `read_page` in one snapshot: the nine tables' reads (and a run's results) see the same
/// commits, so a row is never read before a row of another table written before it in the same
/// transaction (a comment before its revision would be set aside for good).
pub fn read_page_consistent(db: &mut Client, from: &Positions) -> Result<Option<Page>> {
    db.batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")?;
    let page = read_page(db, from);
    let _ = db.batch_execute(if page.is_ok() { "COMMIT" } else { "ROLLBACK" });
    page
}

/// One page of rows, in the order a replica applies them.
#[derive(Debug)]
pub struct Page {
    pub rows: Vec<PulledRow>,
    /// Every row the snapshot holds after the positions asked from is in `rows`: asking again
    /// from the positions they move to would find nothing, so a replica need not.
    pub last: bool,
}

/// Reads one page of every table after `from` (each table's last position seen), in the order a
/// replica applies them; None when there is nothing left to pull. A table `from` does not name
/// is read from its start.
pub fn read_page(db: &mut Client, from: &Positions) -> Result<Option<Page>> {
    // Which tables hold anything new, in one statement: a table's page query is planned
    // afresh each time (row-level security as another member makes a cached plan useless),
    // and planning nine of them was most of the team database's work in a busy team, where
    // most syncs bring only revisions.
    static NEWER: OnceLock<String> = OnceLock::new();
    let newer_sql = NEWER.get_or_init(|| {
        let tests: Vec<String> = TABLES
            .iter()
            .enumerate()
            .map(|(i, t)| t.newer_sql(i + 1))
            .collect();
        format!("SELECT {}", tests.join(", "))
    });
    let afters: Vec<i64> = TABLES
        .iter()
        .map(|t| from.get(t.name()).copied().unwrap_or(0))
        .collect();
    let params: Vec<(&(dyn postgres::types::ToSql + Sync), Type)> = afters
        .iter()
        .map(|a| (a as &(dyn postgres::types::ToSql + Sync), Type::INT8))
        .collect();
    let newer = db.query_typed_one(newer_sql.as_str(), &params)?;
    let mut pages = Vec::new();
    for (i, t) in TABLES.into_iter().enumerate() {
        if !newer.get::<_, bool>(i) {
            pages.push((t, Vec::new()));
            continue;
        }
        let after = afters[i];
        // Typed, so the statement is parsed, bound and run in one round trip instead of a
        // prepare first: a pull runs nine of them.
        let rows = db.query_typed(
            t.page_sql(),
            &[
                (&after, Type::INT8),
                (&PAGE, Type::INT8),
                (&PAGE_BYTES, Type::INT8),
            ],
        )?;
        pages.push((t, rows));
    }
    if pages.iter().all(|(_, rows)| rows.is_empty()) {
        return Ok(None);
    }
    // A full page (or one its bytes cut short) may have more rows after it: rows of other
    // tables beyond its last position wait for the next round, so the order holds across
    // pages.
    let cut = |rows: &[Row]| {
        rows.first()
            .and_then(|r| r.try_get::<_, i64>("fetched").ok())
            .is_some_and(|n| n > rows.len() as i64)
    };
    let frontier = pages
        .iter()
        .filter(|(_, rows)| rows.len() as i64 == PAGE || cut(rows))
        .filter_map(|(_, rows)| rows.last().map(|r| r.get::<_, i64>("seq")))
        .min()
        .unwrap_or(i64::MAX);
    let next = in_applying_order(&pages, frontier);
    // No table was cut short: every row fetched is in `next` (a decision waits only for a
    // revision beyond a frontier), and nothing lies after them in this snapshot.
    let mut last = frontier == i64::MAX;
    let mut out = Vec::with_capacity(next.len());
    let mut bytes = 0;
    for (k, &(_, (seq, t, r))) in next.iter().enumerate() {
        if bytes >= PAGE_BYTES as usize {
            // The page is full: it ends before the lowest position not read yet, as if the
            // frontier were there (so no row below a position the replica records is left
            // unread, and a decision moved after its revision goes with it); unless that
            // would leave nothing.
            let unread = next[k..]
                .iter()
                .map(|(_, (s, _, _))| *s)
                .min()
                .unwrap_or(seq);
            let keep: std::collections::HashSet<(i64, &str)> =
                in_applying_order(&pages, unread - 1)
                    .into_iter()
                    .map(|(_, (seq, t, _))| (seq, t.name()))
                    .collect();
            if out
                .iter()
                .any(|row: &PulledRow| keep.contains(&(row.seq, row.table.as_str())))
            {
                out.retain(|row: &PulledRow| keep.contains(&(row.seq, row.table.as_str())));
                last = false;
                break;
            }
        }
        let uid: String = r.try_get(t.uid_column()).unwrap_or_default();
        let row = match t.read(db, r) {
            Ok(row) => Ok(row),
            Err(SyncError::Invalid(why)) => Err(why),
            Err(e) => return Err(e),
        };
        // As the query counted the row, whatever became of it, and a run's results, which it
        // reads apart.
        bytes += r.try_get::<_, i64>("row_bytes").unwrap_or(0).max(0) as usize
            + match &row {
                Ok(Pulled::Run(run)) => results_bytes(run),
                _ => 0,
            };
        out.push(PulledRow {
            seq,
            table: t.name().to_string(),
            uid,
            row,
        });
    }
    Ok(Some(Page { rows: out, last }))
}

/// The bytes of a run's results and responses, which its query does not read.
fn results_bytes(run: &SyncRun) -> usize {
    let opt = |s: &Option<String>| s.as_ref().map_or(0, String::len);
    run.items
        .iter()
        .map(|i| opt(&i.parsed) + opt(&i.evidence) + opt(&i.error))
        .sum::<usize>()
        + run
            .responses
            .iter()
            .map(|x| x.text.len() + opt(&x.prompt))
            .sum::<usize>()
}

/// Applies (or sets aside) one page's rows in order and saves each table's position after it,
/// all in one transaction of the replica; returns how many rows were new here.
pub fn apply_rows(project: &mut Project, rows: &[PulledRow]) -> Result<usize> {
    project.begin_pull_page()?;
    match apply_page(project, rows) {
        Ok(n) => {
            project.end_pull_page()?;
            Ok(n)
        }
        Err(e) => {
            project.abandon_pull_page();
            Err(e)
        }
    }
}

fn apply_page(project: &mut Project, rows: &[PulledRow]) -> Result<usize> {
    let mut applied = 0;
    let mut reached: Vec<(Table, i64)> = Vec::new();
    for r in rows {
        let t = Table::named(&r.table)
            .ok_or_else(|| SyncError::Invalid(format!("a pulled row of table {:?}", r.table)))?;
        let outcome = match &r.row {
            Ok(row) if row.table() == t => row.apply(project, r.seq),
            Ok(_) => Err(SyncError::Invalid(format!(
                "a row of another table pulled as one of {}",
                r.table
            ))),
            Err(why) => Err(SyncError::Invalid(why.clone())),
        };
        if take(project, t.name(), &r.uid, r.seq, outcome)? {
            applied += 1;
        }
        match reached.iter_mut().find(|(x, _)| *x == t) {
            Some(x) => x.1 = x.1.max(r.seq),
            None => reached.push((t, r.seq)),
        }
    }
    for (t, seq) in reached {
        project.sync_set(&format!("pulled.{}", t.name()), &seq.to_string())?;
    }
    Ok(applied)
}

impl Pulled {
    fn table(&self) -> Table {
        match self {
            Pulled::Revision(_) => Table::Revisions,
            Pulled::Review(_) => Table::Reviews,
            Pulled::Signoff(_) => Table::Signoffs,
            Pulled::Comment(_) => Table::Comments,
            Pulled::Round(_) => Table::Rounds,
            Pulled::Blind(_) => Table::Blind,
            Pulled::Run(_) => Table::Runs,
            Pulled::JudgeRating(_) => Table::JudgeRatings,
            Pulled::SavedView(_) => Table::SavedViews,
        }
    }
}

/// A pulled row with its position and table.
type ReadRow<'a> = (i64, Table, &'a Row);

/// The page's rows up to `frontier` in the team's order, except that an approval's review
/// decision comes right after the revision recording it. The team takes that decision first (its
/// trigger refuses an approval no decision records), so in the team's order the decision names
/// a revision not pulled yet. A decision whose revision lies beyond the frontier waits, with
/// every row after it, for the next page (unless nothing would be left to apply).
fn in_applying_order(pages: &[(Table, Vec<Row>)], frontier: i64) -> Vec<((i64, u8), ReadRow<'_>)> {
    let uid = |r: &Row| r.try_get::<_, String>("uid").ok();
    let made_uid = |t: Table, r: &Row| match t {
        Table::Reviews => r.try_get::<_, Option<String>>("made_uid").ok().flatten(),
        _ => None,
    };
    let revision_seq: std::collections::HashMap<String, i64> = pages
        .iter()
        .filter(|(t, _)| *t == Table::Revisions)
        .flat_map(|(_, rows)| rows.iter())
        .filter_map(|r| Some((uid(r)?, r.get::<_, i64>("seq"))))
        .collect();
    let all = || {
        pages
            .iter()
            .flat_map(|(t, rows)| rows.iter().map(move |r| (r.get::<_, i64>("seq"), *t, r)))
    };
    let waiting = all()
        .filter(|(_, t, r)| {
            made_uid(*t, r)
                .and_then(|m| revision_seq.get(&m))
                .is_some_and(|s| *s > frontier)
        })
        .map(|(seq, _, _)| seq - 1)
        .min();
    let frontier = match waiting {
        Some(f) if all().any(|(seq, _, _)| seq <= f) => f.min(frontier),
        _ => frontier,
    };
    // Sorted by (position, 0) for every row but a moved decision, which sorts as (its
    // revision's position, 1).
    let mut next: Vec<((i64, u8), ReadRow<'_>)> = all()
        .filter(|(seq, _, _)| *seq <= frontier)
        .map(|(seq, t, r)| {
            let key = made_uid(t, r)
                .and_then(|m| revision_seq.get(&m))
                .filter(|s| **s > seq && **s <= frontier)
                .map_or((seq, 0), |s| (*s, 1));
            (key, (seq, t, r))
        })
        .collect();
    next.sort_by_key(|(key, _)| *key);
    next
}

/// A run snapshot with its results and the responses its publisher wrote for them (another
/// member's response under the same key is not this run's).
fn read_run(db: &mut Client, r: &Row) -> Result<SyncRun> {
    let snapshot: String = col(r, "snapshot")?;
    let author: Option<String> = col(r, "author")?;
    let config: Option<String> = col(r, "config")?;
    // Measured before anything is fetched: a result or response over the team's bound sets the
    // run aside unread.
    let largest: i64 = db
        .query_one(
            "SELECT greatest(
                 (SELECT max(octet_length(coalesce(parsed, '')) + octet_length(coalesce(evidence, ''))
                             + octet_length(coalesce(error, '')))
                  FROM run_items WHERE snapshot = $1),
                 (SELECT max(octet_length(x.text) + octet_length(coalesce(x.prompt, '')))
                  FROM responses x
                  WHERE x.cache_key IN (SELECT cache_key FROM run_items WHERE snapshot = $1)
                    AND coalesce(x.author, '') = coalesce($2::text, '')))::int8",
            &[&snapshot, &author],
        )?
        .get::<_, Option<i64>>(0)
        .unwrap_or(0);
    if largest > MAX_RESULT_BYTES as i64 {
        return Err(SyncError::Invalid(over_bound(
            "largest result",
            largest,
            MAX_RESULT_BYTES,
        )));
    }
    let mut items = Vec::new();
    for i in db.query(
        "SELECT ext_id, revision_uid, cache_key, outcome, from_cache, score, parsed,
                evidence, error, scorer, scorer_version FROM run_items WHERE snapshot = $1",
        &[&snapshot],
    )? {
        items.push(SyncRunItem {
            ext_id: col(&i, "ext_id")?,
            revision_uid: col(&i, "revision_uid")?,
            cache_key: col(&i, "cache_key")?,
            outcome: col(&i, "outcome")?,
            from_cache: col(&i, "from_cache")?,
            score: col(&i, "score")?,
            parsed: col(&i, "parsed")?,
            evidence: col(&i, "evidence")?,
            error: col(&i, "error")?,
            scorer: col(&i, "scorer")?,
            scorer_version: col::<Option<i32>>(&i, "scorer_version")?.map(i64::from),
        });
    }
    let keys: Vec<String> = items.iter().filter_map(|i| i.cache_key.clone()).collect();
    let mut responses = Vec::new();
    for x in db.query(
        "SELECT cache_key, text, prompt_tokens, completion_tokens, created_at, prompt
         FROM responses WHERE cache_key = ANY($1) AND coalesce(author, '') = coalesce($2::text, '')",
        &[&keys, &author],
    )? {
        responses.push(SyncResponse {
            cache_key: col(&x, "cache_key")?,
            text: col(&x, "text")?,
            prompt_tokens: col(&x, "prompt_tokens")?,
            completion_tokens: col(&x, "completion_tokens")?,
            created_at: col(&x, "created_at")?,
            prompt: col(&x, "prompt")?,
        });
    }
    Ok(SyncRun {
        origin: col(r, "origin")?,
        model: col(r, "model")?,
        model_config: config.ok_or_else(|| {
            SyncError::Invalid("its publisher's model configuration is missing".into())
        })?,
        dataset: col(r, "dataset")?,
        version: col(r, "version")?,
        variant: col(r, "variant")?,
        run_index: i64::from(col::<i32>(r, "run_index")?),
        template: col(r, "template")?,
        scorer: col(r, "scorer")?,
        source: col(r, "source")?,
        status: col(r, "status")?,
        created_at: col(r, "created_at")?,
        finished_at: col(r, "finished_at")?,
        protocol: col(r, "protocol")?,
        author,
        items,
        responses,
    })
}

#[cfg(test)]
mod tests {
    /// The pull's SQL spells the content bound out; it must be the one the write path holds.
    #[test]
    fn the_pulls_bounds_are_the_write_paths_and_the_teams() {
        let sql = super::Table::Revisions.sql();
        let max = assay_core::store::MAX_CONTENT_BYTES;
        assert!(sql.contains(&format!("w.content_bytes <= {max}")));
        assert!(sql.contains(&format!("s.content_bytes > {max}")));
        // And they are the team's own bounds.
        let team = include_str!("../../../migrations/postgres/0004_trust.sql");
        assert!(team.contains(&format!(
            "CHECK (octet_length(text) <= {})",
            super::MAX_RESULT_BYTES
        )));
        assert!(team.contains(&format!(
            "CHECK (octet_length(content::text) <= {})",
            assay_core::store::MAX_CONTENT_BYTES
        )));
    }
}
