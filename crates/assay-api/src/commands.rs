//! Every command the app calls, declared once with its real Rust types.
//!
//! `for_each_command!(m)` hands the whole list to the macro `m`. The bindings generator
//! (`bindings.rs`) turns it into typed TypeScript wrappers and collects every payload type the
//! commands reach; the shell (`src-tauri`) expands the same list into its `#[tauri::command]`s
//! and their registration. A `session` command is the [`Session`](crate::Session) method of
//! that name, which the generated handler calls with these arguments under the session's lock;
//! a `shell` command works beside the session (a background job, a blocking call off its lock,
//! the window's state) and has its body in the shell. Adding a command is therefore its store
//! function, its session method in the api's domain module, one line here, its view and its
//! test: names and types cannot drift between them, and no TypeScript type is typed by hand.
//!
//! Names used here must be in scope where the macro is expanded (both sites import them).

#[macro_export]
macro_rules! for_each_command {
    ($m:ident) => {
        $m! {
            session app_info() -> AppInfo;
            shell open_project(path: PathBuf) -> ProjectInfo;
            session create_project(path: PathBuf) -> ProjectInfo;
            session set_user(name: String, role: Role) -> SessionUser;
            session project_info() -> ProjectInfo;
            session query_items(filter: Filter, page: Page) -> QueryResult;
            session facets(filter: Filter) -> Facets;
            session item_ids(filter: Filter) -> Vec<i64>;
            session item_detail(id: i64) -> ItemDetail;
            session save_item(id: i64, edit: Edit) -> ItemDetail;
            session restore_revision(id: i64, rev: i64) -> ItemDetail;
            session saved_filter() -> Filter;
            session save_filter(filter: Filter) -> ();
            shell import_dataset(request: ImportRequest, on_progress: Channel<Progress>) -> ImportReport;
            shell cancel_import() -> ();
            shell preview_import(request: ImportRequest, records: usize) -> ImportPreview;
            session read_mapping(path: String) -> Mapping;
            session save_mapping(path: String, mapping: Mapping) -> ();
            session stages() -> Vec<Stage>;
            session set_stages(stages: Vec<(String, String)>) -> Vec<Stage>;
            session filtering(id: i64) -> Filtering;
            session decide_stage(id: i64, stage_id: i64, keep: bool, reason: Option<String>) -> Filtering;
            session flag_phase1(id: i64, dimension: Phase1Dimension, flagged: bool, note: Option<String>) -> Filtering;
            session override_phase1(id: i64, keep: bool, note: Option<String>) -> Filtering;
            session funnel(datasets: Vec<i64>, group: String) -> Vec<FunnelStep>;
            shell save_chart(path: String, data: String) -> ();
            session item_results(id: i64) -> ItemResults;
            session overrule_criterion(run_id: i64, id: i64, criterion: usize, rating: f64) -> CriterionOverruled;
            session models() -> Vec<ModelForm>;
            session save_model(form: ModelForm) -> ModelForm;
            shell check_model(name: String) -> ModelCheck;
            session estimate_eval(form: EvalForm) -> EvalEstimate;
            session stage_table(version: String) -> StageView;
            shell judge_panel(run: i64, scorer: String, judges: Vec<String>, top: usize) -> PanelView;
            shell judge_unsure(run: i64, judge: String) -> HybridResult;
            shell start_eval(form: EvalForm) -> ();
            shell eval_status() -> EvalStatus;
            shell cancel_eval() -> ();
            session dashboard(by: Option<String>, against: Option<String>) -> Dashboard;
            session run_list() -> Vec<RunListRow>;
            session rescore_runs(run: Option<i64>) -> Vec<RescoreResult>;
            session overrule_result(run_id: i64, id: i64, score: f64, note: Option<String>) -> ();
            session triage() -> Vec<TriageEntry>;
            session tag_failure(run_id: i64, id: i64, tag: String, tagged: bool) -> ();
            session remove_model(name: String) -> ();
            session templates() -> TemplateLibrary;
            session save_template(form: TemplateForm) -> SavedTemplate;
            session why_not_template_name(name: String) -> Option<String>;
            session review(id: i64, decision: ReviewDecision, comment: Option<String>) -> ItemDetail;
            session review_queue() -> Vec<i64>;
            session sign_off(id: i64, signed: bool, note: Option<String>) -> ItemDetail;
            session agreement(field: AgreementField, round: Option<i64>) -> Agreement;
            session majority_check(field: AgreementField, round: Option<i64>, experts: Vec<String>, crowd: u32) -> MajorityCheck;
            session my_work() -> MyWork;
            session rounds() -> Vec<RoundSummary>;
            session create_round(round: NewRound, filter: Filter) -> Vec<RoundSummary>;
            session blind_items(id: i64) -> Vec<BlindItem>;
            session record_blind(round: i64, id: i64, judgement: BlindJudgement) -> Vec<BlindItem>;
            session adjudicate_blind(round: i64, id: i64, take: String) -> ItemDetail;
            session judge_review(run: i64, size: usize, seed: u64) -> Vec<JudgeReviewEntry>;
            shell import_predictions(form: PredictionsForm) -> PredictionsReport;
            session rate_judge(run: i64, id: i64, rating: u8) -> JudgeRatingReport;
            session judge_rating_report(run: i64) -> JudgeRatingReport;
            session comments(id: i64) -> Vec<Comment>;
            session add_comment(id: i64, body: String) -> Vec<Comment>;
            session people() -> Vec<PersonStats>;
            session users() -> Vec<User>;
            session set_role(name: String, role: Role) -> SessionUser;
            session why_not_assign_roles() -> Option<String>;
            session role_choices(name: String) -> Vec<RoleChoice>;
            shell team_status() -> TeamStatus;
            shell team_sync() -> TeamStatus;
            shell set_team_password(password: Option<String>) -> ();
            shell team_publish(url: String, password: Option<String>) -> TeamStatus;
            shell team_join(url: String, password: Option<String>, file: String) -> ProjectInfo;
            shell team_members() -> Vec<TeamMember>;
            shell team_invite(name: String, role: Role, days: Option<u32>) -> String;
            shell team_set_role(name: String, role: Role) -> ();
            shell team_revoke(name: String) -> u32;
            session sync_conflicts() -> Vec<SyncConflict>;
            session conflict_sides(id: i64) -> Option<ConflictSides>;
            session resolve_sync_conflict(id: i64, edit: Edit) -> ItemDetail;
            session bulk_edit(target: Filter, change: BulkChange) -> BulkReport;
            session undo_bulk(action: i64) -> BulkReport;
            session bulk_actions() -> Vec<BulkAction>;
            session saved_views() -> Vec<SavedView>;
            session save_view(name: String, filter: Filter, columns: Vec<String>, shared: bool) -> Vec<SavedView>;
            session delete_view(name: String) -> Vec<SavedView>;
            session export_selection(target: Filter, dir: String) -> ExportReport;
            shell export_dataset(dataset: String, format: ExportFormat, dir: String, signed_off_only: bool, on_progress: Channel<Progress>) -> DatasetExport;
            session export_boxes(dataset: String, format: String, dir: String) -> BoxExport;
            session import_model_boxes(dataset: String, path: String, field: String, convention: String, sent_size: Option<String>) -> BoxApplyReport;
            session import_boxes(dataset: String, format: String, path: String) -> BoxApplyReport;
            session compact_project() -> CompactReport;
            session run_detail(run: i64, only: Option<String>, offset: i64, limit: i64) -> RunDetail;
            session delete_run(run: i64) -> ();
            session table_extras(ids: Vec<i64>, runs: Vec<i64>) -> Vec<ItemExtras>;
            session estimate_suggest(form: SuggestForm) -> SuggestEstimateView;
            shell start_suggest(form: SuggestForm) -> ();
            shell suggest_status() -> SuggestStatus;
            shell cancel_suggest() -> ();
            session item_suggestions(id: i64) -> Vec<Suggestion>;
            session accept_suggestion(id: i64, suggestion: i64, base_rev: i64, value: SuggestionValue, stage_id: Option<i64>, reason: Option<String>) -> ItemDetail;
            session reject_suggestion(id: i64, suggestion: i64, reason: String) -> Vec<Suggestion>;
            session suggestion_report() -> SuggestionReport;
        }
    };
}
