//! The service's own replica of the team, and the check every pushed row goes through: the
//! batch is applied to the replica by the write path that applies a local edit and a pulled row
//! (`Project::apply_pulled_*`), in the order a replica would pull it, and then rolled back. A
//! row the write path refuses is refused with its reason; a row it takes is written to the team
//! in its canonical form. The replica follows the team (`catch_up`) before and after each push,
//! and pushes are checked one at a time, so each check sees the team as it is, together with the
//! pushes checked before it in the same group (`push_groups`), which the team takes first.

use std::path::Path;

use assay_core::store::team::runs::SyncRun;
use assay_core::Project;
use assay_sync::push::Pending;
use assay_sync::SyncError;

use crate::error::{Result, ServiceError};
use crate::members::Member;

/// Positions the dry run gives the rows it applies: after any the team has drawn.
const PROVISIONAL: i64 = i64::MAX / 2;

pub struct Replica {
    project: Project,
    /// The team's position counter when the replica last caught up: unchanged, nothing new
    /// was committed since (every position is drawn under the team's commit lock, held to the
    /// end of the commit).
    seen: Option<i64>,
}

/// Why a row was refused: (uid, reason).
pub type Refusal = (String, String);

impl Replica {
    /// The replica in `dir`, made from the team database at `admin_url` on first start.
    pub fn open(dir: &Path, admin_url: &str) -> Result<Self> {
        let path = dir.join("service-replica.assay");
        let project = if path.exists() {
            let mut p = Project::open(&path)?;
            let mut db = assay_sync::connect_admin(admin_url)?;
            assay_sync::pull::pull(&mut db, &mut p)?;
            p
        } else {
            // Made under a temporary name and moved into place once whole, so a service killed
            // mid-join starts over instead of trusting half a replica.
            let partial = dir.join("service-replica.partial");
            let _ = std::fs::remove_file(&partial);
            let (p, _) = assay_sync::join(admin_url, &partial)?;
            drop(p);
            std::fs::rename(&partial, &path)
                .map_err(|e| ServiceError::Internal(format!("{}: {e}", path.display())))?;
            Project::open(&path)?
        };
        Ok(Self {
            project,
            seen: None,
        })
    }

    /// Brings the replica up to the team's head (as the owner, who reads every row); a no-op
    /// when the team's position counter has not moved since the last time. (The owner's own
    /// rows keep the position drawn at insert, so one committed later can wait for the next
    /// move: the team database's rules hold meanwhile.)
    pub fn catch_up(&mut self, db: &mut postgres::Client) -> Result<usize> {
        let last: i64 = db
            .query_one("SELECT last_value FROM assay_position", &[])?
            .get(0);
        // Roles change without moving positions: read them every time (one small query).
        let members = assay_sync::pull::read_members(db)?;
        self.project.set_team_roles(&members)?;
        if self.seen == Some(last) {
            return Ok(0);
        }
        let n = assay_sync::pull::pull(db, &mut self.project)?;
        self.seen = Some(last);
        Ok(n)
    }

    /// Checks push batches, each on top of the ones before it (they are written to the team in
    /// this order, in one transaction), and keeps them applied, uncommitted, until `settle`:
    /// committed when the team took every row the checks took (the next catch-up then only
    /// records their positions), rolled back otherwise (the next catch-up pulls what the team
    /// did take). A failure of the replica itself rolls every batch back.
    pub fn check_held(
        &mut self,
        batches: &[(&Member, &Pending)],
    ) -> Result<Vec<(Pending, Vec<Refusal>)>> {
        self.project.begin_pull_page()?;
        let mut seq = PROVISIONAL;
        let mut checked = Vec::with_capacity(batches.len());
        for (member, pending) in batches {
            match self.dry_run(member, pending, &mut seq) {
                Ok(c) => checked.push(c),
                Err(e) => {
                    self.project.abandon_pull_page();
                    return Err(e);
                }
            }
        }
        Ok(checked)
    }

    /// Ends a held check: `taken` are the rows the team holds now with their positions (new or
    /// already there: a push repeated after a kill), which the replica records before it
    /// commits, so no provisional position outlives the check.
    pub fn settle(&mut self, keep: bool, taken: &[(String, i64)]) -> Result<()> {
        if keep {
            if let Err(e) = self
                .project
                .record_team_positions(taken)
                .map_err(crate::ServiceError::from)
                .and_then(|()| Ok(self.project.end_pull_page()?))
            {
                self.project.abandon_pull_page();
                self.seen = None;
                return Err(e);
            }
        } else {
            self.project.abandon_pull_page();
            self.seen = None;
        }
        Ok(())
    }

    pub fn project(&self) -> &Project {
        &self.project
    }

    fn dry_run(
        &mut self,
        member: &Member,
        pending: &Pending,
        seq: &mut i64,
    ) -> Result<(Pending, Vec<Refusal>)> {
        let me = member.name.as_str();
        let mut ok = Pending::default();
        let mut refused: Vec<Refusal> = Vec::new();
        let mut next = || {
            *seq += 1;
            *seq
        };
        let mut decided = std::collections::HashSet::new();
        for r in &pending.revisions {
            let decision = pending
                .reviews
                .iter()
                .find(|d| d.made_uid.as_deref() == Some(r.uid.as_str()));
            let outcome = written_by(&r.uid, "revision", r.author.as_deref(), me)
                .and_then(|()| r.canonical().map_err(|e| e.to_string()))
                .and_then(|c| {
                    apply(self.project.apply_pulled_revision(&c, next()))?;
                    Ok(c)
                });
            // An approval's decision stands or falls with the revision recording it.
            let outcome = match (outcome, decision) {
                (Ok(c), Some(d)) => {
                    decided.insert(d.uid.clone());
                    match written_by(&d.uid, "review", Some(&d.author), me)
                        .and_then(|()| apply(self.project.apply_pulled_review(d, next())))
                    {
                        Ok(()) => {
                            ok.reviews.push(d.clone());
                            Ok(c)
                        }
                        Err(why) => {
                            refused.push((d.uid.clone(), why.clone()));
                            Err(why)
                        }
                    }
                }
                (Err(why), Some(d)) => {
                    decided.insert(d.uid.clone());
                    refused.push((d.uid.clone(), why.clone()));
                    Err(why)
                }
                (outcome, None) => outcome,
            };
            match outcome {
                Ok(c) => ok.revisions.push(c),
                Err(why) => refused.push((r.uid.clone(), why)),
            }
        }
        internal(&refused)?;
        if pending.revisions_only() {
            return Ok((ok, refused));
        }
        for d in pending.reviews.iter().filter(|d| !decided.contains(&d.uid)) {
            let o = written_by(&d.uid, "review", Some(&d.author), me)
                .and_then(|()| apply(self.project.apply_pulled_review(d, next())));
            keep(o, &d.uid, d, &mut ok.reviews, &mut refused);
        }
        for g in &pending.signoffs {
            let o = written_by(&g.uid, "sign-off", Some(&g.author), me)
                .and_then(|()| apply(self.project.apply_pulled_signoff(g, next())));
            keep(o, &g.uid, g, &mut ok.signoffs, &mut refused);
        }
        for c in &pending.comments {
            let o = written_by(&c.uid, "comment", Some(&c.author), me)
                .and_then(|()| apply(self.project.apply_pulled_comment(c, next())));
            keep(o, &c.uid, c, &mut ok.comments, &mut refused);
        }
        for r in &pending.rounds {
            let o = written_by(&r.uid, "round", Some(&r.created_by), me)
                .and_then(|()| apply(self.project.apply_pulled_round(r, next())));
            keep(o, &r.uid, r, &mut ok.rounds, &mut refused);
        }
        for b in &pending.blind {
            let o = written_by(&b.uid, "judgement", Some(&b.author), me)
                .and_then(|()| apply(self.project.apply_pulled_blind(b, next())));
            keep(o, &b.uid, b, &mut ok.blind, &mut refused);
        }
        for g in &pending.ratings {
            let o = written_by(&g.uid, "rating", Some(&g.author), me)
                .and_then(|()| apply(self.project.apply_pulled_judge_rating(g, next())));
            keep(o, &g.uid, g, &mut ok.ratings, &mut refused);
        }
        for v in &pending.views {
            let o = written_by(&v.uid, "view", Some(&v.author), me)
                .and_then(|()| apply(self.project.apply_pulled_saved_view(v, next())));
            keep(o, &v.uid, v, &mut ok.views, &mut refused);
        }
        internal(&refused)?;
        Ok((ok, refused))
    }

    /// Checks one run snapshot of `member`: the run to write (under their name) or why not.
    pub fn check_run(
        &mut self,
        member: &Member,
        run: &SyncRun,
    ) -> Result<std::result::Result<SyncRun, String>> {
        let run = SyncRun {
            author: Some(member.name.clone()),
            ..run.clone()
        };
        self.project.begin_pull_page()?;
        let outcome = apply(self.project.apply_pulled_run(&run, PROVISIONAL));
        self.project.abandon_pull_page();
        match outcome {
            Err(why) if why.starts_with(INTERNAL) => Err(ServiceError::Internal(why)),
            Err(why) => Ok(Err(why)),
            Ok(()) => Ok(Ok(run)),
        }
    }
}

/// A row is written by whoever sends it: one that names someone else is refused.
fn written_by(
    uid: &str,
    what: &str,
    author: Option<&str>,
    me: &str,
) -> std::result::Result<(), String> {
    match author {
        Some(a) if a == me => Ok(()),
        Some(a) => Err(format!("{what} {uid} is written as {a}, but you are {me}")),
        None => Err(format!("{what} {uid} names no author: only originals do")),
    }
}

/// Marks a failure of the replica itself (not of the row) among the refusals.
const INTERNAL: &str = "\u{0}internal: ";

/// A write path outcome as a refusal: the store's reason, or (a failing replica file) a mark
/// that fails the whole push.
fn apply(outcome: assay_core::Result<bool>) -> std::result::Result<(), String> {
    match outcome {
        Ok(_) => Ok(()),
        Err(e) => {
            let e = SyncError::Core(e);
            if assay_sync::pull::is_about_the_row(&e) {
                Err(e.to_string())
            } else {
                Err(format!("{INTERNAL}{e}"))
            }
        }
    }
}

fn keep<T: Clone>(
    outcome: std::result::Result<(), String>,
    uid: &str,
    row: &T,
    ok: &mut Vec<T>,
    refused: &mut Vec<Refusal>,
) {
    match outcome {
        Ok(()) => ok.push(row.clone()),
        Err(why) => refused.push((uid.to_string(), why)),
    }
}

fn internal(refused: &[Refusal]) -> Result<()> {
    match refused.iter().find(|(_, why)| why.starts_with(INTERNAL)) {
        Some((_, why)) => Err(ServiceError::Internal(why[INTERNAL.len()..].to_string())),
        None => Ok(()),
    }
}
