//! The desktop shell: window, state, commands (thin wrappers over assay-api) and the `assay:`
//! image protocol.

mod commands;
mod images;
mod launch;
mod rendering;
mod state;

use state::AppState;
use tauri::Manager;

pub fn run() {
    rendering::choose();
    let launch = launch::Launch::from_args(std::env::args().skip(1));
    tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .setup(move |app| {
            let config_dir = match std::env::var_os("ASSAY_CONFIG_DIR") {
                Some(d) => d.into(),
                None => app.path().app_config_dir()?,
            };
            let state = AppState::new(config_dir.join("prefs.json"));
            launch.apply(&state);
            app.manage(state);
            Ok(())
        })
        .register_asynchronous_uri_scheme_protocol("assay", images::handle)
        .invoke_handler(tauri::generate_handler![
            commands::session::app_info,
            commands::session::open_project,
            commands::session::create_project,
            commands::session::set_user,
            commands::session::project_info,
            commands::items::query_items,
            commands::items::facets,
            commands::items::item_ids,
            commands::items::item_detail,
            commands::items::save_item,
            commands::items::restore_revision,
            commands::items::saved_filter,
            commands::items::save_filter,
            commands::import::import_dataset,
            commands::import::cancel_import,
            commands::filtering::stages,
            commands::filtering::set_stages,
            commands::filtering::filtering,
            commands::filtering::decide_stage,
            commands::filtering::flag_phase1,
            commands::filtering::override_phase1,
            commands::filtering::funnel,
            commands::filtering::save_chart,
            commands::filtering::item_results,
            commands::filtering::overrule_criterion,
            commands::evaluation::models,
            commands::evaluation::save_model,
            commands::evaluation::check_model,
            commands::evaluation::estimate_eval,
            commands::evaluation::stage_table,
            commands::evaluation::judge_panel,
            commands::evaluation::start_eval,
            commands::evaluation::eval_status,
            commands::evaluation::cancel_eval,
            commands::evaluation::dashboard,
            commands::evaluation::run_list,
            commands::evaluation::rescore_runs,
            commands::evaluation::overrule_result,
            commands::evaluation::triage,
            commands::evaluation::tag_failure,
            commands::evaluation::remove_model,
            commands::filtering::review,
            commands::filtering::review_queue,
            commands::filtering::sign_off,
            commands::filtering::agreement,
            commands::filtering::my_work,
            commands::filtering::rounds,
            commands::filtering::create_round,
            commands::filtering::blind_items,
            commands::filtering::record_blind,
            commands::filtering::adjudicate_blind,
            commands::filtering::judge_review,
            commands::evaluation::import_predictions,
            commands::filtering::rate_judge,
            commands::filtering::judge_rating_report,
            commands::filtering::comments,
            commands::filtering::add_comment,
            commands::filtering::people,
            commands::filtering::users,
            commands::team::team_status,
            commands::team::team_sync,
            commands::team::set_team_password,
            commands::team::team_publish,
            commands::team::team_join,
            commands::team::sync_conflicts,
            commands::team::conflict_sides,
            commands::team::resolve_sync_conflict,
            commands::selection::bulk_edit,
            commands::selection::undo_bulk,
            commands::selection::bulk_actions,
            commands::selection::saved_views,
            commands::selection::save_view,
            commands::selection::delete_view,
            commands::selection::export_selection,
            commands::selection::run_detail,
            commands::selection::delete_run,
            commands::selection::table_extras,
            commands::suggestions::estimate_suggest,
            commands::suggestions::start_suggest,
            commands::suggestions::suggest_status,
            commands::suggestions::cancel_suggest,
            commands::suggestions::item_suggestions,
            commands::suggestions::accept_suggestion,
            commands::suggestions::reject_suggestion,
            commands::suggestions::suggestion_report,
        ])
        .run(tauri::generate_context!())
        .expect("error while running Assay");
}

#[cfg(test)]
mod tests {
    /// The handlers registered above, read from this file's source: `commands::<module>::<name>`.
    fn registered() -> Vec<String> {
        let src = include_str!("lib.rs");
        let start =
            src.find("generate_handler![").expect("handler list") + "generate_handler![".len();
        let end = start + src[start..].find(']').expect("end of handler list");
        src[start..end]
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| s.rsplit("::").next().unwrap_or(s).to_string())
            .collect()
    }

    /// The generated TypeScript wrappers (assay-api's `for_each_command!`) and the handlers the shell
    /// registers are the same set: a command missing on either side fails here, not at runtime.
    #[test]
    fn every_generated_command_has_a_handler_and_back() {
        let mut handlers = registered();
        let mut generated: Vec<String> = assay_api::bindings::commands()
            .iter()
            .map(|c| c.name.to_string())
            .collect();
        handlers.sort();
        generated.sort();
        assert_eq!(handlers, generated);
    }

    /// Each handler's argument names match what the wrapper sends (Tauri maps camelCase JS keys
    /// to the Rust parameter names).
    #[test]
    fn handler_arguments_match_the_generated_wrappers() {
        let sources = [
            include_str!("commands/session.rs"),
            include_str!("commands/items.rs"),
            include_str!("commands/import.rs"),
            include_str!("commands/filtering.rs"),
            include_str!("commands/evaluation.rs"),
            include_str!("commands/team.rs"),
            include_str!("commands/selection.rs"),
            include_str!("commands/suggestions.rs"),
        ]
        .concat();
        for c in assay_api::bindings::commands() {
            let at = sources
                .find(&format!("pub async fn {}(", c.name))
                .or_else(|| sources.find(&format!("pub fn {}(", c.name)))
                .unwrap_or_else(|| panic!("no handler fn for {}", c.name));
            let sig_end = at + sources[at..].find(')').unwrap();
            let sig = &sources[at..sig_end];
            for (arg, _) in &c.args {
                let rust = arg
                    .chars()
                    .flat_map(|ch| {
                        if ch.is_ascii_uppercase() {
                            vec!['_', ch.to_ascii_lowercase()]
                        } else {
                            vec![ch]
                        }
                    })
                    .collect::<String>();
                let whole = sig.match_indices(&format!("{rust}:")).any(|(at, _)| {
                    at == 0 || !sig[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_')
                });
                assert!(whole, "{}: no argument {rust} in {sig}", c.name);
            }
        }
    }
}
