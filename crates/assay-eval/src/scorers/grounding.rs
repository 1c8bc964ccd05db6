//! Grounding: read a predicted box, decide its coordinate convention, score IoU > 0.5.
//!
//! Forms read: `{"bbox_2d": [x1, y1, x2, y2]}` (Qwen2.5-VL, absolute pixels), `<box>(x1,y1),
//! (x2,y2)</box>` and `<|box_start|>...<|box_end|>` (Qwen-VL, 0-1000), and plain
//! `[x1, y1, x2, y2]`. For plain numbers: all <= 1 means 0-1 normalised; any beyond the image
//! while all <= 1000 means 0-1000; otherwise absolute pixels. The convention assumed is
//! recorded with the score.

use std::sync::OnceLock;

use regex::Regex;
use serde_json::json;

use super::normalize::nfkc;
use super::{Scored, Scorer};
use assay_core::{BBox, ItemContent};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Convention {
    Absolute,
    Normalized1,
    Normalized1000,
}

impl Convention {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Absolute => "absolute pixels",
            Self::Normalized1 => "0-1 normalised",
            Self::Normalized1000 => "0-1000 normalised",
        }
    }
}

fn num_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"-?\d+(?:\.\d+)?").expect("valid"))
}

fn four_numbers(s: &str) -> Option<[f64; 4]> {
    let n: Vec<f64> = num_re()
        .find_iter(s)
        .filter_map(|m| m.as_str().parse().ok())
        .take(4)
        .collect();
    (n.len() == 4).then(|| [n[0], n[1], n[2], n[3]])
}

/// The first box in a response, with the convention its form implies (None = decide by size).
pub fn find_box(response: &str) -> Option<([f64; 4], Option<Convention>)> {
    let text = nfkc(response);
    static BBOX2D: OnceLock<Regex> = OnceLock::new();
    static BOX: OnceLock<Regex> = OnceLock::new();
    static LIST: OnceLock<Regex> = OnceLock::new();
    let bbox2d =
        BBOX2D.get_or_init(|| Regex::new(r#""bbox_2d"\s*:\s*\[([^\]]*)\]"#).expect("valid"));
    let boxtag = BOX.get_or_init(|| {
        Regex::new(r"(?:<box>|<\|box_start\|>)(.*?)(?:</box>|<\|box_end\|>)").expect("valid")
    });
    let list = LIST.get_or_init(|| {
        Regex::new(r"[\[(]\s*(-?\d+(?:\.\d+)?\s*,\s*){3}-?\d+(?:\.\d+)?\s*[\])]").expect("valid")
    });
    if let Some(c) = bbox2d.captures(&text) {
        return four_numbers(&c[1]).map(|b| (b, Some(Convention::Absolute)));
    }
    if let Some(c) = boxtag.captures(&text) {
        return four_numbers(&c[1]).map(|b| (b, Some(Convention::Normalized1000)));
    }
    list.find(&text)
        .and_then(|m| four_numbers(m.as_str()))
        .map(|b| (b, None))
}

pub fn decide(b: [f64; 4], width: f64, height: f64) -> Convention {
    if b.iter().all(|v| (0.0..=1.0).contains(v)) {
        Convention::Normalized1
    } else if b.iter().all(|v| *v <= 1000.0) && (b[2] > width || b[3] > height) {
        Convention::Normalized1000
    } else {
        Convention::Absolute
    }
}

pub fn to_pixels(b: [f64; 4], conv: Convention, width: f64, height: f64) -> BBox {
    let (sx, sy) = match conv {
        Convention::Absolute => (1.0, 1.0),
        Convention::Normalized1 => (width, height),
        Convention::Normalized1000 => (width / 1000.0, height / 1000.0),
    };
    BBox {
        x_min: b[0] * sx,
        y_min: b[1] * sy,
        x_max: b[2] * sx,
        y_max: b[3] * sy,
    }
}

pub struct GroundingScorer;

impl Scorer for GroundingScorer {
    fn name(&self) -> &'static str {
        "grounding"
    }
    fn score(&self, item: &ItemContent, response: &str) -> Scored {
        let Some(img) = item.images.iter().find(|i| !i.target_boxes.is_empty()) else {
            return Scored::unparsed(json!({"rule": "item has no target box"}));
        };
        let Some((raw, form)) = find_box(response) else {
            return Scored::unparsed(json!({"rule": "no box found in response"}));
        };
        let (w, h) = (img.width as f64, img.height as f64);
        let conv = form.unwrap_or_else(|| decide(raw, w, h));
        let pred = to_pixels(raw, conv, w, h);
        let iou = img
            .target_boxes
            .iter()
            .map(|t| t.iou(&pred))
            .fold(0.0, f64::max);
        Scored {
            score: Some((iou > 0.5) as u8 as f64),
            parsed: Some(format!(
                "[{:.1}, {:.1}, {:.1}, {:.1}]",
                pred.x_min, pred.y_min, pred.x_max, pred.y_max
            )),
            evidence: json!({
                "raw": raw,
                "convention": conv.as_str(),
                "convention_from": if form.is_some() { "output form" } else { "value range" },
                "predicted_px": [pred.x_min, pred.y_min, pred.x_max, pred.y_max],
                "reference_px": img.target_boxes.iter().map(|t| [t.x_min, t.y_min, t.x_max, t.y_max]).collect::<Vec<_>>(),
                "iou": iou,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use assay_core::ItemImage;

    fn item() -> ItemContent {
        ItemContent {
            images: vec![ItemImage {
                hash: "h".into(),
                width: 500,
                height: 400,
                name: None,
                target_boxes: vec![BBox {
                    x_min: 100.0,
                    y_min: 100.0,
                    x_max: 200.0,
                    y_max: 200.0,
                }],
                person_boxes: vec![],
            }],
            ..Default::default()
        }
    }

    fn conv(s: &Scored) -> String {
        s.evidence["convention"].as_str().unwrap().to_string()
    }

    #[test]
    fn conventions() {
        let g = GroundingScorer;
        let abs = g.score(&item(), "The box is [100, 100, 200, 200].");
        assert_eq!(
            (abs.score, conv(&abs).as_str()),
            (Some(1.0), "absolute pixels")
        );
        let n1 = g.score(&item(), "[0.2, 0.25, 0.4, 0.5]");
        assert_eq!(
            (n1.score, conv(&n1).as_str()),
            (Some(1.0), "0-1 normalised")
        );
        let qwen = g.score(&item(), "<|box_start|>(200,250),(400,500)<|box_end|>");
        assert_eq!(
            (qwen.score, conv(&qwen).as_str()),
            (Some(1.0), "0-1000 normalised")
        );
        let json2d = g.score(
            &item(),
            "```json\n[{\"bbox_2d\": [110, 105, 210, 195], \"label\": \"car\"}]\n```",
        );
        assert_eq!(json2d.score, Some(1.0));
        let miss = g.score(&item(), "[300, 300, 400, 390]");
        assert_eq!(miss.score, Some(0.0));
        assert_eq!(g.score(&item(), "I can't see it").score, None);
    }
}
