//! Planning a request: runs, stale results and the requests still to send.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::EvalRequest;
use crate::cache;
use crate::client::ChatResponse;
use crate::error::Result;
use crate::model::StoredModel;
use crate::prompt::{default_template_for, render, Prompt};
use crate::scorers::{ScoreContext, ScorerKind};
use assay_core::store::RunKey;
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
}

pub(super) struct Job {
    pub(super) key: String,
    pub(super) model: usize,
    pub(super) prompt: Prompt,
    pub(super) cached: Option<ChatResponse>,
    pub(super) targets: Vec<Target>,
}

/// What a request turns into: the runs (created or resumed), the requests to send (one per
/// distinct prompt and model, with every item and run it serves), and the items with no such
/// variant (recorded as skipped).
pub(super) struct Plan {
    pub(super) jobs: Vec<Job>,
    pub(super) run_ids: Vec<i64>,
    /// The model (index into the request's models) of each run.
    pub(super) run_models: HashMap<i64, usize>,
    /// Items each run must have a result for to be complete.
    pub(super) expected: HashMap<i64, usize>,
    pub(super) skipped_writes: Vec<Target>,
    pub(super) total: usize,
}

/// Plans a request: finds or creates its runs, drops results made stale by edits, and groups
/// the work still to do into requests, reusing cached responses. Nothing is sent.
pub(super) fn plan(
    project: &Project,
    req: &EvalRequest,
    models: &[StoredModel],
    template: &Option<(String, String)>,
    template_label: &str,
    scorer_label: &str,
) -> Result<Plan> {
    let mut jobs: Vec<Job> = Vec::new();
    let mut by_key: HashMap<(usize, String), usize> = HashMap::new();
    let mut run_ids = Vec::new();
    let mut run_models = HashMap::new();
    let mut expected: HashMap<i64, usize> = HashMap::new();
    let mut total = 0usize;
    let mut skipped_writes = Vec::new();

    for ds in &req.datasets {
        let ds_id = project.dataset_by_name(ds)?.id;
        for version in &req.versions {
            let items: Vec<(i64, i64, Arc<ItemContent>)> = project
                .version_items(ds_id, *version)?
                .into_iter()
                .map(|(m, c)| (m.id, m.rev, Arc::new(c)))
                .collect();
            let wanted: HashSet<(i64, i64)> =
                items.iter().map(|(id, rev, _)| (*id, *rev)).collect();
            for (mi, m) in models.iter().enumerate() {
                let ctx = Arc::new(m.config.score_context());
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
                        })?;
                        run_ids.push(run_id);
                        run_models.insert(run_id, mi);
                        expected.insert(run_id, items.len());
                        // Results for items edited or removed since are stale: drop them and redo.
                        let mut done = HashSet::new();
                        for (item, rev, outcome) in project.run_item_states(run_id)? {
                            if !wanted.contains(&(item, rev)) {
                                project.forget_run_item(run_id, item)?;
                            } else if outcome != "error" {
                                done.insert(item);
                            }
                        }
                        project.start_run(run_id)?;
                        for (id, rev, content) in &items {
                            if done.contains(id) {
                                continue;
                            }
                            total += 1;
                            let scorer = req
                                .scorer
                                .unwrap_or_else(|| ScorerKind::default_for(content.format));
                            let question: Arc<str> = variant
                                .question(content)
                                .map_or(Arc::from(content.question.as_str()), |q| {
                                    Arc::from(q.0.as_ref())
                                });
                            let target = Target {
                                run_id,
                                item_id: *id,
                                rev: *rev,
                                content: content.clone(),
                                scorer,
                                question,
                                ctx: ctx.clone(),
                            };
                            // A box is scored only on images in its frame that do not show it;
                            // a name only where the question does not give it.
                            let unfit = match scorer {
                                ScorerKind::Grounding => !variant.fits_grounding(),
                                ScorerKind::Identification => !variant.fits_identification(),
                                _ => false,
                            };
                            if unfit {
                                skipped_writes.push(target);
                                continue;
                            }
                            // The built-in template follows what is measured: a grounding run
                            // over a VQA set (CRAG-MM) asks for a box, an identification run
                            // for the entity's name, not the answer.
                            let body = template.as_ref().map_or_else(
                                || {
                                    default_template_for(
                                        scorer,
                                        content.format,
                                        *variant,
                                        m.config.box_convention,
                                    )
                                },
                                |t| t.1.clone(),
                            );
                            let Some(prompt) = render(&body, content, *variant, &ctx) else {
                                skipped_writes.push(target);
                                continue;
                            };
                            let key = cache::request_key(&m.config, &prompt, run_index);
                            if let Some(&j) = by_key.get(&(mi, key.clone())) {
                                jobs[j].targets.push(target);
                                continue;
                            }
                            let cached = project.response(&key)?.map(|r| cache::from_stored(&r));
                            by_key.insert((mi, key.clone()), jobs.len());
                            jobs.push(Job {
                                key,
                                model: mi,
                                prompt,
                                cached,
                                targets: vec![target],
                            });
                        }
                    }
                }
            }
        }
    }
    Ok(Plan {
        jobs,
        run_ids,
        run_models,
        expected,
        skipped_writes,
        total,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{save_model, ModelConfig};
    use crate::prompt::Variant;
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
        // 3 items x 2 versions x 2 variants = 12 targets; b and c have no explicit question.
        assert_eq!(plan.total, 12);
        assert_eq!(plan.skipped_writes.len(), 4);
        // Nothing was edited, so before and after ask the same thing: one request serves both.
        assert_eq!(plan.jobs.len(), 4);
        assert!(plan.jobs.iter().all(|j| j.targets.len() == 2));
        assert_eq!(plan.run_ids.len(), 4);
        assert!(plan.expected.values().all(|n| *n == 3));
    }
}
