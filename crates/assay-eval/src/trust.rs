//! Which model endpoints this machine may send requests (and API keys) to. A model config that
//! came from elsewhere — pulled from the team, or inside a project file someone handed over — is
//! never used until the person here has seen and accepted its endpoints and key variable. The
//! accepted list lives on this machine (never in the project file, which travels), keyed by a
//! fingerprint of exactly what a request would use.

use std::io::Write;
use std::path::PathBuf;

use assay_core::Project;

use crate::error::{EvalError, Result};
use crate::model::{model_by_name, ModelConfig, StoredModel};

/// Where this machine's accepted endpoints are kept: `ASSAY_TRUST_FILE`, or the config folder.
pub fn trust_file() -> PathBuf {
    if let Some(p) = std::env::var_os("ASSAY_TRUST_FILE") {
        return PathBuf::from(p);
    }
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("assay").join("accepted-endpoints")
}

/// What a request to this model would use: its endpoints and the variable its key is read from.
pub fn fingerprint(cfg: &ModelConfig) -> String {
    let what = serde_json::json!([cfg.endpoints, cfg.api_key_env]).to_string();
    assay_core::imaging::sha256_hex(what.as_bytes())
}

pub fn is_accepted(cfg: &ModelConfig) -> bool {
    is_accepted_in(&trust_file(), cfg)
}

fn is_accepted_in(file: &std::path::Path, cfg: &ModelConfig) -> bool {
    let fp = fingerprint(cfg);
    std::fs::read_to_string(file)
        .map(|s| {
            s.lines()
                .any(|l| l.split_whitespace().next() == Some(fp.as_str()))
        })
        .unwrap_or(false)
}

/// The person on this machine accepts this model's endpoints and key variable.
pub fn accept(cfg: &ModelConfig) -> Result<()> {
    accept_in(&trust_file(), cfg)
}

fn accept_in(path: &std::path::Path, cfg: &ModelConfig) -> Result<()> {
    check_key_variable(cfg.api_key_env.as_deref())?;
    if is_accepted_in(path, cfg) {
        return Ok(());
    }
    let io = |e: std::io::Error| EvalError::Config(format!("{}: {e}", path.display()));
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(io)?;
    // One short line per write, so writers appending at once do not interleave.
    let line = format!(
        "{} {} {}\n",
        fingerprint(cfg),
        cfg.name.replace(char::is_whitespace, "_"),
        cfg.endpoints.join(",")
    );
    f.write_all(line.as_bytes()).map_err(io)?;
    Ok(())
}

/// Assay's own secrets and the database's, which a model's key variable may never name.
const NEVER_KEYS: [&str; 4] = ["ASSAY_", "PG", "DATABASE_", "POSTGRES"];

/// A key variable must look like an API key's name (upper case, digits and `_`, ending in KEY or
/// TOKEN, such as OPENAI_API_KEY or HF_TOKEN) and never name Assay's or the database's secrets:
/// otherwise a config someone else wrote could send any secret of this machine as a Bearer token.
pub fn check_key_variable(name: Option<&str>) -> Result<()> {
    let Some(name) = name else {
        return Ok(());
    };
    let shaped = !name.is_empty()
        && name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && (name.ends_with("KEY") || name.ends_with("TOKEN"));
    if !shaped {
        return Err(EvalError::Config(format!(
            "{name:?} does not look like an API key's variable (upper case, ending in KEY or \
             TOKEN, e.g. OPENAI_API_KEY)"
        )));
    }
    if let Some(p) = NEVER_KEYS.iter().find(|p| name.starts_with(*p)) {
        return Err(EvalError::Config(format!(
            "{name}: a model's key variable may not name a {p}* secret"
        )));
    }
    Ok(())
}

/// Whether a request may be sent with this config: its key variable is an API key's and the
/// person on this machine has accepted its endpoints.
pub fn check_usable(cfg: &ModelConfig) -> Result<()> {
    check_key_variable(cfg.api_key_env.as_deref())?;
    if !is_accepted(cfg) {
        return Err(EvalError::Config(format!(
            "model {} was not set up on this machine (it came from the team or another project \
             file): check its endpoints ({}) and key variable ({}), then accept it (assay model \
             accept {}, or Save in Models)",
            cfg.name,
            cfg.endpoints.join(", "),
            cfg.api_key_env.as_deref().unwrap_or("none"),
            cfg.name
        )));
    }
    Ok(())
}

/// A model to send requests to (see `check_usable`).
pub fn model_for_requests(project: &Project, name: &str) -> Result<StoredModel> {
    let m = model_by_name(project, name)?;
    check_usable(&m.config)?;
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_variables_must_name_api_keys_only() {
        for ok in ["OPENAI_API_KEY", "HF_TOKEN", "VLLM_API_KEY", "MY_KEY"] {
            assert!(check_key_variable(Some(ok)).is_ok(), "{ok}");
        }
        for bad in [
            "ASSAY_TEAM_PASSWORD",
            "ASSAY_MEMBER_PASSWORD",
            "ASSAY_TEST_KEY",
            "PGPASSWORD",
            "PGPASSKEY",
            "HOME",
            "PATH",
            "openai_api_key",
            "AWS_SECRET",
            "",
            "A KEY",
        ] {
            assert!(check_key_variable(Some(bad)).is_err(), "{bad}");
        }
        assert!(check_key_variable(None).is_ok());
    }

    #[test]
    fn a_model_is_used_only_once_accepted_here_and_any_change_needs_accepting_again() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("accepted");
        let cfg = ModelConfig {
            name: "m".into(),
            model: "m".into(),
            endpoints: vec!["http://127.0.0.1:9/v1".into()],
            ..Default::default()
        };
        assert!(!is_accepted_in(&file, &cfg));
        accept_in(&file, &cfg).unwrap();
        assert!(is_accepted_in(&file, &cfg));
        let moved = ModelConfig {
            endpoints: vec!["http://attacker.example/v1".into()],
            ..cfg.clone()
        };
        assert!(!is_accepted_in(&file, &moved));
        let keyed = ModelConfig {
            api_key_env: Some("OPENAI_API_KEY".into()),
            ..cfg.clone()
        };
        assert!(!is_accepted_in(&file, &keyed));
    }
}
