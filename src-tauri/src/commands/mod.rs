//! The shell's own command bodies, by domain: only the commands that work beside the session
//! (background jobs, blocking calls off its lock, the window's state). Every other command is
//! a session method, called by the handler `generated` makes from assay-api's one list.

pub mod evaluation;
pub mod generated;
pub mod project;
pub mod suggestions;
pub mod team;

// One flat namespace of bodies, which the generated commands call.
pub use evaluation::*;
pub use project::*;
pub use suggestions::*;
pub use team::*;
