//! The team database's schema, policies and triggers (migrations/postgres/), applied in order;
//! `assay_meta.schema` says how many steps a database has.

use postgres::GenericClient;

use crate::connect::connect;
use crate::Result;

pub(crate) const SCHEMA: [&str; 12] = [
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
/// number of steps applied. Each step is one transaction.
pub fn upgrade(admin_url: &str) -> Result<usize> {
    let mut db = connect(admin_url)?;
    let have = applied(&mut db)?;
    let mut n = 0;
    for step in SCHEMA.iter().skip(have) {
        let mut tx = db.transaction()?;
        tx.batch_execute(step)?;
        tx.commit()?;
        n += 1;
    }
    Ok(n)
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
