//! `assay`: the project's operations for scripts and headless machines.

mod commands;
mod output;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "assay",
    version,
    about = "Repair vision-language benchmarks: import, edit, export, evaluate"
)]
struct Cli {
    /// The project file (.assay).
    #[arg(short, long, global = true, env = "ASSAY_PROJECT")]
    project: Option<PathBuf>,
    /// Print machine-readable JSON instead of text.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Create an empty project file.
    New(commands::project::NewArgs),
    /// Import a data file or image folder as a new dataset.
    Import(commands::project::import::ImportArgs),
    /// Export a dataset's current set (removed items left out) with a changelog.
    Export(commands::project::export::ExportArgs),
    /// List items matching filters.
    List(commands::items::ListArgs),
    /// Show one item: current state, original and history.
    Show(commands::items::ShowArgs),
    /// Record an edit to one item (new revision).
    Edit(commands::items::EditArgs),
    /// Counts per dataset, operation and status.
    Stats,
    /// Give the project file's free pages back to the file system (SQLite's VACUUM: needs free
    /// disk about the file's size, and the project to itself, while it runs).
    Compact,
    /// Manage users and roles.
    #[command(subcommand)]
    User(commands::project::UserCommand),
    /// Models (endpoints) used for evaluation.
    #[command(subcommand)]
    Model(commands::evaluation::ModelCommand),
    /// Prompt templates (versioned: a changed body becomes a new version).
    #[command(subcommand)]
    Template(commands::evaluation::TemplateCommand),
    /// Run models over datasets, before and after refinement.
    Eval(commands::evaluation::EvalArgs),
    /// List evaluation runs.
    Runs,
    /// Rescore stored responses with the current scorer rules (nothing is sent to a model).
    Rescore(commands::evaluation::RescoreArgs),
    /// Import predictions recorded by other tools as runs.
    #[command(subcommand)]
    Predictions(commands::evaluation::PredictionsCommand),
    /// Overrule a scorer's judgement of one item in one run (the scorer's result is kept).
    Overrule(commands::evaluation::OverruleArgs),
    /// The before/after table.
    Table(commands::evaluation::TableArgs),
    /// A judge panel: several judges score one run's stored responses (no model request sent
    /// again); their agreement per pair, over all (Krippendorff's alpha) and per criterion,
    /// and the items they disagree on most.
    Panel(commands::evaluation::PanelArgs),
    /// People rate a judge's decisions 1-5 on a sample of a run's judged results (by seed);
    /// `--report` correlates their ratings with the judge's scores.
    RateJudge(commands::evaluation::judge_ratings::RateJudgeArgs),
    /// Filtering stages (HAERAE-Vision's six by default).
    #[command(subcommand)]
    Stages(commands::filtering::StagesCommand),
    /// Record a keep/drop decision for an item at a stage.
    Decide(commands::filtering::DecideArgs),
    /// Set or withdraw a phase-1 flag (any flag removes the item unless an auditor keeps it).
    Flag(commands::filtering::FlagArgs),
    /// An auditor keeps a flagged item (or withdraws that).
    Keep(commands::filtering::KeepArgs),
    /// Survivors after each stage and after phase-1 validation.
    Funnel(commands::filtering::FunnelArgs),
    /// Approve another person's revision or ask for changes (never your own).
    Review(commands::review::ReviewArgs),
    /// Items waiting for this person's review.
    Queue(commands::review::QueueArgs),
    /// An auditor signs an item off (locking it) or reopens it.
    SignOff(commands::review::SignOffArgs),
    /// Agreement between annotators (operations, tags, referring-expression types, phase-1
    /// flags, checklist ratings): Cohen, Fleiss, Krippendorff.
    Agreement(commands::review::AgreementArgs),
    /// Rounds of work: make one with assignments and overlap, list progress, a person's queue.
    #[command(subcommand)]
    Round(commands::review::rounds::RoundCommand),
    /// Add a comment to an item's thread (`@name` mentions who must act).
    Comment(commands::review::rounds::CommentArgs),
    /// An item's comment thread.
    Comments(commands::review::rounds::CommentsArgs),
    /// Each person's account: items done, approved, sent back, reviews, time per item.
    People,
    /// Share a project: publish, invite members, join as a replica.
    #[command(subcommand)]
    Team(commands::team::TeamCommand),
    /// Push new local rows to the team and pull everyone else's.
    Sync,
    /// Run the team service in front of a team database: members sync through it.
    Serve(commands::serve::ServeArgs),
    /// Items where two people's revisions met (from a sync).
    Conflicts,
    /// Resolve an item's conflict by keeping one revision's content as a new revision.
    Resolve(commands::team::ResolveArgs),
    /// Target and person boxes to and from COCO, Label Studio, CRAG-MM-Diagnostics and model
    /// outputs.
    #[command(subcommand)]
    Boxes(commands::grounding::BoxesCommand),
    /// Trace a run's numbers: per item the prompt sent, the raw response, what the scorer read,
    /// its rule, score and evidence, and any overrule.
    Trace(commands::evaluation::TraceArgs),
    /// Ask a model for drafts (checklists, rewrites, distractors, boxes, screening, ...) over
    /// the filtered items. Nothing changes until a person accepts one.
    Suggest(commands::suggestions::SuggestArgs),
    /// Review suggestions: list an item's, accept (as is or edited), reject, report.
    #[command(subcommand)]
    Suggestion(commands::suggestions::SuggestionCommand),
}

// mimalloc: glibc's malloc made the import's two threads (reading and writing) wait on each
// other's arena locks, ~18,000 context switches per 100,000 items; 5.4 s -> 3.9 s
// (BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
assay_core::give_freed_memory_back_at_load!();

fn main() -> ExitCode {
    // Before any thread exists: SQLite is configured only while nothing else uses it.
    assay_core::store::configure_sqlite();
    let cli = Cli::parse();
    let ctx = commands::Ctx {
        project: cli.project,
        json: cli.json,
    };
    let result = match cli.command {
        Command::New(a) => commands::project::new(&ctx, a),
        Command::Import(a) => commands::project::import::run(&ctx, a),
        Command::Export(a) => commands::project::export::run(&ctx, a),
        Command::List(a) => commands::items::list(&ctx, a),
        Command::Show(a) => commands::items::show(&ctx, a),
        Command::Edit(a) => commands::items::edit(&ctx, a),
        Command::Stats => commands::project::stats(&ctx),
        Command::Compact => commands::project::compact(&ctx),
        Command::User(c) => commands::project::user(&ctx, c),
        Command::Model(c) => commands::evaluation::model(&ctx, c),
        Command::Template(c) => commands::evaluation::template(&ctx, c),
        Command::Eval(a) => commands::evaluation::eval(&ctx, a),
        Command::Runs => commands::evaluation::runs(&ctx),
        Command::Rescore(a) => commands::evaluation::rescore(&ctx, a),
        Command::Predictions(c) => commands::evaluation::predictions(&ctx, c),
        Command::Overrule(a) => commands::evaluation::overrule(&ctx, a),
        Command::Table(a) => commands::evaluation::table(&ctx, a),
        Command::Panel(a) => commands::evaluation::panel(&ctx, a),
        Command::RateJudge(a) => commands::evaluation::judge_ratings::rate_judge(&ctx, a),
        Command::Trace(a) => commands::evaluation::trace(&ctx, a),
        Command::Boxes(c) => commands::grounding::run(&ctx, c),
        Command::Stages(c) => commands::filtering::stages(&ctx, c),
        Command::Review(a) => commands::review::review(&ctx, a),
        Command::Queue(a) => commands::review::queue(&ctx, a),
        Command::SignOff(a) => commands::review::sign_off(&ctx, a),
        Command::Agreement(a) => commands::review::agreement(&ctx, a),
        Command::Round(c) => commands::review::rounds::round(&ctx, c),
        Command::Comment(a) => commands::review::rounds::comment(&ctx, a),
        Command::Comments(a) => commands::review::rounds::comments(&ctx, a),
        Command::People => commands::review::rounds::people(&ctx),
        Command::Team(c) => commands::team::team(&ctx, c),
        Command::Sync => commands::team::sync(&ctx),
        Command::Serve(a) => commands::serve::serve(a),
        Command::Conflicts => commands::team::conflicts(&ctx),
        Command::Resolve(a) => commands::team::resolve(&ctx, a),
        Command::Decide(a) => commands::filtering::decide(&ctx, a),
        Command::Flag(a) => commands::filtering::flag(&ctx, a),
        Command::Keep(a) => commands::filtering::keep(&ctx, a),
        Command::Funnel(a) => commands::filtering::funnel(&ctx, a),
        Command::Suggest(a) => commands::suggestions::suggest(&ctx, a),
        Command::Suggestion(c) => commands::suggestions::suggestion(&ctx, c),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if ctx.json {
                let code = e
                    .downcast_ref::<assay_core::Error>()
                    .map_or("error", |e| e.code());
                println!(
                    "{}",
                    serde_json::json!({"error": {"code": code, "message": format!("{e:#}")}})
                );
            } else {
                eprintln!("error: {e:#}");
            }
            ExitCode::FAILURE
        }
    }
}
