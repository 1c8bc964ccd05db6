//! Box metrics as CRAG-MM-Diagnostics defines them (appendix 0.A.4), computed from the stored
//! box so they follow every edit:
//! - size ratio `s = (x_max - x_min)(y_max - y_min) / (W H)`, in [0, 1];
//! - distance to centre: as the paper's code computes it (`calculate_distance` in
//!   CRAG-MM-Diagnostics' `utils/utils.py`): the pixels between the box's centre and the
//!   image's over half the image's diagonal, so 0 is centred and 1 a corner (above 1 only for a
//!   box centred outside the image); checked side by side with that function in assay-eval's
//!   `tests/eval/reference.rs`;
//! - crowdedness: the number of objects in the image, an editable count on the item;
//! - saliency: the paper combines the three but its formula did not survive into any text we
//!   could reach (the section is empty in the published text and no code computes it). Assay
//!   uses the mean of √s (the box's side relative to the image's), 1 − distance and, when the
//!   crowdedness is known, 1 / (1 + crowdedness); higher is more salient. See docs/SCORING.md.

use serde::{Deserialize, Serialize};

use crate::model::{BBox, ItemContent};

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BoxMetrics {
    pub size_ratio: f64,
    pub center_distance: f64,
    pub saliency: f64,
}

/// The box the metrics describe: the first target box of the first image that has one.
pub fn primary_box(c: &ItemContent) -> Option<(BBox, u32, u32)> {
    c.images.iter().find_map(|img| {
        img.target_boxes
            .first()
            .map(|b| (b.bbox, img.width, img.height))
    })
}

pub fn size_ratio(b: &BBox, width: u32, height: u32) -> f64 {
    let area = f64::from(width) * f64::from(height);
    if area <= 0.0 {
        return 0.0;
    }
    (b.area() / area).clamp(0.0, 1.0)
}

pub fn center_distance(b: &BBox, width: u32, height: u32) -> f64 {
    if width == 0 || height == 0 {
        return 0.0;
    }
    let (w, h) = (f64::from(width), f64::from(height));
    let dx = w / 2.0 - (b.x_min + b.x_max) / 2.0;
    let dy = h / 2.0 - (b.y_min + b.y_max) / 2.0;
    // `** 0.5` as the published code takes it (the C library's pow, as powf), so the numbers
    // are the same to the last bit.
    let half_diagonal = (w.powi(2) + h.powi(2)).powf(0.5) / 2.0;
    (dx.powi(2) + dy.powi(2)).powf(0.5) / half_diagonal
}

pub fn saliency(size_ratio: f64, center_distance: f64, crowdedness: Option<u32>) -> f64 {
    let mut parts = vec![size_ratio.sqrt(), 1.0 - center_distance.min(1.0)];
    if let Some(c) = crowdedness {
        parts.push(1.0 / (1.0 + f64::from(c)));
    }
    parts.iter().sum::<f64>() / parts.len() as f64
}

/// The metrics of an item's primary box; None when it has no box.
pub fn of_item(c: &ItemContent) -> Option<BoxMetrics> {
    let (b, w, h) = primary_box(c)?;
    let s = size_ratio(&b, w, h);
    let d = center_distance(&b, w, h);
    Some(BoxMetrics {
        size_ratio: s,
        center_distance: d,
        saliency: saliency(s, d, c.crowdedness),
    })
}

/// Bin edges for histograms. Size ratios are mostly small (the paper's examples run from 0.02
/// to 0.24), so their bins are finer near zero.
pub const SIZE_RATIO_EDGES: [f64; 9] = [0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0];
pub const UNIT_EDGES: [f64; 11] = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];

/// The bar of a histogram over `edges` that holds `v`: `lo <= v < hi`, the last bar closed (a
/// ratio of exactly 1 is in the top bar). None outside the edges and for NaN. Every histogram
/// counts by this rule; [`bar_conditions`] is the same rule in SQL.
pub fn bar(edges: &[f64], v: f64) -> Option<usize> {
    let last = edges.len().checked_sub(2)?;
    edges
        .windows(2)
        .enumerate()
        .position(|(i, w)| v >= w[0] && (v < w[1] || (i == last && v <= w[1])))
}

/// [`bar`] as one SQL condition per bar on the column `col`, in the bars' order.
pub fn bar_conditions(edges: &[f64], col: &str) -> Vec<String> {
    let last = edges.len().saturating_sub(2);
    edges
        .windows(2)
        .enumerate()
        .map(|(i, w)| {
            let hi = if i == last { "<=" } else { "<" };
            format!("{col} >= {:?} AND {col} {hi} {:?}", w[0], w[1])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_in_the_bar_its_lower_edge_opens_and_the_top_bar_is_closed() {
        let e = [0.0, 0.5, 1.0];
        assert_eq!(bar(&e, 0.0), Some(0));
        assert_eq!(bar(&e, 0.5), Some(1));
        assert_eq!(bar(&e, 1.0), Some(1));
        assert_eq!(bar(&e, 1.0001), None);
        assert_eq!(bar(&e, -0.1), None);
        assert_eq!(bar(&e, f64::NAN), None);
        assert_eq!(
            bar_conditions(&e, "x"),
            ["x >= 0.0 AND x < 0.5", "x >= 0.5 AND x <= 1.0"]
        );
    }

    /// SQLite decides the SQL form on the same values as the Rust one, edges included.
    #[test]
    fn the_sql_bars_agree_with_the_rust_bars() {
        // As every connection of this binary: SQLite configured before its first one.
        crate::store::configure_sqlite();
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        for edges in [&SIZE_RATIO_EDGES[..], &UNIT_EDGES[..]] {
            let conds = bar_conditions(edges, "?1");
            for v in edges.iter().copied().chain([-0.5, 0.015, 0.33, 0.999, 1.5]) {
                let in_sql: Vec<usize> = conds
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| {
                        conn.query_row(&format!("SELECT {c}"), [v], |r| r.get::<_, bool>(0))
                            .unwrap()
                    })
                    .map(|(i, _)| i)
                    .collect();
                assert_eq!(in_sql, bar(edges, v).into_iter().collect::<Vec<_>>(), "{v}");
            }
        }
    }

    fn bx(x_min: f64, y_min: f64, x_max: f64, y_max: f64) -> BBox {
        BBox {
            x_min,
            y_min,
            x_max,
            y_max,
        }
    }

    /// The four size ratios printed in the paper's example table, from the printed boxes on the
    /// 3024 x 4032 frames (tests/fixtures/formats/crag-mm-diagnostics).
    #[test]
    fn size_ratio_matches_the_papers_examples() {
        let cases = [
            (bx(643.0, 1610.0, 2854.0, 2388.0), 0.1411),
            (bx(1136.0, 256.0, 2320.0, 2747.0), 0.2419),
            (bx(2.0, 1400.0, 1345.0, 1989.0), 0.0649),
            (bx(1071.0, 2003.0, 1736.0, 2452.0), 0.0245),
        ];
        for (b, printed) in cases {
            let s = size_ratio(&b, 3024, 4032);
            assert!((s - printed).abs() < 5e-5, "{b:?}: {s} vs {printed}");
        }
    }

    /// The reference file the UI's live metrics are checked against too.
    #[test]
    fn match_the_independent_reference_values() {
        let text = include_str!("../../../../tests/fixtures/grounding/metrics.json");
        let cases: Vec<serde_json::Value> = serde_json::from_str(text).unwrap();
        assert!(cases.len() >= 7);
        for c in cases {
            let n = |k: &str| c[k].as_f64().unwrap();
            let b: Vec<f64> = serde_json::from_value(c["box"].clone()).unwrap();
            let b = bx(b[0], b[1], b[2], b[3]);
            let (w, h) = (n("width") as u32, n("height") as u32);
            let s = size_ratio(&b, w, h);
            let d = center_distance(&b, w, h);
            let crowd = c["crowdedness"].as_u64().map(|v| v as u32);
            assert!((s - n("size_ratio")).abs() < 1e-12, "{c}");
            assert!((d - n("center_distance")).abs() < 1e-12, "{c}");
            assert!((saliency(s, d, crowd) - n("saliency")).abs() < 1e-12, "{c}");
        }
    }

    #[test]
    fn distance_is_zero_at_the_centre_and_one_in_a_corner() {
        assert_eq!(center_distance(&bx(40.0, 30.0, 60.0, 70.0), 100, 100), 0.0);
        let corner = center_distance(&bx(0.0, 0.0, 0.0, 0.0), 3000, 4000);
        assert!((corner - 1.0).abs() < 1e-12);
        // 25 pixels right of the centre of a 200 x 100 image, whose half-diagonal is √12500.
        let d = center_distance(&bx(70.0, 45.0, 80.0, 55.0), 200, 100);
        assert!((d - 25.0 / 12500f64.sqrt()).abs() < 1e-12);
        // A box centred outside the image is further than a corner.
        assert!(center_distance(&bx(150.0, 150.0, 250.0, 250.0), 100, 100) > 2.9);
    }

    #[test]
    fn saliency_falls_with_crowd_distance_and_smallness() {
        let big_centred = saliency(0.25, 0.0, Some(0));
        let small_corner = saliency(0.01, 0.9, Some(20));
        assert!((big_centred - (0.5 + 1.0 + 1.0) / 3.0).abs() < 1e-12);
        assert!(small_corner < big_centred);
        assert_eq!(saliency(0.25, 0.5, None), (0.5 + 0.5) / 2.0);
    }
}
