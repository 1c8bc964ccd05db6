//! The sample project's results, so a newcomer meets the before/after table, the triage queue
//! and a number that moves when an item is fixed, with no model server.
//!
//! The "models" are three synthetic ones (`synthetic-strong`, `-mid`, `-weak`): stub servers on
//! 127.0.0.1 that answer each jgraph-mini question from a fixed table, run through the real
//! engine once while the sample is built. Their responses are stored under the engine's own
//! request keys, so running again after an answer fix re-scores them with nothing sent; their
//! endpoints are then pointed at a closed port, so nothing else can be sent either. All three
//! read 117 mm for March in the rainfall chart where the reference says 171: triage ranks that
//! item first as a likely wrong reference, and fixing it lifts every model's "after" score.

use std::path::Path;
use std::sync::Arc;

use assay_core::store::{Author, Edit};
use assay_core::{IssueTag, ItemStatus, Project, RefinementOp, Role};

use crate::model::{save_model, ModelConfig};
use crate::stub::{Reply, Rule, StubConfig, StubServer};
use crate::{run_eval, CancelToken, EvalRequest, Result, Version};

/// A port nothing listens on: the demo models' endpoint once their answers are recorded.
pub const CLOSED_ENDPOINT: &str = "http://127.0.0.1:9/v1";

/// Each jgraph-mini question (a unique part of its text) and what each synthetic model answers.
const ANSWERS: [(&str, [&str; 3]); 12] = [
    ("棒グラフでCの値は", ["90", "90", "80"]),
    ("最も大きい値を持つ棒は", ["B", "B", "B"]),
    ("AとDの値の合計は", ["330", "300", "300"]),
    ("火曜日の来場者数は", ["80人", "80人", "80人"]),
    (
        "このグラフは良いグラフ",
        ["いいえ", "わかりません", "いいえ"],
    ),
    ("3月の降水量は", ["117", "117", "117"]),
    ("降水量が最も多い月は", ["APR", "APR", "MAR"]),
    ("日本の首都は", ["東京", "東京", "東京"]),
    ("What share does X have", ["64%", "64%", "46%"]),
    ("How much larger is X than Y", ["28", "18", "28"]),
    ("What is the value of bar A", ["120", "120", "120"]),
    ("2月と1月の差は", ["14", "14", "12"]),
];

pub const MODELS: [&str; 3] = ["synthetic-strong", "synthetic-mid", "synthetic-weak"];

/// The curation the sample starts with: jg-005 asks for an opinion, so it is removed.
fn curate(project: &mut Project) -> Result<()> {
    let u = project.ensure_user("sample-curator", Role::Annotator)?;
    let who = Author {
        user_id: u.id,
        role: Role::Annotator,
        round: 1,
    };
    let id = project.item_id_by_ext("jgraph-mini", "jg-005")?;
    let content = project.item(id)?.content;
    project.save_edit(
        id,
        &Edit {
            base_rev: None,
            content,
            op: Some(RefinementOp::Remove),
            tags: vec![IssueTag::Subjective],
            status: ItemStatus::Edited,
            note: Some("asks for an opinion: no reference answer can be right".into()),
        },
        &who,
    )?;
    Ok(())
}

/// Removes jg-005, then records the three synthetic models on jgraph-mini, original and
/// refined, and leaves their endpoints closed. For a project holding the sample's jgraph-mini.
pub async fn record_sample_runs(path: &Path) -> Result<()> {
    {
        let mut p = Project::open(path)?;
        curate(&mut p)?;
    }
    for (k, name) in MODELS.iter().enumerate() {
        let stub = StubServer::start(StubConfig {
            rules: ANSWERS
                .iter()
                .map(|(q, a)| Rule::always(q, Reply::Text(a[k].into())))
                .collect(),
            default_reply: Some(Reply::Text("I cannot tell.".into())),
            ..Default::default()
        })
        .await
        .map_err(|e| crate::EvalError::Config(format!("starting a sample model: {e}")))?;
        let cfg = ModelConfig {
            name: (*name).into(),
            model: format!("{name} (synthetic, made by Assay's sample tooling)"),
            endpoints: vec![stub.url.clone()],
            ..Default::default()
        };
        save_model(&Project::open(path)?, &cfg)?;
        let req = EvalRequest {
            models: vec![(*name).into()],
            datasets: vec!["jgraph-mini".into()],
            versions: vec![Version::Before, Version::After],
            runs: 1,
            ..Default::default()
        };
        run_eval(path, &req, Arc::new(|_| {}), CancelToken::new()).await?;
        drop(stub);
        let closed = ModelConfig {
            endpoints: vec![CLOSED_ENDPOINT.into()],
            ..cfg
        };
        save_model(&Project::open(path)?, &closed)?;
    }
    Ok(())
}
