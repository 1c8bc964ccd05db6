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
    let mut rows = Vec::new();
    let qa = [
        (
            "kitchen",
            "It's nice to see some things are more interesting than my cooking.",
            "person2, put the phone down and eat.",
            [
                "Person2 should put the phone down and eat.",
                "Person5 should wash the dishes.",
                "Person2 should cook more interesting food.",
                "Person3 should turn off the television.",
            ],
            [1, 3, 2, 4],
        ),
        (
            "office",
            "It's getting a little chilly in here, isn't it?",
            "person1, close the window.",
            [
                "Person1 should close the window.",
                "Person2 should buy a new coat.",
                "Person1 should say that it is cold.",
                "Person2 should turn off the air conditioner.",
            ],
            [2, 1, 4, 3],
        ),
        (
            "park",
            "I wonder who left all this trash around.",
            "person4, pick up your trash.",
            [
                "Person4 should pick up the trash.",
                "Person1 should call the police.",
                "Person4 should wonder about it too.",
                "Person2 should empty the recycling bin.",
            ],
            [4, 2, 1, 3],
        ),
    ];
    for (i, (name, indirect, direct, opts, order)) in qa.iter().enumerate() {
        let spec = specs.iter().find(|s| s.0 == *name).unwrap();
        let (img, boxes) = scene(&spec.1, &spec.2);
        save(&img, &dir.join(format!("images/{name}.png")))?;
        let mut persons = serde_json::Map::new();
        for (j, b) in boxes.iter().enumerate() {
            persons.insert(format!("person{}", j + 1), json!(b));
        }
        rows.push(json!({
            "id": format!("vg-{:03}", i + 1),
            "image": format!("images/{name}.png"),
            "indirect": indirect,
            "direct": direct,
            "solution": {"subject": direct.split(',').next().unwrap(), "action": direct.split(", ").nth(1).unwrap_or("")},
            "mcq": {"1_correct": opts[0], "2_fake_scene": opts[1], "3_surface_understanding": opts[2], "4_wrong_entity": opts[3]},
            "ordering": order,
            "meta": {"person_bbox": persons},
            "source": "sample"
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
        json!({"id": "hv-001", "question_original": "이거 무슨 뜻이에요? 어디로 가야 해요?", "question_explicit": "초록색 표지판에 쓰인 'EXIT'는 무슨 뜻이며, 어느 방향으로 가야 하나요?",
               "checklist": ["'EXIT'가 출구를 뜻한다고 설명한다", "표지판을 따라 출구로 가라고 안내한다", "비상시 엘리베이터 대신 계단을 쓰라고 언급한다"],
               "images": ["images/exit.png"], "category": "daily_life", "source": "community_qa"}),
        json!({"id": "hv-002", "question_original": "운전하다 이거 보면 어떻게 해야 돼?", "question_explicit": "운전 중 빨간 'STOP' 표지판을 보면 어떻게 해야 하나요?",
               "checklist": ["완전히 정지해야 한다고 말한다", "교차로의 다른 차량과 보행자를 확인하라고 한다"],
               "images": ["images/stop.png"], "category": "traffic", "source": "community_qa"}),
        json!({"id": "hv-003", "question_original": "이거 얼마나 싸진 거야?", "question_explicit": "파란 표지판의 'SALE 50%'는 가격이 얼마나 할인된다는 뜻인가요?",
               "checklist": ["가격이 절반(50%) 할인된다고 설명한다", "원래 가격의 절반을 내면 된다고 예를 든다", "할인 조건을 확인하라고 권한다", "세일 기간을 확인하라고 권한다"],
               "images": ["images/sale.png"], "category": "shopping", "source": "blog"}),
        json!({"id": "hv-004", "question_original": "두 표지판 중에 뭐가 더 급해?", "question_explicit": "'STOP' 표지판과 'EXIT' 표지판 중 운전자에게 즉시 행동을 요구하는 것은 무엇인가요?",
               "checklist": ["STOP 표지판이 즉시 정지를 요구한다고 답한다", "EXIT 표지판은 안내용이라고 구분한다"],
               "images": ["images/stop.png", "images/exit.png"], "category": "traffic", "source": "community_qa"}),
    ];
    write_jsonl(&dir.join("haerae-mini.jsonl"), &rows)
}

fn crag(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir.join("images"))?;
    // A street with cars; boxes are recorded on a 1024x768 copy, as published sets often are,
    // so the importer's rescaling to the 512x384 file is exercised.
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
    let big = |b: [u32; 4]| format!("[{}, {}, {}, {}]", b[0] * 2, b[1] * 2, b[2] * 2, b[3] * 2);
    let rows = vec![
        json!({"interaction_id": "cr-001", "query": "What brand is this car?", "answer": "Unknown",
               "image": "images/street.png", "metadata": {"target_roi_bbox": big([200, 280, 310, 342]), "image_size": "(1024, 768)",
               "referring_expression_category": "ambiguous", "disambiguated_question": "What brand is the red car in the middle?",
               "textual_only_question": null, "target_object_name": "red car", "domain": "vehicle"}}),
        json!({"interaction_id": "cr-002", "query": "How many doors does the red car have?", "answer": "2",
               "image": "images/street.png", "metadata": {"target_roi_bbox": big([200, 280, 310, 342]), "image_size": "(1024, 768)",
               "referring_expression_category": "in_image_cue", "target_object_name": "red car", "domain": "vehicle"}}),
        json!({"interaction_id": "cr-003", "query": "What kind of food does this restaurant serve?", "answer": "ramen",
               "image": "images/shop.png", "metadata": {"target_roi_bbox": big([100, 60, 412, 150]), "image_size": "(1024, 768)",
               "referring_expression_category": "knowledge_cue", "textual_only_question": "What kind of food does Ramen Ya serve?",
               "target_object_name": "Ramen Ya", "wikipedia_url": "https://en.wikipedia.org/wiki/Ramen", "domain": "food"}}),
        json!({"interaction_id": "cr-004", "query": "この店の看板は何色ですか？", "answer": "赤",
               "image": "images/shop.png", "metadata": {"target_roi_bbox": big([100, 60, 412, 150]), "image_size": "(1024, 768)",
               "referring_expression_category": "salient", "target_object_name": "Ramen Ya sign", "domain": "food"}}),
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
