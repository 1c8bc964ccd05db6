//! Models as the app edits them: the form, saving and removing, a test request.

use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::error::{ApiError, ApiResult};
use assay_core::Project;
use assay_eval::model::{models, save_model, ModelConfig};
use assay_eval::scorers::grounding::BoxConvention;

use super::eval_err;
use crate::Session;

/// A model as the app edits it. The API key is never here: only the name of the environment
/// variable that holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ModelForm {
    pub name: String,
    pub endpoints: Vec<String>,
    pub model: String,
    pub api_key_env: Option<String>,
    pub concurrency: u32,
    pub rate_per_minute: Option<u32>,
    pub box_convention: String,
    pub price_input: Option<f64>,
    pub price_output: Option<f64>,
    pub max_tokens: u32,
    /// Whether this machine sends requests to it: a model that came from the team or another
    /// project file waits until the person here saves it (seeing its endpoints and key variable).
    #[serde(default)]
    pub accepted: bool,
}

impl ModelForm {
    fn of(cfg: &ModelConfig) -> Self {
        Self {
            name: cfg.name.clone(),
            endpoints: cfg.endpoints.clone(),
            model: cfg.model.clone(),
            api_key_env: cfg.api_key_env.clone(),
            concurrency: cfg.concurrency as u32,
            rate_per_minute: cfg.rate_per_minute,
            box_convention: cfg.box_convention.as_str().into(),
            price_input: cfg.price_input,
            price_output: cfg.price_output,
            max_tokens: cfg.params.max_tokens,
            accepted: assay_eval::trust::is_accepted(cfg),
        }
    }

    /// The stored config with this form's fields applied (other settings kept).
    /// (Cleaning is the saved form's: `ModelConfig::cleaned`, applied by `save_model`.)
    fn apply(&self, mut cfg: ModelConfig) -> ApiResult<ModelConfig> {
        cfg.name = self.name.clone();
        cfg.endpoints = self.endpoints.clone();
        cfg.model = self.model.clone();
        cfg.api_key_env = self.api_key_env.clone();
        cfg.concurrency = self.concurrency as usize;
        cfg.rate_per_minute = self.rate_per_minute;
        cfg.box_convention = BoxConvention::parse(&self.box_convention).ok_or_else(|| {
            ApiError::new(
                "invalid",
                format!(
                    "unknown box convention {:?}; one of {}",
                    self.box_convention,
                    BoxConvention::NAMES.join(", ")
                ),
            )
        })?;
        cfg.price_input = self.price_input;
        cfg.price_output = self.price_output;
        cfg.params.max_tokens = self.max_tokens;
        Ok(cfg)
    }
}

pub fn model_forms(project: &Project) -> ApiResult<Vec<ModelForm>> {
    Ok(models(project)
        .map_err(eval_err)?
        .iter()
        .map(|m| ModelForm::of(&m.config))
        .collect())
}

/// Adds or updates a model (by name); settings the form does not show are kept.
pub fn save_model_form(project: &Project, form: &ModelForm) -> ApiResult<ModelForm> {
    let existing = models(project)
        .map_err(eval_err)?
        .into_iter()
        .find(|m| m.config.name == form.name.trim())
        .map(|m| m.config)
        .unwrap_or_default();
    let (_, saved) = save_model(project, &form.apply(existing)?).map_err(eval_err)?;
    Ok(ModelForm::of(&saved))
}

/// Removes a model that has no runs yet.
pub fn remove_model(project: &Project, name: &str) -> ApiResult<()> {
    Ok(project.remove_model_config(name)?)
}

/// What one test request to a model brought back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ModelCheck {
    pub ok: bool,
    /// The model's reply, or what went wrong in plain words.
    pub message: String,
    pub millis: u64,
}

/// Sends one short request to the model's first endpoint.
pub async fn check_model(cfg: ModelConfig) -> ModelCheck {
    let started = Instant::now();
    if let Err(e) = assay_eval::trust::check_usable(&cfg) {
        return ModelCheck {
            ok: false,
            message: e.to_string(),
            millis: 0,
        };
    }
    let Some(endpoint) = cfg.endpoints.first().cloned() else {
        return ModelCheck {
            ok: false,
            message: "the model has no endpoint".into(),
            millis: 0,
        };
    };
    let key = match &cfg.api_key_env {
        Some(var) => match std::env::var(var) {
            Ok(k) => Some(k),
            Err(_) => {
                return ModelCheck {
                    ok: false,
                    message: format!("the environment variable {var} (the API key) is not set"),
                    millis: 0,
                }
            }
        },
        None => None,
    };
    let body = assay_eval::client::request_body(&cfg, None, "Reply with the single word OK.", &[]);
    let http = reqwest::Client::new();
    let res = assay_eval::client::chat(
        &http,
        &endpoint,
        key.as_deref(),
        &body,
        std::time::Duration::from_secs_f64(cfg.timeout_secs.min(30.0)),
    )
    .await;
    let millis = started.elapsed().as_millis() as u64;
    match res {
        Ok(r) => ModelCheck {
            ok: true,
            message: r.text,
            millis,
        },
        Err(e) => ModelCheck {
            ok: false,
            message: format!("{endpoint}: {}", e.message),
            millis,
        },
    }
}

/// The model's full config, for a test request made outside the session lock.
pub fn model_config(project: &Project, name: &str) -> ApiResult<ModelConfig> {
    Ok(assay_eval::model::model_by_name(project, name)
        .map_err(eval_err)?
        .config)
}

impl Session {
    pub fn models(&self) -> ApiResult<Vec<crate::evaluation::ModelForm>> {
        crate::evaluation::model_forms(self.project()?)
    }

    pub fn save_model(&mut self, form: ModelForm) -> ApiResult<crate::evaluation::ModelForm> {
        crate::evaluation::save_model_form(self.project()?, &form)
    }

    pub fn remove_model(&self, name: String) -> ApiResult<()> {
        crate::evaluation::remove_model(self.project()?, &name)
    }

    /// The model's config, to test it outside the session lock.
    pub fn model_config(&self, name: &str) -> ApiResult<assay_eval::ModelConfig> {
        crate::evaluation::model_config(self.project()?, name)
    }
}
