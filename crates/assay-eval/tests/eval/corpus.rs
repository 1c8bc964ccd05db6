//! The hand-graded reference corpus (tests/fixtures/scoring/): Assay's `choice` and
//! `soft_match` against the hand grade, side by side with the peers' own parsers
//! (peers.json, written by tests/fixtures/scoring/peers.py). The table in docs/SCORING.md is
//! this test's output; `ASSAY_BLESS=1` rewrites it.

use std::collections::BTreeMap;
use std::path::PathBuf;

use assay_core::{AnswerFormat, ChoiceOption, ItemContent};
use assay_eval::scorers::choice::{read_choice, Reading};
use assay_eval::scorers::soft::soft_match_asked;
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn corpus() -> Vec<Value> {
    // ASSAY_CORPUS_FILE: measure another graded set in the same schema (a holdout).
    let path = std::env::var("ASSAY_CORPUS_FILE")
        .map(PathBuf::from)
        .unwrap_or_else(|_| root().join("tests/fixtures/scoring/corpus.jsonl"));
    let text = std::fs::read_to_string(path).expect("corpus.jsonl");
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(n, l)| {
            serde_json::from_str(l).unwrap_or_else(|e| panic!("corpus.jsonl:{}: {e}", n + 1))
        })
        .collect()
}

fn letter_index(s: &str) -> usize {
    (s.as_bytes()[0] - b'A') as usize
}

/// Assay's reading of a line: a letter, "hedged" or "none" (choice); "1"/"0" (short).
fn assay_reading(line: &Value) -> String {
    if line["task"] == "choice" {
        let s = scored(line);
        if s.hedged {
            return "hedged".into();
        }
        return s.parsed.unwrap_or_else(|| "none".into());
    }
    let (ok, _) = soft_match_asked(
        line["question"].as_str(),
        line["reference"].as_str().expect("reference"),
        line["response"].as_str().unwrap_or(""),
    );
    (ok as u8).to_string()
}

/// Whether a reading agrees with the hand grade: the same letter for multiple choice (a
/// hedge and no answer both read as no answer, so peers that have no hedge outcome are not
/// penalised for it), the same verdict for short answers.
fn agrees(line: &Value, reading: &str) -> bool {
    if line["task"] == "choice" {
        let expect = line["expect"].as_str().unwrap_or("none");
        let none = |s: &str| s == "none" || s == "hedged";
        reading == expect || (none(reading) && none(expect))
    } else {
        reading == line["grade"].as_i64().unwrap_or(0).to_string()
    }
}

/// A verdict right by luck: scored like the hand grade, but from another letter.
fn lucky(line: &Value, reading: &str) -> bool {
    if line["task"] != "choice" || agrees(line, reading) {
        return false;
    }
    let correct = line["correct"].as_str().unwrap_or("");
    let grade = line["grade"].as_i64().unwrap_or(0) == 1;
    (reading == correct) == grade
}

fn peer_reading(v: &Value) -> String {
    match v {
        Value::Null => "none".into(),
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => (*b as u8).to_string(),
        other => other.to_string(),
    }
}

struct Tally {
    agree: BTreeMap<(String, String), (usize, usize)>,
    lucky: BTreeMap<String, usize>,
}

fn tally(lines: &[Value], peers: &Value) -> Tally {
    let mut t = Tally {
        agree: BTreeMap::new(),
        lucky: BTreeMap::new(),
    };
    for line in lines {
        let id = line["id"].as_str().expect("id");
        let cat = line["category"].as_str().expect("category").to_string();
        let mut readings = vec![("Assay".to_string(), assay_reading(line))];
        // ASSAY_CORPUS_MISSES: list the lines Assay reads otherwise than the hand grade.
        if std::env::var("ASSAY_CORPUS_MISSES").is_ok() && !agrees(line, &readings[0].1) {
            let s = scored(line);
            eprintln!(
                "MISS {id} [{cat}] read {} (unsure: {}) expect {}/{} ref {:?}\n  {:?}",
                readings[0].1,
                s.evidence.get("unsure").is_some(),
                line["expect"],
                line["grade"],
                line["reference"],
                line["response"].as_str().unwrap_or("")
            );
        }
        if let Some(vs) = peers["verdicts"][id].as_object() {
            for (peer, v) in vs {
                readings.push((peer.clone(), peer_reading(v)));
            }
        }
        for (who, r) in readings {
            for key in [
                cat.clone(),
                format!("all {}", line["task"].as_str().unwrap_or("")),
            ] {
                let e = t.agree.entry((key, who.clone())).or_default();
                e.0 += agrees(line, &r) as usize;
                e.1 += 1;
            }
            *t.lucky.entry(who.clone()).or_default() += lucky(line, &r) as usize;
        }
    }
    t
}

/// One table per task: the categories of that task, Assay and each peer that reads it.
fn table(t: &Tally) -> String {
    let mut out = String::new();
    for (task, prefix, title) in [
        (
            "choice",
            "mc_",
            "Multiple choice: the letter read agrees with the hand grade",
        ),
        (
            "short",
            "sa_",
            "Short answers: the verdict agrees with the hand grade",
        ),
    ] {
        let total = format!("all {task}");
        let mut who: Vec<String> = t
            .agree
            .keys()
            .filter(|k| k.0 == total && k.1 != "Assay")
            .map(|k| k.1.clone())
            .collect();
        who.sort();
        who.insert(0, "Assay".into());
        let mut cats: Vec<String> = t
            .agree
            .keys()
            .filter(|k| k.0.starts_with(prefix))
            .map(|k| k.0.clone())
            .collect();
        cats.sort();
        cats.dedup();
        cats.push(total);
        out += &format!(
            "**{title}**\n\n| category | {} |\n|---|{}\n",
            who.join(" | "),
            "---:|".repeat(who.len())
        );
        for c in &cats {
            let cells: Vec<String> = who
                .iter()
                .map(|w| match t.agree.get(&(c.clone(), w.clone())) {
                    Some((a, n)) => format!("{a}/{n}"),
                    None => "–".into(),
                })
                .collect();
            out += &format!("| {c} | {} |\n", cells.join(" | "));
        }
        if task == "choice" {
            let lucky: Vec<String> = who
                .iter()
                .map(|w| t.lucky.get(w).copied().unwrap_or(0).to_string())
                .collect();
            out += &format!("| right by luck | {} |\n", lucky.join(" | "));
        }
        out += "\n";
    }
    out
}

#[test]
fn assay_agrees_with_the_hand_grade_at_least_as_often_as_every_peer() {
    let lines = corpus();
    assert!(
        lines.len() >= 300 || std::env::var("ASSAY_CORPUS_FILE").is_ok(),
        "the corpus has {} lines",
        lines.len()
    );
    let peers: Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::env::var("ASSAY_PEERS_FILE")
                .map(PathBuf::from)
                .unwrap_or_else(|_| root().join("tests/fixtures/scoring/peers.json")),
        )
        .expect("peers.json"),
    )
    .expect("peers.json parses");
    let t = tally(&lines, &peers);
    let generated = table(&t);
    eprintln!("{generated}");
    for ((cat, who), (a, n)) in &t.agree {
        if who == "Assay" {
            continue;
        }
        let ours = t.agree[&(cat.clone(), "Assay".to_string())].0;
        assert!(
            ours >= *a,
            "{cat}: Assay agrees on {ours}/{n}, {who} on {a}/{n}"
        );
    }
    for (task, min) in [("all choice", 0.97), ("all short", 0.93)] {
        let (a, n) = t.agree[&(task.to_string(), "Assay".to_string())];
        assert!(
            a as f64 >= min * n as f64,
            "{task}: Assay agrees on {a}/{n}"
        );
    }
    assert_eq!(
        t.lucky.get("Assay").copied().unwrap_or(0),
        0,
        "a verdict right by luck"
    );
    // A hedge is its own outcome, never a letter and never "no answer".
    for line in lines.iter().filter(|l| l["expect"] == "hedged") {
        assert_eq!(
            assay_reading(line),
            "hedged",
            "{}: {}",
            line["id"],
            line["response"]
        );
    }

    let doc_path = root().join("docs/SCORING.md");
    let doc = std::fs::read_to_string(&doc_path).expect("docs/SCORING.md");
    let (open, close) = ("<!-- corpus-table -->\n", "<!-- /corpus-table -->");
    let (Some(a), Some(b)) = (doc.find(open), doc.find(close)) else {
        panic!("docs/SCORING.md has no corpus table markers");
    };
    let current = &doc[a + open.len()..b];
    if std::env::var("ASSAY_BLESS").is_ok() {
        let new = format!("{}{generated}{}", &doc[..a + open.len()], &doc[b..]);
        std::fs::write(&doc_path, new).expect("write docs");
    } else {
        assert_eq!(current, generated, "docs/SCORING.md's corpus table is stale: ASSAY_BLESS=1 cargo test -p assay-eval corpus");
    }
}

#[test]
fn the_read_letter_is_one_of_the_options() {
    for line in corpus().iter().filter(|l| l["task"] == "choice") {
        let n = line["options"].as_array().map(Vec::len).unwrap_or(0);
        if let Reading::Letter(i, _) = read_choice(line["response"].as_str().unwrap_or(""), n) {
            assert!(i < n, "{}", line["id"]);
        }
    }
}

/// More graded sets, each written apart from the rules and from the other sets, in free
/// categories: the rules must carry over to them. holdout3.jsonl holds the kinds issue 49 names
/// (elimination, "both", an alternative left open, paraphrased options, a hedged second number,
/// units, clock times, shares, ordinals, yes/no restated, kana readings, compounds).
#[test]
fn the_rules_carry_over_to_graded_sets_written_apart() {
    for name in ["holdout.jsonl", "holdout2.jsonl", "holdout3.jsonl"] {
        carries_over(name, 0.93, 0.93);
    }
}

/// holdout4.jsonl was written blind (its author read only the grading policy, never the rules)
/// in the kinds issue 49 names and in free styles. Multiple choice stays below the other sets:
/// 12 of its 60 replies describe an option in words that share no letters with it ("a cloudy
/// day" for "Overcast", "シェフ" for "料理人"), which only a judge can read (`--judge`).
#[test]
fn the_rules_carry_over_to_a_set_written_blind() {
    // Short answers: two restated yes/no replies name the subject otherwise ("거실 조명이" for
    // "불이", "部屋の電気") and are left unsure for a judge rather than read as yes.
    carries_over("holdout4.jsonl", 0.78, 0.96);
}

/// holdout5.jsonl was written blind in styles real models produce and no rule named (answer
/// tags, JSON, places in the list, romanised replies, dates, double negatives, numerals in kana,
/// Hangul and Roman letters, conditions). Read blind, the rules agreed on 45/60 and 64/90; the
/// kinds it showed were then given rules (docs/SCORING.md), so it now guards them.
#[test]
fn the_rules_hold_on_a_set_written_in_free_styles() {
    carries_over("holdout5.jsonl", 0.93, 0.93);
}

/// holdout6.jsonl was written blind in the styles deployed models write (preambles, the model's
/// own next turn, bounds, noon, currencies, loanwords, casual speech). Read blind, the rules
/// agreed on 56/60 and 69/90; its kinds were then given rules too.
#[test]
fn the_rules_hold_on_a_set_written_in_deployed_models_styles() {
    carries_over("holdout6.jsonl", 0.93, 0.88);
}

/// holdout7.jsonl was written blind in other benchmarks' domains (charts, tables, receipts, forms,
/// maths and science diagrams, maps, screenshots). Read blind by the rules of holdout5, holdout6
/// and the review, the rules agreed on 39/45 and 47/75; its kinds (scale words, 万/억, decimal
/// commas, 割, LaTeX, below zero in words, unit names) were then given rules.
#[test]
fn the_rules_hold_on_charts_documents_and_diagrams() {
    carries_over("holdout7.jsonl", 0.86, 0.82);
}

/// holdout8.jsonl was written blind in further domains (timetables, signs, scoreboards, plots,
/// forms, menus, lab reports, calendars, gauges, floor plans). Read blind by the rules of
/// holdout7 and its review, the rules agreed on 40/45 and 51/75; its kinds (options' times,
/// corrections "not X but Y", scores and sizes, weekdays, powers of ten, pressure and other
/// units, labelled figures, conversions, abbreviations, spaced names) were then given rules.
#[test]
fn the_rules_hold_on_timetables_scoreboards_and_lab_reports() {
    carries_over("holdout8.jsonl", 0.93, 0.9);
}

/// holdout9.jsonl was written blind in yet other domains and in reasoning models' styles
/// (thinking blocks, a verdict on each option, boxed answers). Read blind by the version 5/6
/// rules (holdout8's and its review's), the rules agreed on 42/45 and 62/75; its kinds (verdict
/// lists, thinking blocks, mixed fractions, asides, another size of a measure, a kanji word for
/// a loanword, an alternative offered after けど) were then given rules.
#[test]
fn the_rules_hold_on_packaging_recipes_and_reasoning_replies() {
    carries_over("holdout9.jsonl", 0.95, 0.9);
}

/// holdout11.jsonl: everyday VQA items as the big public benchmarks have them (colours,
/// counts, activities, signs, weather) in the plain styles deployed models answer them with,
/// written blind and read blind by the version 8/9 rules, which no line of it shaped: 45/45 and
/// 68/75. Its misses are synonyms ("Overcast" for cloudy, 台所 for キッチン, 하얀색 for 흰색) that
/// only a judge reads.
#[test]
fn the_rules_hold_on_everyday_items_read_blind() {
    carries_over("holdout11.jsonl", 0.97, 0.9);
}

/// holdout12.jsonl: everyday items of other domains (charts, app screenshots, maps, receipts and
/// price tags, sports, plants and animals, street scenes), written blind and read blind by the
/// version 8/9 rules: 44/45 and 70/75. Two of its misses were hedges scored right ("7月か8月の
/// どちらか", "ピンクか紫のどちらか"), now read as hedges; the others were a figure labelled by a
/// year or by a kanji word inside the question's, and a sum after its parts.
#[test]
fn the_rules_hold_on_charts_receipts_and_screens_read_blind() {
    carries_over("holdout12.jsonl", 0.97, 0.9);
}

/// holdout13.jsonl: items of education and everyday-knowledge benchmarks (science and maths
/// figures, textbook tables, TV frames, menus, notices, floors, prohibitions), written blind and
/// read blind by the version 9/10 rules: 45/45 and 64/75. Its kinds rules can decide (a game
/// clock in minutes and seconds, a prohibition stated as "No X", floors as B1 or 地下1階, 半額
/// and a discount asked, markdown bold after a result, a list's counter, a phrase of kana and
/// kanji by its reading, "X 아니면 Y") were given rules; two paraphrases remain for a judge.
#[test]
fn the_rules_hold_on_textbooks_menus_and_notices() {
    carries_over("holdout13.jsonl", 0.97, 0.9);
}

/// holdout14.jsonl: document and OCR-heavy items (forms, invoices, tickets, labels, calendars,
/// handwriting) with yes/no and comparison questions, written blind and read blind by the
/// version 9/10 rules of holdout13: 45/45 and 68/75. Two of its misses were scored right by
/// mistake (an ID with a digit dropped, read as its last group; "A인 것 같기도 하고 B인 것
/// 같기도" as A), one a figure in 억 asked "몇 억" and one a time of several whose label the
/// question names; the three left (yes/no answered by a comparison) are flagged for a judge.
#[test]
fn the_rules_hold_on_documents_and_yes_no_questions_read_blind() {
    carries_over("holdout14.jsonl", 0.97, 0.9);
}

/// holdout15.jsonl: culture and knowledge items (landmarks, dishes, festivals, artworks, eras,
/// species, brands), written blind and read blind by the version 10/11 rules, which no line of
/// it shaped: 45/45 and 68/75. Its misses are names in another script or spelling (Kiyomizu-dera,
/// Hyundai, 嚴島 for 厳島, 진도개), a translated title, and a count corrected after "아,".
#[test]
fn the_rules_hold_on_culture_and_knowledge_items_read_blind() {
    carries_over("holdout15.jsonl", 0.97, 0.9);
}

/// holdout16.jsonl: standard VQA items answered in small open models' and local servers'
/// styles (template prefixes, the question repeated, lists, replies cut off, English for a
/// Japanese or Korean question), written blind and read blind by the rules of the sixth review:
/// 41/45 and 62/75, the lowest blind figure of the session. Bare lists of three or more things,
/// a repeated question with no answer and か before katakana were then given rules (66/75); what
/// stays is a reply in another language than the reference ("red" for 赤, "lion" for 사자),
/// flagged unsure for a judge.
#[test]
fn the_rules_hold_on_small_models_styles() {
    carries_over("holdout16.jsonl", 0.9, 0.88);
}

/// holdout17.jsonl: a cross-section of benchmark items (spatial relations, comparisons, signs,
/// counting with occlusion, arithmetic on what is shown, times, emotions, actions) in 2025-2026
/// deployed models' styles, written blind and read blind by the rules of the seventh review:
/// 45/45 and 67/75. "Aか、Bかのどちらか", a result after "ので、" and an opening clause that
/// answers with something else then got rules (70/75); what stays is synonyms and Korean words
/// in another form, flagged unsure.
#[test]
fn the_rules_hold_on_a_cross_section_read_blind() {
    carries_over("holdout17.jsonl", 0.97, 0.9);
}

/// holdout18.jsonl: "a day of benchmark traffic" (VQAv2, GQA, TextVQA, MMBench, JA-VLM-Bench
/// and Korean VQA kinds: colours, counts, yes/no, text, materials, brands, prices, sports,
/// weather, emotions) written blind with many lines made to fool a matcher, and read blind by
/// the rules of holdout17 plus the colour forms written before it arrived: 42/45 and 54/75, the
/// lowest blind figure so far. Its kinds then got rules (a kana or Korean word before another
/// noun, options that are colours or kana words, a labelled figure before a connective, sums'
/// counters, articles in a phrase, 製, words in another form, opposite Korean states): 45/45 and
/// 67/75. What stays is synonyms (sofa, 조깅), brands in Latin letters, 草野球 and "table tennis".
#[test]
fn the_rules_hold_on_a_day_of_benchmark_traffic() {
    carries_over("holdout18.jsonl", 0.97, 0.88);
}

/// holdout19.jsonl: document and chart understanding plus everyday scenes (ChartQA, DocVQA,
/// OCRBench, JDocQA and KoDocVQA kinds: values off charts, receipts, tickets, forms, floors),
/// written blind and read blind by the version 11/12 rules: 44/45 and 64/75. Its kinds then got
/// rules (version 12/13: a year after a figure, labels bounded by 지만 and 해서, a label sharing
/// the question's word, a part set aside, floors in words, a unit apart from its figure, a name
/// stated for another label, an option's article): 45/45 and 75/75.
#[test]
fn the_rules_hold_on_documents_and_charts_read_blind() {
    carries_over("holdout19.jsonl", 0.97, 0.97);
}

/// holdout20.jsonl: the long tail (maths and science figures, memes and comics, medical and
/// satellite images, video frames, game and UI screenshots, several images; LaTeX, boxed
/// answers, options numbered (1)-(4), ①-④, ア-エ or 가-라), written blind and read blind by the
/// version 12/13 rules: 34/45 and 55/75. Its kinds then got rules (an option named by the
/// question's marker or by the label the options do not share, a code named and denied, a
/// figure of another dimension, a decimal for a fraction, a share labelled or concluded,
/// Sino-Korean numerals before metric units, a unit's sign before an operator, quotes before
/// a Korean denial, 保存しない, left and right in their forms and languages, where a movement
/// starts): 41/45 and 67/75. What stays is mostly options and replies in other words
/// (descriptions of changes, Korean verb forms) and denials by meaning ("the radius, which
/// looks intact", "still there").
#[test]
fn the_rules_hold_on_the_long_tail_read_blind() {
    carries_over("holdout20.jsonl", 0.88, 0.88);
}

/// holdout21.jsonl: a mixed sample across all common VQA kinds, with the reply styles spread as
/// a model pool produces them (a third terse, a third one or two sentences, a sixth reasoning,
/// a sixth markdown, JSON, LaTeX, another language, refusals), written blind and read blind by
/// the final rules of the session (choice 13, soft_match 14): 43/45 and 68/75. A colour given
/// to another thing than the one asked, a Japanese first impression (一見…に見えます), the option
/// a comparison opens with and "b번 같아요" then got rules: 45/45 and 70/75.
#[test]
fn the_rules_hold_on_a_mixed_sample_read_blind() {
    carries_over("holdout21.jsonl", 0.97, 0.93);
}

/// holdout22.jsonl: Japanese- and Korean-first benchmark items (signs, food, trains, festivals,
/// school exams, forms, prices in 円 and 원, dates in 令和, counters) and English everyday items,
/// in the styles of models tuned for those languages (keigo, 반말, romaji, Hanja, a final
/// 答え/정답 line, corrections in mid-reply), written blind and read blind by the version 15/15
/// rules: 45/45 and 68/75. Its rule-decidable kinds then got rules (Japanese era dates, Hanja
/// read in Hangul by libhangul's table, a Korean premise (이므로) before the answer, a time of the
/// opposite event, a yes led by "but", landmarks named after their city, how a thing is sold
/// labelling no other thing): 45/45 and 75/75.
#[test]
fn the_rules_hold_on_japanese_and_korean_first_items_read_blind() {
    carries_over("holdout22.jsonl", 0.97, 0.90);
}

/// holdout23.jsonl: photos people take in daily life and ask about, as VizWiz, TextVQA and
/// ST-VQA have them (labels, banknotes, medicine boxes, appliance displays, mail, bus numbers),
/// answered in the styles of assistants for blind and low-vision users (an answer then help,
/// every word of a label read out, partial readings, caveats), written blind and read blind by
/// the rules of holdout22 and the eleventh review: 36/45 and 61/75. Its rule-decidable kinds
/// then got rules (the one option stated with a copula, an option said to be what it is not,
/// an article before a figure's phrase, a noun's head or 行き and a pause before a Japanese
/// denial, 模様/柄, numbered side streets, counters of tablets, a figure before a hyphenated
/// noun, a total said as the sum of every figure before it, an alternative the question offers
/// is no restating subject, a month of a year): 42/45 and 69/75. What stays is mostly answers in
/// another language (`Paper jam` for 紙詰まり, `cat` for 고양이), a kind of the reference
/// (청포도 for 포도), a short name (건강보험공단), and a value beside the answer (`그 바로 옆 칸이
/// '울/섬세' 코스예요`).
#[test]
fn the_rules_hold_on_everyday_photos_read_blind() {
    carries_over("holdout23.jsonl", 0.93, 0.92);
}

/// holdout24.jsonl: egocentric and retrieval items (CRAG-MM: brands, prices, years, calories),
/// ambiguous referents (VAGUE) and Japanese and Korean exam and culture items, answered in the
/// styles of retrieval assistants and agent pipelines (citations and source lists, markdown
/// tables, tool traces, JSON and YAML, answer tags, confidences, abstentions, premise
/// corrections), written blind and read blind by the version 16/16 rules and the era years:
/// 45/45 and 65/75. Its rule-decidable kinds then got rules (the answer field of structured
/// output, a bracketed citation is no figure, a decade, a conclusion below a table, a question
/// back asking which is meant, a possessive): 45/45 and 74/75.
#[test]
fn the_rules_hold_on_retrieval_and_agent_replies_read_blind() {
    carries_over("holdout24.jsonl", 0.97, 0.96);
}

/// holdout25.jsonl: grounding, spatial and measuring items (RefCOCO-style referents, rulers,
/// gauges, clocks, scale bars, counts in a region) answered in the styles of small, quantised
/// and specialist models (loops, cut-off replies, boxes and grounding tokens, romanised
/// answers, decimal commas, odd unit spellings, readings between ticks, self-contradictions),
/// written blind and read blind by the same rules as holdout24: 42/45 and 63/75. Its
/// rule-decidable kinds then got rules ("Final:" and a final answer after a sentence, a decimal
/// comma before a unit, "4時15分前", "one and a half", a correction to the opposite side, a
/// correction after the opening clause, a last sentence that is only a figure, the labelled
/// line the question names): 45/45 and 73/75.
#[test]
fn the_rules_hold_on_grounding_and_measuring_replies_read_blind() {
    carries_over("holdout25.jsonl", 0.97, 0.96);
}

/// holdout26.jsonl: video and multi-image items (Video-MME, MVBench, NExT-QA, MMIU, BLINK and
/// Mantis kinds: order of events, counts of events, places in a video, durations, which image,
/// differences) answered in the styles of video and multi-image models (narration, frame by
/// frame, places written every way, ranges, segments summed, caveats about sampled frames),
/// written blind and read blind by the version 17 rules after the thirteenth review: 40/45 and
/// 45/75. Its rule-decidable kinds then got rules (a place in a video read to seconds and a
/// narrow range around it when roughly asked, minutes to the nearest asked, images and frames
/// named by place, a figure about another image than the one asked, the figures of a clock or
/// a place are no duration, half a minute): 43/45 and 65/75. What stays is mostly an event
/// named for the wrong time or image (which no rule ties to its time), synonyms of actions and a
/// Korean option in another verb form.
#[test]
fn the_rules_hold_on_video_and_multi_image_replies_read_blind() {
    carries_over("holdout26.jsonl", 0.95, 0.86);
}

/// holdout27.jsonl: hallucination and perception checks (POPE, HallusionBench, AMBER, MME and
/// MMStar kinds: existence and attribute yes/no, counts, illusions, edited images, charts, false
/// premises) answered by models prone to hallucination and by calibrated assistants (hedges,
/// "no X but a Y", double negatives, a yes taken back, likelihoods, refusals, premise
/// corrections), written blind and read blind by the rules of holdout26: 41/45 and 48/75. Its
/// rule-decidable kinds then got rules (a yes or no taken back after a correction, cannot be
/// determined and refusals answer neither, a stated likelihood, 있긴 한데, denied denials in
/// Japanese and Korean, a restatement after a contrast, no X but a Y, the asked thing absent is
/// zero, "correcting to B"): 42/45 and 70/75.
#[test]
fn the_rules_hold_on_hallucination_and_perception_checks_read_blind() {
    carries_over("holdout27.jsonl", 0.93, 0.93);
}

/// holdout28.jsonl: knowledge-intensive items (OK-VQA, A-OKVQA, InfoSeek, Encyclopedic-VQA and
/// ViQuAE kinds: who designed or painted it, founding years, what a species eats, what a tool
/// is for, materials, origins) answered by knowledge-heavy assistants (encyclopedic prose,
/// candidates, aliases, family names, titles, other scripts, eras, more or less specific
/// answers), written blind and read blind by the rules of holdout27 and the fourteenth review:
/// 43/45 and 57/75. Its rule-decidable kinds then got rules (a family name when a person is
/// asked, a place without its administrative suffix, a title after a name, "Mt." before a
/// name, an option's text after a first thought taken back, "B로 고칩니다"): 44/45 and 64/75.
/// What stays is aliases, hyponyms, demonyms and names in another script, all for a judge.
#[test]
fn the_rules_hold_on_knowledge_intensive_replies_read_blind() {
    carries_over("holdout28.jsonl", 0.97, 0.85);
}

/// holdout29.jsonl: visual maths and science items (MathVista, MathVerse, MathVision, GeoQA,
/// ScienceQA, AI2D and 센터試験/수능 kinds: angles, lines, vertices, probabilities, circuits,
/// forces, powers of ten, life cycles) answered by reasoning and maths-tuned models (LaTeX,
/// \boxed, "####", derivations, a result revised, equal forms, rounded values, wrong units),
/// written blind and read blind by the version 18 rules after the sixteenth review's
/// narrowings: 39/45 and 62/75 (best peer 27/45 and 40/75). Its rule-decidable kinds then got
/// rules (LaTeX and the minus sign read once for every reader, equations by their terms,
/// points with their signs, radians against degrees, E notation, units of force, power and
/// resistance, shares offered together, a hedge taken back by a correction, "####", a
/// conclusion naming another stage): 44/45 and 71/75.
#[test]
fn the_rules_hold_on_maths_and_science_replies_read_blind() {
    carries_over("holdout29.jsonl", 0.97, 0.94);
}

/// holdout30.jsonl: specialist items (VQA-RAD, PathVQA and SLAKE radiology and pathology,
/// RSVQA satellite images, DriveLM and nuScenes-QA driving scenes, industrial inspection and
/// instruments, in Japanese and Korean too) answered in clinical-report and driving-policy
/// styles (findings and impressions, "cannot be excluded", negated findings, patient against
/// image sides, conversions in brackets, 華氏, disclaimers), written blind and read blind by
/// the version 19 rules with the seventeenth review's choice narrowings: 44/45 and 55/75 (best
/// peer 16/45 and 32/75), with four clinical doubts scored right. Its rule-decidable kinds then
/// got rules (doubts that answer neither, findings that name the asked thing, scales before a
/// figure, conversions in brackets, traffic-light colours, how it looks against what it is, a
/// bulleted list of letters, a noun made a verb): 45/45 and 68/75. What stays is restated
/// findings in other words (hepatomegaly, 亀裂 for 欠陥), synonyms of actions (止まる for 停止)
/// and a modifier naming the reference (좌회전 차로), for a judge.
#[test]
fn the_rules_hold_on_specialist_replies_read_blind() {
    carries_over("holdout30.jsonl", 0.97, 0.90);
}

/// holdout31.jsonl: VizWiz accessibility photos, GUI and web-agent screenshots, e-commerce
/// product pages and fine-grained recognition (birds, breeds, plants, mushrooms, cars,
/// aircraft), answered by accessibility assistants, GUI agents with action JSON, shopping
/// assistants and naturalist apps listing candidates with confidences; written blind and read
/// blind by the version 20 rules after the conclusion words were made one list: 42/45 and
/// 53/75 (best peer 10/45 and 36/75). Its rule-decidable kinds then got rules ("unanswerable"
/// answered by a decline, the figure counting the asked thing, the final line of a breakdown,
/// a model's variant, mixes, loanwords by their consonants, quoted text said whole, candidates
/// declined, a colour with a caveat): 45/45 and 68/75, 70/75 after the nineteenth review.
/// What stays is a scientific name for a common one, a cultivar for its tree, a brand of two
/// consonants (Nike for 나이키), a verb phrase paraphrased, and a twelve-pack.
#[test]
fn the_rules_hold_on_accessibility_gui_shopping_and_species_replies_read_blind() {
    carries_over("holdout31.jsonl", 0.97, 0.90);
}

/// adversarial10.jsonl: a tenth reviewer's replies against the rules of holdout20 and the
/// direction forms, written from their code: "right" meaning correct or directly, a direction
/// of another thing, sources the source reader missed, question markers and labels before a
/// self-correction or inside names, a figure of another dimension that is the answer, decimals
/// that measure something, shares concluded for another thing. 0/40 read by the rules it
/// targeted; 21/40 after the narrowings (markers and labels give way to a correction, answer
/// marks open their line, labels need a kanji or two katakana, hyphenated nouns are not whole
/// phrases, a masked figure must be a result, decimals with a unit measure, a conclusion only
/// breaks a tie between labels, sources after 끝/の方, a question asking where from, "you're
/// right", しないと, 違う only at a sentence's end, 아닐 리가 없다). What stays is mostly a
/// direction or a figure of another thing than the one asked, which no rule here ties to its
/// thing.
#[test]
fn the_rules_hold_against_the_tenth_review() {
    carries_over("adversarial10.jsonl", 0.25, 0.59);
}

/// adversarial11.jsonl: an eleventh reviewer's replies against holdout22's rules, written from
/// their code (30 attacks, 10 guards): eras in romaji, Hangul or with the Western year in
/// brackets, spaced Hanja and a second Hanja name left unread, a count the reply goes on from
/// after 이므로, "closely", "how late is it open", 営業開始, a label after the time, "and
/// indeed", landmarks two words on or after a full stop, "alone" and 単品 asked, a letter stated
/// before a doubt about something else. 12/40 read by those rules, 37/40 after they were
/// narrowed; kanji numerals in a date, an era year alone and a simplified Hanja read by the
/// initial-sound rule (丽水 → 여수) then made it 40/40.
#[test]
fn the_rules_hold_against_the_eleventh_review() {
    carries_over("adversarial11.jsonl", 0.97, 0.97);
}

/// adversarial12.jsonl: a twelfth reviewer's replies against holdout23's rules, written from
/// their code (30 attacks, 10 guards): a month of the year beside another (made, expires), a
/// full stop read as a day's separator, eras and two-digit years before 年/년, totals when one
/// item is asked, a total before a later figure, hyphenated nouns that are no units, 以外, 花柄
/// asked what is on the table, a spaced side street, 枚/着 and 本/缶, an alternative said to be
/// what is asked, a first impression or a question stated with a copula, an article before "20
/// dollar" or "¥1,000". 11/40 read by those rules, 36/40 after they were narrowed.
#[test]
fn the_rules_hold_against_the_twelfth_review() {
    carries_over("adversarial12.jsonl", 0.80, 0.93);
}

/// adversarial13.jsonl: a thirteenth reviewer's replies against the version 17 rules of
/// holdout24 and holdout25, written from their code (30 attacks, 10 guards): an answer field
/// overturned by a corrected one, a figure's unit in its own field, labelled prose read as YAML,
/// a quoted or offered question back, a footnote below a table, decades of other things, a
/// decade for a year, a possessive naming another place, "right" as correct, 靴下 and 밖에, a
/// final line naming a synonym, "FINAL:" on a scoreboard, the era's own year asked, a measure
/// as a last bare figure, a bracketed answer, a line's total, a label only a neighbour of the
/// one asked, 가운데 after a comma, 전후. 12/40 read by those rules, 37/40 after they were
/// narrowed.
#[test]
fn the_rules_hold_against_the_thirteenth_review() {
    carries_over("adversarial13.jsonl", 0.75, 0.94);
}

/// adversarial14.jsonl: a fourteenth reviewer's replies against holdout26's rules, written from
/// their code (30 attacks, 10 guards): clock questions read as places in a video, a video's
/// length before the place, "1 min 12 s", two places joined by "and", a range about another
/// event, "around" and 약 in other words, minutes stated beside a place, images compared with,
/// scores and timers written d:dd, a frame rate asked, a bare figure beside an image named, a
/// conclusion about another image, images offered as a hedge. 10/40 read by those rules, 34/40
/// after they were narrowed.
#[test]
fn the_rules_hold_against_the_fourteenth_review() {
    carries_over("adversarial14.jsonl", 0.97, 0.82);
}

/// adversarial15.jsonl: a fifteenth reviewer's replies against holdout27 and holdout28's rules,
/// written from their code (30 attacks, 10 guards): "actually" and "hmm" as corrections of a
/// yes or no, both sides given as likely, 있긴 했는데 … 없어요, "pen" inside "pencils", another
/// thing said absent, a family name for a company, a label before a name, 축구 경기 for 경기도,
/// 大仏殿 and 호박씨 as titles, "is" for "island", "am" inside "team", タイヤ folded to hold
/// いや, a closer look that adds a detail, the answering sentence ahead of a conclusion, a
/// change meant and not made, a doubt conceded. 11/40 read by those rules, 39/40 after they
/// were narrowed.
#[test]
fn the_rules_hold_against_the_fifteenth_review() {
    carries_over("adversarial15.jsonl", 1.0, 0.96);
}

/// adversarial16.jsonl: a sixteenth reviewer's replies against the fifteenth review's
/// narrowings, written from their code (30 attacks, 10 guards): a stressing "actually" before a
/// real correction, a doubt of the answer itself after a caveat, a place that is no modifier,
/// initials before a family name, a city asked with "built", "am I" in a question, イヤホン,
/// a confirming やっぱり, a verb's denial before a noun, と思いますが, カップケーキ, 人物 and
/// 인물, a detail not made out, Cにしようと思います, a conclusion taken back, 반반 치킨, 잘 보이지
/// 않아요, 평소처럼, 밖에 없어요, 야구 경기가, a tail that does not dismiss, 잠깐 as "briefly", a
/// take-back before a closer look, 이미지만. 10/40 read by those rules, 39/40 after they were
/// narrowed.
#[test]
fn the_rules_hold_against_the_sixteenth_review() {
    carries_over("adversarial16.jsonl", 1.0, 0.96);
}

/// adversarial17.jsonl: a seventeenth reviewer's replies against the version 19 rules, written
/// from their code (30 attacks, 10 guards): an aside after the equation or point, "####"
/// headings, one-letter units against codes (I-35W, 32J), a π reference, dollar pairs in
/// Japanese, しかいません, a conclusion that infers or names the thing in another script, a
/// company "built", a relative "where", "whether" about a detail, "person riding", 있나요
/// without a particle, 앉을 수는 없어요, a bare 없어요 after a correction, 근교인 경기, "Hmm" as a
/// correction, にしようか, A＝×/B＝○, いやまてよ, 잠깐 생각해 보니. 11/40 read by those rules,
/// 38/40 after they were narrowed (left: a verb's relative clause before the asked noun,
/// 手をつけていないケーキ, and an official name in another script, 숭례문 for 남대문).
#[test]
fn the_rules_hold_against_the_seventeenth_review() {
    carries_over("adversarial17.jsonl", 1.0, 0.93);
}

/// adversarial18.jsonl: an eighteenth reviewer's replies against this round's narrowings (the
/// seventeenth review's and holdout30's), written from their code (30 attacks, 10 guards):
/// "Hmm, no —", に変えます, にしようかと思います, marks then undecided, a supposed D라면, a
/// route's figure under another prefix, an aside's π, a figure in brackets after π, "so it's
/// Beijing", "whether … or …", a woman wearing a hat, an indirect "where", the share eaten and
/// the share left, a limit in brackets, a point after "but", an earlier premise, "(1/2)(x − 2)",
/// another finding's doubt, 気胸様, 兄は, 猫しかいません, a change of another thing, 자고 있나요,
/// 볼 수 없어요, a bare 없어요 after the reply's own question, 정지하지 말고, 말하면. 10/40 read by
/// those rules, 38/40 after they were narrowed (left: letters under "Ruled out:" headings, and
/// both sides named after a contrast of appearance, flagged unsure).
#[test]
fn the_rules_hold_against_the_eighteenth_review() {
    carries_over("adversarial18.jsonl", 0.88, 0.96);
}

/// adversarial19.jsonl: a nineteenth reviewer's replies against holdout31's rules, written
/// from their code (30 attacks, 10 guards): declines of a detail after an answer, guesses the
/// guess words missed ("If I had to guess", 多分), declines they missed (判読できません, "can’t",
/// 안 보입니다), a mixing bowl, seafood mix, a profile's fields beside a decline, an inch mark,
/// a title quoted with its author, つまり as a clog, に従って, によって, 결국 with a verb, 라면 as
/// ramen, "Answer: 3 children", 세 분, 2頭, a part of a whole said as all, a price before the
/// sale, "10-12min", "pink" for パンケーキ and "dark" for 트럭. 10/40 read by those rules, 39/40
/// after they were narrowed (left: シーフードミックス for シーフード, a katakana compound).
#[test]
fn the_rules_hold_against_the_nineteenth_review() {
    carries_over("adversarial19.jsonl", 1.0, 0.97);
}

/// adversarial9.jsonl: a ninth reviewer's replies against the label rules of holdout19,
/// written from their code: labels sharing one word, years after a figure that do not label
/// it, answer marks inside labels, floors named in passing, parts set aside that answer,
/// articles inside compounds. 4/40 read by the rules it targeted; 31/40 after they were
/// narrowed (the one-shared-word label withdrawn, "in" alone before a year, a result particle
/// and its verb ending a clause, answer marks only opening their line, English label words
/// compared as written, the part the question asks kept). What stays is names after labels
/// the rule does not see (unmarked, a paraphrase, a negated asked word) and "the dog bowl"
/// read by similarity.
#[test]
fn the_rules_hold_against_the_ninth_review() {
    carries_over("adversarial9.jsonl", 0.8, 0.77);
}

/// adversarial8.jsonl: an eighth reviewer's replies against the colour forms and the modifier
/// rules of holdout18, written from their code: a colour of another object or a shade (navy,
/// teal, cream), a colour in a name (Earl Grey, 골드만삭스, 보라 씨), a denial or a first
/// impression in one script around a colour in another, hiragana inside words (おもしろい),
/// ないし, 틀림없, 아닌가 싶, a kana word before a kanji noun not at the sentence's end, titles
/// and counts after a Korean noun. 0/40 before its rules, 31/40 after; what stays is a colour
/// in a transliterated team name, an unspaced compound (강아지인형), a katakana modifier, and
/// replies naming a second colour for another part, which get no verdict (unsure).
#[test]
fn the_rules_hold_against_the_eighth_review() {
    carries_over("adversarial8.jsonl", 0.97, 0.77);
}

/// adversarial7.jsonl: a seventh reviewer's replies, each scored right by the rules of
/// holdout16 although a careful grader marks it wrong because of a hedge, a negation or a unit
/// (the issue's hard line): a trailing "though", bare "maybe", 일지도; negated lists ("aren't
/// apples and pears", 白や黒ではなく, 흰색과 검은색이 아니라); "far from"; には見えません;
/// 이라고 하기는 어려워요; £ for $, years for months, 坪 and 평 for ㎡, ユーロ for ドル, million
/// for bn, pairs for people, lb for kg; "yes and no"; none at all asked emptiness. 10/40 before
/// its rules, 40/40 after.
#[test]
fn the_rules_hold_on_replies_wrong_by_a_hedge_a_negation_or_a_unit() {
    carries_over("adversarial7.jsonl", 0.97, 0.97);
}

/// adversarial6.jsonl: a sixth reviewer's replies against the version 10/11 rules (brackets
/// holding an alternative, format instructions after the question, a subgroup asked, sums said
/// as one, things prohibited together, 아니면 after a noun ending in 이, the second of two
/// offered, time gone, scales the question names, a label of another unit).
#[test]
fn the_rules_hold_on_replies_written_to_break_the_holdout14_rules() {
    carries_over("adversarial6.jsonl", 0.85, 0.95);
}

/// adversarial5.jsonl: a fifth reviewer's replies against the holdout12/13 rules (か inside
/// アフリカ, "회원이 아니면" as a condition, an age range after a count, a list of candidates, a
/// label inside the question's word, a sum of groups, a drive's length, "Not swimming", a
/// building's height, an exit's code, 半額セール as a name, 3名 and 6알 as the asked counter).
#[test]
fn the_rules_hold_on_replies_written_to_break_the_holdout13_rules() {
    carries_over("adversarial5.jsonl", 0.97, 0.9);
}

/// adversarial4.jsonl: a fourth reviewer's replies against the holdout9 rules (thinking blocks
/// between replies and quoted, dates read as mixed fractions, "i.e. 2 on each side", "though the
/// price may be", the absent noun in another place, おおさじ, けど-caveats, 結果 of the first
/// half, 즉석, 조선 시대, verdict lists copied from the image then a stated letter).
#[test]
fn the_rules_hold_on_replies_written_to_break_the_holdout9_rules() {
    carries_over("adversarial4.jsonl", 0.6, 0.9);
}

/// holdout10.jsonl was written blind in further domains and in styles rare in test sets
/// (footnotes, typos, full-width, spaces inside numbers, codes spaced otherwise, answers in
/// another language). Read blind by the version 6/7 rules: 29/45 and 52/75, the lowest of
/// any set; the kinds rules can decide were then given rules (docs/SCORING.md), and what stays
/// (replies in another language, synonyms, paraphrased options) is flagged unsure.
#[test]
fn the_rules_hold_on_styles_rare_in_test_sets() {
    carries_over("holdout10.jsonl", 0.82, 0.8);
}

/// adversarial.jsonl: replies a reviewer wrote, reading the rules of holdout5 as a hostile user,
/// to make each of them misfire (a place of a thing read as an option, "if" that is no condition,
/// a breakdown after the total, "to be exact" that narrows, romanised collisions like "you" for
/// 여우, fractions read as dates, 천장 read as 1000). Before the rules were narrowed: 0/21 and
/// 1/39.
#[test]
fn the_rules_hold_on_replies_written_to_break_them() {
    carries_over("adversarial.jsonl", 0.95, 0.9);
}

/// adversarial2.jsonl: a second reviewer's replies against the holdout7 rules (prices with "$",
/// "7만" as "only 7", "minus" as a sum, "(2,5)" as a pair, 割引, "Account (kg)"-style words, a
/// breakdown after the answer). It guards the narrowed rules.
#[test]
fn the_rules_hold_on_replies_written_to_break_the_number_rules() {
    carries_over("adversarial2.jsonl", 0.75, 0.9);
}

/// adversarial3.jsonl: a third reviewer's replies against the holdout8 rules (a halftime score
/// before the final one, "3-4 players", sizes in millimetres, "Closed Mondays", "Mon–Sat", a
/// denial of another thing, an "Answer:" heading, "53 km, which is 35 km farther", "Rocky Mt.",
/// "the 1990s", a teacher's "正解：" quoted from the image, "이 수진 씨"). Three choice replies
/// name two options' times; they are read as no letter and flagged unsure for a judge.
#[test]
fn the_rules_hold_on_replies_written_to_break_the_holdout8_rules() {
    carries_over("adversarial3.jsonl", 0.25, 0.95);
}

/// real.jsonl: replies recorded in the formats' samples (../shared/formats), 18 of them
/// verbatim model outputs (Heron-Bench's Claude 3 Opus, Gemini 1.0 Pro Vision and GPT-4V
/// answers), graded by hand. Many short-answer references are whole sentences (Heron-Bench,
/// ja-vg-vqa): the rules read their answer part, and the rest (the same fact said otherwise)
/// is a judge's work.
#[test]
fn the_rules_hold_on_recorded_replies() {
    carries_over("real.jsonl", 0.95, 0.70);
}

fn carries_over(name: &str, choice_floor: f64, short_floor: f64) {
    let text = std::fs::read_to_string(root().join("tests/fixtures/scoring").join(name))
        .expect("holdout file");
    let lines: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("holdout line"))
        .collect();
    for task in ["choice", "short"] {
        let of: Vec<&Value> = lines.iter().filter(|l| l["task"] == task).collect();
        let agree = of.iter().filter(|l| agrees(l, &assay_reading(l))).count();
        let floor = if task == "choice" {
            choice_floor
        } else {
            short_floor
        };
        assert!(
            agree as f64 >= floor * of.len() as f64,
            "{name} {task}: {agree}/{} agree with the hand grade",
            of.len()
        );
        assert!(
            // A reply read as no answer scores 0 like a wrong pick would; only a letter read
            // in place of another is luck.
            !of.iter().any(|l| {
                let r = assay_reading(l);
                lucky(l, &r) && r != "none" && r != "hedged"
            }),
            "{task}: a verdict right by luck"
        );
    }
}

/// The scorer's verdict on a line, with its evidence (for unsure).
fn scored(line: &Value) -> assay_eval::scorers::Scored {
    use assay_eval::scorers::{ScoreContext, Scorer};
    let response = line["response"].as_str().unwrap_or("");
    let mut item = ItemContent {
        question: line["question"].as_str().unwrap_or("").into(),
        ..Default::default()
    };
    if line["task"] == "choice" {
        item.format = AnswerFormat::MultipleChoice;
        item.options = line["options"]
            .as_array()
            .expect("options")
            .iter()
            .map(|o| ChoiceOption {
                text: o.as_str().unwrap_or("").into(),
                kind: None,
            })
            .collect();
        item.correct_option = Some(letter_index(line["correct"].as_str().expect("correct")));
        assay_eval::scorers::choice::ChoiceScorer.score(&item, response, &ScoreContext::default())
    } else {
        item.format = AnswerFormat::ShortAnswer;
        item.answer = line["reference"].as_str().map(String::from);
        assay_eval::scorers::soft::SoftMatch.score(&item, response, &ScoreContext::default())
    }
}

/// The rules abstain where they are likely wrong: on the sets written apart, most replies the
/// rules misread are flagged unsure (so the hybrid scorer sends them to a judge), while few
/// replies are flagged at all (the judge's cost). The figures are docs/SCORING.md's.
#[test]
fn the_rules_flag_their_misreadings_as_unsure_and_few_others() {
    let mut lines = Vec::new();
    for name in [
        "holdout4.jsonl",
        "holdout5.jsonl",
        "holdout6.jsonl",
        "holdout7.jsonl",
        "holdout8.jsonl",
        "holdout9.jsonl",
        "holdout10.jsonl",
        "holdout11.jsonl",
        "holdout12.jsonl",
        "holdout13.jsonl",
        "holdout14.jsonl",
        "holdout15.jsonl",
        "holdout16.jsonl",
        "holdout17.jsonl",
        "holdout18.jsonl",
        "holdout19.jsonl",
        "holdout20.jsonl",
        "holdout21.jsonl",
        "holdout22.jsonl",
        "holdout23.jsonl",
        "holdout24.jsonl",
        "holdout25.jsonl",
        "holdout26.jsonl",
        "holdout27.jsonl",
        "holdout28.jsonl",
        "holdout29.jsonl",
        "holdout30.jsonl",
        "holdout31.jsonl",
        "real.jsonl",
    ] {
        let text = std::fs::read_to_string(root().join("tests/fixtures/scoring").join(name))
            .expect("graded set");
        lines.extend(
            text.lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| serde_json::from_str::<Value>(l).expect("graded line")),
        );
    }
    let (mut wrong, mut wrong_flagged, mut flagged) = (0, 0, 0);
    for l in &lines {
        let unsure = scored(l).evidence.get("unsure").is_some();
        flagged += usize::from(unsure);
        if !agrees(l, &assay_reading(l)) {
            wrong += 1;
            wrong_flagged += usize::from(unsure);
        }
    }
    eprintln!(
        "{} replies: {flagged} unsure ({:.0} judge calls per 1,000), {wrong_flagged} of {wrong} misreadings among them",
        lines.len(),
        flagged as f64 * 1000.0 / lines.len() as f64
    );
    assert!(
        wrong_flagged * 10 >= wrong * 8,
        "{wrong_flagged} of {wrong} misreadings flagged"
    );
    assert!(flagged * 100 <= lines.len() * 25, "{flagged} flagged");
}

/// The peers' own parsers on the sets written apart (peers.py run on each file, its readings in
/// peers_<set>.json): Assay agrees with the hand grade at least as often as every peer, per task.
#[test]
fn assay_leads_every_peer_on_the_sets_written_apart() {
    for name in [
        "holdout4",
        "holdout5",
        "holdout6",
        "holdout8",
        "holdout9",
        "holdout10",
        "holdout11",
        "holdout12",
        "holdout13",
        "holdout14",
        "holdout15",
        "holdout16",
        "holdout17",
        "holdout18",
        "holdout19",
        "holdout20",
        "holdout21",
        "holdout22",
        "holdout23",
        "holdout24",
        "holdout25",
        "holdout26",
        "holdout27",
        "holdout28",
        "holdout29",
        "holdout30",
        "holdout31",
        "real",
    ] {
        let dir = root().join("tests/fixtures/scoring");
        let text = std::fs::read_to_string(dir.join(format!("{name}.jsonl"))).expect("set");
        let lines: Vec<Value> = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).expect("line"))
            .collect();
        let peers: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("peers_{name}.json"))).expect("peers"),
        )
        .expect("peers parse");
        let t = tally(&lines, &peers);
        for task in ["all choice", "all short"] {
            let assay = t.agree[&(task.to_string(), "Assay".to_string())].0;
            for ((key, who), (agree, of)) in &t.agree {
                if key == task && who != "Assay" {
                    assert!(
                        assay >= *agree,
                        "{name} {task}: Assay {assay}/{of}, {who} {agree}"
                    );
                }
            }
        }
    }
}

/// No reply makes a scorer panic: every graded reply of every set, cut at many places (mid
/// character runs, mid sentence marks of three bytes, inside brackets), and each set's replies
/// scored against the others' references. A panic here would stop a whole evaluation.
#[test]
fn no_reply_cut_anywhere_makes_a_scorer_panic() {
    let dir = root().join("tests/fixtures/scoring");
    let mut lines: Vec<Value> = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("scoring fixtures") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "jsonl") {
            let text = std::fs::read_to_string(&path).expect("set");
            lines.extend(
                text.lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(|l| serde_json::from_str::<Value>(l).expect("graded line")),
            );
        }
    }
    assert!(lines.len() > 1500, "{} lines", lines.len());
    let mut scored_count = 0;
    for (k, line) in lines.iter().enumerate() {
        let response = line["response"].as_str().unwrap_or("");
        // Every other character boundary (and the end).
        let cuts: Vec<usize> = response
            .char_indices()
            .map(|(i, _)| i)
            .step_by(2)
            .chain([response.len()])
            .collect();
        for cut in cuts {
            let mut l = line.clone();
            l["response"] = Value::from(&response[..cut]);
            let _ = scored(&l);
            scored_count += 1;
        }
        // Another line's reply against this line's reference and question.
        let other = &lines[(k * 7 + 3) % lines.len()];
        let mut l = line.clone();
        l["response"] = other["response"].clone();
        let _ = scored(&l);
    }
    assert!(scored_count > lines.len());
}
