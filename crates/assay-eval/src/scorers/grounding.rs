//! Grounding: read a predicted box, map it to the original image through the model's box
//! convention, score IoU >= 0.5 (the official CRAG-MM-Diagnostics rule, `iou >= 0.5`).
//!
//! Every model sees a resized image, so a box is first read in the coordinates the model
//! used and then scaled per axis back to the original image's pixels, where the reference box
//! lives. IoU is unchanged by per-axis scaling, so comparing in the original frame gives the
//! same number as the CRAG-MM code, which compares in the 960 x 1280 frame. The conventions
//! are written out in docs/SCORING.md.

use std::sync::OnceLock;

use regex::Regex;
use serde_json::json;

use super::normalize::nfkc;
use super::{ScoreContext, Scored, Scorer};
use assay_core::{BBox, ItemContent};

/// IoU at or above this is a hit.
pub const IOU_THRESHOLD: f64 = 0.5;

assay_core::named_enum! {
    /// How a model writes box coordinates: a property of the model (or of an imported run).
    #[derive(Default)]
    pub enum BoxConvention {
        /// Decide per response: Qwen-VL `<box>` tags are 0-1000, `bbox_2d` is pixels of the image
        /// sent, plain numbers all <= 1 are 0-1, otherwise pixels of the image sent.
        #[default]
        Auto = "auto",
        /// Absolute pixels of the image as sent (after Assay's downscaling).
        SentPixels = "sent-pixels",
        /// Absolute pixels of the original image (tools that rescale boxes themselves).
        OriginalPixels = "original-pixels",
        /// Fractions of width and height.
        Normalized1 = "normalized-1",
        /// 0-1000 relative coordinates.
        Normalized1000 = "normalized-1000",
        /// Qwen2.5-VL: absolute pixels of the model's own resized input (`smart_resize` of the
        /// image sent: sides rounded to multiples of 28, 3,136 to 12,845,056 pixels).
        Qwen25Vl = "qwen2.5-vl",
        /// Qwen3-VL: 0-1000 relative coordinates.
        Qwen3Vl = "qwen3-vl",
        /// The CRAG-MM-Diagnostics protocol: every image resized to exactly 960 x 1280 (aspect
        /// not kept), integer boxes `[x1, y1, x2, y2]` in that frame, the first such list wins,
        /// no box means the full image.
        CragMm = "crag-mm",
    }
}

/// The CRAG-MM-Diagnostics frame (PIL `resize((960, 1280))`: width, height).
pub const CRAG_MM_SIZE: (u32, u32) = (960, 1280);

/// The size an image is sent at: exactly 960 x 1280 under the CRAG-MM protocol, otherwise
/// downscaled (aspect kept) so the longest side is at most `max_side`.
pub fn sent_size(conv: BoxConvention, max_side: u32, width: u32, height: u32) -> (u32, u32) {
    if conv == BoxConvention::CragMm {
        return CRAG_MM_SIZE;
    }
    let longest = width.max(height);
    if longest <= max_side || longest == 0 {
        return (width, height);
    }
    let ratio = max_side as f64 / longest as f64;
    let w = ((width as f64 * ratio).round() as u32).max(1);
    let h = ((height as f64 * ratio).round() as u32).max(1);
    (w, h)
}

/// Qwen2.5-VL's `smart_resize` (qwen_vl_utils / the HF image processor): (width, height) of
/// the model's input for an image of `width` x `height`. Python's `round` rounds half to even.
pub fn qwen25_input_size(width: u32, height: u32) -> (u32, u32) {
    const FACTOR: f64 = 28.0;
    const MIN_PIXELS: f64 = 3136.0;
    const MAX_PIXELS: f64 = 12_845_056.0;
    let (w, h) = (width as f64, height as f64);
    let mut h_bar = FACTOR.max((h / FACTOR).round_ties_even() * FACTOR);
    let mut w_bar = FACTOR.max((w / FACTOR).round_ties_even() * FACTOR);
    if h_bar * w_bar > MAX_PIXELS {
        let beta = (h * w / MAX_PIXELS).sqrt();
        h_bar = ((h / beta / FACTOR).floor() * FACTOR).max(FACTOR);
        w_bar = ((w / beta / FACTOR).floor() * FACTOR).max(FACTOR);
    } else if h_bar * w_bar < MIN_PIXELS {
        let beta = (MIN_PIXELS / (h * w)).sqrt();
        h_bar = (h * beta / FACTOR).ceil() * FACTOR;
        w_bar = (w * beta / FACTOR).ceil() * FACTOR;
    }
    (w_bar as u32, h_bar as u32)
}

/// How the numbers of one response are read after the convention is applied.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Frame {
    /// Pixels of a frame of this size.
    Pixels(u32, u32),
    /// Relative to this full scale (1 or 1000).
    Relative(f64),
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

/// The written form of a box in a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `"bbox_2d": [...]` (Qwen2.5-VL / Qwen3-VL JSON).
    Bbox2d,
    /// `<box>(x1,y1),(x2,y2)</box>` or `<|box_start|>...<|box_end|>` (Qwen-VL, 0-1000).
    BoxTag,
    /// A plain `[x1, y1, x2, y2]` list.
    List,
}

/// The first box in a response and its written form.
pub fn find_box(response: &str) -> Option<([f64; 4], Form)> {
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
        return four_numbers(&c[1]).map(|b| (b, Form::Bbox2d));
    }
    if let Some(c) = boxtag.captures(&text) {
        return four_numbers(&c[1]).map(|b| (b, Form::BoxTag));
    }
    list.find(&text)
        .and_then(|m| four_numbers(m.as_str()))
        .map(|b| (b, Form::List))
}

/// CRAG-MM's `_parse_response`: the first `[int, int, int, int]` on the raw text.
pub fn crag_mm_box(response: &str) -> Option<[f64; 4]> {
    static R: OnceLock<Regex> = OnceLock::new();
    let re = R.get_or_init(|| Regex::new(r"\[(\d+),\s*(\d+),\s*(\d+),\s*(\d+)\]").expect("valid"));
    let c = re.captures(response)?;
    let n = |i: usize| c[i].parse::<f64>().ok();
    Some([n(1)?, n(2)?, n(3)?, n(4)?])
}

/// The frame a box's numbers are in, for a convention, a written form and the sizes involved.
pub fn frame(
    conv: BoxConvention,
    form: Form,
    raw: [f64; 4],
    sent: (u32, u32),
    original: (u32, u32),
) -> Frame {
    match conv {
        BoxConvention::SentPixels | BoxConvention::CragMm => Frame::Pixels(sent.0, sent.1),
        BoxConvention::OriginalPixels => Frame::Pixels(original.0, original.1),
        BoxConvention::Normalized1 => Frame::Relative(1.0),
        BoxConvention::Normalized1000 | BoxConvention::Qwen3Vl => Frame::Relative(1000.0),
        BoxConvention::Qwen25Vl => {
            let (w, h) = qwen25_input_size(sent.0, sent.1);
            Frame::Pixels(w, h)
        }
        BoxConvention::Auto => match form {
            Form::BoxTag => Frame::Relative(1000.0),
            Form::Bbox2d => Frame::Pixels(sent.0, sent.1),
            Form::List if raw.iter().all(|v| (0.0..=1.0).contains(v)) => Frame::Relative(1.0),
            Form::List => Frame::Pixels(sent.0, sent.1),
        },
    }
}

/// A box in `frame` mapped to the original image's pixels (per-axis scaling).
pub fn to_original(b: [f64; 4], frame: Frame, original: (u32, u32)) -> BBox {
    let (ow, oh) = (original.0 as f64, original.1 as f64);
    let (sx, sy) = match frame {
        Frame::Pixels(w, h) => (ow / w.max(1) as f64, oh / h.max(1) as f64),
        Frame::Relative(full) => (ow / full, oh / full),
    };
    BBox {
        x_min: b[0] * sx,
        y_min: b[1] * sy,
        x_max: b[2] * sx,
        y_max: b[3] * sy,
    }
}

/// A model's written box mapped to the original image's pixels: the first box in `response`,
/// read in `conv` for an image sent at `sent` (pixel lists are taken as pixels of `sent`).
pub fn model_box(
    response: &str,
    conv: BoxConvention,
    sent: (u32, u32),
    original: (u32, u32),
) -> Option<BBox> {
    let (raw, form) = if conv == BoxConvention::CragMm {
        (crag_mm_box(response)?, Form::List)
    } else {
        find_box(response)?
    };
    let b = to_original(raw, frame(conv, form, raw, sent, original), original);
    b.is_valid().then_some(b)
}

fn frame_text(f: Frame) -> String {
    match f {
        Frame::Pixels(w, h) => format!("pixels of a {w} x {h} image"),
        Frame::Relative(s) => format!("relative 0-{s}"),
    }
}

pub struct GroundingScorer;

impl Scorer for GroundingScorer {
    fn name(&self) -> &'static str {
        "grounding"
    }
    fn score(&self, item: &ItemContent, response: &str, ctx: &ScoreContext) -> Scored {
        let Some((index, img)) = item
            .images
            .iter()
            .enumerate()
            .find(|(_, i)| !i.target_boxes.is_empty())
        else {
            return Scored::unparsed(json!({"rule": "item has no target box"}));
        };
        let original = (img.width, img.height);
        let sent = ctx.sent_size(index, img);
        let conv = ctx.boxes;
        let (raw, form, fallback) = if conv == BoxConvention::CragMm {
            match crag_mm_box(response) {
                Some(b) => (b, Form::List, false),
                // CRAG-MM scores a response without a box as the whole image.
                None => ([0.0, 0.0, sent.0 as f64, sent.1 as f64], Form::List, true),
            }
        } else {
            let Some((b, form)) = find_box(response) else {
                return Scored::unparsed(json!({"rule": "no box found in response"}));
            };
            (b, form, false)
        };
        let fr = frame(conv, form, raw, sent, original);
        let pred = to_original(raw, fr, original);
        let iou = img
            .target_boxes
            .iter()
            .map(|t| t.bbox.iou(&pred))
            .fold(0.0, f64::max);
        Scored {
            hedged: false,
            score: Some((iou >= IOU_THRESHOLD) as u8 as f64),
            parsed: Some(format!(
                "[{:.1}, {:.1}, {:.1}, {:.1}]",
                pred.x_min, pred.y_min, pred.x_max, pred.y_max
            )),
            evidence: json!({
                "rule": format!("IoU >= {IOU_THRESHOLD} in original pixels"),
                "raw": raw,
                "box_convention": conv.as_str(),
                "read_as": frame_text(fr),
                "no_box_fallback_full_image": fallback,
                "image_index": index,
                "original_size": [original.0, original.1],
                "sent_size": [sent.0, sent.1],
                "predicted_px": [pred.x_min, pred.y_min, pred.x_max, pred.y_max],
                "reference_px": img.target_boxes.iter().map(|t| [t.bbox.x_min, t.bbox.y_min, t.bbox.x_max, t.bbox.y_max]).collect::<Vec<_>>(),
                "iou": iou,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use assay_core::ItemImage;

    fn item(w: u32, h: u32, b: [f64; 4]) -> ItemContent {
        ItemContent {
            images: vec![ItemImage {
                hash: "h".into(),
                width: w,
                height: h,
                name: None,
                source_id: None,
                target_boxes: vec![assay_core::LabeledBox::plain(BBox {
                    x_min: b[0],
                    y_min: b[1],
                    x_max: b[2],
                    y_max: b[3],
                })],
                person_boxes: vec![],
            }],
            ..Default::default()
        }
    }

    fn ctx(boxes: BoxConvention, max_side: u32) -> ScoreContext {
        ScoreContext {
            boxes,
            max_side: Some(max_side),
        }
    }

    #[test]
    fn small_image_conventions() {
        let g = GroundingScorer;
        let it = item(500, 400, [100.0, 100.0, 200.0, 200.0]);
        let c = ctx(BoxConvention::Auto, 1024);
        assert_eq!(
            g.score(&it, "The box is [100, 100, 200, 200].", &c).score,
            Some(1.0)
        );
        assert_eq!(g.score(&it, "[0.2, 0.25, 0.4, 0.5]", &c).score, Some(1.0));
        assert_eq!(
            g.score(&it, "<|box_start|>(200,250),(400,500)<|box_end|>", &c)
                .score,
            Some(1.0)
        );
        let json2d = "```json\n[{\"bbox_2d\": [110, 105, 210, 195], \"label\": \"car\"}]\n```";
        assert_eq!(g.score(&it, json2d, &c).score, Some(1.0));
        assert_eq!(g.score(&it, "[300, 300, 400, 390]", &c).score, Some(0.0));
        assert_eq!(g.score(&it, "I can't see it", &c).score, None);
    }

    #[test]
    fn a_perfect_box_on_a_downscaled_photo_is_a_hit() {
        // 3000 x 4000 sent at 768 x 1024: the model answers in the sent image's pixels.
        let it = item(3000, 4000, [600.0, 800.0, 1500.0, 2000.0]);
        let c = ctx(BoxConvention::SentPixels, 1024);
        let s = GroundingScorer.score(&it, "[154, 205, 384, 512]", &c);
        assert_eq!(s.evidence["sent_size"], json!([768, 1024]));
        assert!(s.evidence["iou"].as_f64().unwrap() > 0.98, "{s:?}");
        assert_eq!(s.score, Some(1.0));
        // Qwen3-VL gives 0-1000 for the same box.
        let q3 = GroundingScorer.score(
            &it,
            "{\"bbox_2d\": [200, 200, 500, 500]}",
            &ctx(BoxConvention::Qwen3Vl, 1024),
        );
        assert!((q3.evidence["iou"].as_f64().unwrap() - 1.0).abs() < 1e-9);
    }

    #[test]
    fn qwen25_reads_its_own_resized_input() {
        // 768 x 1024 sent -> smart_resize gives 756 x 1036 (27 x 37 patches of 28).
        assert_eq!(qwen25_input_size(768, 1024), (756, 1036));
        assert_eq!(qwen25_input_size(10, 10), (56, 56));
        let it = item(3000, 4000, [600.0, 800.0, 1500.0, 2000.0]);
        let b = [
            600.0 * 756.0 / 3000.0,
            800.0 * 1036.0 / 4000.0,
            1500.0 * 756.0 / 3000.0,
            2000.0 * 1036.0 / 4000.0,
        ];
        let resp = format!(
            "{{\"bbox_2d\": [{:.0}, {:.0}, {:.0}, {:.0}]}}",
            b[0], b[1], b[2], b[3]
        );
        let s = GroundingScorer.score(&it, &resp, &ctx(BoxConvention::Qwen25Vl, 1024));
        assert!(s.evidence["iou"].as_f64().unwrap() > 0.99, "{s:?}");
    }

    #[test]
    fn crag_mm_protocol() {
        // Landscape 4032 x 3024 squashed to 960 x 1280; the box scales per axis.
        let it = item(4032, 3024, [1008.0, 756.0, 2016.0, 1512.0]);
        let c = ctx(BoxConvention::CragMm, 1024);
        let hit = GroundingScorer.score(&it, "[240, 320, 480, 640]", &c);
        assert!((hit.evidence["iou"].as_f64().unwrap() - 1.0).abs() < 1e-9);
        // Decimals are not read by the official parser: the full image is used.
        let dec = GroundingScorer.score(&it, "[240.5, 320, 480, 640]", &c);
        assert_eq!(dec.evidence["no_box_fallback_full_image"], json!(true));
        assert_eq!(dec.score, Some(0.0));
        // IoU exactly 0.5 is a hit (>=).
        let half = item(1000, 1000, [0.0, 0.0, 100.0, 100.0]);
        let s = GroundingScorer.score(
            &half,
            "[0, 0, 100, 50]",
            &ctx(BoxConvention::OriginalPixels, 4096),
        );
        assert_eq!(s.evidence["iou"], json!(0.5));
        assert_eq!(s.score, Some(1.0));
    }
}
