//! The desktop shell: window, state, commands (thin wrappers over assay-api) and the `assay:`
//! image protocol.

mod commands;
mod images;
mod launch;
mod state;

use state::AppState;
use tauri::Manager;

pub fn run() {
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
        ])
        .run(tauri::generate_context!())
        .expect("error while running Assay");
}
