//! The response cache: a key over everything that determines an answer, and the stored
//! responses. Endpoint URLs are left out so replicas share entries.

use serde_json::json;
use sha2::{Digest, Sha256};

use crate::client::ChatResponse;
use crate::model::ModelConfig;
use crate::prompt::Prompt;

pub fn request_key(cfg: &ModelConfig, prompt: &Prompt, run_index: u32) -> String {
    let images: Vec<&str> = prompt.images.iter().map(|i| i.hash.as_str()).collect();
    let mut material = json!({
        "model": cfg.model,
        "params": cfg.params,
        "images_policy": cfg.images,
        "prompt": prompt.text,
        "images": images,
        "run": run_index,
    });
    // Added only when present so keys of earlier runs (no system message, sizes implied by
    // the policy) stay valid.
    if let Some(sys) = &prompt.system {
        material["system"] = json!(sys);
    }
    if prompt.views.iter().any(Option::is_some) {
        let views: Vec<Option<String>> = prompt
            .views
            .iter()
            .map(|v| v.as_ref().map(|v| v.key()))
            .collect();
        material["views"] = json!(views);
    }
    if prompt.images.iter().zip(&prompt.sent_sizes).any(|(i, s)| {
        *s != crate::scorers::grounding::sent_size(
            Default::default(),
            cfg.images.max_side,
            i.width,
            i.height,
        )
    }) {
        material["sent_sizes"] = json!(prompt.sent_sizes);
    }
    hex::encode(Sha256::digest(material.to_string().as_bytes()))
}

/// Judge calls are keyed on the judge model, the full judge prompt (system message first;
/// with none the key is that of the text alone, as before system messages existed) and the
/// run of the answering model. A judge is asked afresh in each run, as the seeds run it:
/// JAMMEval runs every evaluation three times to see run-to-run variation and CRAG-MM averages
/// three judge runs, so run 2's verdict on a reply is never run 1's reused. Run 1 keeps the
/// key it had before runs were part of it.
pub fn judge_key(cfg: &ModelConfig, system: Option<&str>, text: &str, run_index: u32) -> String {
    let judge_prompt = format!("{}{text}", system.unwrap_or(""));
    let mut material = json!({"judge": cfg.model, "params": cfg.params, "prompt": judge_prompt});
    if run_index > 1 {
        material["run"] = json!(run_index);
    }
    hex::encode(Sha256::digest(material.to_string().as_bytes()))
}

/// A response as the store keeps it.
pub fn to_stored(r: &ChatResponse) -> assay_core::store::StoredResponse {
    assay_core::store::StoredResponse {
        text: r.text.clone(),
        prompt_tokens: r.prompt_tokens,
        completion_tokens: r.completion_tokens,
    }
}

pub fn from_stored(r: &assay_core::store::StoredResponse) -> ChatResponse {
    ChatResponse {
        text: r.text.clone(),
        prompt_tokens: r.prompt_tokens,
        completion_tokens: r.completion_tokens,
    }
}

/// What is kept of a text-only request (a judge call, a prompt another tool logged).
pub fn text_record(system: Option<&str>, text: &str) -> String {
    json!({"system": system, "text": text, "images": []}).to_string()
}

/// What is kept of a request for tracing: the texts, and each image by hash and sent size.
pub fn prompt_record(prompt: &Prompt) -> String {
    json!({
        "system": prompt.system,
        "text": prompt.text,
        "images": prompt.images.iter().zip(&prompt.sent_sizes).zip(&prompt.views).map(|((i, s), v)| {
            let mut image = json!({
                "hash": i.hash, "original_size": [i.width, i.height], "sent_size": [s.0, s.1],
            });
            if let Some(v) = v {
                image["view"] = json!(v.key());
            }
            image
        }).collect::<Vec<_>>(),
    })
    .to_string()
}
