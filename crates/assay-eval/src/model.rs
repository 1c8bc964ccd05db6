//! Models: an OpenAI-compatible endpoint (or several replicas), a model id, generation
//! parameters and image handling. Saved in the project; API keys never are.

use serde::{Deserialize, Serialize};

use crate::error::{EvalError, Result};
use assay_core::Project;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GenParams {
    pub temperature: f64,
    pub top_p: Option<f64>,
    pub max_tokens: u32,
    pub seed: Option<u64>,
}

impl Default for GenParams {
    fn default() -> Self {
        Self {
            temperature: 0.0,
            top_p: None,
            max_tokens: 1024,
            seed: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ImageEncoding {
    #[default]
    Jpeg,
    Png,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ImagePolicy {
    /// Longest side sent, in pixels; larger images are downscaled.
    pub max_side: u32,
    pub encoding: ImageEncoding,
}

impl Default for ImagePolicy {
    fn default() -> Self {
        Self {
            max_side: 1024,
            encoding: ImageEncoding::Jpeg,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ModelConfig {
    pub name: String,
    /// Base URLs up to and including `/v1`; several = replicas of one deployment.
    pub endpoints: Vec<String>,
    /// The model id sent in requests.
    pub model: String,
    pub params: GenParams,
    pub images: ImagePolicy,
    /// How the model writes boxes (grounding); also fixes the sent size under `crag-mm`.
    pub box_convention: crate::scorers::grounding::BoxConvention,
    /// Name of the environment variable holding the API key (the key itself is never stored).
    pub api_key_env: Option<String>,
    /// Requests in flight per endpoint.
    pub concurrency: usize,
    /// Requests per minute over all endpoints; None = unlimited.
    pub rate_per_minute: Option<u32>,
    pub timeout_secs: f64,
    pub max_retries: u32,
    /// Prices per million tokens, for cost reports.
    pub price_input: Option<f64>,
    pub price_output: Option<f64>,
}

impl Default for ModelConfig {
    fn default() -> Self {
        Self {
            name: String::new(),
            endpoints: Vec::new(),
            model: String::new(),
            params: GenParams::default(),
            images: ImagePolicy::default(),
            box_convention: Default::default(),
            api_key_env: None,
            concurrency: 8,
            rate_per_minute: None,
            timeout_secs: 120.0,
            max_retries: 5,
            price_input: None,
            price_output: None,
        }
    }
}

impl ModelConfig {
    /// What `prompt` and `completion` tokens cost at this model's prices (dollars per million
    /// tokens, as the model form takes them); None unless both prices are set. Every cost Assay
    /// shows, spent or estimated, is this.
    pub fn cost(&self, prompt_tokens: f64, completion_tokens: f64) -> Option<f64> {
        self.price_input
            .zip(self.price_output)
            .map(|(i, o)| (prompt_tokens * i + completion_tokens * o) / 1e6)
    }

    /// The form every saved configuration takes, whoever typed it (the app's form, the CLI's
    /// flags, a script): names, ids, endpoints and the key variable without surrounding blanks,
    /// no empty endpoint, at least one request in flight, no zero rate limit, at least one token
    /// to generate.
    pub fn cleaned(mut self) -> Self {
        let trim = |s: &mut String| *s = s.trim().to_string();
        trim(&mut self.name);
        trim(&mut self.model);
        self.endpoints = self
            .endpoints
            .iter()
            .map(|e| e.trim().to_string())
            .filter(|e| !e.is_empty())
            .collect();
        self.api_key_env = self
            .api_key_env
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from);
        self.concurrency = self.concurrency.max(1);
        self.rate_per_minute = self.rate_per_minute.filter(|r| *r > 0);
        self.params.max_tokens = self.params.max_tokens.max(1);
        self
    }

    pub fn validate(&self) -> Result<()> {
        if self.name.trim().is_empty() || self.model.trim().is_empty() {
            return Err(EvalError::Config(
                "a model needs a name and a model id".into(),
            ));
        }
        if self.endpoints.is_empty() {
            return Err(EvalError::Config(format!(
                "model {} has no endpoint",
                self.name
            )));
        }
        for e in &self.endpoints {
            if !(e.starts_with("http://") || e.starts_with("https://")) {
                return Err(EvalError::Config(format!(
                    "endpoint {e} is not an http(s) URL"
                )));
            }
        }
        crate::trust::check_key_variable(self.api_key_env.as_deref())?;
        if self.concurrency == 0 {
            return Err(EvalError::Config("concurrency must be at least 1".into()));
        }
        Ok(())
    }

    /// How this model's responses are read by the scorers.
    pub fn score_context(&self) -> crate::scorers::ScoreContext {
        crate::scorers::ScoreContext {
            boxes: self.box_convention,
            max_side: Some(self.images.max_side),
        }
    }

    /// The API key, read from the environment at request time.
    pub fn api_key(&self) -> Option<String> {
        self.api_key_env
            .as_deref()
            .filter(|v| crate::trust::check_key_variable(Some(v)).is_ok())
            .and_then(|v| std::env::var(v).ok())
            .filter(|k| !k.is_empty())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredModel {
    pub id: i64,
    pub config: ModelConfig,
}

/// Saves a model set up by the person on this machine, which accepts its endpoints here.
/// Saves a model's configuration in its [`ModelConfig::cleaned`] form; returns its id and the
/// configuration as saved.
pub fn save_model(project: &Project, cfg: &ModelConfig) -> Result<(i64, ModelConfig)> {
    let cfg = cfg.clone().cleaned();
    cfg.validate()?;
    crate::trust::accept(&cfg)?;
    let id = project.save_model_config(&cfg.name, &serde_json::to_string(&cfg)?)?;
    Ok((id, cfg))
}

pub fn models(project: &Project) -> Result<Vec<StoredModel>> {
    project
        .model_configs()?
        .into_iter()
        .map(|m| {
            Ok(StoredModel {
                id: m.id,
                config: serde_json::from_str(&m.config)?,
            })
        })
        .collect()
}

pub fn model_by_name(project: &Project, name: &str) -> Result<StoredModel> {
    let m = project
        .model_config(name)?
        .ok_or_else(|| EvalError::Config(format!("no model named {name:?} in this project")))?;
    Ok(StoredModel {
        id: m.id,
        config: serde_json::from_str(&m.config)?,
    })
}

/// A model row for predictions recorded elsewhere (no endpoint).
pub fn ensure_recorded_model(project: &Project, name: &str) -> Result<i64> {
    let cfg = ModelConfig {
        name: name.into(),
        model: name.into(),
        ..Default::default()
    };
    Ok(project.ensure_model_config(name, &serde_json::to_string(&cfg)?)?)
}

#[cfg(test)]
mod cost_tests {
    use super::ModelConfig;

    #[test]
    fn a_saved_configuration_is_trimmed_and_clamped_whoever_typed_it() {
        let c = ModelConfig {
            name: " qwen ".into(),
            model: " Qwen/Qwen2.5-VL-7B-Instruct\t".into(),
            endpoints: vec![" http://gpu1:8000/v1 ".into(), "  ".into()],
            api_key_env: Some("  ".into()),
            concurrency: 0,
            rate_per_minute: Some(0),
            ..Default::default()
        }
        .cleaned();
        assert_eq!(c.name, "qwen");
        assert_eq!(c.model, "Qwen/Qwen2.5-VL-7B-Instruct");
        assert_eq!(c.endpoints, vec!["http://gpu1:8000/v1".to_string()]);
        assert_eq!(c.api_key_env, None);
        assert_eq!((c.concurrency, c.rate_per_minute), (1, None));
        assert!(c.params.max_tokens >= 1);
        assert!(c.validate().is_ok());
    }

    #[test]
    fn a_cost_is_dollars_per_million_tokens_of_each_kind_and_needs_both_prices() {
        let mut m = ModelConfig {
            price_input: Some(2.5),
            price_output: Some(10.0),
            ..Default::default()
        };
        // 1,200 prompt tokens at $2.50/M and 300 completion tokens at $10/M.
        let c = m.cost(1_200.0, 300.0).unwrap();
        assert!((c - 0.006).abs() < 1e-15, "{c}");
        assert_eq!(m.cost(0.0, 0.0), Some(0.0));
        m.price_output = None;
        assert_eq!(m.cost(1_200.0, 300.0), None);
    }
}
