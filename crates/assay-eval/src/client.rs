//! One OpenAI-compatible chat-completions call. Classifies failures so the dispatcher knows
//! what to retry.

use std::time::Duration;

use serde_json::{json, Value};

use crate::model::ModelConfig;

#[derive(Debug, Clone, PartialEq)]
pub struct ChatResponse {
    pub text: String,
    pub prompt_tokens: Option<i64>,
    pub completion_tokens: Option<i64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CallError {
    pub message: String,
    pub retryable: bool,
    /// The endpoint itself failed (connection, 5xx): try another replica.
    pub endpoint_down: bool,
    pub retry_after: Option<Duration>,
}

impl CallError {
    fn fatal(message: String) -> Self {
        Self {
            message,
            retryable: false,
            endpoint_down: false,
            retry_after: None,
        }
    }
    fn transient(message: String) -> Self {
        Self {
            message,
            retryable: true,
            endpoint_down: false,
            retry_after: None,
        }
    }
}

/// The request body: text first, then images as data URLs in item order.
pub fn request_body(
    cfg: &ModelConfig,
    system: Option<&str>,
    text: &str,
    images: &[String],
) -> Value {
    let mut content = vec![json!({"type": "text", "text": text})];
    for url in images {
        content.push(json!({"type": "image_url", "image_url": {"url": url}}));
    }
    let mut messages = Vec::with_capacity(2);
    if let Some(sys) = system {
        messages.push(json!({"role": "system", "content": sys}));
    }
    messages.push(json!({"role": "user", "content": content}));
    let mut body = json!({
        "model": cfg.model,
        "messages": messages,
        "temperature": cfg.params.temperature,
        "max_tokens": cfg.params.max_tokens,
    });
    if let Some(p) = cfg.params.top_p {
        body["top_p"] = json!(p);
    }
    if let Some(s) = cfg.params.seed {
        body["seed"] = json!(s);
    }
    body
}

fn retry_after(h: &reqwest::header::HeaderMap) -> Option<Duration> {
    let v = h.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?;
    v.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| *s >= 0.0)
        .map(Duration::from_secs_f64)
}

pub async fn chat(
    http: &reqwest::Client,
    endpoint: &str,
    api_key: Option<&str>,
    body: &Value,
    timeout: Duration,
) -> Result<ChatResponse, CallError> {
    let url = format!("{}/chat/completions", endpoint.trim_end_matches('/'));
    let mut req = http.post(&url).json(body).timeout(timeout);
    if let Some(k) = api_key {
        req = req.bearer_auth(k);
    }
    let resp = match req.send().await {
        Ok(r) => r,
        Err(e) => {
            let timed_out = e.is_timeout();
            let kind = if timed_out {
                "timed out"
            } else {
                "connection failed"
            };
            return Err(CallError {
                message: format!("{kind}: {}", e.without_url()),
                retryable: true,
                endpoint_down: !timed_out,
                retry_after: None,
            });
        }
    };
    let status = resp.status();
    let after = retry_after(resp.headers());
    let bytes = match resp.bytes().await {
        Ok(b) => b,
        Err(e) => {
            return Err(CallError::transient(format!(
                "reading body: {}",
                e.without_url()
            )))
        }
    };
    if status.as_u16() == 429 {
        return Err(CallError {
            message: "429 rate limited".into(),
            retryable: true,
            endpoint_down: false,
            retry_after: after,
        });
    }
    if status.is_server_error() {
        return Err(CallError {
            message: format!("{status} from server"),
            retryable: true,
            endpoint_down: true,
            retry_after: after,
        });
    }
    if !status.is_success() {
        let snippet: String = String::from_utf8_lossy(&bytes).chars().take(300).collect();
        return Err(CallError::fatal(format!("{status}: {snippet}")));
    }
    let v: Value = serde_json::from_slice(&bytes)
        .map_err(|e| CallError::transient(format!("malformed JSON in response: {e}")))?;
    let text = match &v["choices"][0]["message"]["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        _ => {
            return Err(CallError::transient(
                "response has no choices[0].message.content".into(),
            ))
        }
    };
    Ok(ChatResponse {
        text,
        prompt_tokens: v["usage"]["prompt_tokens"].as_i64(),
        completion_tokens: v["usage"]["completion_tokens"].as_i64(),
    })
}
