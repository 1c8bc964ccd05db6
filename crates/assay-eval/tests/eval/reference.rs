//! Side by side with the seeds' own published evaluation code (`../shared/reference`, run by
//! `tests/reference/side_by_side.py`): the same inputs through their functions and Assay's,
//! every number equal, or the difference named here as a decision (docs/PROTOCOLS.md).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use assay_core::ItemContent;
use assay_eval::scorers::{checklist_judge, judge};
use serde_json::{json, Value};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The seeds' code: `ASSAY_REFERENCE`, else `../shared/reference` beside the checkout.
fn reference() -> Option<PathBuf> {
    let dir = std::env::var_os("ASSAY_REFERENCE")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("../shared/reference"));
    dir.join("haerae-vision/utils/evaluate.py")
        .exists()
        .then_some(dir)
}

/// The interpreter of target/reference-venv (Pillow for the crops), made once per test run,
/// or again when the pins change.
fn python() -> PathBuf {
    static PY: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    PY.get_or_init(|| {
        let venv = root().join("target/reference-venv");
        let requirements = root().join("tests/reference/requirements.txt");
        let wanted = std::fs::read_to_string(&requirements).unwrap();
        let stamp = venv.join("assay-requirements.txt");
        let py = venv.join("bin/python");
        if std::fs::read_to_string(&stamp).ok().as_deref() != Some(wanted.as_str()) || !py.exists()
        {
            let _ = std::fs::remove_dir_all(&venv);
            let ok = |c: &mut Command| {
                let out = c.output().expect("python3");
                assert!(
                    out.status.success(),
                    "{c:?}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
            };
            ok(Command::new("python3").args(["-m", "venv"]).arg(&venv));
            ok(Command::new(&py)
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                    "-r",
                ])
                .arg(&requirements));
            std::fs::write(&stamp, wanted).unwrap();
        }
        py
    })
    .clone()
}

/// Their functions' answers to `request` (see side_by_side.py); None without their code.
fn theirs(request: &Value) -> Option<Value> {
    let Some(dir) = reference() else {
        eprintln!(
            "SKIPPED: the seeds' reference code is not beside this checkout (../shared/reference) \
             and ASSAY_REFERENCE is not set"
        );
        return None;
    };
    let mut child = Command::new(python())
        .arg(root().join("tests/reference/side_by_side.py"))
        .arg(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(request.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "side_by_side.py: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

/// The judge replies of the HAERAE-Vision sample's scored results, read by `score.py`'s rule.
fn sample_replies() -> Vec<(String, String)> {
    let path =
        root().join("tests/fixtures/formats/haerae-vision/results/gpt4o_original_scored.csv");
    csv::Reader::from_path(path)
        .unwrap()
        .deserialize::<std::collections::HashMap<String, String>>()
        .map(|r| {
            let r = r.unwrap();
            (r["judge_response"].clone(), r["checklist"].clone())
        })
        .collect()
}

#[test]
fn haerae_vision_judge_replies_read_as_score_py_reads_them() {
    let mut replies: Vec<String> = sample_replies().into_iter().map(|r| r.0).collect();
    // Replies no rule was written for: spacing, case, decimals, full-width digits, a score above
    // one, a sign, no tag, two tags, a zero denominator, a placeholder, prose around the tag.
    for r in [
        "<score>3/5</score>",
        "<SCORE>\n 2.5 / 4 \n</SCORE>",
        "<score>0.3/3</score>",
        "<score>.5</score>",
        "<score>0.25</score>",
        "<score>３/５</score>",
        "<score>7/5</score>",
        "<score>-1/2</score>",
        "<score>+2/3</score>",
        "score: 3/5",
        "<score>1/2</score> and again <score>1/2</score>",
        "<score>1/0</score>",
        "<score>K/N</score>",
        "<score>60%</score>",
        "Here is my grading.\n<evidence>\nItem 1:\nmet: 1\n</evidence>\n<score>\n1/1 \n</score>\nThanks!",
        "<score>3/5 items</score>",
        "",
    ] {
        replies.push(r.to_string());
    }
    let Some(them) = theirs(&json!({ "haerae_scores": replies })) else {
        return;
    };
    let item = ItemContent {
        checklist: vec!["one".into(), "two".into(), "three".into(), "four".into()],
        ..Default::default()
    };
    let mut unparsed = 0;
    for (reply, want) in replies
        .iter()
        .zip(them["haerae_scores"].as_array().unwrap())
    {
        let ours = checklist_judge::parse(reply, &item).score;
        assert_eq!(ours, want.as_f64(), "{reply:?}");
        unparsed += usize::from(ours.is_none());
        // What a run reads (with the earlier JSON form beside it) agrees too.
        assert_eq!(
            judge::parse_checklist(reply, &item).score,
            ours,
            "{reply:?}"
        );
    }
    assert!(unparsed >= 8, "the refusals were exercised: {unparsed}");
}

#[test]
fn haerae_vision_judge_message_is_score_py_s() {
    let cases: Vec<(String, String, Vec<String>)> = sample_replies()
        .into_iter()
        .map(|(_, c)| {
            (
                "천장에 설치된 흰색 고리형 행거를 어떻게 제거하나요?".to_string(),
                "응답 {with braces} and \"quotes\"".to_string(),
                // A checklist as the stored item holds it; sent as a JSON array.
                c.split('\'')
                    .skip(1)
                    .step_by(2)
                    .map(str::to_string)
                    .collect(),
            )
        })
        .collect();
    let request: Vec<Value> = cases
        .iter()
        .map(|(q, a, c)| json!([q, a, serde_json::to_string(c).unwrap()]))
        .collect();
    let Some(them) = theirs(&json!({ "haerae_messages": request })) else {
        return;
    };
    for ((q, a, c), want) in cases
        .iter()
        .zip(them["haerae_messages"].as_array().unwrap())
    {
        assert_eq!(checklist_judge::prompt(q, c, a), want.as_str().unwrap());
    }
    // One user message, no system message: the judge request Assay makes.
    for roles in them["haerae_roles"].as_array().unwrap() {
        assert_eq!(roles, &json!(["user"]));
    }
    let item = ItemContent {
        checklist: cases[0].2.clone(),
        ..Default::default()
    };
    let (system, text) = judge::judge_request(
        assay_eval::ScorerKind::ChecklistJudge,
        &cases[0].0,
        &item,
        &cases[0].1,
    );
    assert_eq!(system, None);
    assert_eq!(text, them["haerae_messages"][0].as_str().unwrap());
}

#[test]
fn crag_mm_distance_to_the_centre_is_calculate_distance() {
    use assay_core::grounding::metrics::center_distance;
    // The paper's frames (3024 x 4032), landscape and square ones, a box at the centre, in a
    // corner, a sliver, and one centred outside the image.
    let cases: Vec<((u32, u32), [f64; 4])> = vec![
        ((3024, 4032), [643.0, 1610.0, 2854.0, 2388.0]),
        ((3024, 4032), [2000.0, 100.0, 2400.0, 500.0]),
        ((3024, 4032), [100.0, 1700.0, 700.0, 2300.0]),
        ((4032, 3024), [3100.0, 900.0, 3900.0, 1500.0]),
        ((200, 100), [70.0, 45.0, 80.0, 55.0]),
        ((512, 384), [200.0, 280.0, 310.0, 342.0]),
        ((1000, 1000), [0.0, 0.0, 10.0, 10.0]),
        ((1000, 1000), [490.0, 490.0, 510.0, 510.0]),
        ((100, 100), [150.0, 150.0, 250.0, 250.0]),
        ((1080, 1920), [371.5, 492.25, 575.0, 1050.75]),
    ];
    let request: Vec<Value> = cases.iter().map(|(s, b)| json!([[s.0, s.1], b])).collect();
    let Some(them) = theirs(&json!({ "crag_distance": request })) else {
        return;
    };
    for ((size, b), want) in cases.iter().zip(them["crag_distance"].as_array().unwrap()) {
        let bx = assay_core::BBox {
            x_min: b[0],
            y_min: b[1],
            x_max: b[2],
            y_max: b[3],
        };
        let ours = center_distance(&bx, size.0, size.1);
        assert_eq!(ours, want.as_f64().unwrap(), "{size:?} {b:?}");
    }
    // The two targets whose order the per-axis normalisation swapped on a 3024 x 4032 photo
    // are in the official order.
    let d = |b: [f64; 4]| {
        center_distance(
            &assay_core::BBox {
                x_min: b[0],
                y_min: b[1],
                x_max: b[2],
                y_max: b[3],
            },
            3024,
            4032,
        )
    };
    let (a, b) = (d(cases[1].1), d(cases[2].1));
    let (ta, tb) = (
        them["crag_distance"][1].as_f64().unwrap(),
        them["crag_distance"][2].as_f64().unwrap(),
    );
    assert_eq!(a < b, ta < tb);
}

/// The GT crop as the seed's ablation cuts it (`data_loader.py`: the 960 x 1280 frame, then
/// `image.crop` of the scaled box): the same rectangle of the frame, corner for corner, on the
/// paper's frames, a landscape one, corners at exactly half a pixel, and a box past the edge.
#[test]
fn crag_mm_gt_crop_is_the_ablations_crop_of_the_frame() {
    use assay_core::imaging::ImageView;
    let cases: Vec<((u32, u32), [f64; 4])> = vec![
        ((3024, 4032), [643.0, 1610.0, 2854.0, 2388.0]),
        ((3024, 4032), [2000.0, 100.0, 2400.0, 500.0]),
        ((4032, 3024), [3100.0, 900.0, 3900.0, 1500.0]),
        ((960, 1280), [2.5, 1.5, 5.5, 4.0]),
        ((1920, 2560), [1.0, 3.0, 5.0, 7.0]),
        ((1080, 1920), [371.5, 492.25, 575.0, 1050.75]),
        ((512, 384), [0.0, 0.0, 512.0, 384.0]),
    ];
    let request: Vec<Value> = cases.iter().map(|(s, b)| json!([[s.0, s.1], b])).collect();
    let Some(them) = theirs(&json!({ "crag_crop": request })) else {
        return;
    };
    for ((size, b), want) in cases.iter().zip(them["crag_crop"].as_array().unwrap()) {
        let bx = assay_core::BBox {
            x_min: b[0],
            y_min: b[1],
            x_max: b[2],
            y_max: b[3],
        };
        let ours = ImageView::crop_in_frame(&[bx], size.0, size.1, (960, 1280)).unwrap();
        let ImageView::FrameCrop {
            x,
            y,
            width,
            height,
            ..
        } = ours
        else {
            panic!("{ours:?}")
        };
        assert_eq!(json!([x, y, width, height]), *want, "{size:?} {b:?}");
    }
}

/// CRAG-MM's two judged stages as `_evaluate_response` runs them: the exact match that needs
/// no judge, the judge's messages (system and user) character for character, and the verdict
/// taken from the judge. The identification reply is read by `_parse_response` first.
#[test]
fn crag_mm_judged_stages_ask_and_decide_as_evaluate_py() {
    use assay_eval::scorers::{ScoreContext, ScorerKind};
    // (task, question, reference, reply, the judge's verdict)
    let cases = [
        (
            "whole",
            "who will win the game?",
            "Lakers is favored to win the game.",
            "lakers is favored to win the game. ",
            false,
        ),
        (
            "whole",
            "who will win the game?",
            "Lakers is favored to win the game.",
            "The Lakers, most likely.",
            true,
        ),
        (
            "whole",
            "how tall is it?",
            "About 443 m",
            "Sorry, I can't tell.",
            false,
        ),
        (
            "whole",
            "is this édifice old?",
            "Ça date de 1889 {braces}",
            "ÇA DATE DE 1889 {BRACES}",
            false,
        ),
        (
            "knowledge_extraction",
            "which came out first, the ford fusion or the ford focus?",
            "The Ford Focus",
            "Focus",
            true,
        ),
        (
            "object_identification",
            "Is this a good car?",
            "KIA K5",
            "target_object: [Kia Optima]",
            true,
        ),
        (
            "object_identification",
            "Is this a good car?",
            "KIA K5",
            "[kia k5]",
            false,
        ),
        (
            "object_identification_with_original",
            "What is it?",
            "Ford F-150",
            "Ford F-series",
            false,
        ),
    ];
    let request: Vec<Value> = cases
        .iter()
        .map(|(task, q, gt, reply, verdict)| {
            json!({"task": task, "query": q, "ground_truth": gt, "reply": reply, "verdict": verdict})
        })
        .collect();
    let Some(them) = theirs(&json!({ "crag_judge": request })) else {
        return;
    };
    for ((task, q, gt, reply, verdict), want) in
        cases.iter().zip(them["crag_judge"].as_array().unwrap())
    {
        let (kind, item) = if task.starts_with("object_identification") {
            let item = ItemContent {
                entity_name: Some(gt.to_string()),
                ..Default::default()
            };
            (ScorerKind::Identification, item)
        } else {
            let item = ItemContent {
                answer: Some(gt.to_string()),
                ..Default::default()
            };
            (ScorerKind::CragQa, item)
        };
        let local = kind
            .local()
            .unwrap()
            .score(&item, reply, &ScoreContext::default());
        assert_eq!(
            local.parsed.as_deref(),
            want["prediction"].as_str(),
            "{task}: {reply:?}"
        );
        let asked = local.evidence["needs_judge"] == true;
        assert_eq!(asked, !want["messages"].is_null(), "{task}: {reply:?}");
        let scored = if asked {
            let (system, user) = kind.miss_request(q, &item, local.parsed.as_deref().unwrap());
            assert_eq!(system, want["messages"][0]["content"].as_str(), "{task}");
            assert_eq!(want["messages"][0]["role"], "system");
            assert_eq!(Some(user.as_str()), want["messages"][1]["content"].as_str());
            let raw = format!(
                "{{'explanation': '...', 'accuracy': {}}}",
                if *verdict { "True" } else { "False" }
            );
            kind.miss_judged(&local, &raw, "j")
        } else {
            local
        };
        assert_eq!(
            scored.score,
            Some(f64::from(u8::from(want["is_correct"].as_bool().unwrap()))),
            "{task}: {reply:?}"
        );
    }
}

/// Grounding hits as the seed scores them: the reply read by `_parse_response` (the first
/// whole-number `[x1, y1, x2, y2]`, else the whole 960 x 1280 frame), the reference scaled into
/// that frame, IoU >= 0.5. Assay reads the reply in the CRAG-MM convention and compares in the
/// original's pixels: the same IoU (a per-axis scale changes no IoU) and the same hit.
#[test]
fn crag_mm_grounding_hits_are_evaluate_grounding_s() {
    use assay_eval::scorers::grounding::{BoxConvention, GroundingScorer};
    use assay_eval::scorers::{ScoreContext, Scorer};
    let cases: Vec<((u32, u32), [f64; 4], &str)> = vec![
        (
            (4032, 3024),
            [1008.0, 756.0, 2016.0, 1512.0],
            "[240, 320, 480, 640]",
        ),
        (
            (4032, 3024),
            [1008.0, 756.0, 2016.0, 1512.0],
            "The box is [250,330,470,650].",
        ),
        (
            (3024, 4032),
            [643.0, 1610.0, 2854.0, 2388.0],
            "[204, 511, 906, 758]",
        ),
        (
            (3024, 4032),
            [643.0, 1610.0, 2854.0, 2388.0],
            "Output: [204.5, 511, 906, 758]",
        ),
        (
            (3024, 4032),
            [643.0, 1610.0, 2854.0, 2388.0],
            "I cannot find it.",
        ),
        ((3024, 4032), [0.0, 0.0, 3024.0, 4032.0], "no box at all"),
        (
            (3024, 4032),
            [643.0, 1610.0, 2854.0, 2388.0],
            "[100, 100, 200, 200] or [204, 511, 906, 758]",
        ),
        ((1000, 1000), [0.0, 0.0, 100.0, 100.0], "[0, 0, 96, 64]"),
        ((1000, 1000), [0.0, 0.0, 100.0, 100.0], "[0, 0, 96, 63]"),
        (
            (512, 384),
            [100.0, 100.0, 300.0, 200.0],
            "(x1, y1, x2, y2) = [187, 333, 562, 667]",
        ),
    ];
    let request: Vec<Value> = cases
        .iter()
        .map(|(s, b, r)| json!({"size": [s.0, s.1], "gt": b, "reply": r}))
        .collect();
    let Some(them) = theirs(&json!({ "crag_grounding": request })) else {
        return;
    };
    let ctx = ScoreContext {
        boxes: BoxConvention::CragMm,
        max_side: None,
    };
    let mut hits = 0;
    for ((size, b, reply), want) in cases.iter().zip(them["crag_grounding"].as_array().unwrap()) {
        let item = ItemContent {
            format: assay_core::AnswerFormat::Grounding,
            images: vec![assay_core::ItemImage {
                hash: "h".into(),
                width: size.0,
                height: size.1,
                name: None,
                source_id: None,
                target_boxes: vec![assay_core::LabeledBox::plain(assay_core::BBox {
                    x_min: b[0],
                    y_min: b[1],
                    x_max: b[2],
                    y_max: b[3],
                })],
                person_boxes: Vec::new(),
            }],
            ..Default::default()
        };
        let s = GroundingScorer.score(&item, reply, &ctx);
        let iou = s.evidence["iou"].as_f64().unwrap();
        let theirs_iou = want["iou"].as_f64().unwrap();
        assert!(
            (iou - theirs_iou).abs() < 1e-9,
            "{reply:?}: {iou} vs {theirs_iou}"
        );
        assert_eq!(
            s.score == Some(1.0),
            want["hit"].as_bool().unwrap(),
            "{reply:?}"
        );
        hits += usize::from(s.score == Some(1.0));
    }
    assert!(hits >= 3, "the hits were exercised: {hits}");
}
