//! The bundled sample project: four small datasets in the four shapes Assay handles, with images
//! drawn here (charts with known values, scenes with numbered people, signs with text), written
//! in the public layouts the importers detect.

use std::path::Path;

use anyhow::Result;
use serde_json::json;

use crate::draw::{canvas, fill_circle, fill_rect, stroke_rect};
use crate::font::{draw_text, text_width};

const PALETTE: [[u8; 3]; 5] = [
    [66, 133, 244],
    [219, 68, 55],
    [244, 180, 0],
    [15, 157, 88],
    [171, 71, 188],
];

fn save(img: &image::RgbImage, path: &Path) -> Result<()> {
    img.save(path)?;
    Ok(())
}

fn write_jsonl(path: &Path, rows: &[serde_json::Value]) -> Result<()> {
    let mut s = String::new();
    for r in rows {
        s.push_str(&serde_json::to_string(r)?);
        s.push('\n');
    }
    std::fs::write(path, s)?;
    Ok(())
}

/// A bar chart whose bars carry their values, so the answers are checkable from the image.
fn bar_chart(labels: &[&str], values: &[u32]) -> image::RgbImage {
    let (w, h) = (480, 320);
    let mut img = canvas(w, h, [255, 255, 255]);
    fill_rect(&mut img, 40, 270, 420, 3, [40, 40, 40]);
    fill_rect(&mut img, 40, 30, 3, 243, [40, 40, 40]);
    let max = *values.iter().max().unwrap_or(&1) as f64;
    let bw = 360 / labels.len() as u32;
    for (i, (l, v)) in labels.iter().zip(values).enumerate() {
        let bh = ((*v as f64 / max) * 200.0) as u32;
        let x = 60 + i as u32 * bw;
        fill_rect(
            &mut img,
            x,
            270 - bh,
            bw - 20,
            bh,
            PALETTE[i % PALETTE.len()],
        );
        let vt = v.to_string();
        draw_text(
            &mut img,
            x + (bw - 20).saturating_sub(text_width(&vt, 2)) / 2,
            255 - bh,
            &vt,
            2,
            [20, 20, 20],
        );
        draw_text(
            &mut img,
            x + (bw - 20).saturating_sub(text_width(l, 2)) / 2,
            282,
            l,
            2,
            [20, 20, 20],
        );
    }
    img
}

fn jgraph(dir: &Path) -> Result<()> {
    let charts: &[(&str, &[&str], &[u32])] = &[
        ("sales", &["A", "B", "C", "D"], &[120, 340, 90, 210]),
        ("visitors", &["MON", "TUE", "WED"], &[45, 80, 62]),
        (
            "rain",
            &["JAN", "FEB", "MAR", "APR", "MAY"],
            &[52, 38, 117, 130, 96],
        ),
        ("share", &["X", "Y"], &[64, 36]),
    ];
    std::fs::create_dir_all(dir.join("images"))?;
    for (name, labels, values) in charts {
        save(
            &bar_chart(labels, values),
            &dir.join(format!("images/{name}.png")),
        )?;
    }
    let rows = vec![
        json!({"question_id": "jg-001", "question": "棒グラフでCの値はいくつですか？", "answer": "90", "image": "images/sales.png", "category": "chart"}),
        json!({"question_id": "jg-002", "question": "最も大きい値を持つ棒はどれですか？", "answer": "B", "image": "images/sales.png", "category": "chart"}),
        json!({"question_id": "jg-003", "question": "AとDの値の合計はいくつですか？", "answer": "330", "image": "images/sales.png", "category": "arithmetic"}),
        json!({"question_id": "jg-004", "question": "火曜日の来場者数は何人ですか？", "answer": "80人", "image": "images/visitors.png", "category": "chart"}),
        json!({"question_id": "jg-005", "question": "このグラフは良いグラフですか？", "answer": "はい", "image": "images/visitors.png", "category": "opinion"}),
        json!({"question_id": "jg-006", "question": "3月の降水量は何mmですか？", "answer": "171", "image": "images/rain.png", "category": "chart"}),
        json!({"question_id": "jg-007", "question": "降水量が最も多い月はどれですか？", "answer": "APR", "image": "images/rain.png", "category": "chart"}),
        json!({"question_id": "jg-008", "question": "日本の首都はどこですか？", "answer": "東京", "image": "images/rain.png", "category": "knowledge"}),
        json!({"question_id": "jg-009", "question": "What share does X have?", "answer": "64%", "image": "images/share.png", "category": "chart"}),
        json!({"question_id": "jg-010", "question": "How much larger is X than Y, in points?", "answer": "28", "image": "images/share.png", "category": "arithmetic"}),
        json!({"question_id": "jg-011", "question": "<img src=x onerror=alert(1)> <script>alert('xss')</script> What is the value of bar A?", "answer": "120", "image": "images/sales.png", "category": "chart"}),
        json!({"question_id": "jg-012", "question": "2月と1月の差はいくつですか？", "answer": "14", "image": "images/rain.png", "category": "arithmetic"}),
    ];
    write_jsonl(&dir.join("jgraph-mini.jsonl"), &rows)
}

/// A scene with numbered person indicators drawn at the centre of each person's box.
fn scene(
    people: &[(u32, u32)],
    objects: &[(u32, u32, [u8; 3])],
) -> (image::RgbImage, Vec<[u32; 4]>) {
    let mut img = canvas(512, 384, [232, 226, 214]);
    fill_rect(&mut img, 0, 250, 512, 134, [180, 160, 130]);
    let mut boxes = Vec::new();
    for (i, (x, y)) in people.iter().enumerate() {
        let (w, h) = (60, 150);
        fill_circle(
            &mut img,
            (*x + w / 2) as i32,
            *y as i32 + 20,
            18,
            [240, 200, 170],
        );
        fill_rect(
            &mut img,
            *x + 8,
            *y + 40,
            w - 16,
            h - 40,
            PALETTE[i % PALETTE.len()],
        );
        fill_circle(
            &mut img,
            (*x + w / 2) as i32,
            (*y + h / 2) as i32,
            13,
            [255, 255, 255],
        );
        draw_text(
            &mut img,
            *x + w / 2 - 5,
            *y + h / 2 - 7,
            &(i + 1).to_string(),
            2,
            [0, 0, 0],
        );
        boxes.push([*x, *y, *x + w, *y + h]);
    }
    for (x, y, c) in objects {
        fill_rect(&mut img, *x, *y, 40, 30, *c);
    }
    (img, boxes)
}

fn vague(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir.join("images"))?;
    let specs = [
        (
            "kitchen",
            vec![(60, 120), (220, 110), (380, 130)],
            vec![(300, 270, [90, 90, 90])],
        ),
        (
            "office",
            vec![(100, 100), (320, 120)],
            vec![(200, 280, [30, 30, 120])],
        ),
        (
            "park",
            vec![(40, 130), (180, 120), (300, 115), (420, 125)],
            vec![],
        ),
    ];
    // VAGUE's published layout (README "Json format", utils/util.py): `image_name` without
    // extension (the file is `image_name` + `_annot.jpg`, names may hold dots and `@`), the
    // options under fixed keys with `mcq.ordering[i]` the letter of option i, `solution` a
    // "(subject, action, object)" string, person boxes as float [x1, y1, x2, y2] lists.
    let mut rows = Vec::new();
    let qa = [
        (
            "kitchen",
            "vg-001",
            "It's nice to see some things are more interesting than my cooking.",
            "Hey, person2, put the phone down and eat.",
            "(person2, put down, phone)",
            [
                "The speaker wants person2 to put the phone down and eat.",
                "The speaker wants person5 to wash the dishes.",
                "The speaker wants person2 to cook more interesting food.",
                "The speaker wants person3 to turn off the television.",
            ],
            ["B", "D", "A", "C"],
        ),
        (
            "office",
            "vg-002",
            "It's getting a little chilly in here, isn't it?",
            "Hey, person1, close the window.",
            "(person1, close, window)",
            [
                "The speaker wants person1 to close the window.",
                "The speaker wants person2 to buy a new coat.",
                "The speaker wants person1 to say that it is cold.",
                "The speaker wants person2 to turn off the air conditioner.",
            ],
            ["A", "C", "B", "D"],
        ),
        (
            "park",
            "vg-003_Park_00.01.02.500-00.01.04.000@1",
            "I wonder who left all this trash around.",
            "Hey, person4, pick up your trash.",
            "(person4, pick up, trash)",
            [
                "The speaker wants person4 to pick up the trash.",
                "The speaker wants person1 to call the police.",
                "The speaker wants person4 to wonder about it too.",
                "The speaker wants person2 to empty the recycling bin.",
            ],
            ["D", "A", "B", "C"],
        ),
    ];
    for (name, image_name, indirect, direct, solution, opts, order) in qa.iter() {
        let spec = specs.iter().find(|s| s.0 == *name).unwrap();
        let (img, boxes) = scene(&spec.1, &spec.2);
        save(&img, &dir.join(format!("images/{image_name}_annot.jpg")))?;
        let persons: Vec<[f64; 4]> = boxes
            .iter()
            .map(|b| {
                [
                    b[0] as f64 + 0.25,
                    b[1] as f64 + 0.5,
                    b[2] as f64 - 0.25,
                    b[3] as f64,
                ]
            })
            .collect();
        rows.push(json!({
            "image_name": image_name,
            "direct": direct,
            "indirect": indirect,
            "solution": solution,
            "mcq": {"1_correct": opts[0], "3_surface_understanding": opts[2], "4_wrong_entity": opts[3],
                    "ordering": order, "2_fake_scene": opts[1]},
            "meta": {
                "caption": format!("A {name} scene with {} people.", persons.len()),
                "ram_entity": ["person"],
                "img_size": {"width": img.width(), "height": img.height()},
                "person_bbox": persons,
                "annot_link": format!("gs://sample/annotated_images/{image_name}_annot.jpg"),
                "rating": {"direct": 5, "indirect": 4}
            }
        }));
    }
    std::fs::write(
        dir.join("vague-mini.json"),
        serde_json::to_string_pretty(&rows)?,
    )?;
    Ok(())
}

fn sign(text: &str, bg: [u8; 3]) -> image::RgbImage {
    let mut img = canvas(400, 260, [200, 220, 235]);
    fill_rect(&mut img, 190, 150, 20, 110, [90, 90, 90]);
    let w = text_width(text, 5) + 40;
    let x = (400 - w) / 2;
    fill_rect(&mut img, x, 40, w, 100, bg);
    stroke_rect(&mut img, x, 40, w, 100, 4, [255, 255, 255]);
    draw_text(&mut img, x + 20, 72, text, 5, [255, 255, 255]);
    img
}

fn haerae(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir.join("images"))?;
    let signs = [
        ("exit", "EXIT", [15, 157, 88]),
        ("stop", "STOP", [219, 68, 55]),
        ("sale", "SALE 50%", [66, 133, 244]),
    ];
    for (name, text, bg) in signs {
        save(&sign(text, bg), &dir.join(format!("images/{name}.png")))?;
    }
    let rows = vec![
        json!({"question_idx": 101, "question_original": "이거 무슨 뜻이에요? 어디로 가야 해요?", "question_explicit": "초록색 표지판에 쓰인 'EXIT'는 무슨 뜻이며, 어느 방향으로 가야 하나요?",
               "checklist": ["'EXIT'가 출구를 뜻한다고 설명한다", "표지판을 따라 출구로 가라고 안내한다", "비상시 엘리베이터 대신 계단을 쓰라고 언급한다"],
               "images": ["images/exit.png"], "category": "Daily Life", "source": "Naver KnowledgeIn"}),
        json!({"question_idx": 102, "question_original": "운전하다 이거 보면 어떻게 해야 돼?", "question_explicit": "운전 중 빨간 'STOP' 표지판을 보면 어떻게 해야 하나요?",
               "checklist": ["완전히 정지해야 한다고 말한다", "교차로의 다른 차량과 보행자를 확인하라고 한다"],
               "images": ["images/stop.png"], "category": "Traffic", "source": "Naver KnowledgeIn"}),
        json!({"question_idx": 103, "question_original": "이거 얼마나 싸진 거야?", "question_explicit": "파란 표지판의 'SALE 50%'는 가격이 얼마나 할인된다는 뜻인가요?",
               "checklist": ["가격이 절반(50%) 할인된다고 설명한다", "원래 가격의 절반을 내면 된다고 예를 든다", "할인 조건을 확인하라고 권한다", "세일 기간을 확인하라고 권한다"],
               "images": ["images/sale.png"], "category": "Shopping", "source": "Ruliweb"}),
        json!({"question_idx": 104, "question_original": "두 표지판 중에 뭐가 더 급해?", "question_explicit": "'STOP' 표지판과 'EXIT' 표지판 중 운전자에게 즉시 행동을 요구하는 것은 무엇인가요?",
               "checklist": ["STOP 표지판이 즉시 정지를 요구한다고 답한다", "EXIT 표지판은 안내용이라고 구분한다"],
               "images": ["images/stop.png", "images/exit.png"], "category": "Traffic", "source": "Naver KnowledgeIn"}),
    ];
    write_jsonl(&dir.join("haerae-mini.jsonl"), &rows)
}

fn crag(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir.join("images"))?;
    // A street with cars.
    let mut img = canvas(512, 384, [200, 215, 230]);
    fill_rect(&mut img, 0, 260, 512, 124, [80, 80, 80]);
    let cars = [
        (40u32, 270u32, [150, 150, 150]),
        (200, 280, [200, 30, 30]),
        (360, 275, [150, 150, 150]),
    ];
    for (x, y, c) in cars {
        fill_rect(&mut img, x, y, 110, 50, c);
        fill_circle(&mut img, x as i32 + 25, y as i32 + 52, 12, [20, 20, 20]);
        fill_circle(&mut img, x as i32 + 85, y as i32 + 52, 12, [20, 20, 20]);
    }
    save(&img, &dir.join("images/street.png"))?;
    let mut shop = canvas(512, 384, [240, 240, 235]);
    fill_rect(&mut shop, 100, 60, 312, 90, [200, 30, 30]);
    draw_text(&mut shop, 130, 90, "RAMEN YA", 5, [255, 230, 0]);
    fill_rect(&mut shop, 180, 170, 150, 214, [120, 80, 40]);
    save(&shop, &dir.join("images/shop.png"))?;
    // CRAG-MM-Diagnostics' record layout (what its data_loader reads): boxes in pixels of the
    // image, `image_size` [w, h], the published label strings.
    let bx = |b: [u32; 4]| json!(b);
    let rows = vec![
        json!({"id": "cr-001", "question": "What brand is this car?", "answer": "Unknown",
               "image": "images/street.png", "metadata": {"referring_expression_category": "not enough cue (ambiguous)",
               "target_roi_bbox": bx([200, 280, 310, 342]), "image_size": [512, 384], "target_object_name": "red car",
               "textual_only_question": "What brand is the red car?", "disambiguated_question": "What brand is the red car in the middle?"}}),
        json!({"id": "cr-002", "question": "How many doors does the red car have?", "answer": "2",
               "image": "images/street.png", "metadata": {"referring_expression_category": "in-image cue",
               "target_roi_bbox": bx([200, 280, 310, 342]), "image_size": [512, 384], "target_object_name": "red car",
               "textual_only_question": "How many doors does the red car have?", "disambiguated_question": null}}),
        json!({"id": "cr-003", "question": "What kind of food does this restaurant serve?", "answer": "ramen",
               "image": "images/shop.png", "metadata": {"referring_expression_category": "knowledge-intensive cue",
               "target_roi_bbox": bx([100, 60, 412, 150]), "image_size": [512, 384], "target_object_name": "Ramen Ya",
               "textual_only_question": "What kind of food does Ramen Ya serve?", "disambiguated_question": null}}),
        json!({"id": "cr-004", "question": "この店の看板は何色ですか？", "answer": "赤",
               "image": "images/shop.png", "metadata": {"referring_expression_category": "salient",
               "target_roi_bbox": bx([100, 60, 412, 150]), "image_size": [512, 384], "target_object_name": "Ramen Ya sign",
               "textual_only_question": "ラーメン屋の看板は何色ですか？", "disambiguated_question": null}}),
    ];
    write_jsonl(&dir.join("crag-mini.jsonl"), &rows)
}

/// Writes every sample dataset under `dir` (one folder per dataset).
pub fn generate(dir: &Path) -> Result<()> {
    jgraph(&dir.join("jgraph-mini"))?;
    vague(&dir.join("vague-mini"))?;
    haerae(&dir.join("haerae-mini"))?;
    crag(&dir.join("crag-mini"))?;
    Ok(())
}

/// The data file of each sample dataset, relative to the sample folder.
pub const DATA_FILES: &[&str] = &[
    "jgraph-mini/jgraph-mini.jsonl",
    "vague-mini/vague-mini.json",
    "haerae-mini/haerae-mini.jsonl",
    "crag-mini/crag-mini.jsonl",
];
