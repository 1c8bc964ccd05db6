use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use assay_core::import::{import_path, ImportOptions};
use assay_core::Project;
use assay_eval::model::{save_model, ModelConfig};
use assay_eval::{run_eval, CancelToken, EvalRequest, EvalSummary};

/// A dataset of `n` short-answer items "q{i} ..." with answer "a{i}", plus `mc` multiple-choice
/// items "m{i} ..." whose correct option is B.
pub fn project(dir: &Path, n: usize, mc: usize) -> PathBuf {
    let path = dir.join("p.assay");
    let mut p = Project::create(&path).unwrap();
    let mut lines = String::new();
    for i in 0..n {
        lines.push_str(&format!(
            "{{\"id\": \"q{i}\", \"question\": \"q{i} what is it?\", \"answer\": \"a{i}\"}}\n"
        ));
    }
    for i in 0..mc {
        lines.push_str(&format!(
            "{{\"id\": \"m{i}\", \"question\": \"m{i} which one?\", \"options\": [\"x\", \"y\", \"z\"], \"answer\": 1}}\n"
        ));
    }
    let data = dir.join("set.jsonl");
    std::fs::write(&data, lines).unwrap();
    import_path(
        &mut p,
        &data,
        &ImportOptions::default(),
        &mut |_| {},
        &AtomicBool::new(false),
    )
    .unwrap();
    path
}

pub fn add_model(
    path: &Path,
    name: &str,
    endpoints: Vec<String>,
    tweak: impl FnOnce(&mut ModelConfig),
) {
    let p = Project::open(path).unwrap();
    let mut cfg = ModelConfig {
        name: name.into(),
        model: format!("{name}-id"),
        endpoints,
        max_retries: 3,
        timeout_secs: 5.0,
        ..Default::default()
    };
    tweak(&mut cfg);
    save_model(&p, &cfg).unwrap();
}

pub async fn eval(path: &Path, req: &EvalRequest) -> EvalSummary {
    run_eval(path, req, Arc::new(|_| {}), CancelToken::new())
        .await
        .unwrap()
}

pub fn request(models: &[&str], runs: u32) -> EvalRequest {
    EvalRequest {
        models: models.iter().map(|s| s.to_string()).collect(),
        datasets: vec!["set".into()],
        runs,
        ..Default::default()
    }
}

pub fn outcomes(path: &Path) -> Vec<(String, i64)> {
    let p = Project::open(path).unwrap();
    let mut st = p
        .connection()
        .prepare("SELECT outcome, count(*) FROM run_items GROUP BY outcome ORDER BY outcome")
        .unwrap();
    st.query_map([], |r| Ok((r.get(0).unwrap(), r.get(1).unwrap())))
        .unwrap()
        .map(|r| r.unwrap())
        .collect()
}

/// The published-format samples (tests/fixtures/formats).
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/formats")
}

/// A project holding one fixture dataset, imported under `name`.
pub fn fixture_project(dir: &Path, rel: &str, name: &str) -> PathBuf {
    let path = dir.join("p.assay");
    let mut p = Project::create(&path).unwrap();
    let opts = ImportOptions {
        name: Some(name.into()),
        ..Default::default()
    };
    import_path(
        &mut p,
        &fixtures().join(rel),
        &opts,
        &mut |_| {},
        &AtomicBool::new(false),
    )
    .unwrap();
    path
}

/// Options to import recorded predictions of `model` for the original set of `dataset`.
pub fn recorded(model: &str, dataset: &str) -> assay_eval::predictions::PredictionImport {
    assay_eval::predictions::PredictionImport {
        model: model.into(),
        dataset: dataset.into(),
        version: assay_eval::Version::Before,
        variant: assay_eval::Variant::Original,
        run_index: 1,
        scorer: None,
        format: None,
        box_convention: Default::default(),
        max_side: None,
        id_field: "id".into(),
        text_field: "prediction".into(),
        filter: None,
    }
}

/// Saves an edit of one item by annotator "aiko", as a person would in the editor.
pub fn edit_item(
    path: &Path,
    dataset: &str,
    ext: &str,
    op: assay_core::RefinementOp,
    change: impl FnOnce(&mut assay_core::ItemContent),
) {
    use assay_core::store::{Author, Edit};
    use assay_core::{ItemStatus, Role};
    let mut p = Project::open(path).unwrap();
    let u = p.ensure_user("aiko", Role::Annotator).unwrap();
    let id = p.item_id_by_ext(dataset, ext).unwrap();
    let mut content = p.item(id).unwrap().content;
    change(&mut content);
    let edit = Edit {
        base_rev: None,
        content,
        op: Some(op),
        tags: vec![],
        status: ItemStatus::Edited,
        note: None,
    };
    let author = Author {
        user_id: u.id,
        role: Role::Annotator,
        round: 1,
    };
    p.save_edit(id, &edit, &author).unwrap();
}
