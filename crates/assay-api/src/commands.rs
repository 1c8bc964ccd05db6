//! Every command the app calls, declared once with its real Rust types.
//!
//! `for_each_command!(m)` hands the whole list to the macro `m`. The bindings generator
//! (`bindings.rs`) turns it into typed TypeScript wrappers and collects every payload type the
//! commands reach; the shell (`src-tauri`) expands the same list into its `#[tauri::command]`s
//! and their registration, each calling a body of that name with these arguments. A command is
//! therefore written as its declaration here, its session method and its shell body: names and
//! types cannot drift between them, and no TypeScript type is typed by hand.
//!
//! Names used here must be in scope where the macro is expanded (both sites import them).

#[macro_export]
macro_rules! for_each_command {
    ($m:ident) => {
        $m! {
            app_info() -> AppInfo;
            open_project(path: PathBuf) -> ProjectInfo;
            create_project(path: PathBuf) -> ProjectInfo;
            set_user(name: String, role: Role) -> SessionUser;
            project_info() -> ProjectInfo;
            query_items(filter: Filter, page: Page) -> QueryResult;
            facets(filter: Filter) -> Facets;
            item_ids(filter: Filter) -> Vec<i64>;
            item_detail(id: i64) -> ItemDetail;
            save_item(id: i64, edit: Edit) -> ItemDetail;
            restore_revision(id: i64, rev: i64) -> ItemDetail;
            saved_filter() -> Filter;
            save_filter(filter: Filter) -> ();
            import_dataset(request: ImportRequest, on_progress: Channel<Progress>) -> ImportReport;
            cancel_import() -> ();
            stages() -> Vec<Stage>;
            set_stages(stages: Vec<(String, String)>) -> Vec<Stage>;
            filtering(id: i64) -> Filtering;
            decide_stage(id: i64, stage_id: i64, keep: bool, reason: Option<String>) -> Filtering;
            flag_phase1(id: i64, dimension: Phase1Dimension, flagged: bool, note: Option<String>) -> Filtering;
            override_phase1(id: i64, keep: bool, note: Option<String>) -> Filtering;
            funnel(datasets: Vec<i64>, group: String) -> Vec<FunnelStep>;
            save_chart(path: String, data: String) -> ();
            item_results(id: i64) -> ItemResults;
            overrule_criterion(run_id: i64, id: i64, criterion: usize, rating: f64) -> CriterionOverruled;
            models() -> Vec<ModelForm>;
            save_model(form: ModelForm) -> ModelForm;
            check_model(name: String) -> ModelCheck;
            estimate_eval(form: EvalForm) -> EvalEstimate;
            stage_table(version: String) -> StageView;
            judge_panel(run: i64, scorer: String, judges: Vec<String>) -> PanelView;
            start_eval(form: EvalForm) -> ();
            eval_status() -> EvalStatus;
            cancel_eval() -> ();
            dashboard(by: Option<String>, against: Option<String>) -> Dashboard;
            run_list() -> Vec<RunListRow>;
            rescore_runs(run: Option<i64>) -> Vec<RescoreResult>;
            overrule_result(run_id: i64, id: i64, score: f64, note: Option<String>) -> ();
            triage() -> Vec<TriageEntry>;
            tag_failure(run_id: i64, id: i64, tag: String, tagged: bool) -> ();
            remove_model(name: String) -> ();
            review(id: i64, decision: ReviewDecision, comment: Option<String>) -> ItemDetail;
            review_queue() -> Vec<i64>;
            sign_off(id: i64, signed: bool, note: Option<String>) -> ItemDetail;
            agreement(field: AgreementField, round: Option<i64>) -> Agreement;
            my_work() -> MyWork;
            rounds() -> Vec<RoundSummary>;
            create_round(round: NewRound, filter: Filter) -> Vec<RoundSummary>;
            blind_items(id: i64) -> Vec<BlindItem>;
            record_blind(round: i64, id: i64, judgement: BlindJudgement) -> Vec<BlindItem>;
            adjudicate_blind(round: i64, id: i64, take: String) -> ItemDetail;
            judge_review(run: i64, size: usize, seed: u64) -> Vec<JudgeReviewEntry>;
            import_predictions(form: PredictionsForm) -> PredictionsReport;
            rate_judge(run: i64, id: i64, rating: u8) -> JudgeRatingReport;
            judge_rating_report(run: i64) -> JudgeRatingReport;
            comments(id: i64) -> Vec<Comment>;
            add_comment(id: i64, body: String) -> Vec<Comment>;
            people() -> Vec<PersonStats>;
            users() -> Vec<User>;
            team_status() -> TeamStatus;
            team_sync() -> TeamStatus;
            set_team_password(password: Option<String>) -> ();
            team_publish(url: String, password: Option<String>) -> TeamStatus;
            team_join(url: String, password: Option<String>, file: String) -> ProjectInfo;
            sync_conflicts() -> Vec<SyncConflict>;
            conflict_sides(id: i64) -> Option<ConflictSides>;
            resolve_sync_conflict(id: i64, edit: Edit) -> ItemDetail;
            bulk_edit(target: Filter, change: BulkChange) -> BulkReport;
            undo_bulk(action: i64) -> BulkReport;
            bulk_actions() -> Vec<BulkAction>;
            saved_views() -> Vec<SavedView>;
            save_view(name: String, filter: Filter, columns: Vec<String>, shared: bool) -> Vec<SavedView>;
            delete_view(name: String) -> Vec<SavedView>;
            export_selection(target: Filter, dir: String) -> ExportReport;
            run_detail(run: i64, only: Option<String>, offset: i64, limit: i64) -> RunDetail;
            delete_run(run: i64) -> ();
            table_extras(ids: Vec<i64>, runs: Vec<i64>) -> Vec<ItemExtras>;
            estimate_suggest(form: SuggestForm) -> SuggestEstimateView;
            start_suggest(form: SuggestForm) -> ();
            suggest_status() -> SuggestStatus;
            cancel_suggest() -> ();
            item_suggestions(id: i64) -> Vec<Suggestion>;
            accept_suggestion(id: i64, suggestion: i64, base_rev: i64, value: SuggestionValue, stage_id: Option<i64>, reason: Option<String>) -> ItemDetail;
            reject_suggestion(id: i64, suggestion: i64, reason: String) -> Vec<Suggestion>;
            suggestion_report() -> SuggestionReport;
        }
    };
}
