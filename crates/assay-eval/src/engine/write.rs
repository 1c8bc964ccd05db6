//! The one writing connection: results arrive through a bounded channel and are committed
//! in batches as soon as they arrive.

use std::path::PathBuf;

use tokio::sync::mpsc;

use super::plan::Target;
use crate::cache;
use crate::client::ChatResponse;
use crate::error::Result;
use crate::scorers::Scored;
use assay_core::store::{RunItemResult, RunWrite};
use assay_core::Project;

pub(super) enum Write {
    Response {
        key: String,
        response: ChatResponse,
        prompt: String,
    },
    Result {
        target: Target,
        key: Option<String>,
        from_cache: bool,
        outcome: &'static str,
        scored: Option<Scored>,
        error: Option<String>,
    },
}

pub(super) fn write_batch(project: &mut Project, batch: Vec<Write>) -> assay_core::Result<()> {
    let rows: Vec<RunWrite> = batch
        .into_iter()
        .map(|w| match w {
            Write::Response {
                key,
                response,
                prompt,
            } => RunWrite::Response {
                key,
                response: cache::to_stored(&response),
                prompt,
            },
            Write::Result {
                target,
                key,
                from_cache,
                outcome,
                scored,
                error,
            } => {
                let (score, parsed, evidence) = match scored {
                    Some(s) => (s.score, s.parsed, Some(s.evidence.to_string())),
                    None => (None, None, None),
                };
                RunWrite::Result {
                    run_id: target.run_id,
                    result: RunItemResult {
                        item_id: target.item_id,
                        item_rev: target.rev,
                        cache_key: key,
                        outcome: outcome.to_string(),
                        from_cache,
                        score,
                        parsed,
                        evidence,
                        error,
                        scorer: Some(target.scorer.as_str().to_string()),
                        scorer_version: Some(target.scorer.version()),
                    },
                }
            }
        })
        .collect();
    project.write_run_batch(&rows)
}

/// Owns the only writing connection; commits whatever has arrived, as soon as it arrives.
pub(super) fn spawn_writer(
    path: PathBuf,
    mut rx: mpsc::Receiver<Write>,
) -> std::thread::JoinHandle<Result<()>> {
    std::thread::spawn(move || {
        let mut project = Project::open(&path)?;
        // A failed write ends this thread and drops the receiver: the engine sees its next send
        // fail and stops the run instead of paying for answers it cannot keep.
        while let Some(first) = rx.blocking_recv() {
            let mut batch = vec![first];
            while let Ok(more) = rx.try_recv() {
                batch.push(more);
                if batch.len() >= 512 {
                    break;
                }
            }
            write_batch(&mut project, batch)?;
        }
        Ok(())
    })
}
