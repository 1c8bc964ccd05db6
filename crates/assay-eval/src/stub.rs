//! A local OpenAI-compatible chat-completions server for tests and benchmarks. It answers from a
//! script keyed on prompt substrings and injects faults: latency, 429 with Retry-After, 500,
//! hangs, malformed and truncated JSON. It binds 127.0.0.1 only.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

#[derive(Debug, Clone)]
pub enum Reply {
    /// A normal completion with this content.
    Text(String),
    /// An HTTP error status, optionally with Retry-After seconds.
    Status { code: u16, retry_after: Option<u64> },
    /// Never answers (the client's timeout must fire).
    Hang,
    /// 200 with a body that is not JSON.
    Malformed,
    /// 200 whose JSON body is cut off midway.
    Truncated,
}

#[derive(Debug, Clone)]
pub struct Rule {
    /// Applies to requests whose prompt text contains this ("" matches all).
    pub contains: String,
    pub reply: Reply,
    /// Applies to the first `times` matching requests only; None = always.
    pub times: Option<usize>,
}

impl Rule {
    pub fn always(contains: &str, reply: Reply) -> Self {
        Self {
            contains: contains.into(),
            reply,
            times: None,
        }
    }
    pub fn first(n: usize, contains: &str, reply: Reply) -> Self {
        Self {
            contains: contains.into(),
            reply,
            times: Some(n),
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct StubConfig {
    pub latency: Duration,
    pub rules: Vec<Rule>,
    /// Reply when no rule matches; defaults to echoing "OK".
    pub default_reply: Option<Reply>,
    /// Keep every image data URL received, with the prompt text it came with, so a test can
    /// decode exactly what a model was shown.
    pub keep_images: bool,
}

struct Shared {
    config: StubConfig,
    used: Vec<AtomicUsize>,
    requests: AtomicUsize,
    /// Responses written in full: what a paying client would be billed for.
    answered: AtomicUsize,
    /// Killed: no connection accepted, no response written, connections dropped.
    dead: std::sync::atomic::AtomicBool,
    images: AtomicUsize,
    prompts: Mutex<Vec<String>>,
    /// The generation settings of each request: (temperature, top_p, max_tokens).
    sampling: Mutex<Vec<(Value, Value, Value)>>,
    image_urls: Mutex<Vec<(String, String)>>,
}

pub struct StubServer {
    pub url: String,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl StubServer {
    pub async fn start(config: StubConfig) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let used = config.rules.iter().map(|_| AtomicUsize::new(0)).collect();
        let shared = Arc::new(Shared {
            config,
            used,
            requests: AtomicUsize::new(0),
            answered: AtomicUsize::new(0),
            dead: std::sync::atomic::AtomicBool::new(false),
            images: AtomicUsize::new(0),
            prompts: Mutex::new(Vec::new()),
            sampling: Mutex::new(Vec::new()),
            image_urls: Mutex::new(Vec::new()),
        });
        let s = shared.clone();
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let s = s.clone();
                tokio::spawn(async move {
                    let _ = serve(stream, s).await;
                });
            }
        });
        Ok(Self {
            url: format!("http://{addr}/v1"),
            shared,
            task,
        })
    }

    /// Requests received so far (including faulted ones).
    pub fn requests(&self) -> usize {
        self.shared.requests.load(Ordering::SeqCst)
    }

    /// Responses written in full (a killed replica's requests in flight are not among them).
    pub fn answered(&self) -> usize {
        self.shared.answered.load(Ordering::SeqCst)
    }

    /// Kills the server as a crashed replica dies: new connections are refused, and every open
    /// one, with the requests in flight on it, is dropped without an answer.
    pub fn kill(&self) {
        self.shared.dead.store(true, Ordering::SeqCst);
        self.task.abort();
    }

    /// Image parts (data URLs) received over all requests.
    pub fn images(&self) -> usize {
        self.shared.images.load(Ordering::SeqCst)
    }

    /// (prompt text, image data URL) for every image received, when `keep_images` is set.
    pub fn image_urls(&self) -> Vec<(String, String)> {
        self.shared
            .image_urls
            .lock()
            .map(|p| p.clone())
            .unwrap_or_default()
    }

    /// (temperature, top_p, max_tokens) as each request sent them (null when left out).
    pub fn sampling(&self) -> Vec<(Value, Value, Value)> {
        self.shared
            .sampling
            .lock()
            .map(|p| p.clone())
            .unwrap_or_default()
    }

    pub fn prompts(&self) -> Vec<String> {
        self.shared
            .prompts
            .lock()
            .map(|p| p.clone())
            .unwrap_or_default()
    }
}

impl Drop for StubServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// All text parts of all messages, joined by newlines.
fn prompt_text(body: &Value) -> String {
    let mut out = Vec::new();
    for m in body["messages"].as_array().into_iter().flatten() {
        match &m["content"] {
            Value::String(s) => out.push(s.clone()),
            Value::Array(parts) => {
                for p in parts {
                    if let Some(t) = p["text"].as_str() {
                        out.push(t.to_string());
                    }
                }
            }
            _ => {}
        }
    }
    out.join("\n")
}

fn choose(shared: &Shared, prompt: &str) -> Reply {
    for (i, rule) in shared.config.rules.iter().enumerate() {
        if !prompt.contains(&rule.contains) {
            continue;
        }
        match rule.times {
            None => return rule.reply.clone(),
            Some(n) => {
                if shared.used[i].fetch_add(1, Ordering::SeqCst) < n {
                    return rule.reply.clone();
                }
            }
        }
    }
    shared
        .config
        .default_reply
        .clone()
        .unwrap_or(Reply::Text("OK".into()))
}

async fn serve(stream: TcpStream, shared: Arc<Shared>) -> std::io::Result<()> {
    // Without this, Nagle's algorithm and delayed ACKs add ~40 ms to small responses.
    stream.set_nodelay(true)?;
    let (r, mut w) = stream.into_split();
    let mut reader = BufReader::new(r);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).await? == 0 || shared.dead.load(Ordering::SeqCst) {
            return Ok(());
        }
        let mut content_length = 0usize;
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).await? == 0 {
                return Ok(());
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                if k.eq_ignore_ascii_case("content-length") {
                    content_length = v.trim().parse().unwrap_or(0);
                }
            }
        }
        let mut body = vec![0u8; content_length];
        reader.read_exact(&mut body).await?;
        shared.requests.fetch_add(1, Ordering::SeqCst);
        let req: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let prompt = prompt_text(&req);
        let urls: Vec<&str> = req["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| m["content"].as_array())
            .flatten()
            .filter_map(|p| p["image_url"]["url"].as_str())
            .filter(|u| u.starts_with("data:image/"))
            .collect();
        shared.images.fetch_add(urls.len(), Ordering::SeqCst);
        if shared.config.keep_images {
            if let Ok(mut kept) = shared.image_urls.lock() {
                kept.extend(urls.iter().map(|u| (prompt.clone(), u.to_string())));
            }
        }
        if let Ok(mut p) = shared.prompts.lock() {
            p.push(prompt.clone());
        }
        if let Ok(mut p) = shared.sampling.lock() {
            p.push((
                req["temperature"].clone(),
                req["top_p"].clone(),
                req["max_tokens"].clone(),
            ));
        }
        let reply = choose(&shared, &prompt);
        if !shared.config.latency.is_zero() {
            // Tokio's timer rounds up to whole milliseconds (20 ms sleeps last ~21.5 ms); a
            // thread sleep keeps the stub's latency what the benchmark says it is.
            let latency = shared.config.latency;
            let _ = tokio::task::spawn_blocking(move || std::thread::sleep(latency)).await;
        }
        let (status, extra, payload) = match reply {
            Reply::Hang => {
                tokio::time::sleep(Duration::from_secs(3600)).await;
                return Ok(());
            }
            Reply::Status { code, retry_after } => (
                code,
                retry_after
                    .map(|s| format!("Retry-After: {s}\r\n"))
                    .unwrap_or_default(),
                json!({"error": {"message": "stub error", "code": code}}).to_string(),
            ),
            Reply::Malformed => (200, String::new(), "<html>not json</html>".to_string()),
            Reply::Truncated => {
                let full = completion(&req, "truncated");
                (200, String::new(), full[..full.len() / 2].to_string())
            }
            Reply::Text(t) => (200, String::new(), completion(&req, &t)),
        };
        if shared.dead.load(Ordering::SeqCst) {
            return Ok(());
        }
        let reason = if status == 200 { "OK" } else { "Error" };
        let head = format!(
            "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{extra}Connection: keep-alive\r\n\r\n",
            payload.len()
        );
        let mut out = head.into_bytes();
        out.extend_from_slice(payload.as_bytes());
        w.write_all(&out).await?;
        w.flush().await?;
        shared.answered.fetch_add(1, Ordering::SeqCst);
    }
}

fn completion(req: &Value, text: &str) -> String {
    json!({
        "id": "stub",
        "object": "chat.completion",
        "model": req["model"],
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}
    })
    .to_string()
}
