//! Planning a request: runs, stale results and the requests still to send.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::EvalRequest;
use crate::cache;
use crate::client::ChatResponse;
use crate::error::Result;
use crate::model::StoredModel;
use crate::prompt::{default_template_for, render, Prompt, Variant};
use crate::scorers::{ScoreContext, ScorerKind};
use assay_core::store::RunKey;
use assay_core::store::VersionItem;
use assay_core::{ItemContent, Project};

#[derive(Clone)]
pub(super) struct Target {
    pub(super) run_id: i64,
    pub(super) item_id: i64,
    pub(super) rev: i64,
    pub(super) content: Arc<ItemContent>,
    pub(super) scorer: ScorerKind,
    /// The question as asked (the variant's text), which a judge must see.
    pub(super) question: Arc<str>,
    /// How the answering model's responses are read.
    pub(super) ctx: Arc<ScoreContext>,
    /// Which run of the model this is (1-based): a judge is asked afresh in each.
    pub(super) run_index: u32,
}

pub(super) struct Job {
    pub(super) key: String,
    pub(super) model: usize,
    pub(super) prompt: Prompt,
    pub(super) cached: Option<ChatResponse>,
    pub(super) targets: Vec<Target>,
}

/// What a request turns into before anything is sent: the runs (created or resumed, their
/// stale results dropped) and, per dataset, the items of each version with what each run
/// still needs. The requests themselves are made by [`Plan::stream`], while earlier ones are
/// already being sent.
pub(super) struct Plan {
    pub(super) run_ids: Vec<i64>,
    /// The model (index into the request's models) of each run.
    pub(super) run_models: HashMap<i64, usize>,
    /// Items each run must have a result for to be complete.
    pub(super) expected: HashMap<i64, usize>,
    /// Targets still to do (sent, reused or skipped).
    pub(super) total: usize,
    /// Of those, each model's (index into the request's models).
    pub(super) targets_per_model: Vec<usize>,
    datasets: Vec<DatasetWork>,
    /// Picks the scorer of an item when the request names none.
    protocol: Option<assay_core::EvalProtocol>,
}

struct DatasetWork {
    /// Per version: its items in dataset order and the runs over them.
    versions: Vec<(Vec<VersionItem>, Vec<RunWork>)>,
}

struct RunWork {
    run_id: i64,
    model: usize,
    variant: Variant,
    run_index: u32,
    /// Items with a result for their revision already.
    done: HashSet<i64>,
}

/// What planning hands the senders, in order.
pub(super) enum Planned {
    Job(Job),
    /// A target with no such variant or no prompt, and its run's model: recorded as skipped.
    Skipped(usize, Target),
}

impl Planned {
    /// The model this is for and how many of its targets need no request of their own
    /// (cached, sharing this job's request, or skipped).
    pub(super) fn unsent(&self) -> (usize, usize) {
        match self {
            Self::Job(j) if j.cached.is_none() => (j.model, j.targets.len() - 1),
            Self::Job(j) => (j.model, j.targets.len()),
            Self::Skipped(model, _) => (*model, 1),
        }
    }
}

/// Items planned together: the before and after of an item fall in the same chunk, so the
/// request both ask for is one job; the senders start after the first chunk.
const CHUNK: usize = 256;

/// Finds or creates the request's runs and drops results made stale by edits. Nothing is sent
/// and no item's content is read.
pub(super) fn plan(
    project: &Project,
    req: &EvalRequest,
    models: &[StoredModel],
    template: &Option<(String, String)>,
    template_label: &str,
    scorer_label: &str,
) -> Result<Plan> {
    let request = Request::new(project, models, req.scorer, template, req.protocol);
    let mut plan = Plan {
        run_ids: Vec::new(),
        run_models: HashMap::new(),
        expected: HashMap::new(),
        total: 0,
        targets_per_model: vec![0; models.len()],
        datasets: Vec::new(),
        protocol: req.protocol,
    };
    for ds in &req.datasets {
        let ds_id = project.dataset_by_name(ds)?.id;
        let mut versions = Vec::new();
        for version in &req.versions {
            let members = project.version_members(ds_id, *version)?;
            let wanted: HashSet<(i64, i64)> = members.iter().map(|m| (m.id, m.rev)).collect();
            let mut runs = Vec::new();
            for (mi, m) in models.iter().enumerate() {
                for variant in &req.variants {
                    for run_index in 1..=req.runs {
                        let run_id = project.ensure_run(&RunKey {
                            model_id: m.id,
                            dataset_id: ds_id,
                            version: *version,
                            variant: variant.as_str().into(),
                            run_index,
                            template: template_label.to_string(),
                            scorer: scorer_label.into(),
                            source: "live".into(),
                            protocol: req.protocol,
                        })?;
                        plan.run_ids.push(run_id);
                        plan.run_models.insert(run_id, mi);
                        plan.expected.insert(run_id, members.len());
                        // Results for items edited or removed since are stale: drop them and redo.
                        let mut done = HashSet::new();
                        for (item, rev, outcome) in project.run_item_states(run_id)? {
                            if !wanted.contains(&(item, rev)) {
                                project.forget_run_item(run_id, item)?;
                            } else if outcome != "error" {
                                done.insert(item);
                            }
                        }
                        let work = RunWork {
                            run_id,
                            model: mi,
                            variant: *variant,
                            run_index,
                            done,
                        };
                        check_resumed(&request, &work, &members)?;
                        project.start_run(run_id)?;
                        let todo = members
                            .iter()
                            .filter(|m| !work.done.contains(&m.id))
                            .count();
                        plan.total += todo;
                        plan.targets_per_model[mi] += todo;
                        runs.push(work);
                    }
                }
            }
            versions.push((members, runs));
        }
        plan.datasets.push(DatasetWork { versions });
    }
    Ok(plan)
}

impl Plan {
    /// Makes the requests still to send (one per distinct prompt and model, with every item
    /// and run it serves; a cached response is reused) and hands them to `emit` a chunk of
    /// items at a time, with the targets to record as skipped. Stops early when `emit` says
    /// nobody listens. A request asked again in a later chunk (another item with the very same
    /// prompt) is a second job: the senders send such twins once.
    pub(super) fn stream(
        &self,
        project: &Project,
        models: &[StoredModel],
        scorer: Option<ScorerKind>,
        template: &Option<(String, String)>,
        emit: &mut dyn FnMut(Planned) -> bool,
    ) -> Result<()> {
        let request = Request::new(project, models, scorer, template, self.protocol);
        for ds in &self.datasets {
            let mut next = vec![0usize; ds.versions.len()];
            loop {
                // The chunk ends at the CHUNK-th next item of the version that reaches it
                // soonest; every version takes its items up to there.
                let last_seq = ds
                    .versions
                    .iter()
                    .zip(&next)
                    .filter_map(|((members, _), &at)| members.get(at + CHUNK - 1).map(|m| m.seq))
                    .min()
                    .unwrap_or(i64::MAX);
                let ranges: Vec<(usize, usize)> = ds
                    .versions
                    .iter()
                    .zip(&next)
                    .map(|((members, _), &at)| {
                        let end = at + members[at..].partition_point(|m| m.seq <= last_seq);
                        (at, end)
                    })
                    .collect();
                if ranges.iter().all(|(a, b)| a == b) {
                    break;
                }
                let mut wanted: Vec<(i64, i64)> = ds
                    .versions
                    .iter()
                    .zip(&ranges)
                    .flat_map(|((members, _), &(a, b))| members[a..b].iter().map(|m| (m.id, m.rev)))
                    .collect();
                wanted.sort_unstable();
                wanted.dedup();
                let contents: HashMap<(i64, i64), Arc<ItemContent>> = wanted
                    .iter()
                    .copied()
                    .zip(project.contents_at(&wanted)?.into_iter().map(Arc::new))
                    .collect();
                let mut chunk = Chunk::default();
                for ((members, runs), &(a, b)) in ds.versions.iter().zip(&ranges) {
                    for run in runs {
                        for item in members[a..b].iter().filter(|i| !run.done.contains(&i.id)) {
                            let content = contents[&(item.id, item.rev)].clone();
                            request.add(&mut chunk, run, item, content)?;
                        }
                    }
                }
                next = ranges.iter().map(|&(_, b)| b).collect();
                for p in chunk.into_planned() {
                    if !emit(p) {
                        return Ok(());
                    }
                }
            }
        }
        Ok(())
    }
}

/// What every target of a request shares while its jobs are made.
struct Request<'a> {
    project: &'a Project,
    models: &'a [StoredModel],
    /// Per model: how its responses are read.
    ctxs: Vec<Arc<ScoreContext>>,
    scorer: Option<ScorerKind>,
    template: &'a Option<(String, String)>,
    protocol: Option<assay_core::EvalProtocol>,
}

/// The jobs of one chunk of items, merged by request key, and its skipped targets.
#[derive(Default)]
struct Chunk {
    jobs: Vec<Job>,
    by_key: HashMap<(usize, String), usize>,
    skipped: Vec<(usize, Target)>,
}

impl Request<'_> {
    /// Adds `item`'s target in `run` to `chunk`: to the job asking the same, a new job, or
    /// the skipped.
    fn add(
        &self,
        chunk: &mut Chunk,
        run: &RunWork,
        item: &VersionItem,
        content: Arc<ItemContent>,
    ) -> Result<()> {
        let (model, m, ctx) = (run.model, &self.models[run.model], &self.ctxs[run.model]);
        let variant = run.variant;
        let scorer = self
            .scorer
            .unwrap_or_else(|| crate::protocol::default_scorer(self.protocol, content.format));
        let question: Arc<str> = variant
            .question(&content)
            .map_or(Arc::from(content.question.as_str()), |q| {
                Arc::from(q.0.as_ref())
            });
        let target = Target {
            run_id: run.run_id,
            item_id: item.id,
            rev: item.rev,
            content: content.clone(),
            scorer,
            question,
            ctx: ctx.clone(),
            run_index: run.run_index,
        };
        // A box is scored only on images in its frame that do not show it; a name only where
        // the question does not give it.
        let unfit = match scorer {
            ScorerKind::Grounding => !variant.fits_grounding(),
            ScorerKind::Identification => !variant.fits_identification(),
            _ => false,
        };
        if unfit {
            chunk.skipped.push((model, target));
            return Ok(());
        }
        // The built-in template follows what is measured: a grounding run over a VQA set
        // (CRAG-MM) asks for a box, an identification run for the entity's name, not the answer.
        let Some(prompt) = self.prompt(run, &content, scorer) else {
            chunk.skipped.push((model, target));
            return Ok(());
        };
        let key = cache::request_key(&m.config, &prompt, run.run_index);
        if let Some(&j) = chunk.by_key.get(&(model, key.clone())) {
            chunk.jobs[j].targets.push(target);
            return Ok(());
        }
        let cached = self.project.response(&key)?.map(|r| cache::from_stored(&r));
        chunk.by_key.insert((model, key.clone()), chunk.jobs.len());
        chunk.jobs.push(Job {
            key,
            model,
            prompt,
            cached,
            targets: vec![target],
        });
        Ok(())
    }
}

impl<'a> Request<'a> {
    fn new(
        project: &'a Project,
        models: &'a [StoredModel],
        scorer: Option<ScorerKind>,
        template: &'a Option<(String, String)>,
        protocol: Option<assay_core::EvalProtocol>,
    ) -> Self {
        Self {
            project,
            models,
            ctxs: models
                .iter()
                .map(|m| Arc::new(m.config.score_context()))
                .collect(),
            scorer,
            template,
            protocol,
        }
    }

    /// The prompt `run` sends for an item; None when the item lacks the run's variant.
    fn prompt(&self, run: &RunWork, content: &ItemContent, scorer: ScorerKind) -> Option<Prompt> {
        let m = &self.models[run.model];
        // The built-in template follows what is measured: a grounding run over a VQA set
        // (CRAG-MM) asks for a box, an identification run for the entity's name, not the answer.
        let body = self.template.as_ref().map_or_else(
            || default_template_for(scorer, content.format, run.variant, m.config.box_convention),
            |t| t.1.clone(),
        );
        render(&body, content, run.variant, &self.ctxs[run.model])
    }
}

/// Refuses to resume a run whose answers were asked otherwise than this request would ask
/// them (another template text, image view or generation setting, a protocol's settings where
/// the model's own were sent): finishing it would put answers made two ways in one run. One
/// answered item of the run is asked again in thought and its request key compared with the
/// stored one. Called before the run is marked running.
fn check_resumed(request: &Request<'_>, run: &RunWork, members: &[VersionItem]) -> Result<()> {
    let project = request.project;
    let Some(item) = members.iter().find(|m| run.done.contains(&m.id)) else {
        return Ok(());
    };
    let Some(stored) = project.run_item_cache_key(run.run_id, item.id)? else {
        return Ok(());
    };
    let Some(content) = project.contents_at(&[(item.id, item.rev)])?.pop() else {
        return Ok(());
    };
    let kind = request
        .scorer
        .unwrap_or_else(|| crate::protocol::default_scorer(request.protocol, content.format));
    let Some(prompt) = request.prompt(run, &content, kind) else {
        return Ok(());
    };
    let m = &request.models[run.model];
    if cache::request_key(&m.config, &prompt, run.run_index) == stored {
        return Ok(());
    }
    Err(crate::error::EvalError::Config(format!(
        "run {} ({}, {}, run {}) has answers asked otherwise than this request asks them (its \
         prompt, images or generation settings changed since): finishing it would mix the two; \
         delete the run (Evaluation, runs list) or save the model with these settings under \
         another name",
        run.run_id,
        m.config.name,
        run.variant.as_str(),
        run.run_index
    )))
}

impl Chunk {
    fn into_planned(self) -> impl Iterator<Item = Planned> {
        self.skipped
            .into_iter()
            .map(|(model, t)| Planned::Skipped(model, t))
            .chain(self.jobs.into_iter().map(Planned::Job))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{save_model, ModelConfig};
    use assay_core::Version;

    #[test]
    fn identical_prompts_become_one_request_and_missing_variants_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.assay");
        let mut p = Project::create(&path).unwrap();
        let data = dir.path().join("set.jsonl");
        std::fs::write(
            &data,
            "{\"id\": \"a\", \"question_original\": \"これは？\", \"question_explicit\": \"赤い標識は？\", \"checklist\": [\"x\"]}\n\
             {\"id\": \"b\", \"question_original\": \"あれは？\", \"checklist\": [\"y\"]}\n\
             {\"id\": \"c\", \"question_original\": \"それは？\", \"checklist\": [\"z\"]}\n",
        )
        .unwrap();
        assay_core::import::import_path(
            &mut p,
            &data,
            &Default::default(),
            &mut |_| {},
            &std::sync::atomic::AtomicBool::new(false),
        )
        .unwrap();
        let cfg = ModelConfig {
            name: "m".into(),
            model: "m".into(),
            endpoints: vec!["http://127.0.0.1:9/v1".into()],
            ..Default::default()
        };
        save_model(&p, &cfg).unwrap();
        let models = vec![crate::model::model_by_name(&p, "m").unwrap()];
        let req = EvalRequest {
            models: vec!["m".into()],
            datasets: vec!["set".into()],
            versions: vec![Version::Before, Version::After],
            variants: vec![Variant::Original, Variant::Explicit],
            runs: 1,
            scorer: Some(ScorerKind::SoftMatch),
            ..Default::default()
        };
        let plan = plan(&p, &req, &models, &None, "default", "soft_match").unwrap();
        let (mut jobs, mut skipped) = (Vec::new(), 0);
        plan.stream(&p, &models, req.scorer, &None, &mut |x| {
            match x {
                Planned::Job(j) => jobs.push(j),
                Planned::Skipped(..) => skipped += 1,
            }
            true
        })
        .unwrap();
        // 3 items x 2 versions x 2 variants = 12 targets; b and c have no explicit question.
        assert_eq!(plan.total, 12);
        assert_eq!(skipped, 4);
        // Nothing was edited, so before and after ask the same thing: one request serves both.
        assert_eq!(jobs.len(), 4);
        assert!(jobs.iter().all(|j| j.targets.len() == 2));
        assert_eq!(plan.run_ids.len(), 4);
        assert!(plan.expected.values().all(|n| *n == 3));
    }
}
