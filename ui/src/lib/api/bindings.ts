// Generated from Rust by assay-api (`cargo xtask bindings`). Do not edit by hand.
/* eslint-disable */
import { invoke, Channel } from '@tauri-apps/api/core';

export type Agreement = { field: AgreementField, 
/**
 * Units (items; for checklists, criteria of a judgement) two or more people rated.
 */
items: number, people: Array<string>, 
/**
 * Every value seen, in the order confusion matrices use.
 */
labels: Array<string>, 
/**
 * Cohen's kappa and a confusion matrix for each pair of people on their common units.
 */
pairs: Array<PairAgreement>, 
/**
 * Fleiss' kappa over the units rated by the most common number of people.
 */
fleiss_kappa: number | null, fleiss_items: number, fleiss_raters: number, 
/**
 * Krippendorff's alpha (nominal) over every unit with two or more values.
 */
krippendorff_alpha: number | null, 
/**
 * Krippendorff's alpha (interval), where values are numbers (checklist ratings).
 */
krippendorff_alpha_interval: number | null, 
/**
 * Krippendorff's alpha with the MASI distance between sets, where a value is a set of
 * labels (issue tags, phase-1 flags): one tag of two in common is partial agreement, not
 * the full disagreement the nominal alpha counts it as.
 */
krippendorff_alpha_masi: number | null, 
/**
 * Boxes: the mean IoU over every pair of people's boxes of the same item.
 */
mean_iou: number | null, 
/**
 * Measured on a blind round's independent judgements (not on revisions, where the second
 * person saw the first one's work).
 */
blind: boolean, };

export type AgreementField = "op" | "ref_type" | "tags" | "phase1" | "checklist" | "box";

export type AnswerFormat = "short_answer" | "multiple_choice" | "checklist" | "grounding" | "free_form";

export type ApiError = { 
/**
 * Stable: the UI may branch on it. One of the `assay_core::Error::code` values, or
 * `no_project`, `no_user`.
 */
code: string, message: string, };

export type AppInfo = { version: string, recent: Array<string>, user: SessionUser | null, project: ProjectInfo | null, };

export type AssigneeProgress = { name: string, assigned: number, done: number, 
/**
 * Review decisions on this person's revisions (of these items, since assignment).
 */
approved: number, sent_back: number, 
/**
 * Median seconds between this person's consecutive actions, pauses over 30 min left out.
 */
median_seconds: number | null, };

export type BBox = { x_min: number, y_min: number, x_max: number, y_max: number, };

export type Bin = { lo: number, hi: number, count: number, };

export type BlindEntry = { person: string, judgement: BlindJudgement, created_at: string, };

export type BlindItem = { round_id: number, round: string, item_id: number, assignees: Array<string>, 
/**
 * The viewer is one of the assignees.
 */
assigned: boolean, 
/**
 * Every assignee's judgement is in: they are shown, and an auditor may adjudicate.
 */
open: boolean, 
/**
 * The item has a revision written after the round dealt it (the adjudication).
 */
adjudicated: boolean, 
/**
 * The viewer's own judgement, and once open everyone's (each person's latest).
 */
judgements: Array<BlindEntry>, };

export type BlindJudgement = { op: RefinementOp | null, tags: Array<IssueTag>, ref_type: RefType | null, 
/**
 * The phase-1 dimensions this person flags (none: keep).
 */
phase1: Array<Phase1Dimension>, 
/**
 * A 1-5 rating of each of the item's checklist criteria, in the checklist's order (None:
 * not rated).
 */
checklist: Array<number | null>, 
/**
 * The target box in the first image's original pixels.
 */
target_box: BBox | null, note: string | null, };

export type BoxApplyReport = { 
/**
 * Box sets that found their item and image.
 */
matched: number, 
/**
 * Items given a new revision (the others already had these boxes).
 */
changed: number, 
/**
 * Sets for an image an earlier set of the file already gave boxes (several Label Studio
 * tasks on one image): their boxes were added to the earlier ones.
 */
merged: number, 
/**
 * Annotations whose segmentation was kept as its box only.
 */
segmentations_dropped: number, };

export type BoxExport = { path: string, 
/**
 * Images with boxes, and the boxes written (targets and people).
 */
images: number, boxes: number, 
/**
 * Label Studio's labelling config beside the tasks (it needs one to open them).
 */
label_config: string | null, };

export type BoxHistograms = { size_ratio: Array<Bin>, center_distance: Array<Bin>, saliency: Array<Bin>, };

export type BuiltinTemplate = { 
/**
 * Its name in the list ("vague/plain", "default/short_answer", "suggest/screening"). A run
 * names the seeds' prompts (`vague/…`, `crag-mm/…`) by it; the defaults per answer format
 * and per suggestion kind are what a run or a suggestion uses when it names none.
 */
name: string, kind: TemplateKind, 
/**
 * The answer format (prompt templates) or "suggestion".
 */
format: string, body: string, };

export type BulkAction = { id: number, label: string, author: string, created_at: string, items: number, undo_of: number | null, undone_by: number | null, };

export type BulkChange = { 
/**
 * Set the operation to `op` (None clears it); false leaves each item's as it is.
 */
set_op: boolean, op: RefinementOp | null, add_tags: Array<IssueTag>, remove_tags: Array<IssueTag>, 
/**
 * Set the status: todo, edited or flagged. Approval is a review, one item at a time.
 */
status: ItemStatus | null, 
/**
 * Keep (true) or drop (false) at this stage; a drop needs `reason`.
 */
stage: [number, boolean] | null, reason: string | null, };

export type BulkReport = { 
/**
 * The recorded action (None when nothing changed, so there is nothing to undo).
 */
action_id: number | null, label: string, changed: number, 
/**
 * Items already as asked.
 */
unchanged: number, 
/**
 * Items the rules refused, with why (at most the first 50 are listed).
 */
skipped: number, skipped_reasons: Array<[number, string]>, };

export type ChoiceOption = { text: string, 
/**
 * For distractors of counterfactual benchmarks (VAGUE); None for the correct option.
 */
kind?: DistractorKind | null, };

export type Comment = { id: number, item_id: number, 
/**
 * The item's revision when the comment was written.
 */
rev: number, author: string, body: string, mentions: Array<string>, created_at: string, };

export type CompactReport = { bytes_before: number, bytes_after: number, 
/**
 * Pages that held nothing before.
 */
free_pages_before: number, };

export type ConflictSide = { uid: string, author: string | null, created_at: string, op: RefinementOp | null, tags: Array<IssueTag>, content: ItemContent, };

export type ConflictSides = { item_id: number, current: ConflictSide, other: ConflictSide, };

export type CriterionFlag = { criterion: string, issue: CriterionIssue, };

export type CriterionIssue = "not_grounded" | "unverifiable";

export type CriterionOverrule = { 
/**
 * 0-based index into the item's checklist as judged.
 */
criterion: number, rating: number, by: string | null, note: string | null, };

export type CriterionOverruled = { 
/**
 * The item's score in that run (S_i with the person's ratings).
 */
item_score: number, 
/**
 * The run's overall score (S_final), overrules applied.
 */
run_score: number | null, };

export type Dashboard = { rows: Array<DashboardRow>, 
/**
 * (dataset, refinement operation or "unset", items): what refining did to each dataset.
 */
operations: Array<[string, string, number]>, 
/**
 * (model, failure tag, responses): why models failed, as people tagged it.
 */
failure_tags: Array<[string, string, number]>, 
/**
 * Grounding accuracy per model and referring-expression type (type "none" when unset).
 */
grounding_by_ref: Array<Share>, 
/**
 * Grounding accuracy per model and box size bin ("0.01-0.02" of the image area).
 */
grounding_by_size: Array<Share>, 
/**
 * For multiple choice: which kind of option each model chose (correct, FSU, SU, NE).
 */
distractors: Array<Share>, markdown: string, csv: string, latex: string, };

export type DashboardRow = { dataset: string, 
/**
 * The category or operation of the row when broken down.
 */
group: string | null, scorer: string, 
/**
 * The scorer with the versions of its rules that made the numbers ("choice v2").
 */
scorer_label: string, source: string, 
/**
 * The protocol that made the row and how it counted unparsed replies ("vague (unparsed
 * left out)", or "by hand"): rows of different protocols are never compared.
 */
protocol: string, items_before: number, items_after: number, accuracy_before: number, accuracy_after: number, delta: number, rank_correlation: number | null, models: Array<ModelPair>, 
/**
 * Unparsed and hedged responses on each side (counted as misses).
 */
unparsed_before: number, unparsed_after: number, hedged_before: number, hedged_after: number, 
/**
 * Verdicts the rules were not sure of on each side (counted as scored).
 */
unsure_before: number, unsure_after: number, };

export type Dataset = { id: number, name: string, layout: string, source_path: string | null, imported_at: string, item_count: number, };

export type DatasetExport = { dataset: string, format: ExportFormat, 
/**
 * Items written (the refined split's, for `hf`).
 */
items: number, 
/**
 * `hf` only: the original split's items.
 */
original: number | null, 
/**
 * Items marked remove, left out of the refined set.
 */
removed_left_out: number, images: number, 
/**
 * The file or folder written.
 */
path: string, 
/**
 * Items changed since import, and the changelog listing them.
 */
changed: number, changelog: string, };

export type DistractorKind = "FSU" | "SU" | "NE";

export type Edit = { 
/**
 * The revision this edit was made on. When the item has moved on since, the save is
 * refused as a conflict instead of silently overwriting the other change. None: apply to
 * whatever is current (imports, scripted bulk changes).
 */
base_rev: number | null, content: ItemContent, op: RefinementOp | null, tags: Array<IssueTag>, status: ItemStatus, note: string | null, };

export type EvalEstimate = { requests: number, 
/**
 * Judge calls on top (at most one per answer; identification asks only about names that
 * are not an exact match).
 */
judge_requests: number, 
/**
 * At the models' prices and the mean tokens of their stored responses; None when a model
 * has no prices or no response with token counts yet.
 */
cost: number | null, 
/**
 * Items per dataset and version, as counted.
 */
items: Array<[string, string, number]>, };

export type EvalForm = { models: Array<string>, datasets: Array<string>, 
/**
 * "before", "after"
 */
versions: Array<string>, 
/**
 * "original", "explicit", "disambiguated", "text_only", "no_image"
 */
variants: Array<string>, runs: number, 
/**
 * A scorer for every item (e.g. "grounding" for CRAG-MM's boxes); None: each item's
 * default for its answer format.
 */
scorer: string | null, 
/**
 * "default" or None: the built-in template per answer format; a built-in name
 * ("crag-mm/object_identification_easy_query") or a saved template "name[@version]".
 */
template: string | null, 
/**
 * The judge model for judge scorers (and identification's non-exact names).
 */
judge: string | null, 
/**
 * A seed's protocol ("jammeval", "haerae-vision", "crag-mm", "vague"): the form must
 * follow it (`assay_eval::protocol::check`), and its runs record it.
 */
protocol: string | null, };

export type EvalStatus = { running: boolean, total: number, done: number, sent: number, cached: number, errors: number, prompt_tokens: number, completion_tokens: number, elapsed_secs: number, 
/**
 * From the pace so far; None until something finished.
 */
eta_secs: number | null, cost: number | null, cancelled: boolean, run_ids: Array<number>, error: string | null, 
/**
 * What was asked, to run it again.
 */
form: EvalForm | null, };

export type ExportFormat = "jsonl" | "parquet" | "hf" | "haerae-vision";

export type ExportReport = { dataset: string, items: number, removed_left_out: number, images: number, path: string, };

export type Facets = { datasets: Array<[number, number]>, categories: Array<[string | null, number]>, ops: Array<[string | null, number]>, statuses: Array<[string, number]>, ref_types: Array<[string | null, number]>, tags: Array<[string, number]>, has_box: Array<[boolean, number]>, boxes: BoxHistograms, };

export type Filter = { datasets: Array<number>, categories: Array<string>, 
/**
 * `None` inside the list selects items with no operation recorded yet.
 */
ops: Array<RefinementOp | null>, 
/**
 * Items carrying any of these issue tags.
 */
tags: Array<IssueTag>, statuses: Array<ItemStatus>, ref_types: Array<RefType>, formats: Array<AnswerFormat>, has_box: boolean | null, 
/**
 * Box metrics of the primary target box (see `grounding::metrics`); items without a box
 * never match a range.
 */
size_ratio: Range | null, center_distance: Range | null, saliency: Range | null, 
/**
 * Items whose earliest "drop" decision is at this stage position.
 */
dropped_at: number | null, 
/**
 * True: the kept set (not dropped at any stage, not removed by phase-1 flags); false: the
 * items filtering took out.
 */
kept: boolean | null, 
/**
 * Substring of question, answer, options or question variants; case-insensitive for Latin.
 */
text: string | null, 
/**
 * Only these items (a selection made by hand); empty means no such limit.
 */
ids: Array<number>, 
/**
 * The list's order; None is dataset order (import order).
 */
sort: Sort | null, };

export type Filtering = { decisions: Array<StageDecision>, flags: Array<Phase1Flag>, 
/**
 * The auditor whose override keeps the item despite its flags.
 */
overridden_by: string | null, 
/**
 * Position of the earliest stage that dropped it.
 */
dropped_stage: number | null, phase1_removed: boolean, 
/**
 * In the kept set: not dropped at any stage and not removed by phase-1 flags.
 */
kept: boolean, };

export type FunnelStep = { 
/**
 * 0 for the candidates before any stage; the last step is phase-1 validation.
 */
position: number, name: string, survivors: number, groups: Array<[string | null, number]>, };

export type HybridResult = { run_id: number, judge: string, replies: number, unsure_before: number, judged: number, from_cache: number, errors: number, unsure_after: number, 
/**
 * The cost: judge calls per 1,000 replies.
 */
judge_calls_per_1000: number, };

export type ImportPreview = { 
/**
 * The layout the import would record; `None` when it cannot be told from the fields.
 */
layout: string | null, 
/**
 * The mapping the import would use: the one given, or the layout's. `None` for Assay's
 * own layout, which needs none, and when the layout cannot be told.
 */
mapping: Mapping | null, 
/**
 * Why no mapping could be chosen (the import would refuse with the same words).
 */
mapping_error: string | null, 
/**
 * Every layout Assay knows, to pick from.
 */
known_layouts: Array<string>, 
/**
 * How many records the file holds, as the import counts them (0 when it cannot tell
 * without reading the whole file).
 */
total: number, 
/**
 * The top-level fields of the previewed records, by name (records are read as JSON
 * objects, whose keys Assay keeps sorted).
 */
fields: Array<PreviewField>, records: Array<PreviewRecord>, };

export type ImportReport = { dataset: string, dataset_id: number | null, layout: string, items: number, images: number, new_images: number, 
/**
 * Fields no mapping entry names; kept in each item's metadata.
 */
unmapped_fields: Array<string>, problems: Array<Problem>, dry_run: boolean, };

export type ImportRequest = { path: string, name: string | null, layout: string | null, 
/**
 * A mapping made or loaded in the Import view; it wins over `layout`.
 */
mapping: Mapping | null, link_images: boolean, dry_run: boolean, };

export type IssueTag = "ambiguous" | "not_image_grounded" | "wrong_answer" | "subjective";

export type ItemContent = { answer_format: AnswerFormat, question: string, answer?: string | null, options?: Array<ChoiceOption>, 
/**
 * Index into `options` of the correct one.
 */
correct_option?: number | null, checklist?: Array<string>, checklist_flags?: Array<CriterionFlag>, explicit_question?: string | null, disambiguated_question?: string | null, text_only_question?: string | null, 
/**
 * VAGUE's direct request hidden behind the indirect utterance in `question`.
 */
direct_request?: string | null, ref_type?: RefType | null, entity_name?: string | null, entity_url?: string | null, 
/**
 * Other names accepted for the entity when object identification is scored (a person adds
 * them: "Kia Optima" for "KIA K5").
 */
entity_aliases?: Array<string>, 
/**
 * Page views of the entity's Wikipedia article (CRAG-MM-Diagnostics: views in 2025).
 */
popularity?: number | null, 
/**
 * Number of objects in the image (CRAG-MM-Diagnostics counted Grounding-DINO detections);
 * a person may correct it.
 */
crowdedness?: number | null, category?: string | null, source?: string | null, images?: Array<ItemImage>, metadata?: { [key in string]: JsonValue }, };

export type ItemDetail = { item: ItemView, history: Array<RevisionInfo>, };

export type ItemExtras = { item_id: number, 
/**
 * The people its latest round dealt it to.
 */
assignees: Array<string>, 
/**
 * Across those people (two or more): "agree" when all recorded the same operation since,
 * "differ" when not, "pending" while some have not; None for one person or no round.
 */
agreement: string | null, 
/**
 * Its score in each asked run, in the order asked (None: no result in that run).
 */
scores: Array<number | null>, 
/**
 * Whether that result scored an older revision than the current one.
 */
stale: Array<boolean>, };

export type ItemImage = { 
/**
 * SHA-256 of the image bytes, hex.
 */
hash: string, width: number, height: number, 
/**
 * The file name the image had at import, kept for export.
 */
name?: string | null, 
/**
 * The image's numeric id in the box file it was annotated in (a COCO `images[].id`),
 * written back by the COCO export so other tools' references to it stay valid.
 */
source_id?: number | null, 
/**
 * The boxes a grounding question refers to, labelled with their category when known.
 */
target_boxes?: Array<LabeledBox>, person_boxes?: Array<LabeledBox>, };

export type ItemResults = { results: Array<ItemRunResult>, 
/**
 * (run id, S_final or accuracy with overrules applied)
 */
run_scores: Array<[number, number | null]>, };

export type ItemRow = { id: number, dataset_id: number, ext_id: string, seq: number, rev: number, format: AnswerFormat, category: string | null, op: RefinementOp | null, tags: Array<IssueTag>, status: ItemStatus, ref_type: RefType | null, has_box: boolean, image_count: number, thumb_hash: string | null, question: string, answer: string | null, 
/**
 * The primary target box's metrics (see `grounding::metrics`); None without a box.
 */
size_ratio: number | null, center_distance: number | null, saliency: number | null, };

export type ItemRunResult = { run: RunRow, outcome: string, score: number | null, parsed: string | null, 
/**
 * The scorer's evidence as JSON text (for a checklist judge: each criterion's rating,
 * quoted evidence and justification).
 */
evidence: string | null, error: string | null, response: string | null, overruled: number | null, overrule_note: string | null, criterion_overrules: Array<CriterionOverrule>, 
/**
 * Why the response failed, as people tagged it (see `tag_failure`).
 */
failure_tags: Array<string>, };

export type ItemStatus = "todo" | "edited" | "approved" | "flagged";

export type ItemView = { id: number, dataset_id: number, dataset: string, ext_id: string, seq: number, rev: number, op: RefinementOp | null, tags: Array<IssueTag>, status: ItemStatus, updated_at: string, 
/**
 * An auditor signed it off: no edit until an auditor reopens it.
 */
signed_off: boolean, content: ItemContent, original: ItemContent, };

export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]: JsonValue } | null;

export type JudgePromptView = { scorer: string, 
/**
 * The scorer's rule version, which stored results record.
 */
version: number, 
/**
 * When the judge is asked.
 */
asked: string, system: string | null, user: string, };

export type JudgeRatingReport = { run_id: number, 
/**
 * Judged results rated by at least one person.
 */
items: number, ratings: number, 
/**
 * The mean rating, and the share of ratings of 4 or 5 (the judge's decision found
 * appropriate, as HAERAE-Vision's raters judged it).
 */
mean_rating: number | null, appropriate: number | null, 
/**
 * Each item's mean rating against the judge's score.
 */
pearson: number | null, spearman: number | null, raters: Array<RaterAgreement>, 
/**
 * Krippendorff's alpha (interval) among the raters, over items two or more rated.
 */
raters_alpha: number | null, raters_alpha_items: number, 
/**
 * People's verdicts against the judge's: agreement itself, where the correlations above
 * only say that ratings rise with scores. None until a rating states a verdict.
 */
verdicts: VerdictAgreement | null, };

export type JudgeReviewEntry = { item_id: number, ext_id: string, question: string, reference: string | null, response: string | null, 
/**
 * The judge's score (0-1) and what it wrote.
 */
score: number | null, evidence: string | null, 
/**
 * This person's rating of the decision, when they gave one.
 */
my_rating: number | null, };

export type LabeledBox = { label?: string | null, 
/**
 * COCO's `iscrowd`: the box covers a crowd of objects rather than one.
 */
crowd?: boolean, 
/**
 * COCO's `area` as the file gave it (its segmentation's, not the box's), kept so a
 * re-export evaluates the same; a redrawn box drops it.
 */
area?: number | null, x_min: number, y_min: number, x_max: number, y_max: number, };

export type MajorityCheck = { field: AgreementField, experts: Array<string>, crowd: number, 
/**
 * Items compared: an expert label and a crowd majority.
 */
items: number, 
/**
 * Items with enough crowd labels but no label ahead of the others (a tie): left out.
 */
no_majority: number, 
/**
 * Items whose experts gave different labels: left out.
 */
experts_disagree: number, 
/**
 * Items an expert labelled with fewer crowd labels than `crowd`: left out.
 */
too_few_crowd: number, 
/**
 * Labels in the confusion matrix's order.
 */
labels: Array<string>, 
/**
 * Rows the experts' label, columns the crowd's majority.
 */
confusion: Array<Array<number>>, 
/**
 * Share of compared items where the majority is the experts' label.
 */
accuracy: number | null, 
/**
 * Cohen's kappa, experts against majority, over every label.
 */
kappa: number | null, binary_label: string | null, 
/**
 * Cohen's kappa on `binary_label` against every other label.
 */
binary_kappa: number | null, };

export type Mapping = { 
/**
 * Name recorded as the dataset's layout.
 */
layout: string | null, format: AnswerFormat | null, id: string | null, question: string | null, answer: string | null, options: string | null, 
/**
 * Where the correct option is given; defaults to `answer` when options exist.
 */
answer_index: string | null, 
/**
 * 0 when integer answers count from zero (CVQA), 1 when from one.
 */
index_base: number, checklist: string | null, explicit_question: string | null, disambiguated_question: string | null, text_only_question: string | null, direct_request: string | null, ref_type: string | null, entity_name: string | null, entity_url: string | null, 
/**
 * Other accepted names of the entity (a list or one string).
 */
entity_aliases: string | null, 
/**
 * Page views of the entity (an integer).
 */
popularity: string | null, 
/**
 * Number of objects in the image (an integer).
 */
crowdedness: string | null, category: string | null, source: string | null, 
/**
 * A path, a list of paths, a `{bytes, path}` struct or a list of them.
 */
images: string | null, 
/**
 * Target box(es) on the first image, [x_min, y_min, x_max, y_max] in pixels.
 */
target_box: string | null, 
/**
 * The image size the boxes were drawn on, "(w, h)"; boxes are rescaled if the file differs.
 */
image_size: string | null, person_boxes: string | null, 
/**
 * VAGUE's `mcq` object (`1_correct`, `2_fake_scene`, ...) and its display `ordering`.
 */
vague_mcq: string | null, vague_ordering: string | null, 
/**
 * Image cells hold base64 data (or a list repr of it), and a cell of at most 64
 * characters names the row (by id) whose image it reuses: VLMEvalKit's TSV.
 */
inline_images: boolean, 
/**
 * Appended to every image path (VAGUE: `image_name` + `_annot.jpg`).
 */
image_suffix: string | null, 
/**
 * A list field whose elements become one item each, merged over the rest of the record
 * (JA-VG-VQA-500's `qas`).
 */
explode: string | null, 
/**
 * Keep only records whose field equals a value, `Subset=('Japanese', 'Japan')`; ids of
 * id-less records count the kept ones from 0, as the task that filters does.
 */
keep_if: string | null, 
/**
 * Fields to drop instead of keeping them in the item's metadata.
 */
ignore: Array<string>, };

export type ModelCheck = { ok: boolean, 
/**
 * The model's reply, or what went wrong in plain words.
 */
message: string, millis: number, };

export type ModelForm = { name: string, endpoints: Array<string>, model: string, api_key_env: string | null, concurrency: number, rate_per_minute: number | null, box_convention: string, price_input: number | null, price_output: number | null, max_tokens: number, 
/**
 * Whether this machine sends requests to it: a model that came from the team or another
 * project file waits until the person here saves it (seeing its endpoints and key variable).
 */
accepted: boolean, };

export type ModelPair = { model: string, before: number, after: number, 
/**
 * The model's rank on each side (1 = best), ties sharing the average of their ranks: the
 * ranks Spearman's rho of the row is computed on, so the rank chart and rho agree.
 */
rank_before: number, rank_after: number, };

export type ModelScore = { model: string, score: number, runs: number, };

export type MyWork = { 
/**
 * Items waiting for review that someone else edited last.
 */
review: Array<QueueEntry>, sent_back: Array<QueueEntry>, mentions: Array<OpenMention>, 
/**
 * For auditors: items of blind rounds whose judgements are all in, to adjudicate.
 */
adjudicate: Array<QueueEntry>, rounds: Array<RoundQueue>, };

export type NewRound = { name: string, purpose: RoundPurpose, assignees: Array<string>, 
/**
 * Share of the items (0..=1) also given to a second person, for agreement.
 */
overlap: number, 
/**
 * Take only this many of the items, drawn at random with `seed`.
 */
sample: number | null, seed: number, 
/**
 * Each assignee records a judgement of their own, unseen by the others until all are in,
 * instead of editing the item (annotate rounds only; `store::review::blind`).
 */
blind: boolean, };

export type OpenMention = { item_id: number, dataset: string, ext_id: string, comment: Comment, };

export type Page = { offset: number, limit: number, };

export type PairAgreement = { a: string, b: string, items: number, cohen_kappa: number | null, 
/**
 * Boxes: the mean IoU of a's and b's boxes over their common items.
 */
mean_iou: number | null, 
/**
 * Rows a, columns b: counts per (a's value, b's value), values in `labels` order.
 */
confusion: Array<Array<number>>, };

export type PanelCriterion = { criterion: number, items: number, alpha_interval: number | null, };

export type PanelDisagreement = { item_id: number, ext_id: string, 
/**
 * One per judge, in `judges` order.
 */
scores: Array<number | null>, spread: number, };

export type PanelPair = { a: string, b: string, items: number, pearson: number | null, spearman: number | null, };

export type PanelView = { run_id: number, scorer: string, judges: Array<string>, 
/**
 * Items at least one judge gave a verdict on.
 */
items: number, 
/**
 * Identification's exact matches (scored 1 with no judge asked, not in the figures).
 */
exact: number, alpha_interval: number | null, pairs: Array<PanelPair>, criteria: Array<PanelCriterion>, disagreements: Array<PanelDisagreement>, 
/**
 * What this call asked: per judge, verdicts made and how many came from the cache.
 */
judged: Array<[string, number, number]>, };

export type PersonStats = { name: string, role: Role, 
/**
 * Items with at least one revision of theirs (review records not counted).
 */
items_edited: number, revisions: number, approved: number, sent_back: number, reviews: number, signoffs: number, median_seconds: number | null, };

export type Phase1Dimension = "image_relevance" | "qa_quality" | "checklist_validity" | "category" | "overall";

export type Phase1Flag = { dimension: Phase1Dimension, by: string, note: string | null, created_at: string, };

export type PredictionsForm = { file: string, model: string, dataset: string, version: string, variant: string, run_index: number, 
/**
 * None: the format's usual scorer.
 */
scorer: string | null, 
/**
 * None: detected from the file.
 */
format: string | null, 
/**
 * The judge model for judge scorers, and identification's near misses.
 */
judge: string | null, };

export type PredictionsReport = { run_id: number, format: string, matched: number, scored: number, unparsed: number, missing: number, unknown_ids: Array<string>, 
/**
 * Judge requests answered (from the cache among them), unparsed and failed.
 */
judged: number, judged_from_cache: number, judge_unparsed: number, judge_errors: number, };

export type PreviewField = { name: string, 
/**
 * The first non-empty value seen, as short text.
 */
example: string, 
/**
 * The parts of an item the mapping fills from this field (`question`, `images`, ...);
 * empty when the field is kept as the item's metadata (or dropped, see `ignored`).
 */
read_as: Array<string>, 
/**
 * Named in the mapping's `ignore`: neither read nor kept.
 */
ignored: boolean, };

export type PreviewRecord = { 
/**
 * File and line (or row), as a problem would name it.
 */
location: string, 
/**
 * The record as read, long texts shortened; empty when the line could not be read.
 */
raw: string, 
/**
 * The item's ID in the dataset (the record's, or its position).
 */
ext_id: string | null, 
/**
 * The item the import would write; `None` when the record has problems.
 */
item: ItemContent | null, problems: Array<string>, };

export type Problem = { location: string, message: string, };

export type Progress = { stage: string, done: number, total: number, };

export type ProjectInfo = { path: string, name: string, datasets: Array<Dataset>, items: number, };

export type QueryResult = { total: number, rows: Array<ItemRow>, };

export type QueueEntry = { item_id: number, dataset: string, ext_id: string, status: string, done: boolean, };

export type Range = { min: number | null, max: number | null, };

export type RaterAgreement = { name: string, items: number, mean_rating: number | null, pearson: number | null, spearman: number | null, };

export type RefType = "salient" | "ambiguous" | "in_image_cue" | "knowledge_cue";

export type RefinementOp = "identical" | "minor_edit" | "disambiguation" | "answer_correction" | "replacement" | "remove";

export type ReplicaRecord = { url: string, 
/**
 * HTTP requests sent to it, retries included.
 */
requests: number, failures: number, 
/**
 * Mean time to an answer or an error, in milliseconds.
 */
mean_ms: number | null, 
/**
 * Times it was taken out of the rotation after a connection or 5xx failure.
 */
taken_out: number, };

export type RescoreResult = { run_id: number, scorer: string, version: number, rescored: number, changed: number, kept: number, why_kept: string | null, error: string | null, };

export type ReviewDecision = "approve" | "request_changes";

export type RevisionInfo = { rev: number, author: string | null, role: Role | null, round: number, created_at: string, op: RefinementOp | null, tags: Array<IssueTag>, status: ItemStatus, note: string | null, 
/**
 * The suggestion whose acceptance wrote this revision (recorded by the store, so a note
 * cannot claim it).
 */
suggestion: number | null, };

export type Role = "annotator" | "auditor" | "researcher";

export type RoleChoice = { role: Role, why_not: string | null, };

export type RoundPurpose = "annotate" | "review" | "audit";

export type RoundQueue = { id: number, name: string, purpose: RoundPurpose, 
/**
 * Blind: the person records a judgement instead of editing the item.
 */
blind: boolean, done: number, entries: Array<QueueEntry>, };

export type RoundSummary = { id: number, name: string, purpose: RoundPurpose, overlap: number, blind: boolean, created_by: string, created_at: string, items: number, 
/**
 * Items assigned to two or more people.
 */
overlapping: number, people: Array<AssigneeProgress>, };

export type RunDetail = { run_id: number, total: number, lines: Array<RunItemLine>, };

export type RunItemLine = { item_id: number, dataset: string, ext_id: string, outcome: string, score: number | null, parsed: string | null, error: string | null, from_cache: boolean, 
/**
 * The item has changed since this result was scored (it counts for its old revision).
 */
stale: boolean, };

export type RunListRow = { run: RunRow, 
/**
 * The scorer with the versions of its rules that made the numbers ("choice v2").
 */
scorer_label: string, items: number, unparsed: number, hedged: number, 
/**
 * Verdicts the rules were not sure of (a judge or a person decides them).
 */
unsure: number, errors: number, accuracy: number | null, 
/**
 * Requests answered for this run (its results minus those reused from the cache).
 */
sent: number, prompt_tokens: number, completion_tokens: number, 
/**
 * At the model's prices (None without prices).
 */
cost: number | null, duration_secs: number | null, 
/**
 * Why this replica may not rescore it (a run still going, or published by another
 * member); None when it may.
 */
no_rescore: string | null, 
/**
 * What each replica of the run's model did for it (requests, failures, mean latency).
 */
replicas: Array<ReplicaRecord>, };

export type RunRow = { id: number, model: string, dataset: string, version: string, variant: string, run_index: number, template: string, scorer: string, source: string, status: string, 
/**
 * The named protocol it was made under (`EvalProtocol`'s name), if any.
 */
protocol: string | null, };

export type SavedTemplate = { label: string, version: number, unchanged: boolean, };

export type SavedView = { id: number, name: string, filter: Filter, 
/**
 * The table's columns, in order (names the UI knows; unknown ones are ignored there).
 */
columns: Array<string>, author: string, shared: boolean, 
/**
 * Whether the person asking wrote it (only they change or delete it).
 */
mine: boolean, };

export type ScreeningFlag = { 
/**
 * "safety", "objectivity" or "time_sensitivity".
 */
axis: string, reason: string, };

export type SessionUser = { name: string, role: Role, };

export type Share = { model: string, group: string, hits: number, n: number, };

export type Sort = { column: SortColumn, desc: boolean, 
/**
 * The run whose scores `RunScore` sorts by.
 */
run?: number, };

export type SortColumn = "ext_id" | "question" | "answer" | "category" | "op" | "status" | "ref_type" | "size_ratio" | "center_distance" | "saliency" | "rev" | "updated_at" | "assignee" | "agreement" | "run_score";

export type Stage = { id: number, position: number, name: string, description: string, };

export type StageCell = { accuracy: number, items: number, };

export type StageDecision = { stage_id: number, position: number, stage: string, keep: boolean, reason: string | null, 
/**
 * The person's name, or None when a run decided.
 */
by: string | null, run_id: number | null, 
/**
 * The suggestion a person accepted to make this decision.
 */
suggestion_id: number | null, created_at: string, };

export type StageView = { version: string, 
/**
 * Column labels: "Grounding", "Identification (crag-mm/object_identification_easy_query)".
 */
columns: Array<string>, rows: Array<StageViewRow>, correlations: Array<StageViewCorrelation>, markdown: string, csv: string, latex: string, };

export type StageViewCorrelation = { dataset: string, model: string, variant: string, column: string, popularity_rho: number | null, popularity_items: number, saliency_r_pb: number | null, saliency_items: number, size_r_pb: number | null, size_items: number, distance_r_pb: number | null, distance_items: number, crowdedness_r_pb: number | null, crowdedness_items: number, };

export type StageViewRow = { dataset: string, model: string, variant: string, 
/**
 * "all", "ref_type", "size" or "saliency".
 */
breakdown: string, group: string, 
/**
 * One per column; null where the model has no such runs.
 */
cells: Array<StageCell | null>, };

export type SuggestEstimateView = { items: number, todo: number, requests: number, cached: number, cost: number | null, };

export type SuggestForm = { kind: SuggestionKind, model: string | null, filter: Filter, template: string | null, strong_models: Array<string>, threshold: number, min_gap: number, };

export type SuggestStatus = { running: boolean, kind: SuggestionKind | null, total: number, done: number, sent: number, cached: number, parsed: number, unparsed: number, errors: number, elapsed_secs: number, cost: number | null, cancelled: boolean, run_id: number | null, error: string | null, };

export type Suggestion = { id: number, run_id: number, item_id: number, kind: SuggestionKind, model: string, template: string, 
/**
 * The revision it was made for; older than the item's current one means stale.
 */
item_rev: number, stale: boolean, 
/**
 * "parsed", "unparsed" or "error".
 */
outcome: string, value: SuggestionValue | null, raw: string | null, problem: string | null, 
/**
 * The item's current value in the place this kind changes, and the suggestion's, as text.
 */
current_text: string, suggested_text: string, fate: SuggestionFate | null, created_at: string, };

export type SuggestionFate = { 
/**
 * "accepted", "edited" or "rejected".
 */
decision: string, by: string, rev: number | null, stage_decision_id: number | null, edit_distance: number | null, reason: string | null, created_at: string, };

export type SuggestionKind = "screening" | "difficulty" | "image_dependency" | "checklist" | "explicit_rewrite" | "direct_request" | "indirect_utterance" | "distractors" | "crag_questions" | "target_box" | "operation";

export type SuggestionReport = { rows: Array<SuggestionStats>, 
/**
 * Median seconds per item visit with a decision on a suggestion, and without one.
 */
median_seconds_with: number | null, median_seconds_without: number | null, visits_with: number, visits_without: number, };

export type SuggestionStats = { kind: string, model: string, 
/**
 * Outputs stored (failed requests left out).
 */
suggested: number, 
/**
 * Outputs that did not parse and nobody has decided on.
 */
unparsed: number, 
/**
 * Items whose latest request for this kind and model failed.
 */
errors: number, accepted: number, edited: number, rejected: number, 
/**
 * Parsed, not yet decided. `accepted + edited + rejected + pending + unparsed` is
 * `suggested`.
 */
pending: number, 
/**
 * Mean characters changed before an edited acceptance (of parsed drafts).
 */
mean_edit_distance: number | null, 
/**
 * Median seconds per item where a person decided on one of these suggestions.
 */
median_seconds: number | null, };

export type SuggestionValue = { "kind": "screening", keep: boolean, flags: Array<ScreeningFlag>, } | { "kind": "difficulty", keep: boolean, mean: number, threshold: number, scores: Array<ModelScore>, } | { "kind": "image_dependency", keep: boolean, 
/**
 * Scores on 0-10 of the answers with and without the image.
 */
with_image: number, without_image: number, min_gap: number, } | { "kind": "checklist", criteria: Array<string>, } | { "kind": "explicit_rewrite", question: string, } | { "kind": "direct_request", request: string, subject: string, action: string, object: string, } | { "kind": "indirect_utterance", utterance: string, } | { "kind": "distractors", fake_scene: string, superficial: string, non_existent: string, } | { "kind": "crag_questions", disambiguated: string | null, text_only: string | null, } | { "kind": "target_box", 
/**
 * Index of the item's image the box is on.
 */
image: number, bbox: BBox, } | { "kind": "operation", op: RefinementOp, question: string | null, answer: string | null, reason: string, };

export type SyncConflict = { item_id: number, dataset: string, ext_id: string, head_uid: string, other_uid: string, };

export type TeamMember = { name: string, role: Role, 
/**
 * Manages the team's members (made so by the owner).
 */
lead: boolean, 
/**
 * Credentials not revoked.
 */
active: number, 
/**
 * Invitations not used and not expired.
 */
invited: number, };

export type TeamStatus = { 
/**
 * The team database (URL without password); None: a project of one.
 */
team: string | null, 
/**
 * Local rows not in the team database yet.
 */
pending: number, conflicts: number, 
/**
 * Local rows the team refused (row-level security): kept here, not pushed.
 */
refused: number, last_sync: string | null, 
/**
 * The last sync could not reach the database: work goes on locally.
 */
offline: boolean, error: string | null, pushed: number, pulled: number, };

export type TemplateForm = { name: string, kind: TemplateKind, 
/**
 * The answer format of a prompt template (ignored for a suggestion template).
 */
format: AnswerFormat, body: string, };

export type TemplateKind = "prompt" | "suggestion";

export type TemplateLibrary = { saved: Array<TemplateVersion>, builtins: Array<BuiltinTemplate>, 
/**
 * What each judged scorer sends its judge: fixed by the scorer (and the seed it follows),
 * shown so a person can read what decided a verdict.
 */
judges: Array<JudgePromptView>, };

export type TemplateVersion = { name: string, version: number, 
/**
 * The answer format a prompt template is for, or "suggestion".
 */
format: string, body: string, created_at: string, };

export type TriageEntry = { item_id: number, ext_id: string, dataset: string, score: number, 
/**
 * (kind, evidence): "wrong_reference", "not_image_grounded" or "ambiguous".
 */
reasons: Array<[string, string]>, };

export type User = { id: number, name: string, role: Role, };

export type VerdictAgreement = { 
/**
 * Ratings that state a verdict, and the items they rate.
 */
ratings: number, items: number, 
/**
 * The share of them that agree with the judge.
 */
accuracy: number, accuracy_ci: [number, number] | null, 
/**
 * Binary judges only: Cohen's kappa between the people's verdicts and the judge's.
 */
kappa: number | null, kappa_ci: [number, number] | null, level: number, };

export type Scorer = 'choice' | 'soft_match' | 'judge' | 'checklist_judge' | 'rating' | 'grounding' | 'bleu' | 'identification' | 'crag_qa';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['jsonl', 'parquet', 'hf', 'haerae-vision'];
export const BOX_FORMATS: readonly string[] = ['coco', 'label-studio', 'crag-mm'];
export const SCORERS_NEEDING_JUDGE: readonly Scorer[] = ['judge', 'checklist_judge', 'rating'];
export const SCORERS_USING_JUDGE: readonly Scorer[] = ['judge', 'checklist_judge', 'rating', 'identification', 'crag_qa'];
export const SUGGESTION_KINDS_DECIDING_STAGE: readonly SuggestionKind[] = ['screening', 'difficulty', 'image_dependency'];
export const AGREEMENT_FIELDS: readonly AgreementField[] = ['op', 'ref_type', 'tags', 'phase1', 'checklist', 'box'];
export const ROUND_PURPOSES: readonly RoundPurpose[] = ['annotate', 'review', 'audit'];
export const ANSWER_FORMATS: readonly AnswerFormat[] = ['short_answer', 'multiple_choice', 'checklist', 'grounding', 'free_form'];
export const REFINEMENT_OPS: readonly RefinementOp[] = ['identical', 'minor_edit', 'disambiguation', 'answer_correction', 'replacement', 'remove'];
export const ISSUE_TAGS: readonly IssueTag[] = ['ambiguous', 'not_image_grounded', 'wrong_answer', 'subjective'];
export const ITEM_STATUSES: readonly ItemStatus[] = ['todo', 'edited', 'approved', 'flagged'];
export const REF_TYPES: readonly RefType[] = ['salient', 'ambiguous', 'in_image_cue', 'knowledge_cue'];
export const DISTRACTOR_KINDS: readonly DistractorKind[] = ['FSU', 'SU', 'NE'];
export const ROLES: readonly Role[] = ['annotator', 'auditor', 'researcher'];
export const PHASE1_DIMENSIONS: readonly Phase1Dimension[] = ['image_relevance', 'qa_quality', 'checklist_validity', 'category', 'overall'];
export const BOX_CONVENTIONS: readonly string[] = ['auto', 'sent-pixels', 'original-pixels', 'normalized-1', 'normalized-1000', 'qwen2.5-vl', 'qwen3-vl', 'crag-mm'];
export const VARIANTS: readonly string[] = ['original', 'explicit', 'disambiguated', 'text_only', 'no_image', 'highlight', 'gt_crop', 'entity_given'];
export const SCORERS: readonly Scorer[] = ['choice', 'soft_match', 'judge', 'checklist_judge', 'rating', 'grounding', 'bleu', 'identification', 'crag_qa'];
export const PREDICTION_FORMATS: readonly string[] = ['llm-jp-eval-mm', 'lmms-eval', 'vlmevalkit', 'vague', 'crag-mm', 'haerae-vision', 'jsonl'];
export const BUILTIN_TEMPLATES: readonly string[] = ['vague/plain', 'vague/text_only', 'vague/zeroshot_cot', 'crag-mm/whole', 'crag-mm/visual_grounding', 'crag-mm/object_identification', 'crag-mm/object_identification_easy_query', 'crag-mm/object_identification_with_original', 'crag-mm/object_identification_image_only', 'crag-mm/knowledge_extraction'];
export const FAILURE_TAGS: readonly string[] = ['perception', 'ocr', 'reasoning', 'knowledge', 'judge', 'annotation', 'refusal'];
export const VERSIONS: readonly string[] = ['before', 'after'];
export const CRITERION_ISSUES: readonly CriterionIssue[] = ['not_grounded', 'unverifiable'];
export type ProtocolPreset = { runs: number; variants: readonly string[]; scorers: readonly Scorer[]; needs_judge: boolean; unparsed: string; sampling: string | null };
export const PROTOCOL_PRESETS: Readonly<Record<string, ProtocolPreset>> = {
  'jammeval': { runs: 3, variants: ['original'], scorers: [], needs_judge: true, unparsed: 'unparsed counted wrong', sampling: 'temperature 0' },
  'haerae-vision': { runs: 3, variants: ['original', 'explicit'], scorers: ['checklist_judge'], needs_judge: true, unparsed: 'unparsed left out', sampling: 'temperature 0.6, top-p 0.95, at most 4096 tokens' },
  'crag-mm': { runs: 3, variants: ['original', 'highlight', 'gt_crop', 'entity_given'], scorers: ['grounding', 'identification', 'crag_qa', 'soft_match'], needs_judge: false, unparsed: 'unparsed counted wrong', sampling: 'temperature 0.1, top-p 0.9, at most 75 tokens' },
  'vague': { runs: 1, variants: ['original'], scorers: ['choice'], needs_judge: false, unparsed: 'unparsed left out', sampling: null },
};

export const commands = {
  appInfo: (): Promise<AppInfo> => invoke<AppInfo>('app_info'),
  openProject: (path: string): Promise<ProjectInfo> => invoke<ProjectInfo>('open_project', { path }),
  createProject: (path: string): Promise<ProjectInfo> => invoke<ProjectInfo>('create_project', { path }),
  setUser: (name: string, role: Role): Promise<SessionUser> => invoke<SessionUser>('set_user', { name, role }),
  projectInfo: (): Promise<ProjectInfo> => invoke<ProjectInfo>('project_info'),
  queryItems: (filter: Filter, page: Page): Promise<QueryResult> => invoke<QueryResult>('query_items', { filter, page }),
  facets: (filter: Filter): Promise<Facets> => invoke<Facets>('facets', { filter }),
  itemIds: (filter: Filter): Promise<Array<number>> => invoke<Array<number>>('item_ids', { filter }),
  itemDetail: (id: number): Promise<ItemDetail> => invoke<ItemDetail>('item_detail', { id }),
  saveItem: (id: number, edit: Edit): Promise<ItemDetail> => invoke<ItemDetail>('save_item', { id, edit }),
  restoreRevision: (id: number, rev: number): Promise<ItemDetail> => invoke<ItemDetail>('restore_revision', { id, rev }),
  savedFilter: (): Promise<Filter> => invoke<Filter>('saved_filter'),
  saveFilter: (filter: Filter): Promise<null> => invoke<null>('save_filter', { filter }),
  importDataset: (request: ImportRequest, onProgress: Channel<Progress>): Promise<ImportReport> => invoke<ImportReport>('import_dataset', { request, onProgress }),
  cancelImport: (): Promise<null> => invoke<null>('cancel_import'),
  previewImport: (request: ImportRequest, records: number): Promise<ImportPreview> => invoke<ImportPreview>('preview_import', { request, records }),
  readMapping: (path: string): Promise<Mapping> => invoke<Mapping>('read_mapping', { path }),
  saveMapping: (path: string, mapping: Mapping): Promise<null> => invoke<null>('save_mapping', { path, mapping }),
  stages: (): Promise<Array<Stage>> => invoke<Array<Stage>>('stages'),
  setStages: (stages: Array<[string, string]>): Promise<Array<Stage>> => invoke<Array<Stage>>('set_stages', { stages }),
  filtering: (id: number): Promise<Filtering> => invoke<Filtering>('filtering', { id }),
  decideStage: (id: number, stageId: number, keep: boolean, reason: string | null): Promise<Filtering> => invoke<Filtering>('decide_stage', { id, stageId, keep, reason }),
  flagPhase1: (id: number, dimension: Phase1Dimension, flagged: boolean, note: string | null): Promise<Filtering> => invoke<Filtering>('flag_phase1', { id, dimension, flagged, note }),
  overridePhase1: (id: number, keep: boolean, note: string | null): Promise<Filtering> => invoke<Filtering>('override_phase1', { id, keep, note }),
  funnel: (datasets: Array<number>, group: string): Promise<Array<FunnelStep>> => invoke<Array<FunnelStep>>('funnel', { datasets, group }),
  saveChart: (path: string, data: string): Promise<null> => invoke<null>('save_chart', { path, data }),
  itemResults: (id: number): Promise<ItemResults> => invoke<ItemResults>('item_results', { id }),
  overruleCriterion: (runId: number, id: number, criterion: number, rating: number): Promise<CriterionOverruled> => invoke<CriterionOverruled>('overrule_criterion', { runId, id, criterion, rating }),
  models: (): Promise<Array<ModelForm>> => invoke<Array<ModelForm>>('models'),
  saveModel: (form: ModelForm): Promise<ModelForm> => invoke<ModelForm>('save_model', { form }),
  checkModel: (name: string): Promise<ModelCheck> => invoke<ModelCheck>('check_model', { name }),
  estimateEval: (form: EvalForm): Promise<EvalEstimate> => invoke<EvalEstimate>('estimate_eval', { form }),
  stageTable: (version: string): Promise<StageView> => invoke<StageView>('stage_table', { version }),
  judgePanel: (run: number, scorer: string, judges: Array<string>, top: number): Promise<PanelView> => invoke<PanelView>('judge_panel', { run, scorer, judges, top }),
  judgeUnsure: (run: number, judge: string): Promise<HybridResult> => invoke<HybridResult>('judge_unsure', { run, judge }),
  startEval: (form: EvalForm): Promise<null> => invoke<null>('start_eval', { form }),
  evalStatus: (): Promise<EvalStatus> => invoke<EvalStatus>('eval_status'),
  cancelEval: (): Promise<null> => invoke<null>('cancel_eval'),
  dashboard: (by: string | null, against: string | null): Promise<Dashboard> => invoke<Dashboard>('dashboard', { by, against }),
  runList: (): Promise<Array<RunListRow>> => invoke<Array<RunListRow>>('run_list'),
  rescoreRuns: (run: number | null): Promise<Array<RescoreResult>> => invoke<Array<RescoreResult>>('rescore_runs', { run }),
  overruleResult: (runId: number, id: number, score: number, note: string | null): Promise<null> => invoke<null>('overrule_result', { runId, id, score, note }),
  triage: (): Promise<Array<TriageEntry>> => invoke<Array<TriageEntry>>('triage'),
  tagFailure: (runId: number, id: number, tag: string, tagged: boolean): Promise<null> => invoke<null>('tag_failure', { runId, id, tag, tagged }),
  removeModel: (name: string): Promise<null> => invoke<null>('remove_model', { name }),
  templates: (): Promise<TemplateLibrary> => invoke<TemplateLibrary>('templates'),
  saveTemplate: (form: TemplateForm): Promise<SavedTemplate> => invoke<SavedTemplate>('save_template', { form }),
  whyNotTemplateName: (name: string): Promise<string | null> => invoke<string | null>('why_not_template_name', { name }),
  review: (id: number, decision: ReviewDecision, comment: string | null): Promise<ItemDetail> => invoke<ItemDetail>('review', { id, decision, comment }),
  reviewQueue: (): Promise<Array<number>> => invoke<Array<number>>('review_queue'),
  signOff: (id: number, signed: boolean, note: string | null): Promise<ItemDetail> => invoke<ItemDetail>('sign_off', { id, signed, note }),
  agreement: (field: AgreementField, round: number | null): Promise<Agreement> => invoke<Agreement>('agreement', { field, round }),
  majorityCheck: (field: AgreementField, round: number | null, experts: Array<string>, crowd: number): Promise<MajorityCheck> => invoke<MajorityCheck>('majority_check', { field, round, experts, crowd }),
  myWork: (): Promise<MyWork> => invoke<MyWork>('my_work'),
  rounds: (): Promise<Array<RoundSummary>> => invoke<Array<RoundSummary>>('rounds'),
  createRound: (round: NewRound, filter: Filter): Promise<Array<RoundSummary>> => invoke<Array<RoundSummary>>('create_round', { round, filter }),
  blindItems: (id: number): Promise<Array<BlindItem>> => invoke<Array<BlindItem>>('blind_items', { id }),
  recordBlind: (round: number, id: number, judgement: BlindJudgement): Promise<Array<BlindItem>> => invoke<Array<BlindItem>>('record_blind', { round, id, judgement }),
  adjudicateBlind: (round: number, id: number, take: string): Promise<ItemDetail> => invoke<ItemDetail>('adjudicate_blind', { round, id, take }),
  judgeReview: (run: number, size: number, seed: number): Promise<Array<JudgeReviewEntry>> => invoke<Array<JudgeReviewEntry>>('judge_review', { run, size, seed }),
  importPredictions: (form: PredictionsForm): Promise<PredictionsReport> => invoke<PredictionsReport>('import_predictions', { form }),
  rateJudge: (run: number, id: number, rating: number): Promise<JudgeRatingReport> => invoke<JudgeRatingReport>('rate_judge', { run, id, rating }),
  judgeRatingReport: (run: number): Promise<JudgeRatingReport> => invoke<JudgeRatingReport>('judge_rating_report', { run }),
  comments: (id: number): Promise<Array<Comment>> => invoke<Array<Comment>>('comments', { id }),
  addComment: (id: number, body: string): Promise<Array<Comment>> => invoke<Array<Comment>>('add_comment', { id, body }),
  people: (): Promise<Array<PersonStats>> => invoke<Array<PersonStats>>('people'),
  users: (): Promise<Array<User>> => invoke<Array<User>>('users'),
  setRole: (name: string, role: Role): Promise<SessionUser> => invoke<SessionUser>('set_role', { name, role }),
  whyNotAssignRoles: (): Promise<string | null> => invoke<string | null>('why_not_assign_roles'),
  roleChoices: (name: string): Promise<Array<RoleChoice>> => invoke<Array<RoleChoice>>('role_choices', { name }),
  teamStatus: (): Promise<TeamStatus> => invoke<TeamStatus>('team_status'),
  teamSync: (): Promise<TeamStatus> => invoke<TeamStatus>('team_sync'),
  setTeamPassword: (password: string | null): Promise<null> => invoke<null>('set_team_password', { password }),
  teamPublish: (url: string, password: string | null): Promise<TeamStatus> => invoke<TeamStatus>('team_publish', { url, password }),
  teamJoin: (url: string, password: string | null, file: string): Promise<ProjectInfo> => invoke<ProjectInfo>('team_join', { url, password, file }),
  teamMembers: (): Promise<Array<TeamMember>> => invoke<Array<TeamMember>>('team_members'),
  teamInvite: (name: string, role: Role, days: number | null): Promise<string> => invoke<string>('team_invite', { name, role, days }),
  teamSetRole: (name: string, role: Role): Promise<null> => invoke<null>('team_set_role', { name, role }),
  teamRevoke: (name: string): Promise<number> => invoke<number>('team_revoke', { name }),
  syncConflicts: (): Promise<Array<SyncConflict>> => invoke<Array<SyncConflict>>('sync_conflicts'),
  conflictSides: (id: number): Promise<ConflictSides | null> => invoke<ConflictSides | null>('conflict_sides', { id }),
  resolveSyncConflict: (id: number, edit: Edit): Promise<ItemDetail> => invoke<ItemDetail>('resolve_sync_conflict', { id, edit }),
  bulkEdit: (target: Filter, change: BulkChange): Promise<BulkReport> => invoke<BulkReport>('bulk_edit', { target, change }),
  undoBulk: (action: number): Promise<BulkReport> => invoke<BulkReport>('undo_bulk', { action }),
  bulkActions: (): Promise<Array<BulkAction>> => invoke<Array<BulkAction>>('bulk_actions'),
  savedViews: (): Promise<Array<SavedView>> => invoke<Array<SavedView>>('saved_views'),
  saveView: (name: string, filter: Filter, columns: Array<string>, shared: boolean): Promise<Array<SavedView>> => invoke<Array<SavedView>>('save_view', { name, filter, columns, shared }),
  deleteView: (name: string): Promise<Array<SavedView>> => invoke<Array<SavedView>>('delete_view', { name }),
  exportSelection: (target: Filter, dir: string): Promise<ExportReport> => invoke<ExportReport>('export_selection', { target, dir }),
  exportDataset: (dataset: string, format: ExportFormat, dir: string, signedOffOnly: boolean, onProgress: Channel<Progress>): Promise<DatasetExport> => invoke<DatasetExport>('export_dataset', { dataset, format, dir, signedOffOnly, onProgress }),
  exportBoxes: (dataset: string, format: string, dir: string): Promise<BoxExport> => invoke<BoxExport>('export_boxes', { dataset, format, dir }),
  importModelBoxes: (dataset: string, path: string, field: string, convention: string, sentSize: string | null): Promise<BoxApplyReport> => invoke<BoxApplyReport>('import_model_boxes', { dataset, path, field, convention, sentSize }),
  importBoxes: (dataset: string, format: string, path: string): Promise<BoxApplyReport> => invoke<BoxApplyReport>('import_boxes', { dataset, format, path }),
  compactProject: (): Promise<CompactReport> => invoke<CompactReport>('compact_project'),
  runDetail: (run: number, only: string | null, offset: number, limit: number): Promise<RunDetail> => invoke<RunDetail>('run_detail', { run, only, offset, limit }),
  deleteRun: (run: number): Promise<null> => invoke<null>('delete_run', { run }),
  tableExtras: (ids: Array<number>, runs: Array<number>): Promise<Array<ItemExtras>> => invoke<Array<ItemExtras>>('table_extras', { ids, runs }),
  estimateSuggest: (form: SuggestForm): Promise<SuggestEstimateView> => invoke<SuggestEstimateView>('estimate_suggest', { form }),
  startSuggest: (form: SuggestForm): Promise<null> => invoke<null>('start_suggest', { form }),
  suggestStatus: (): Promise<SuggestStatus> => invoke<SuggestStatus>('suggest_status'),
  cancelSuggest: (): Promise<null> => invoke<null>('cancel_suggest'),
  itemSuggestions: (id: number): Promise<Array<Suggestion>> => invoke<Array<Suggestion>>('item_suggestions', { id }),
  acceptSuggestion: (id: number, suggestion: number, baseRev: number, value: SuggestionValue, stageId: number | null, reason: string | null): Promise<ItemDetail> => invoke<ItemDetail>('accept_suggestion', { id, suggestion, baseRev, value, stageId, reason }),
  rejectSuggestion: (id: number, suggestion: number, reason: string): Promise<Array<Suggestion>> => invoke<Array<Suggestion>>('reject_suggestion', { id, suggestion, reason }),
  suggestionReport: (): Promise<SuggestionReport> => invoke<SuggestionReport>('suggestion_report'),
};

export { Channel };
