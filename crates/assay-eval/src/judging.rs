//! Judging a run whose responses are already stored: recorded predictions from other tools
//! scored with a judge (binary, checklist or 1-10 rating), exactly as live runs are. Judge
//! requests go through the response cache, so judging again costs nothing, and every result
//! is committed as it arrives, so an interrupted judging resumes where it stopped.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tokio::task::JoinSet;

use crate::cache;
use crate::cancel::CancelToken;
use crate::client::request_body;
use crate::dispatch::{Dispatcher, Outcome};
use crate::error::{EvalError, Result};
use crate::model::model_by_name;
use crate::scorers::{judge, ScorerKind};
use assay_core::store::RunItemResult;
use assay_core::Project;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct JudgeSummary {
    pub run_id: i64,
    pub judged: usize,
    pub from_cache: usize,
    pub unparsed: usize,
    pub errors: usize,
}

/// A finished judge request: (item, cache key, reply or error, request record).
type JudgeCall = (
    i64,
    String,
    std::result::Result<crate::client::ChatResponse, String>,
    String,
);

/// One question for a judge about one item.
pub(crate) struct JudgeAsk {
    pub(crate) item_id: i64,
    pub(crate) system: Option<&'static str>,
    pub(crate) text: String,
}

/// Asks `judge` every request, through the response cache, with the judge's concurrency;
/// `done` gets each item's reply (raw text, from the cache?) or error as it arrives, so an
/// interrupted judging keeps what was answered. Cancelled requests are not reported.
pub(crate) async fn ask_judge(
    project: &Project,
    judge: &crate::model::StoredModel,
    requests: Vec<JudgeAsk>,
    run_index: u32,
    cancel: &CancelToken,
    mut done: impl FnMut(&Project, i64, &str, std::result::Result<(String, bool), String>) -> Result<()>,
) -> Result<()> {
    let http = reqwest::Client::builder()
        .build()
        .map_err(|e| EvalError::Config(format!("HTTP client: {e}")))?;
    let dispatcher = Arc::new(Dispatcher::new(judge.config.clone(), http));
    let limit = judge.config.concurrency * judge.config.endpoints.len().max(1);
    let mut set: JoinSet<JudgeCall> = JoinSet::new();
    let mut queue = requests.into_iter();
    loop {
        while set.len() < limit.max(1) && !cancel.is_cancelled() {
            let Some(ask) = queue.next() else { break };
            let key = cache::judge_key(&judge.config, ask.system, &ask.text, run_index);
            if let Some(hit) = project.response(&key)? {
                done(project, ask.item_id, &key, Ok((hit.text, true)))?;
                continue;
            }
            let record = cache::text_record(ask.system, &ask.text);
            let body = request_body(&judge.config, ask.system, &ask.text, &[]);
            let d = dispatcher.clone();
            let c = cancel.clone();
            let item_id = ask.item_id;
            set.spawn(async move {
                let r = match d.call(&body, &c).await {
                    Outcome::Ok(r) => Ok(r),
                    Outcome::Failed(e) => Err(e),
                    Outcome::Cancelled => Err("cancelled".into()),
                };
                (item_id, key, r, record)
            });
        }
        let Some(finished) = set.join_next().await else {
            break;
        };
        let (item_id, key, r, record) = finished.map_err(|e| EvalError::Config(e.to_string()))?;
        match r {
            Ok(resp) => {
                project.store_response(&key, &cache::to_stored(&resp), Some(&record))?;
                done(project, item_id, &key, Ok((resp.text, false)))?;
            }
            Err(_) if cancel.is_cancelled() => {}
            Err(e) => done(project, item_id, &key, Err(e))?,
        }
    }
    Ok(())
}

/// The rules' verdict a judge is asked to complete, as the store kept it.
fn rules_verdict(m: &assay_core::store::evaluation::runs::PendingMiss) -> crate::scorers::Scored {
    crate::scorers::Scored {
        score: m.score,
        parsed: m.parsed.clone(),
        evidence: serde_json::from_str(&m.evidence).unwrap_or_default(),
        hedged: false,
    }
}

/// Judges every item of `run_id` that has a stored response and no judgement by `scorer` yet.
pub async fn judge_run(
    project: &mut Project,
    run_id: i64,
    scorer: ScorerKind,
    judge_model: &str,
    cancel: CancelToken,
) -> Result<JudgeSummary> {
    let hybrid = crate::scorers::hybrid::decides(scorer);
    if !scorer.uses_judge() && !hybrid {
        return Err(EvalError::Config(format!(
            "scorer {} does not use a judge",
            scorer.as_str()
        )));
    }
    let judge = crate::trust::model_for_requests(project, judge_model)?;
    judge.config.validate()?;
    let run = project.run(run_id)?;
    let variant =
        crate::prompt::Variant::parse(&run.variant).unwrap_or(crate::prompt::Variant::Original);
    let exact_then_judge = scorer.exact_then_judge();
    let mut summary = JudgeSummary {
        run_id,
        ..Default::default()
    };
    let mut contents = std::collections::HashMap::new();
    // CRAG-MM's judged stages: what the exact-match rule found, which the judge's verdict
    // completes.
    let mut misses = std::collections::HashMap::new();
    let mut requests = Vec::new();
    if hybrid {
        // The rules' unsure verdicts, each with the reply they read.
        for m in project.pending_misses(run_id)? {
            let Some(response) = m.response.clone() else {
                continue;
            };
            let question = variant
                .question(&m.content)
                .map_or(m.content.question.clone(), |q| q.0.into_owned());
            let (system, text) =
                crate::scorers::hybrid::judge_request(&question, &m.content, &response);
            requests.push(JudgeAsk {
                item_id: m.item_id,
                system,
                text,
            });
            misses.insert(m.item_id, rules_verdict(&m));
            contents.insert(m.item_id, m.content);
        }
    } else if exact_then_judge {
        for m in project.pending_misses(run_id)? {
            let pred = m.parsed.clone().unwrap_or_default();
            let question = variant
                .question(&m.content)
                .map_or(m.content.question.clone(), |q| q.0.into_owned());
            let (system, text) = scorer.miss_request(&question, &m.content, &pred);
            requests.push(JudgeAsk {
                item_id: m.item_id,
                system,
                text,
            });
            misses.insert(m.item_id, rules_verdict(&m));
            contents.insert(m.item_id, m.content);
        }
    } else {
        for p in project.pending_judgements(run_id, scorer.as_str())? {
            let question = variant
                .question(&p.content)
                .map_or(p.content.question.clone(), |q| q.0.into_owned());
            let (system, text) = judge::judge_request(scorer, &question, &p.content, &p.response);
            requests.push(JudgeAsk {
                item_id: p.item_id,
                system,
                text,
            });
            contents.insert(p.item_id, p.content);
        }
    }
    let name = judge.config.name.clone();
    let mut decided: Vec<RunItemResult> = Vec::new();
    ask_judge(
        project,
        &judge,
        requests,
        run.run_index as u32,
        &cancel,
        |project, item_id, key, reply| match reply {
            Ok((raw, from_cache)) => {
                let s = match misses.get(&item_id) {
                    Some(local) if hybrid => {
                        let content = contents.get(&item_id).cloned().unwrap_or_default();
                        crate::scorers::hybrid::judged(local, &raw, &content, &name)
                    }
                    Some(local) => scorer.miss_judged(local, &raw, &name),
                    None => {
                        let content = contents.get(&item_id).cloned().unwrap_or_default();
                        judge::parse_judge(scorer, &raw, &content)
                    }
                };
                if s.score.is_none() {
                    summary.unparsed += 1;
                }
                summary.from_cache += usize::from(from_cache);
                summary.judged += 1;
                // A hybrid pass is written at its end as a rescore (the run's own cache counts
                // stay; its finished time moves so a team sees the new verdicts), each result
                // under its own rules' name (`auto` runs hold both).
                if hybrid {
                    let kind = contents
                        .get(&item_id)
                        .map_or(scorer, |c| ScorerKind::default_for(c.format));
                    let mut s = s;
                    s.evidence["judge_key"] = serde_json::json!(key);
                    decided.push(RunItemResult {
                        item_id,
                        item_rev: 0,
                        cache_key: None,
                        outcome: s.outcome().into(),
                        from_cache: true,
                        score: s.score,
                        parsed: s.parsed,
                        evidence: Some(s.evidence.to_string()),
                        error: None,
                        scorer: Some(kind.as_str().into()),
                        scorer_version: Some(kind.version()),
                    });
                    return Ok(());
                }
                write(
                    project,
                    run_id,
                    item_id,
                    key,
                    scorer,
                    Ok(s),
                    from_cache,
                    &name,
                )
            }
            Err(e) => {
                summary.errors += 1;
                // A judge that failed leaves the rules' verdict, unsure, as it was; an exact
                // match's miss stays waiting for a judge (the run is not complete), rather
                // than becoming an error with its reading lost.
                if hybrid || exact_then_judge {
                    Ok(())
                } else {
                    write(project, run_id, item_id, key, scorer, Err(e), false, &name)
                }
            }
        },
    )
    .await?;
    if !decided.is_empty() {
        project.write_rescore(run_id, &decided)?;
    }
    let left = if exact_then_judge || hybrid {
        project.pending_misses(run_id)?.len()
    } else {
        project.pending_judgements(run_id, scorer.as_str())?.len()
    };
    let status = if left == 0 {
        "complete"
    } else if cancel.is_cancelled() {
        "cancelled"
    } else {
        "incomplete"
    };
    // A hybrid pass completes a run that was complete already: its status stays.
    if !hybrid {
        project.set_run_status(run_id, status)?;
    }
    Ok(summary)
}

/// Replaces an item's result with the judge's (the recorded response stays as it was). The
/// judge's own reply is kept in the evidence, and its cache key in `judge_key`.
#[allow(clippy::too_many_arguments)]
fn write(
    project: &Project,
    run_id: i64,
    item_id: i64,
    judge_key: &str,
    scorer: ScorerKind,
    result: std::result::Result<crate::scorers::Scored, String>,
    from_cache: bool,
    judge_model: &str,
) -> Result<()> {
    let (outcome, score, parsed, evidence, error) = match result {
        Ok(mut s) => {
            s.evidence["judge_model"] = serde_json::json!(judge_model);
            s.evidence["judge_key"] = serde_json::json!(judge_key);
            (
                s.outcome(),
                s.score,
                s.parsed,
                Some(s.evidence.to_string()),
                None,
            )
        }
        Err(e) => ("error", None, None, None, Some(e)),
    };
    project.update_run_item(
        run_id,
        &RunItemResult {
            item_id,
            item_rev: 0,
            cache_key: None,
            outcome: outcome.into(),
            from_cache,
            score,
            parsed,
            evidence,
            error,
            scorer: Some(scorer.as_str().into()),
            scorer_version: Some(scorer.version()),
        },
    )?;
    Ok(())
}

/// One item's recorded checklist judgement: the model's answer and the judge's reply as another
/// tool wrote them (HAERAE-Vision's `score.py` keeps them as `response` and `judge_response`).
pub struct RecordedJudgement<'a> {
    pub ext_id: &'a str,
    pub response: &'a str,
    pub judge_reply: &'a str,
}

/// Records checklist judgements made elsewhere as a run of `model` on `dataset` (the after
/// version, original question), each reply read by the checklist scorer like a live judge's.
/// The item is judged at its current revision. Returns the run id.
pub fn record_checklist_judgements(
    project: &mut Project,
    model: &str,
    dataset: &str,
    run_index: u32,
    judgements: &[RecordedJudgement<'_>],
) -> Result<i64> {
    use assay_core::store::{RecordedResult, RunKey, Version};
    let model = model_by_name(project, model)?;
    let ds = project.dataset_by_name(dataset)?;
    let mut results = Vec::with_capacity(judgements.len());
    for j in judgements {
        let id = project.item_id_by_ext(dataset, j.ext_id)?;
        let item = project.item(id)?;
        let scored = judge::parse_checklist(j.judge_reply, &item.content);
        results.push(RecordedResult {
            result: RunItemResult {
                item_id: id,
                item_rev: item.rev,
                cache_key: None,
                outcome: if scored.score.is_some() {
                    "scored"
                } else {
                    "unparsed"
                }
                .into(),
                from_cache: false,
                score: scored.score,
                parsed: scored.parsed,
                evidence: Some(scored.evidence.to_string()),
                error: None,
                scorer: Some(ScorerKind::ChecklistJudge.as_str().into()),
                scorer_version: Some(ScorerKind::ChecklistJudge.version()),
            },
            response: j.response.to_string(),
            prompt: None,
        });
    }
    let key = RunKey {
        model_id: model.id,
        dataset_id: ds.id,
        version: Version::After,
        variant: crate::Variant::Original.as_str().into(),
        run_index,
        template: "default".into(),
        scorer: ScorerKind::ChecklistJudge.as_str().into(),
        source: "recorded".into(),
        protocol: None,
    };
    Ok(project.record_run(&key, &results, "complete")?)
}
