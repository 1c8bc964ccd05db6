//! Command-line options: `assay-app [--project FILE] [--user NAME] [--role ROLE]`, used by
//! `cargo xtask demo` and the end-to-end tests.

use assay_core::Role;

use crate::state::AppState;

#[derive(Debug, Default, PartialEq)]
pub struct Launch {
    project: Option<String>,
    user: Option<String>,
    role: Option<Role>,
}

impl Launch {
    pub fn from_args(args: impl Iterator<Item = String>) -> Self {
        let mut l = Launch::default();
        let mut it = args.peekable();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--project" => l.project = it.next(),
                "--user" => l.user = it.next(),
                "--role" => l.role = it.next().as_deref().and_then(Role::parse),
                _ => {}
            }
        }
        l
    }

    pub fn apply(&self, state: &AppState) {
        if let Some(u) = &self.user {
            let Ok(mut s) = state.session() else { return };
            let _ = s.set_user(u.clone(), self.role.unwrap_or(Role::Annotator));
        }
        if let Some(p) = &self.project {
            if let Err(e) = state.open_project(std::path::Path::new(p)) {
                eprintln!("could not open {p}: {e}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_project_user_and_role() {
        let l = Launch::from_args(
            [
                "--project",
                "a.assay",
                "--user",
                "aiko",
                "--role",
                "auditor",
            ]
            .into_iter()
            .map(String::from),
        );
        assert_eq!(
            l,
            Launch {
                project: Some("a.assay".into()),
                user: Some("aiko".into()),
                role: Some(Role::Auditor)
            }
        );
    }
}
