//! The desktop shell: window, state, commands (thin wrappers over assay-api) and the `assay:`
//! image protocol.

mod commands;
mod images;
mod launch;
mod rendering;
mod state;

use state::AppState;
use tauri::Manager;

/// Every declared command, registered with Tauri: the same list its TypeScript wrappers come from.
macro_rules! register {
    ($( $kind:ident $name:ident ( $( $arg:ident : $ty:ty ),* ) -> $ret:ty ; )*) => {
        tauri::generate_handler![ $( commands::generated::$name ),* ]
    };
}

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
        .invoke_handler(assay_api::for_each_command!(register))
        .run(tauri::generate_context!())
        .expect("error while running Assay");
}
