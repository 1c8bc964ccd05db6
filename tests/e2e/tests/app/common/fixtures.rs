//! The sample project a scenario works on, the scenario's world around it, and the project as
//! stored, read beside the window.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use fantoccini::Client;

use super::driver::{app_binary, launch, Driver};
use super::window::{click, fill, start_session, wait_for, SOFTWARE_DRAWING};
use super::{root, until};

fn sample_project(dir: &Path) -> PathBuf {
    let path = dir.join("sample.assay");
    let mut p = assay_core::Project::create(&path).unwrap();
    for f in [
        "jgraph-mini/jgraph-mini.jsonl",
        "vague-mini/vague-mini.json",
        "haerae-mini/haerae-mini.jsonl",
        "crag-mini/crag-mini.jsonl",
    ] {
        assay_core::import::import_path(
            &mut p,
            &root().join("assets/sample").join(f),
            &Default::default(),
            &mut |_| {},
            &AtomicBool::new(false),
        )
        .unwrap();
    }
    record_checklist_judgement(&mut p);
    path
}

/// A checklist judge's recorded judgement of haerae-mini item 101 (met, not met, partially
/// met: S = 0.5), so the item shows a run whose criteria a person can rate.
fn record_checklist_judgement(p: &mut assay_core::Project) {
    let model = assay_eval::model::ModelConfig {
        name: "judge-recorded".into(),
        model: "gpt-4o".into(),
        endpoints: vec!["http://127.0.0.1:9/v1".into()],
        ..Default::default()
    };
    assay_eval::model::save_model(p, &model).unwrap();
    let reply = r#"[{"rating": "met", "evidence": "EXIT means way out", "justification": "stated"},
                    {"rating": "not met", "evidence": "", "justification": "no direction given"},
                    {"rating": "partially met", "evidence": "use the stairs", "justification": "no fire case"}]"#;
    let judged = [assay_eval::judging::RecordedJudgement {
        ext_id: "101",
        response: "EXIT is the way out; take the stairs.",
        judge_reply: reply,
    }];
    assay_eval::judging::record_checklist_judgements(
        p,
        "judge-recorded",
        "haerae-mini",
        1,
        &judged,
    )
    .unwrap();
}

/// One scenario's world: its own copy of the sample project, its own preferences folder and its
/// own tauri-driver, so a scenario depends on no other and a failure in one hides none of the
/// rest. Scenarios take turns (one window, one display, and the preferences folder is an
/// environment variable of this process).
pub struct Scenario {
    pub project: PathBuf,
    pub driver: Driver,
    _dir: tempfile::TempDir,
    _turn: std::sync::MutexGuard<'static, ()>,
}

static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());

impl Scenario {
    pub fn new(name: &str) -> Self {
        Self::drawing(name, None)
    }

    pub fn drawing(name: &str, compositing: Option<&str>) -> Self {
        let turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
        assert!(
            app_binary().exists(),
            "build the app first: cargo xtask e2e"
        );
        eprintln!("e2e: scenario {name}");
        let dir = tempfile::tempdir().unwrap();
        let project = sample_project(dir.path());
        std::env::set_var("ASSAY_CONFIG_DIR", dir.path().join("config"));
        SOFTWARE_DRAWING.store(
            compositing == Some("0"),
            std::sync::atomic::Ordering::SeqCst,
        );
        Scenario {
            project,
            driver: Driver::start(compositing),
            _dir: dir,
            _turn: turn,
        }
    }

    pub async fn launch(&self) -> Client {
        launch(&self.driver, &self.project).await
    }

    /// Opens the window and starts working as `user`, in `role` if given (the first person of
    /// a project may start as an auditor).
    pub async fn start_as(&self, user: &str, role: Option<&str>) -> Client {
        let c = self.launch().await;
        wait_for(&c, "[data-testid=user-name]").await;
        if let Some(r) = role {
            fill(&c, "[data-testid=user-name]", user).await;
            click(&c, &format!("[data-testid=role-{r}]")).await;
            start_session(&c, None).await;
        } else {
            start_session(&c, Some(user)).await;
        }
        c
    }

    /// Saves an edit through the store, as another process would, before the window opens.
    pub fn edit(&self, ext: &str, who: &str, change: impl FnOnce(&mut assay_core::ItemContent)) {
        use assay_core::store::{Author, Edit};
        let mut p = assay_core::Project::open(&self.project).unwrap();
        let u = p.sign_in(who, assay_core::Role::Annotator).unwrap();
        let id = p.item_id_by_ext("jgraph-mini", ext).unwrap();
        let mut edit = Edit::answer_fix(&p.item(id).unwrap(), "");
        edit.content = p.item(id).unwrap().content;
        change(&mut edit.content);
        let author = Author {
            user_id: u.id,
            role: u.role,
            round: 1,
        };
        p.save_edit(id, &edit, &author).unwrap();
    }
}

/// An item's content as stored in the project file now.
pub fn stored(project: &Path, dataset: &str, ext: &str) -> assay_core::ItemContent {
    let p = assay_core::Project::open(project).unwrap();
    p.item(p.item_id_by_ext(dataset, ext).unwrap())
        .unwrap()
        .content
}

/// Polls the project file until `check` holds for one item's stored content.
pub async fn wait_stored(
    c: &Client,
    project: &Path,
    (dataset, ext): (&str, &str),
    what: &str,
    check: impl Fn(&assay_core::ItemContent) -> bool,
) {
    until(
        c,
        || {
            let now = stored(project, dataset, ext);
            format!(
                "never stored: {what}; stored: ref {:?}, checklist {:?}, boxes {:?}",
                now.ref_type,
                now.checklist,
                now.images.first().map(|i| &i.target_boxes)
            )
        },
        || std::future::ready(check(&stored(project, dataset, ext))),
    )
    .await;
}
