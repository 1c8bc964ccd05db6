//! The team database's schema, policies and triggers (migrations/postgres/), applied in order;
//! `assay_meta.schema` says how many steps a database has.

use postgres::GenericClient;

use crate::connect::connect;
use crate::Result;

pub const SCHEMA: [&str; 14] = [
    include_str!("../../../migrations/postgres/0001_team.sql"),
    include_str!("../../../migrations/postgres/0002_runs.sql"),
    include_str!("../../../migrations/postgres/0003_comments_rounds.sql"),
    include_str!("../../../migrations/postgres/0004_trust.sql"),
    include_str!("../../../migrations/postgres/0005_scorer_versions.sql"),
    include_str!("../../../migrations/postgres/0006_blind_rounds_judge_ratings.sql"),
    include_str!("../../../migrations/postgres/0007_saved_views.sql"),
    include_str!("../../../migrations/postgres/0008_commit_order.sql"),
    include_str!("../../../migrations/postgres/0009_work_not_tags.sql"),
    include_str!("../../../migrations/postgres/0010_service.sql"),
    include_str!("../../../migrations/postgres/0011_quota_and_sizes.sql"),
    include_str!("../../../migrations/postgres/0012_run_protocols.sql"),
    include_str!("../../../migrations/postgres/0013_policies_once_per_statement.sql"),
    include_str!("../../../migrations/postgres/0014_service_positions_at_insert.sql"),
];

/// The steps a database has applied.
pub(crate) fn applied(db: &mut impl GenericClient) -> Result<usize> {
    Ok(db
        .query_one("SELECT value FROM assay_meta WHERE key = 'schema'", &[])?
        .get::<_, String>(0)
        .parse()
        .unwrap_or(0))
}

/// Refuses to sync with a team database older than this build (its owner upgrades it first),
/// so no column or outcome this build writes is refused row by row.
pub fn require_current(db: &mut impl GenericClient) -> Result<()> {
    let have = applied(db)?;
    if have < SCHEMA.len() {
        return Err(crate::SyncError::Invalid(format!(
            "the team database has schema {have} and this build needs {}: its owner runs `assay team upgrade URL`",
            SCHEMA.len()
        )));
    }
    Ok(())
}

/// Brings a published team database up to this build's schema (run by its owner); returns the
/// number of steps applied. Each step is one transaction; the sizes step 11 adds are filled
/// after, a batch per transaction, so no step holds the revisions for long.
pub fn upgrade(admin_url: &str) -> Result<usize> {
    upgrade_to(admin_url, SCHEMA.len())
}

/// `upgrade`, up to `steps` of the schema (an older build's, for tests of the upgrade itself).
pub fn upgrade_to(admin_url: &str, steps: usize) -> Result<usize> {
    let mut db = connect(admin_url)?;
    let have = applied(&mut db)?;
    let mut n = 0;
    for step in SCHEMA.iter().take(steps).skip(have) {
        let mut tx = db.transaction()?;
        tx.batch_execute(step)?;
        tx.commit()?;
        n += 1;
    }
    if have + n >= 11 {
        fill_content_bytes(&mut db)?;
    }
    Ok(n)
}

/// Finishes a size fill an upgrade did not end (it was stopped, or its connection lost): the
/// schema then says current while some revisions have no size. The service runs it as it
/// starts and says how many it filled; none, after one quick look, on a team with every size.
pub fn finish_size_fill(db: &mut impl GenericClient) -> Result<u64> {
    // A completed fill says so in assay_meta: a start then costs one key lookup, not a scan of
    // every revision. A team whose fill ended before the mark existed is scanned once.
    let marked = db
        .query_opt("SELECT 1 FROM assay_meta WHERE key = $1", &[&SIZES_FILLED])?
        .is_some();
    if marked {
        return Ok(0);
    }
    let missing: bool = db
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM revisions WHERE content_bytes IS NULL)",
            &[],
        )?
        .get(0);
    if missing {
        return fill_content_bytes(db);
    }
    mark_sizes_filled(db)?;
    Ok(0)
}

/// The assay_meta key a completed size fill sets.
const SIZES_FILLED: &str = "sizes_filled";

fn mark_sizes_filled(db: &mut impl GenericClient) -> Result<()> {
    db.execute(
        "INSERT INTO assay_meta (key, value) VALUES ($1, 'true') ON CONFLICT (key) DO NOTHING",
        &[&SIZES_FILLED],
    )?;
    Ok(())
}

/// Revisions walked per transaction when their sizes are filled.
const FILL_BATCH: i64 = 10_000;

/// Gives every revision written before step 11 its content's size, walking the table by
/// position a batch at a time (each its own transaction: members' pushes wait for one batch at
/// most). Returns how many it filled; none on a team whose sizes are generated or already set.
pub fn fill_content_bytes(db: &mut impl GenericClient) -> Result<u64> {
    let generated: bool = db
        .query_one(
            "SELECT coalesce(bool_or(attgenerated <> ''), false) FROM pg_attribute
             WHERE attrelid = 'revisions'::regclass AND attname = 'content_bytes'",
            &[],
        )?
        .get(0);
    if generated {
        mark_sizes_filled(db)?;
        return Ok(0);
    }
    let mut after = i64::MIN;
    let mut filled = 0;
    loop {
        let upto: Option<i64> = db
            .query_one(
                "SELECT max(seq) FROM (SELECT seq FROM revisions WHERE seq > $1
                                       ORDER BY seq LIMIT $2) b",
                &[&after, &FILL_BATCH],
            )?
            .get(0);
        let Some(upto) = upto else {
            mark_sizes_filled(db)?;
            return Ok(filled);
        };
        filled += db.execute(
            "UPDATE revisions SET content_bytes = octet_length(content::text)
             WHERE seq > $1 AND seq <= $2 AND content_bytes IS NULL",
            &[&after, &upto],
        )?;
        after = upto;
    }
}

/// The group role whose members may connect to this team's database (and no other).
pub(crate) fn member_group(db: &mut impl GenericClient) -> Result<String> {
    Ok(db
        .query_one(
            "SELECT value FROM assay_meta WHERE key = 'member_group'",
            &[],
        )?
        .get(0))
}
