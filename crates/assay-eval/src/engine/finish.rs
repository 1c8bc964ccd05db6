//! What a finished run cost.

use std::sync::atomic::Ordering;

use super::execute::Shared;
use super::ModelCost;

/// Each model's tokens at its own prices (the judge priced as itself); the total is None when
/// a model that was sent requests has no prices.
pub(super) fn costs(shared: &Shared) -> (Vec<ModelCost>, Option<f64>) {
    let costs: Vec<ModelCost> = shared
        .dispatchers
        .iter()
        .zip(&shared.tokens)
        .map(|(d, (p, c))| {
            let (p, c) = (
                p.load(Ordering::Relaxed) as i64,
                c.load(Ordering::Relaxed) as i64,
            );
            let price = d.config.cost(p as f64, c as f64);
            ModelCost {
                model: d.config.name.clone(),
                prompt_tokens: p,
                completion_tokens: c,
                cost: if p + c == 0 { Some(0.0) } else { price },
            }
        })
        .collect();
    let total = costs.iter().map(|c| c.cost).sum::<Option<f64>>();
    (costs, total)
}
