//! One window's session: preferences, the open project and who is working.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use crate::error::{ApiError, ApiResult};
use crate::prefs::Prefs;
use crate::types::{
    user_view, AppInfo, CriterionOverruled, ImportRequest, ItemDetail, ItemResults, ProjectInfo,
    SessionUser,
};
use assay_core::import::{import_path, mapping::Mapping, ImportOptions, ImportReport, Progress};
use assay_core::store::{
    Author, DecidedBy, Edit, Facets, Filter, Filtering, FunnelStep, Page, QueryResult, Stage, User,
};
use assay_core::{Phase1Dimension, Project, Role};

pub struct Session {
    prefs_path: PathBuf,
    prefs: Prefs,
    project: Option<Project>,
    user: Option<User>,
    /// The refinement round recorded on revisions.
    pub round: i64,
    /// The team database password as typed: memory only, never written anywhere.
    pub team_password: Option<String>,
    /// How many projects this session has opened: facet columns read beside it are handed
    /// over only to the opening they were read for, never to a later one of the same path.
    opened: u64,
}

impl Session {
    pub fn new(prefs_path: PathBuf) -> Self {
        let prefs = Prefs::load(&prefs_path);
        Self {
            prefs_path,
            prefs,
            project: None,
            user: None,
            round: 1,
            team_password: None,
            opened: 0,
        }
    }

    fn save_prefs(&self) {
        // Preferences are a convenience; failing to write them must not fail the action.
        let _ = self.prefs.save(&self.prefs_path);
    }

    pub(crate) fn project(&self) -> ApiResult<&Project> {
        self.project.as_ref().ok_or_else(ApiError::no_project)
    }

    pub(crate) fn project_mut(&mut self) -> ApiResult<&mut Project> {
        self.project.as_mut().ok_or_else(ApiError::no_project)
    }

    pub fn project_path(&self) -> ApiResult<PathBuf> {
        Ok(self.project()?.path().to_path_buf())
    }

    pub fn app_info(&self) -> AppInfo {
        AppInfo {
            version: env!("CARGO_PKG_VERSION").into(),
            recent: self.prefs.recent.clone(),
            user: self.prefs.user.clone(),
            project: self.project_info().ok(),
        }
    }

    pub fn project_info(&self) -> ApiResult<ProjectInfo> {
        let p = self.project()?;
        let datasets = p.datasets()?;
        Ok(ProjectInfo {
            path: p.path().display().to_string(),
            name: p
                .path()
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            items: datasets.iter().map(|d| d.item_count).sum(),
            datasets,
        })
    }

    fn attach(&mut self, project: Project) -> ApiResult<ProjectInfo> {
        let path = project.path().display().to_string();
        self.user = match &self.prefs.user {
            // A remembered person new to this project, as an auditor, must be made one by its
            // owner first: they choose again on the start screen.
            Some(u) => match project.sign_in(&u.name, u.role) {
                Ok(u) => Some(u),
                Err(assay_core::Error::Forbidden(_)) => None,
                Err(e) => return Err(e.into()),
            },
            None => None,
        };
        self.project = Some(project);
        self.opened += 1;
        self.prefs.touch_recent(&path);
        self.save_prefs();
        self.project_info()
    }

    pub fn open_project(&mut self, path: &Path) -> ApiResult<ProjectInfo> {
        let p = Project::open(path)?;
        self.attach(p)
    }

    /// Which opening of a project this is (see [`Session::adopt_facet_columns`]).
    pub fn opened(&self) -> u64 {
        self.opened
    }

    /// Whether facet columns read beside the session for `opened` would still be taken: that
    /// opening is the current one and holds none of its own.
    pub fn wants_facet_columns(&self, opened: u64) -> bool {
        self.opened == opened
            && self
                .project
                .as_ref()
                .is_some_and(|p| !p.holds_facet_columns())
    }

    /// Takes facet columns read beside the session ([`read_facet_columns`]) for opening
    /// `opened`, if that is still the project open now and it holds none of its own yet.
    pub fn adopt_facet_columns(
        &self,
        opened: u64,
        read: assay_core::store::ReadFacetColumns,
    ) -> bool {
        self.opened == opened
            && self
                .project
                .as_ref()
                .is_some_and(|p| p.adopt_facet_columns(read))
    }

    pub fn create_project(&mut self, path: &Path) -> ApiResult<ProjectInfo> {
        let p = Project::create(path)?;
        self.attach(p)
    }

    /// Chooses who is working; recorded on every revision from now on.
    pub fn set_user(&mut self, name: &str, role: Role) -> ApiResult<SessionUser> {
        if name.trim().is_empty() {
            return Err(ApiError::new("invalid", "a name is needed"));
        }
        // The stored role, whatever was asked: nobody raises their own.
        let mut role = role;
        if let Some(p) = &self.project {
            let u = p.sign_in(name.trim(), role)?;
            role = u.role;
            self.user = Some(u);
        }
        let view = SessionUser {
            name: name.trim().to_string(),
            role,
        };
        self.prefs.user = Some(view.clone());
        self.save_prefs();
        Ok(view)
    }

    /// The person working (the project's owner or an auditor) gives someone a role.
    pub fn set_role(&mut self, name: &str, role: Role) -> ApiResult<SessionUser> {
        let by = self
            .user
            .as_ref()
            .ok_or_else(ApiError::no_user)?
            .name
            .clone();
        let p = self.project()?;
        let u = p.set_role(&by, name, role)?;
        Ok(SessionUser {
            name: u.name,
            role: u.role,
        })
    }

    pub(crate) fn author(&self) -> ApiResult<Author> {
        let u = self.user.as_ref().ok_or_else(ApiError::no_user)?;
        Ok(Author {
            user_id: u.id,
            role: u.role,
            round: self.round,
        })
    }

    pub fn current_user(&self) -> Option<SessionUser> {
        self.user.as_ref().map(user_view)
    }

    pub fn query_items(&self, filter: &Filter, page: Page) -> ApiResult<QueryResult> {
        Ok(self.project()?.query(filter, page)?)
    }

    pub fn facets(&self, filter: &Filter) -> ApiResult<Facets> {
        Ok(self.project()?.facets(filter)?)
    }

    pub fn item_ids(&self, filter: &Filter) -> ApiResult<Vec<i64>> {
        Ok(self.project()?.query_ids(filter)?)
    }

    pub fn item_detail(&self, id: i64) -> ApiResult<ItemDetail> {
        let p = self.project()?;
        Ok(ItemDetail {
            item: p.item(id)?,
            history: p.revisions(id)?,
        })
    }

    /// Saves an edit as a new revision; core skips no-ops (autosave calls this often) and
    /// refuses an edit made on a superseded revision with the `conflict` code.
    pub fn save_item(&mut self, id: i64, edit: &Edit) -> ApiResult<ItemDetail> {
        let author = self.author()?;
        self.project_mut()?.save_edit(id, edit, &author)?;
        self.item_detail(id)
    }

    pub fn item_results(&self, id: i64) -> ApiResult<ItemResults> {
        let p = self.project()?;
        let results = p.item_results(id)?;
        let mut run_scores = Vec::new();
        for r in &results {
            let s = assay_eval::table::run_score(p, r.run.id)
                .map_err(|e| ApiError::new("invalid", e.to_string()))?;
            run_scores.push((r.run.id, s));
        }
        Ok(ItemResults {
            results,
            run_scores,
        })
    }

    /// The current user rates one checklist criterion of a run's judgement of an item.
    pub fn overrule_criterion(
        &mut self,
        run_id: i64,
        id: i64,
        criterion: usize,
        rating: f64,
    ) -> ApiResult<CriterionOverruled> {
        let author = self.author()?;
        let p = self.project_mut()?;
        let item_score = assay_eval::table::overrule_criterion(
            p,
            run_id,
            id,
            criterion,
            rating,
            Some(author.user_id),
        )
        .map_err(|e| ApiError::new("invalid", e.to_string()))?;
        let run_score = assay_eval::table::run_score(p, run_id)
            .map_err(|e| ApiError::new("invalid", e.to_string()))?;
        Ok(CriterionOverruled {
            item_score,
            run_score,
        })
    }

    pub fn models(&self) -> ApiResult<Vec<crate::evaluation::ModelForm>> {
        crate::evaluation::model_forms(self.project()?)
    }

    pub fn save_model(
        &mut self,
        form: &crate::evaluation::ModelForm,
    ) -> ApiResult<crate::evaluation::ModelForm> {
        crate::evaluation::save_model_form(self.project()?, form)
    }

    pub fn remove_model(&self, name: &str) -> ApiResult<()> {
        crate::evaluation::remove_model(self.project()?, name)
    }

    /// The model's config, to test it outside the session lock.
    pub fn model_config(&self, name: &str) -> ApiResult<assay_eval::ModelConfig> {
        crate::evaluation::model_config(self.project()?, name)
    }

    pub fn estimate_eval(
        &self,
        form: &crate::evaluation::EvalForm,
    ) -> ApiResult<crate::evaluation::EvalEstimate> {
        crate::evaluation::estimate(self.project()?, form)
    }

    /// The before/after table, optionally one row per category or refinement operation.
    pub fn stage_table(&self, version: &str) -> ApiResult<crate::evaluation::StageView> {
        crate::evaluation::stage_view(self.project()?, version)
    }

    pub fn dashboard(&self, by: Option<&str>) -> ApiResult<crate::evaluation::Dashboard> {
        crate::evaluation::dashboard(self.project()?, by)
    }

    /// The original question against another variant on the after version, per dataset.
    pub fn dashboard_vs(
        &self,
        by: Option<&str>,
        against: Option<&str>,
    ) -> ApiResult<crate::evaluation::Dashboard> {
        crate::evaluation::dashboard_vs(self.project()?, by, against)
    }

    /// The current user's judgement of one run's result for an item (0..1), over the scorer's,
    /// which stays stored; a note says why.
    pub fn overrule_result(
        &mut self,
        run_id: i64,
        id: i64,
        score: f64,
        note: Option<String>,
    ) -> ApiResult<()> {
        let author = self.author()?;
        let p = self.project()?;
        assay_eval::table::overrule(p, run_id, id, score, Some(author.user_id), note.as_deref())
            .map_err(|e| ApiError::new("invalid", e.to_string()))
    }

    /// Every run with its counts and the scorer versions that made its numbers.
    pub fn run_list(&self) -> ApiResult<Vec<crate::types::RunListRow>> {
        let p = self.project()?;
        let configs: std::collections::HashMap<String, assay_eval::ModelConfig> =
            assay_eval::model::models(p)
                .map_err(|e| ApiError::new(e.code(), e.to_string()))?
                .into_iter()
                .map(|m| (m.config.name.clone(), m.config))
                .collect();
        let mut out = Vec::new();
        for r in p.run_summaries()? {
            let cost = configs
                .get(&r.run.model)
                .and_then(|c| c.cost(r.prompt_tokens as f64, r.completion_tokens as f64));
            let no_rescore = assay_eval::rescore::why_not_rescorable(p, &r.run)
                .map_err(|e| ApiError::new(e.code(), e.to_string()))?;
            out.push(crate::types::RunListRow {
                scorer_label: assay_eval::table::scorer_label(&r.run.scorer, &r.scorer_versions),
                items: r.items,
                unparsed: r.unparsed,
                hedged: r.hedged,
                errors: r.errors,
                accuracy: r.accuracy,
                sent: r.items - r.from_cache,
                prompt_tokens: r.prompt_tokens,
                completion_tokens: r.completion_tokens,
                cost,
                duration_secs: r.duration_secs,
                no_rescore,
                replicas: p.run_replicas(r.run.id)?,
                run: r.run,
            });
        }
        Ok(out)
    }

    /// Rescores one run (or, with None, every run this replica may) from stored responses
    /// with the current rules; nothing is sent.
    pub fn rescore_runs(
        &mut self,
        run: Option<i64>,
    ) -> ApiResult<Vec<crate::types::RescoreResult>> {
        let p = self.project_mut()?;
        let reports = match run {
            Some(id) => {
                vec![assay_eval::rescore::rescore_run(p, id).map_err(|e| (id, e.to_string()))]
            }
            None => assay_eval::rescore::rescore_all(p)
                .map_err(|e| ApiError::new("invalid", e.to_string()))?,
        };
        Ok(reports
            .into_iter()
            .map(|r| match r {
                Ok(r) => crate::types::RescoreResult {
                    run_id: r.run_id,
                    scorer: r.scorer,
                    version: r.version,
                    rescored: r.rescored,
                    changed: r.changed,
                    kept: r.kept,
                    why_kept: r.why_kept,
                    error: None,
                },
                Err((run_id, e)) => crate::types::RescoreResult {
                    run_id,
                    scorer: String::new(),
                    version: 0,
                    rescored: 0,
                    changed: 0,
                    kept: 0,
                    why_kept: None,
                    error: Some(e),
                },
            })
            .collect())
    }

    /// Items ranked by evidence in the stored runs that they need a person.
    pub fn triage(&self) -> ApiResult<Vec<crate::types::TriageEntry>> {
        let items = assay_eval::triage::triage(self.project()?, &[])
            .map_err(|e| ApiError::new("invalid", e.to_string()))?;
        Ok(items
            .into_iter()
            .map(|t| crate::types::TriageEntry {
                item_id: t.item_id,
                ext_id: t.ext_id,
                dataset: t.dataset,
                score: t.score,
                reasons: t.reasons.into_iter().map(|r| (r.kind, r.detail)).collect(),
            })
            .collect())
    }

    /// The current user sets or withdraws a failure tag on one run's result for an item.
    pub fn tag_failure(&self, run_id: i64, id: i64, tag: &str, tagged: bool) -> ApiResult<()> {
        let author = self.author()?;
        Ok(self
            .project()?
            .tag_failure(run_id, id, tag, tagged, Some(author.user_id))?)
    }

    /// The current user approves someone else's revision or asks for changes.
    pub fn review(
        &mut self,
        id: i64,
        decision: assay_core::store::ReviewDecision,
        comment: Option<String>,
    ) -> ApiResult<ItemDetail> {
        let author = self.author()?;
        self.project_mut()?
            .review(id, decision, comment.as_deref(), &author)?;
        self.item_detail(id)
    }

    /// Items waiting for the current user's review (never their own revisions).
    pub fn review_queue(&self) -> ApiResult<Vec<i64>> {
        let author = self.author()?;
        Ok(self.project()?.review_queue(author.user_id)?)
    }

    /// An auditor signs the item off (locking it) or reopens it; core refuses anyone else.
    pub fn sign_off(
        &mut self,
        id: i64,
        signed: bool,
        note: Option<String>,
    ) -> ApiResult<ItemDetail> {
        let author = self.author()?;
        self.project_mut()?
            .sign_off(id, signed, note.as_deref(), &author)?;
        self.item_detail(id)
    }

    pub fn agreement(
        &self,
        field: assay_core::store::AgreementField,
        round: Option<i64>,
    ) -> ApiResult<assay_core::store::Agreement> {
        Ok(self.project()?.agreement(field, None, round)?)
    }

    /// Everything waiting for the current user, across rounds.
    pub fn my_work(&self) -> ApiResult<crate::types::MyWork> {
        let author = self.author()?;
        let p = self.project()?;
        let mut rounds = Vec::new();
        for r in p.rounds()? {
            let entries = p.round_queue(r.id, author.user_id)?;
            if entries.is_empty() {
                continue;
            }
            rounds.push(crate::types::RoundQueue {
                id: r.id,
                name: r.name,
                purpose: r.purpose,
                blind: r.blind,
                done: entries.iter().filter(|e| e.done).count(),
                entries,
            });
        }
        Ok(crate::types::MyWork {
            review: p.review_entries(author.user_id)?,
            sent_back: p.sent_back(author.user_id)?,
            mentions: p.open_mentions(author.user_id)?,
            adjudicate: if author.role == assay_core::Role::Auditor {
                p.adjudication_queue()?
            } else {
                Vec::new()
            },
            rounds,
        })
    }

    /// The item's blind rounds as the current user may see them (their own judgement; everyone's
    /// once all are in).
    pub fn blind_items(&self, id: i64) -> ApiResult<Vec<assay_core::store::BlindItem>> {
        let author = self.author()?;
        Ok(self.project()?.blind_items(id, &author)?)
    }

    /// Records the current user's judgement of an item in a blind round.
    pub fn record_blind(
        &mut self,
        round: i64,
        id: i64,
        judgement: &assay_core::store::BlindJudgement,
    ) -> ApiResult<Vec<assay_core::store::BlindItem>> {
        let author = self.author()?;
        self.project_mut()?
            .record_blind(round, id, judgement, &author)?;
        self.blind_items(id)
    }

    /// A sample of a judged run's results for the current user to rate, drawn by seed.
    pub fn judge_review(
        &self,
        run: i64,
        size: usize,
        seed: u64,
    ) -> ApiResult<Vec<assay_core::store::JudgeReviewEntry>> {
        let author = self.author()?;
        Ok(self
            .project()?
            .judge_review_sample(run, size, seed, &author)?)
    }

    /// The current user rates the judge's decision on an item 1-5; returns the run's report.
    pub fn rate_judge(
        &mut self,
        run: i64,
        id: i64,
        rating: u8,
    ) -> ApiResult<assay_core::store::JudgeRatingReport> {
        let author = self.author()?;
        self.project_mut()?
            .rate_judge(run, id, rating, None, &author)?;
        self.judge_rating_report(run)
    }

    pub fn judge_rating_report(&self, run: i64) -> ApiResult<assay_core::store::JudgeRatingReport> {
        Ok(self.project()?.judge_rating_report(run)?)
    }

    /// An auditor writes the item's revision from `take`'s judgement.
    pub fn adjudicate_blind(&mut self, round: i64, id: i64, take: &str) -> ApiResult<ItemDetail> {
        let author = self.author()?;
        self.project_mut()?
            .adjudicate_blind(round, id, take, &author)?;
        self.item_detail(id)
    }

    pub fn rounds(&self) -> ApiResult<Vec<assay_core::store::RoundSummary>> {
        Ok(self.project()?.rounds()?)
    }

    /// Makes a round over the items the filter matches (core refuses anyone but an auditor).
    pub fn create_round(
        &mut self,
        round: &assay_core::store::NewRound,
        filter: &Filter,
    ) -> ApiResult<Vec<assay_core::store::RoundSummary>> {
        let author = self.author()?;
        let items = self.project()?.query_ids(filter)?;
        self.project_mut()?.create_round(round, &items, &author)?;
        self.rounds()
    }

    pub fn comments(&self, id: i64) -> ApiResult<Vec<assay_core::store::Comment>> {
        Ok(self.project()?.comments(id)?)
    }

    pub fn add_comment(
        &mut self,
        id: i64,
        body: &str,
    ) -> ApiResult<Vec<assay_core::store::Comment>> {
        let author = self.author()?;
        self.project_mut()?.add_comment(id, body, &author)?;
        self.comments(id)
    }

    pub fn sync_conflicts(&self) -> ApiResult<Vec<assay_core::store::sync::SyncConflict>> {
        Ok(self.project()?.sync_conflicts()?)
    }

    pub fn conflict_sides(
        &self,
        id: i64,
    ) -> ApiResult<Option<assay_core::store::sync::ConflictSides>> {
        Ok(self.project()?.conflict_sides(id)?)
    }

    /// Resolves an item's sync conflict with one side or a per-field merge, as a new revision.
    pub fn resolve_sync_conflict(&mut self, id: i64, edit: &Edit) -> ApiResult<ItemDetail> {
        let author = self.author()?;
        self.project_mut()?
            .resolve_conflict_with(id, edit, &author)?;
        self.item_detail(id)
    }

    pub fn users(&self) -> ApiResult<Vec<assay_core::store::User>> {
        Ok(self.project()?.users()?)
    }

    pub fn people(&self) -> ApiResult<Vec<assay_core::store::PersonStats>> {
        Ok(self.project()?.people_stats()?)
    }

    pub fn stages(&self) -> ApiResult<Vec<Stage>> {
        Ok(self.project()?.stages()?)
    }

    /// Replaces the project's stages: `(name, description)` in order.
    pub fn set_stages(&mut self, stages: &[(String, String)]) -> ApiResult<Vec<Stage>> {
        Ok(self.project_mut()?.set_stages(stages)?)
    }

    pub fn filtering(&self, id: i64) -> ApiResult<Filtering> {
        Ok(self.project()?.filtering(id)?)
    }

    /// The current user keeps or drops an item at a stage.
    pub fn decide_stage(
        &mut self,
        id: i64,
        stage_id: i64,
        keep: bool,
        reason: Option<String>,
    ) -> ApiResult<Filtering> {
        let author = self.author()?;
        Ok(self.project_mut()?.decide_stage(
            id,
            stage_id,
            keep,
            reason.as_deref(),
            DecidedBy::Person(&author),
        )?)
    }

    pub fn flag_phase1(
        &mut self,
        id: i64,
        dimension: Phase1Dimension,
        flagged: bool,
        note: Option<String>,
    ) -> ApiResult<Filtering> {
        let author = self.author()?;
        Ok(self
            .project_mut()?
            .flag_phase1(id, dimension, flagged, note.as_deref(), &author)?)
    }

    /// Core refuses this unless the current user is an auditor.
    pub fn override_phase1(
        &mut self,
        id: i64,
        keep: bool,
        note: Option<String>,
    ) -> ApiResult<Filtering> {
        let author = self.author()?;
        Ok(self
            .project_mut()?
            .override_phase1(id, keep, note.as_deref(), &author)?)
    }

    pub fn funnel(&self, datasets: &[i64], group: &str) -> ApiResult<Vec<FunnelStep>> {
        Ok(self.project()?.funnel(datasets, group)?)
    }

    pub fn restore_revision(&mut self, id: i64, rev: i64) -> ApiResult<ItemDetail> {
        let author = self.author()?;
        self.project_mut()?.restore_revision(id, rev, &author)?;
        self.item_detail(id)
    }

    pub fn saved_filter(&self) -> Filter {
        self.project
            .as_ref()
            .and_then(|p| {
                self.prefs
                    .filters
                    .get(&p.path().display().to_string())
                    .cloned()
            })
            .unwrap_or_default()
    }

    /// The last evaluation this project ran from the app (what "run again" repeats).
    pub fn last_eval(&self) -> Option<crate::evaluation::EvalForm> {
        let key = self.project.as_ref()?.path().display().to_string();
        self.prefs
            .evals
            .get(&key)
            .cloned()
            .or_else(|| self.runs_on_the_table())
    }

    /// With no request remembered on this machine (a project built elsewhere, the sample): the
    /// request that runs again what the latest live run measured, every model, set, version and
    /// variant run with its scorer and template, so "update after each save" has something to
    /// repeat. Recorded predictions are left out: nothing could send them again.
    fn runs_on_the_table(&self) -> Option<crate::evaluation::EvalForm> {
        let runs = self.project.as_ref()?.run_summaries().ok()?;
        let live: Vec<_> = runs.iter().filter(|r| r.run.source == "live").collect();
        let latest = live.iter().max_by_key(|r| r.run.id)?;
        let same: Vec<_> = live
            .iter()
            .filter(|r| r.run.scorer == latest.run.scorer && r.run.template == latest.run.template)
            .collect();
        let distinct = |f: &dyn Fn(&assay_core::store::RunSummary) -> String| {
            let mut v: Vec<String> = same.iter().map(|r| f(r)).collect();
            v.sort();
            v.dedup();
            v
        };
        let (scorer, judge) = match latest.run.scorer.split_once('+') {
            Some((s, j)) => (Some(s.to_string()), Some(j.to_string())),
            None if latest.run.scorer == "auto" => (None, None),
            None => (Some(latest.run.scorer.clone()), None),
        };
        Some(crate::evaluation::EvalForm {
            models: distinct(&|r| r.run.model.clone()),
            datasets: distinct(&|r| r.run.dataset.clone()),
            versions: distinct(&|r| r.run.version.clone()),
            variants: distinct(&|r| r.run.variant.clone()),
            runs: same
                .iter()
                .map(|r| r.run.run_index)
                .max()
                .unwrap_or(1)
                .max(1) as u32,
            scorer,
            template: (latest.run.template != "default").then(|| latest.run.template.clone()),
            judge,
        })
    }

    pub fn remember_eval(&mut self, form: &crate::evaluation::EvalForm) -> ApiResult<()> {
        let key = self.project()?.path().display().to_string();
        self.prefs.evals.insert(key, form.clone());
        self.save_prefs();
        Ok(())
    }

    pub fn save_filter(&mut self, filter: Filter) -> ApiResult<()> {
        let key = self.project()?.path().display().to_string();
        self.prefs.filters.insert(key, filter);
        self.save_prefs();
        Ok(())
    }

    pub fn preview(&self, hash: &str, max_side: u32) -> ApiResult<Vec<u8>> {
        Ok(self
            .project()?
            .image_preview(hash, max_side.clamp(32, 4096))?)
    }

    pub fn image(&self, hash: &str) -> ApiResult<Vec<u8>> {
        Ok(self.project()?.image_bytes(hash)?.0)
    }
}

/// Writes a chart the UI rendered to a file the person chose in the save dialog. Only chart
/// files (`.svg`, `.png`) are written this way, so the command cannot be used to overwrite
/// anything else.
pub fn save_chart(path: &Path, base64_data: &str) -> ApiResult<()> {
    use base64::Engine;
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    if !matches!(ext.as_deref(), Some("svg" | "png")) {
        return Err(ApiError::new(
            "invalid",
            format!("{}: charts are saved as .svg or .png", path.display()),
        ));
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(base64_data)
        .map_err(|e| ApiError::new("invalid", format!("chart data: {e}")))?;
    std::fs::write(path, bytes)
        .map_err(|e| ApiError::new("io", format!("{}: {e}", path.display())))?;
    Ok(())
}

/// Reads the facet columns of the project at `path` on a connection of its own, so the session
/// is not held meanwhile; hand them over with [`Session::adopt_facet_columns`].
pub fn read_facet_columns(path: &Path) -> ApiResult<assay_core::store::ReadFacetColumns> {
    Ok(Project::open_reader(path, 50)?.read_facet_columns()?)
}

/// Pages of one index a tidying step may rewrite: 20-80 ms of work at a million items, so a
/// save that comes meanwhile waits at most that long for the write lock.
const TIDY_PAGES: u32 = 200;

/// Merges a project's full-text indexes beside the session (`Project::tidy_search_step`):
/// edits leave them in pieces that slow every search. It works on a connection of its own with
/// a small page cache: reads go on beside it, and a write waits at most one step.
pub struct SearchTidier {
    project: Project,
}

impl SearchTidier {
    pub fn open(path: &Path) -> ApiResult<Self> {
        // A step that finds the write lock taken gives up soon and is tried again later.
        Ok(Self {
            project: Project::open_reader(path, 200)?,
        })
    }

    /// When enough has been written since the last whole merge (`search_tidy_due`), runs
    /// steps while `go_on()` holds; returns whether nothing is left to do. A step that finds
    /// the write lock taken ends the run, to be tried again later; a run that never ends (the
    /// indexes of a crafted file) is an error.
    pub fn run(&self, go_on: &dyn Fn() -> bool) -> ApiResult<bool> {
        if !self.project.search_tidy_due()? {
            return Ok(true);
        }
        for _ in 0..MAX_TIDY_STEPS {
            if !go_on() {
                return Ok(false);
            }
            match self.project.tidy_search_step(TIDY_PAGES) {
                Ok(true) => {}
                Ok(false) => return Ok(true),
                Err(e) if e.is_busy() => return Ok(false),
                Err(e) => return Err(e.into()),
            }
        }
        Err(ApiError::new(
            "invalid",
            format!("the search indexes were still being merged after {MAX_TIDY_STEPS} steps"),
        ))
    }
}

/// Steps after which a run gives up: a million items took ~265.
const MAX_TIDY_STEPS: usize = 20_000;

/// Runs an import on its own connection, so the session stays free for reads meanwhile.
/// Readers for image requests, kept beside the session so that making a preview (decoding a
/// large photo) never holds the session's lock, and a write elsewhere never stalls a preview.
#[derive(Default)]
pub struct ImageReaders {
    pool: std::sync::Mutex<Vec<Project>>,
}

impl ImageReaders {
    fn with<T>(&self, path: &Path, f: impl FnOnce(&Project) -> ApiResult<T>) -> ApiResult<T> {
        let reader = {
            let mut pool = self
                .pool
                .lock()
                .map_err(|_| ApiError::new("internal", "image readers poisoned"))?;
            pool.retain(|p| p.path() == path);
            pool.pop()
        };
        let reader = match reader {
            Some(r) => r,
            None => Project::open_reader(path, 50)?,
        };
        let out = f(&reader);
        if let Ok(mut pool) = self.pool.lock() {
            if pool.len() < 4 {
                pool.push(reader);
            }
        }
        out
    }

    pub fn preview(&self, project: &Path, hash: &str, max_side: u32) -> ApiResult<Vec<u8>> {
        self.with(project, |p| Ok(p.image_preview(hash, max_side)?))
    }

    pub fn image(&self, project: &Path, hash: &str) -> ApiResult<Vec<u8>> {
        self.with(project, |p| Ok(p.image_bytes(hash)?.0))
    }
}

pub fn import_into(
    project_path: &Path,
    req: &ImportRequest,
    progress: &mut dyn FnMut(Progress),
    cancel: &AtomicBool,
) -> ApiResult<ImportReport> {
    let mut p = Project::open(project_path)?;
    let opts = ImportOptions {
        name: req.name.clone().filter(|n| !n.trim().is_empty()),
        mapping: req
            .mapping_path
            .as_deref()
            .map(|m| Mapping::from_file(Path::new(m)))
            .transpose()?,
        layout: req.layout.clone().filter(|l| !l.is_empty()),
        link_images: req.link_images,
        image_root: None,
        dry_run: req.dry_run,
    };
    Ok(import_path(
        &mut p,
        Path::new(&req.path),
        &opts,
        progress,
        cancel,
    )?)
}
